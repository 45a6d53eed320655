"""The training stream: its metric dicts, step accounting, one-call vs per-step equality, stopping, real MNIST."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest

from playground.mnist.catalogue import ArrayData
from playground.mnist.config import TrainConfig
from playground.worker.training import loop as worker_loop
from playground.worker.training import steps as worker_steps
from playground.worker.training.loop import _next_chunk_steps, make_optimizer, train
from playground.worker.training.model import batched_predict
from playground.worker.training.steps import as_float
from tests.mnist_folders import NO_REAL_DIGITS, REAL_DIGITS, real_digits

TINY = (784, 32, 10)
KEYS = {"phase", "step", "epoch", "epochs", "loss", "test_accuracy", "epoch_accuracy", "train_accuracy",
        "epoch_train_accuracy", "samples_per_s", "elapsed_s", "device", "devices", "n_train", "n_test", "done"}


def synthetic(n_train: int = 300, n_test: int = 120, seed: int = 0) -> ArrayData:
    """Random digits whose label is the brightest of ten horizontal bands: learnable, and quick to make."""
    rng = np.random.default_rng(seed)

    def split(n):
        images = rng.integers(0, 100, (n, 28, 28), dtype=np.uint8)
        labels = rng.integers(0, 10, n)
        for image, label in zip(images, labels, strict=True):
            image[2 * label + 4:2 * label + 6] += 150
        return images, labels

    return ArrayData(*split(n_train), *split(n_test))


def run(config: TrainConfig, data: ArrayData, *args, **kwargs) -> list[dict]:
    return list(train(config, data, *args, **kwargs))


@pytest.fixture(scope="module")
def updates() -> list[dict]:
    return run(TrainConfig(layers=TINY, batch_size=32, epochs=3, optimizer="adam"), synthetic(),
               update_every_s=0.05, estimate_every_s=0.01, estimate_size=50)


def test_first_update_comes_before_the_compile(monkeypatch):
    built = []  # each training chunk made to be compiled, as it is made
    make_train_chunk = worker_steps.make_train_chunk
    monkeypatch.setattr(worker_steps, "make_train_chunk",
                        lambda *args, **kwargs: built.append(args) or make_train_chunk(*args, **kwargs))
    stream = train(TrainConfig(layers=TINY, epochs=1), synthetic())
    first = next(stream)
    assert not built  # said before anything is compiled, however long the compile then takes
    assert first["phase"] == "compiling" and first["step"] == 0 and first["loss"] is None
    assert set(first) == KEYS and first["done"] is False
    next(stream)
    assert len(built) == 1  # the compile comes after it
    stream.close()


def test_metric_stream_keys_and_types(updates):
    *running, finishing, final = updates
    assert len(running) >= 3
    for update in running:
        assert set(update) == KEYS
        assert update["phase"] in ("compiling", "training") and update["done"] is False
        assert type(update["step"]) is int and type(update["epoch"]) is float
        assert update["epochs"] == 3 and (update["n_train"], update["n_test"]) == (300, 120)
        assert update["device"].startswith("CPU · ") and update["devices"] == 1
        assert type(update["samples_per_s"]) is float and type(update["elapsed_s"]) is float
        json.dumps(update)
    for update in running[1:]:
        assert update["phase"] == "training" and update["samples_per_s"] > 0
        assert type(update["loss"]) is float and np.isfinite(update["loss"])
        assert type(update["test_accuracy"]) is float and 0 <= update["test_accuracy"] <= 1
    # The update before the last says the steps are over and the final measurement comes next.
    assert set(finishing) == KEYS | {"stopped"} and (finishing["phase"], finishing["stopped"]) == ("finishing", False)
    assert finishing["done"] is False and finishing["step"] == final["step"] > running[-1]["step"]
    json.dumps(finishing)
    assert set(final) == KEYS | {"stopped", "params", "test_predictions"}
    assert final["done"] is True and final["stopped"] is False
    json.dumps({k: v for k, v in final.items() if k not in ("params", "test_predictions")})
    assert [(w.shape, b.shape, w.dtype, b.dtype) for w, b in final["params"]] == [
        ((784, 32), (32,), np.float32, np.float32), ((32, 10), (10,), np.float32, np.float32)]
    predictions = final["test_predictions"]
    assert predictions.shape == (120,) and np.issubdtype(predictions.dtype, np.integer)
    assert final["test_accuracy"] == pytest.approx(np.mean(predictions == synthetic().test_labels))
    assert final["test_accuracy"] > 0.8  # the bands are easy: the loop really trains


def test_steps_and_epochs(updates):
    # 300 images in batches of 32: 9 steps per epoch, the last 12 images of each permutation left out.
    steps = [u["step"] for u in updates]
    assert steps == sorted(steps) and steps[-1] == 27
    assert all(u["epoch"] == pytest.approx(u["step"] / 9) for u in updates)
    assert updates[-1]["epoch"] == 3.0
    epoch_ends = [u for u in updates if u["epoch_accuracy"] is not None]
    assert [u["step"] for u in epoch_ends] == [9, 18, 27]
    assert all(u["epoch_accuracy"] == u["test_accuracy"] for u in epoch_ends)
    assert updates[-1]["epoch_accuracy"] == updates[-1]["test_accuracy"]


def test_training_accuracy_is_the_models_accuracy_on_training_images(updates):
    final, data = updates[-1], synthetic()
    params = [(np.asarray(w), np.asarray(b)) for w, b in final["params"]]
    predictions = np.argmax(np.asarray(batched_predict(params, as_float(data.train_images))), axis=1)
    assert final["train_accuracy"] == pytest.approx(np.mean(predictions == data.train_labels))  # all 300 images
    assert final["epoch_train_accuracy"] == final["train_accuracy"]
    epoch_ends = [u for u in updates if u["epoch_train_accuracy"] is not None]
    assert [u["step"] for u in epoch_ends] == [9, 18, 27]
    estimates = [u["train_accuracy"] for u in updates if u["phase"] == "training" and u["train_accuracy"] is not None]
    assert len(estimates) >= 3 and all(type(a) is float and 0 <= a <= 1 for a in estimates)


def test_the_training_sample_is_spread_over_the_whole_training_set():
    assert worker_loop._spread(60_000, worker_loop.TRAIN_EVAL_SIZE)[[0, -1]].tolist() == [0, 59_999]
    assert len(worker_loop._spread(60_000, 10_000)) == 10_000 and len(worker_loop._spread(7, 10_000)) == 7
    assert worker_loop._spread(5, 1).tolist() == [0]


@pytest.mark.parametrize("optimizer", ["sgd", "momentum", "adam"])
def test_one_call_chunks_and_per_step_dispatch_agree(optimizer):
    config = TrainConfig(layers=TINY, batch_size=25, epochs=2, optimizer=optimizer, seed=3)
    data = synthetic(seed=1)
    chunked = run(config, data, multi_step=True, update_every_s=0.02)
    stepped = run(config, data, multi_step=False, update_every_s=0.02)
    # Chunk lengths follow the clock, so compare the steps both reported (epoch ends at least).
    by_step = {u["step"]: u["loss"] for u in stepped if u["loss"] is not None}
    common = [(u["loss"], by_step[u["step"]]) for u in chunked if u["step"] in by_step and u["loss"] is not None]
    assert len(common) >= 2
    np.testing.assert_allclose(*zip(*common, strict=True), rtol=1e-4)
    for (w1, b1), (w2, b2) in zip(chunked[-1]["params"], stepped[-1]["params"], strict=True):
        np.testing.assert_allclose(w1, w2, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(b1, b2, rtol=1e-4, atol=1e-5)
    assert chunked[-1]["step"] == stepped[-1]["step"] == 24


@pytest.mark.parametrize("multi_step", [True, False])
def test_stop_after_the_second_update(multi_step):
    stop = threading.Event()
    stream = train(TrainConfig(layers=TINY, batch_size=10, epochs=100), synthetic(), stop.is_set,
                   multi_step=multi_step, update_every_s=0.05)
    seen = [next(stream), next(stream)]
    stop.set()
    rest = list(stream)
    final = rest[-1]
    assert [(u["phase"], u["stopped"], u["done"]) for u in rest[:-1]] == [("finishing", True, False)]
    assert final["done"] and final["stopped"] is True
    assert final["step"] == seen[1]["step"] < 100 * 30  # not one step after the stop
    assert len(final["params"]) == 2 and final["epoch_accuracy"] is None


@pytest.mark.parametrize("multi_step", [True, False])
def test_stop_mid_chunk_with_the_default_model(multi_step):
    """The flag set from another thread while a full-length chunk runs: at most that chunk is finished, then the
    final update.

    30,000 training images make an epoch (234 steps) longer than a chunk, so the
    chunks grow to their full ~0.2 s; the final update then measures all 10,000
    test images, as it would on MNIST.
    """
    set_at: list[float] = []
    stream = train(TrainConfig(epochs=100), synthetic(n_train=30_000, n_test=10_000), lambda: bool(set_at),
                   multi_step=multi_step)
    assert next(stream)["phase"] == "compiling"
    assert next(stream)["phase"] == "training"  # compiled, trained one chunk
    timer = threading.Timer(1.0, lambda: set_at.append(time.perf_counter()))  # inside a chunk, most likely
    timer.start()
    phases, after_stop = [], []  # after_stop: the updates that came once the flag was set
    for update in stream:
        phases.append(update["phase"])
        if set_at:
            after_stop.append(update)
        if update["done"]:
            break
    timer.join()
    assert update["stopped"] is True and update["step"] < 100 * 234
    assert phases[-2] == "finishing"  # what a waiting server sees before the final measurement
    # The flag is read before each chunk (and, one step at a time, before each step): the chunk it came in ends,
    # and no other starts.
    chunks = [u["step"] for u in after_stop if u["phase"] == "training" and not u["done"]]
    assert len(chunks) <= 1 and after_stop[-2]["phase"] == "finishing", [u["phase"] for u in after_stop]


def test_stop_before_training_still_returns_params():
    final = run(TrainConfig(layers=TINY), synthetic(), lambda: True)[-1]
    assert final["stopped"] is True and final["step"] == 0 and final["loss"] is None
    assert final["test_accuracy"] is not None and len(final["params"]) == 2


def test_bad_input_is_refused_at_the_call():
    with pytest.raises(ValueError, match="batch_size.*larger than the 300 training images"):
        train(TrainConfig(layers=TINY, batch_size=301), synthetic())
    data = synthetic()
    with pytest.raises(ValueError, match="train_images must be uint8"):
        train(TrainConfig(layers=TINY), ArrayData(data.train_images / 255, *list(vars(data).values())[1:]))
    with pytest.raises(ValueError, match="test_labels must be classes 0 to 9"):
        train(TrainConfig(layers=TINY), ArrayData(*list(vars(data).values())[:3], data.test_labels + 1))
    with pytest.raises(ValueError, match="needs train_images"):
        train(TrainConfig(layers=TINY), object())


def test_make_optimizer_follows_the_config():
    import optax

    for name in ("sgd", "momentum", "adam"):
        assert isinstance(make_optimizer(TrainConfig(optimizer=name)), optax.GradientTransformation)


def test_chunk_length_aims_at_the_target_and_grows_gently():
    assert _next_chunk_steps(4, 0.001, 0.2) == 8  # far too short: grow, but at most 2x
    assert _next_chunk_steps(100, 0.4, 0.2) == 50  # too long: shrink at once
    assert _next_chunk_steps(100, 0.2, 0.2) == 100
    assert _next_chunk_steps(1, 5.0, 0.2) == 1
    assert _next_chunk_steps(4, 0.0, 0.2) == 8


@pytest.mark.skipif(not REAL_DIGITS, reason=NO_REAL_DIGITS)
def test_real_mnist_digits_reach_95_percent():
    images, labels = real_digits()
    data = ArrayData(images[:8000], labels[:8000], images[8000:], labels[8000:])
    # Adam 1e-3, 8 epochs: 96.7-97.1% over seeds 0-2 when measured, about 2 s of training on 2 CPU cores.
    config = TrainConfig(optimizer="adam", learning_rate=1e-3, epochs=8, batch_size=128, seed=0)
    final = run(config, data)[-1]
    assert final["test_accuracy"] >= 0.95, final["test_accuracy"]
    assert final["step"] == 8 * (8000 // 128) and final["n_test"] == 2000


@pytest.mark.parametrize("n_steps", [5, 16, 21])
def test_blocks_of_steps_train_exactly_as_one_step_a_turn(n_steps):
    """An accelerator's chunk (blocks of 16 steps, the last one partly thrown away) gives the CPU's numbers."""
    import jax

    from playground.worker.training import steps as worker_steps
    from playground.worker.training.model import init_params

    data = synthetic(n_train=200)
    optimizer = make_optimizer(TrainConfig(optimizer="adam"))
    images, labels = jax.device_put((data.train_images, data.train_labels.astype(np.int32)))
    order = jax.random.permutation(jax.random.key(3), 200)
    results = []
    for block in (1, 16):
        params = init_params(jax.random.key(0), TINY)
        chunk = worker_steps.make_train_chunk(optimizer, 8, None, block)
        params, _, smoothed = chunk(params, optimizer.init(params), worker_steps.initial_smoothed(), images, labels,
                                    order, np.int32(2), np.int32(n_steps))
        results.append((jax.device_get(params), worker_steps.smoothed_value(smoothed), int(smoothed[1])))
    (one, loss_one, count_one), (blocks, loss_blocks, count_blocks) = results
    assert count_one == count_blocks == n_steps  # the thrown-away steps are not counted in the loss either
    np.testing.assert_allclose(loss_blocks, loss_one, rtol=1e-6)
    for (w1, b1), (w2, b2) in zip(one, blocks, strict=True):
        np.testing.assert_allclose(w2, w1, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(b2, b1, rtol=1e-5, atol=1e-7)


def test_chunks_on_an_accelerator_come_in_whole_blocks():
    assert [_next_chunk_steps(n, s, 0.2, 16) for n, s in ((16, 0.01), (32, 0.01), (64, 0.4), (16, 5.0))] == \
        [32, 64, 32, 16]
