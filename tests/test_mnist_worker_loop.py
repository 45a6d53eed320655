"""The training stream: its metric dicts, step accounting, chunks against a plain loop of steps, stops, real MNIST."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest

from playground.mlp import batched_predict, init_params
from playground.mnist.catalogue import ArrayData
from playground.mnist.config import TrainConfig
from playground.owner.training import epochs, pipeline
from playground.owner.training import steps as worker_steps
from playground.owner.training.evaluation import as_batches, classify
from playground.owner.training.loop import train
from playground.owner.training.pipeline import next_chunk_steps
from playground.owner.training.pixels import as_float
from playground.owner.training.prepare import TRAIN_EVAL_SIZE, epoch_order, first_state, spread
from playground.owner.training.steps import make_optimizer
from tests.mnist_folders import NO_REAL_DIGITS, REAL_DIGITS, real_digits

TINY = (784, 32, 10)
WAIT_S = 60.0  # the ceiling of a wait for what the test itself releases
KEYS = {"phase", "step", "epoch", "epochs", "loss", "test_accuracy", "epoch_accuracy", "train_accuracy",
        "epoch_train_accuracy", "samples_per_s", "seconds_per_epoch", "elapsed_s", "losses", "first_loss_step",
        "epoch_ends", "device", "devices", "n_train", "n_test", "done"}


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
    ends = [end for u in updates for end in u["epoch_ends"]]
    assert [(end["step"], end["epoch"]) for end in ends] == [(9, 1.0), (18, 2.0), (27, 3.0)]
    assert [end["epoch_accuracy"] for end in ends] == [u["epoch_accuracy"] for u in epoch_ends]


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
    assert spread(60_000, TRAIN_EVAL_SIZE)[[0, -1]].tolist() == [0, 59_999]
    assert len(spread(60_000, 10_000)) == 10_000 and len(spread(7, 10_000)) == 7
    assert spread(5, 1).tolist() == [0]


def assert_same_training(ours: list[dict], theirs: list[dict], rtol: float, atol: float) -> None:
    """The same losses at the steps both runs reported (chunk lengths follow the clock; epoch ends always report),
    the same final parameters, as many steps."""
    by_step = {u["step"]: u["loss"] for u in theirs if u["loss"] is not None}
    common = [(u["loss"], by_step[u["step"]]) for u in ours if u["step"] in by_step and u["loss"] is not None]
    assert len(common) >= 2
    np.testing.assert_allclose(*zip(*common, strict=True), rtol=rtol)
    for (w1, b1), (w2, b2) in zip(ours[-1]["params"], theirs[-1]["params"], strict=True):
        np.testing.assert_allclose(w1, w2, rtol=rtol, atol=atol)
        np.testing.assert_allclose(b1, b2, rtol=rtol, atol=atol)
    assert ours[-1]["step"] == theirs[-1]["step"]


def plain_loop(config: TrainConfig, data: ArrayData) -> tuple[list[float], list]:
    """The reference: the loop's own first state and permutations, one jitted optimiser step after another, as a
    user would write it; each step's loss and the last parameters."""
    import jax

    optimizer = make_optimizer(config)
    step = jax.jit(lambda params, opt_state, images, labels: worker_steps.optimizer_step(
        optimizer, params, opt_state, images, labels))
    params, opt_state = first_state(config)
    n, size = len(data.train_labels), config.batch_size
    losses = []
    for epoch in range(config.epochs):
        order = epoch_order(config.seed, epoch, n)
        for i in range(n // size):
            batch = order[i * size:(i + 1) * size]
            params, opt_state, loss = step(params, opt_state, data.train_images[batch], data.train_labels[batch])
            losses.append(float(loss))
    return losses, jax.device_get(params)


@pytest.mark.parametrize("optimizer", ["sgd", "momentum", "adam"])
def test_one_call_chunks_train_as_a_plain_loop_of_steps(optimizer):
    config = TrainConfig(layers=TINY, batch_size=25, epochs=2, optimizer=optimizer, seed=3)
    data = synthetic(seed=1)
    chunked = run(config, data, update_every_s=0.02)
    losses, params = plain_loop(config, data)
    assert chunked[-1]["step"] == 24
    np.testing.assert_allclose(step_losses(chunked), losses, rtol=1e-4)
    for (w1, b1), (w2, b2) in zip(chunked[-1]["params"], params, strict=True):
        np.testing.assert_allclose(w1, w2, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(b1, b2, rtol=1e-4, atol=1e-5)


def test_stop_after_the_second_update():
    stop = threading.Event()
    stream = train(TrainConfig(layers=TINY, batch_size=10, epochs=100), synthetic(), stop.is_set,
                   update_every_s=0.05)
    seen = [next(stream), next(stream)]
    stop.set()
    rest = list(stream)
    final = rest[-1]
    assert [(u["phase"], u["stopped"], u["done"]) for u in rest[:-1]] == [("finishing", True, False)]
    assert final["done"] and final["stopped"] is True
    # The chunk queued behind the one reported (the pipeline) still runs; no other starts. A chunk stays in its
    # epoch (30 steps).
    assert seen[1]["step"] < final["step"] <= seen[1]["step"] + 30 < 100 * 30
    assert len(final["params"]) == 2 and final["epoch_accuracy"] is None


def test_stop_mid_chunk_with_the_default_model():
    """The flag set from another thread while a full-length chunk runs: at most that chunk is finished, then the
    final update.

    30,000 training images make an epoch (234 steps) longer than a chunk, so the
    chunks grow to their full ~0.2 s; the final update then measures all 10,000
    test images, as it would on MNIST.
    """
    set_at: list[float] = []
    stream = train(TrainConfig(epochs=100), synthetic(n_train=30_000, n_test=10_000), lambda: bool(set_at))
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
    # The flag is read before each chunk: the chunk it came in ends,
    # and the one queued behind it; no other starts, and at most the first of the two is reported as training.
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
    assert next_chunk_steps(4, 40_000, 0.2) == 8  # far too short: grow, but at most 2x
    assert next_chunk_steps(100, 125, 0.2) == 25  # too long: shrink at once
    assert next_chunk_steps(100, 500, 0.2) == 100
    assert next_chunk_steps(1, 0.2, 0.2) == 1


def _chunks(seconds_per_step: float, epochs: int = 4, steps_per_epoch: int = 468) -> list[list[pipeline.Piece]]:
    """The chunks a pace (0.2 s, blocks of 16) plans for a device that takes ``seconds_per_step``."""
    pace, chunks, clock = pipeline.Pace(target_s=0.2, block=16, batch_size=128), [], 0.0
    for pieces in pace.chunks(epochs, steps_per_epoch):
        chunks.append(pieces)
        n = sum(piece.steps for piece in pieces)
        pace.record(n, clock, clock + n * seconds_per_step)
        clock += n * seconds_per_step
    return chunks


def test_an_epochs_short_last_chunk_does_not_shrink_the_next_epochs_chunks():
    sizes = [piece.steps for pieces in _chunks(0.01) for piece in pieces]  # a 0.2 s chunk: 20 steps, 16 in blocks
    assert sizes[0] == 16 and set(sizes[1:]) <= {16, 468 % 16}, sizes
    assert all(len(pieces) == 1 for pieces in _chunks(0.01))  # none reaches into the next epoch


def test_a_fast_devices_chunks_run_whole_epochs_each_piece_an_epochs_rest_or_one_whole():
    """On a device that trains an epoch in 4.7 ms (as a TPU does MNIST), a 0.2 s chunk holds dozens of epochs: a
    chunk goes on past its epoch's end with whole epochs, so it ends inside an epoch only where it began in it."""
    chunks = _chunks(1e-5, epochs=100)
    pieces = [piece for chunk in chunks for piece in chunk]
    assert [(p.epoch, p.first) for p in pieces] == sorted((p.epoch, p.first) for p in pieces)  # in order, once each
    assert sum(p.steps for p in pieces) == 100 * 468
    for chunk in chunks:
        for piece in chunk[1:]:
            assert (piece.first, piece.steps) == (0, 468)  # after the first piece: whole epochs only
        assert chunk[0].first + chunk[0].steps == 468 or len(chunk) == 1  # the first runs to its epoch's end
    assert max(len(chunk) for chunk in chunks) >= 10, [len(chunk) for chunk in chunks]  # many epochs a chunk
    assert all(sum(p.steps for p in chunk) <= 20_000 for chunk in chunks)  # no longer than the pace's 0.2 s


def test_a_chunks_time_runs_from_when_it_was_queued_or_the_one_before_it_ended():
    pace = pipeline.Pace(target_s=0.2, block=1, batch_size=10)
    assert pace.record(10, queued_at=0.0, done_at=1.0) == 100.0  # 100 samples in 1 s
    # Queued at 0.5 behind the first, done at 1.5: it ran from 1.0, so 100 samples in 0.5 s more; the window
    # holds both: 200 samples in 1.5 s.
    assert pace.record(10, queued_at=0.5, done_at=1.5) == pytest.approx(200 / 1.5)
    # The first chunk after the first epoch starts the window afresh: the warm-up's chunks leave it.
    assert pace.record(10, queued_at=1.4, done_at=1.75, afresh=True) == pytest.approx(100 / 0.25)


@pytest.mark.skipif(not REAL_DIGITS, reason=NO_REAL_DIGITS)
def test_real_mnist_digits_reach_95_percent():
    images, labels = real_digits()
    data = ArrayData(images[:8000], labels[:8000], images[8000:], labels[8000:])
    # Adam 1e-3, 8 epochs: 96.7-97.1% over seeds 0-2 when measured, about 2 s of training on 2 CPU cores.
    config = TrainConfig(optimizer="adam", learning_rate=1e-3, epochs=8, batch_size=128, seed=0)
    final = run(config, data)[-1]
    assert final["test_accuracy"] >= 0.95, final["test_accuracy"]
    assert final["step"] == 8 * (8000 // 128) and final["n_test"] == 2000


def _pieces(n_train: int = 200, batch_size: int = 8):
    import jax

    data = synthetic(n_train=n_train)
    optimizer = make_optimizer(TrainConfig(optimizer="adam"))
    images, labels = jax.device_put((data.train_images, data.train_labels.astype(np.int32)))
    order = jax.random.permutation(jax.random.key(3), n_train)

    def fresh_state():
        params = init_params(jax.random.key(0), TINY)
        return worker_steps.TrainState(params, optimizer.init(params), worker_steps.initial_smoothed(),
                                      worker_steps.initial_losses(n_train // batch_size))
    return optimizer, batch_size, fresh_state, images, labels, order, data


def test_blocks_train_exactly_as_one_call_per_chunk():
    """An accelerator's chunk (blocks of 16 steps, and an epoch's last 25 % 16 = 9 in one more block) gives the
    CPU's numbers."""
    import jax

    optimizer, batch_size, fresh_state, images, labels, order, _ = _pieces()
    steps_per_epoch = 200 // batch_size  # 25
    chunks = worker_steps.compile_chunks(optimizer, batch_size, None, fresh_state(), images, labels, order)
    blocks = worker_steps.compile_blocks(optimizer, batch_size, None, 16, steps_per_epoch, fresh_state(), images,
                                         labels, order)
    results = []
    for run, pieces in ((chunks, [(0, 25)]), (blocks, [(0, 16), (16, 9)]), (blocks, [(0, 25)])):
        state = fresh_state()
        for first, n in pieces:
            state = run(state, order, first, n)
        results.append((jax.device_get(state.params), worker_steps.smoothed_value(state.smoothed),
                        int(state.smoothed[1])))
    (one, loss_one, count_one), *others = results
    for params, loss, count in others:
        assert count == count_one == steps_per_epoch
        np.testing.assert_allclose(loss, loss_one, rtol=1e-6)
        for (w1, b1), (w2, b2) in zip(one, params, strict=True):
            np.testing.assert_allclose(w2, w1, rtol=1e-5, atol=1e-7)
            np.testing.assert_allclose(b2, b1, rtol=1e-5, atol=1e-7)
    with pytest.raises(ValueError, match="whole 16-step blocks"):
        blocks(fresh_state(), order, 0, 20)  # would need a 4-step block, never compiled
    with pytest.raises(ValueError, match="block_steps must be from 1 to the epoch's 25 steps"):
        worker_steps.compile_blocks(optimizer, batch_size, None, 26, steps_per_epoch, fresh_state(), images,
                                    labels, order)


def test_a_measurement_queued_before_the_next_chunk_sees_the_params_it_was_given():
    """The pipeline's premise: the next chunk reuses (is donated) the parameters' buffers, yet a classification
    queued before it classifies with the old parameters."""
    import jax
    import jax.numpy as jnp

    optimizer, batch_size, fresh_state, images, labels, order, data = _pieces()
    batches = jax.device_put(as_batches(data.test_images, 60))
    for run in (worker_steps.compile_chunks(optimizer, batch_size, None, fresh_state(), images, labels, order),
                worker_steps.compile_blocks(optimizer, batch_size, None, 5, 25, fresh_state(), images, labels,
                                            order)):
        state = run(fresh_state(), order, 0, 5)
        kept = jax.tree.map(jnp.copy, state.params)  # on the device: a host read would keep the buffers from reuse
        queued = classify(state.params, batches)
        later = run(state, order, 5, 20)
        assert state.params[0][0].is_deleted()  # donated to the chunk after
        expected = classify(kept, batches)
        assert np.array_equal(np.asarray(queued), np.asarray(expected))
        assert not np.allclose(later.params[0][0], kept[0][0])  # the chunk after did train


def test_the_next_chunk_is_queued_before_a_chunk_is_reported(monkeypatch):
    queued_steps = [0]  # steps queued so far, as the loop queues them

    def counting(compile_runner):
        def compile_and_count(*args, **kwargs):
            run = compile_runner(*args, **kwargs)

            def counted(state, order, first, n):
                queued_steps.append(queued_steps[-1] + n)
                return run(state, order, first, n)
            return counted
        return compile_and_count

    monkeypatch.setattr(worker_steps, "compile_chunks", counting(worker_steps.compile_chunks))
    reported = []
    for update in train(TrainConfig(layers=TINY, batch_size=10, epochs=3), synthetic(), update_every_s=0.02):
        if update["phase"] == "training" and not update["done"]:
            reported.append((update["step"], queued_steps[-1]))
    assert len(reported) >= 3
    assert all(queued > step for step, queued in reported), reported  # one chunk more than the update's


def test_a_stop_is_heard_while_the_host_waits_for_the_device(monkeypatch):
    """The first chunk's measurement stays on its way until the test releases it, and the Stop comes while the host
    waits for it: the loop says "finishing" at once, without it (the final update measures anew), as the server's
    2 s grace after a Stop needs however long a chunk or an epoch's measurement takes."""
    from playground.owner.training.evaluation import Evaluation, Measurement

    stop, release = threading.Event(), threading.Event()

    class Held:
        """A classification the device has not finished; the host's first look at it brings the Stop."""

        def is_ready(self) -> bool:
            stop.set()
            return release.is_set()

        def block_until_ready(self) -> Held:
            stop.set()
            release.wait()
            return self

    start, measured = Evaluation.start, []

    def start_and_hold(self, params, epoch_ended):
        measured.append(epoch_ended)
        return Measurement({"test_accuracy": (self.estimate, Held())}) if len(measured) == 1 else \
            start(self, params, epoch_ended)

    monkeypatch.setattr(Evaluation, "start", start_and_hold)
    ceiling = threading.Timer(WAIT_S, release.set)  # a loop that waits for it anyway gets it, late, and fails below
    ceiling.start()
    try:
        stream = train(TrainConfig(layers=TINY, batch_size=10, epochs=5), synthetic(), stop.is_set,
                       update_every_s=0.02)
        assert next(stream)["phase"] == "compiling"
        finishing = next(stream)
        assert not release.is_set()  # said while the measurement was still on its way
        assert (finishing["phase"], finishing["stopped"]) == ("finishing", True)
    finally:
        ceiling.cancel()
        release.set()
    final = next(stream)
    assert final["done"] and final["stopped"] is True and final["step"] > 0 and final["test_accuracy"] is not None


def test_the_pause_is_asked_at_each_chunks_edge_with_the_work_on_its_way_and_before_the_final_measurement():
    """The device owner's turns (owner/turns.py) hold a run at a chunk's edge: the loop hands them the arrays of the
    chunk on its way (to wait for before pausing), and asks once more before the final measurement, which waits
    for its turn even after a stop (its should_stop never says stop)."""
    import jax

    asked = []

    def pause(queued, should_stop):
        asked.append((list(queued), should_stop()))
        return None

    updates = run(TrainConfig(layers=TINY, batch_size=10, epochs=3), synthetic(), pause=pause, update_every_s=0.02)
    *edges, (final_queued, final_stop) = asked
    training = [u for u in updates if u["phase"] == "training" and not u["done"]]
    assert len(edges) == len(training) >= 3  # one edge before each chunk but the first, each reported
    assert all(queued and all(isinstance(array, jax.Array) for array in queued) for queued, _ in edges)
    assert final_queued == [] and final_stop is False
    assert updates[-1]["done"] and updates[-1]["step"] == 90


def test_a_chunk_seen_done_before_a_pause_is_timed_to_then_not_to_the_pauses_end(monkeypatch):
    """A paused run's samples/s counts the device's work, not the time the run waited for a job's session: the
    chunk drained before the pause is timed to when the pause saw it done (its return value)."""
    recorded, record = [], pipeline.Pace.record
    monkeypatch.setattr(pipeline.Pace, "record",
                        lambda self, steps, queued_at, done_at, **afresh: recorded.append(done_at) or
                        record(self, steps, queued_at, done_at, **afresh))
    import jax

    edges = []

    def pause(queued, should_stop):
        if not queued:
            return None
        jax.block_until_ready(queued)
        edges.append(time.perf_counter())  # when this pause saw the chunk done: the chunk's end
        return edges[-1]

    run(TrainConfig(layers=TINY, batch_size=10, epochs=2), synthetic(), pause=pause, update_every_s=0.02)
    assert len(edges) >= 2 and set(edges) <= set(recorded)


def test_a_stop_heard_in_a_pause_ends_the_run_at_once_and_the_final_measurement_still_asks_its_turn():
    stop = threading.Event()
    asked = []

    def pause(queued, should_stop):
        asked.append(bool(queued))
        if len(asked) == 2:
            stop.set()  # as turns.py does: a paused run that hears a stop returns at once
            assert should_stop()
        return None

    updates = run(TrainConfig(layers=TINY, batch_size=10, epochs=5), synthetic(), stop.is_set, pause=pause,
                  update_every_s=0.02)
    assert asked == [True, True, False]  # no chunk after the stop; the final measurement asked for its turn
    finishing, final = updates[-2:]
    assert (finishing["phase"], finishing["stopped"]) == ("finishing", True)
    assert final["done"] and final["stopped"] and 0 < final["step"] < 150 and final["test_accuracy"] is not None


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_a_run_in_blocks_gives_the_one_call_runs_numbers(optimizer):
    """The accelerator's path (``block``), run here on the CPU, through the whole loop: the same losses, the same
    parameters, and every epoch measured."""
    config = TrainConfig(layers=TINY, batch_size=12, epochs=3, optimizer=optimizer, seed=2)  # 25 steps an epoch
    data = synthetic(seed=4)
    blocked = run(config, data, block=4, update_every_s=0.02)
    assert_same_training(blocked, run(config, data, update_every_s=0.02), 1e-5, 1e-6)
    assert blocked[-1]["step"] == 75 and blocked[-1]["epoch_accuracy"] is not None
    assert [end["step"] for u in blocked for end in u["epoch_ends"]] == [25, 50, 75]
    steps = [u["step"] for u in blocked if u["phase"] == "training"]
    assert all(step % 25 % 4 == 0 or step % 25 == 0 for step in steps), steps  # whole blocks, or an epoch's end


def step_losses(updates: list[dict]) -> list[float]:
    """Every step's loss, in the order the updates sent them, each update's picking up where the last one ended."""
    losses: list[float] = []
    for update in updates:
        if update["losses"]:
            assert update["first_loss_step"] == len(losses) + 1, (update["first_loss_step"], len(losses))
            losses += update["losses"]
    return losses


@pytest.mark.parametrize("how", [{"update_every_s": 0.01}, {"update_every_s": 1.0}, {"block": 1},
                                 {"block": 3}, {"block": 25},
                                 {"whole_epochs": True, "update_every_s": 1.0}])
def test_a_run_sends_each_steps_loss_once_whatever_its_chunks(how):
    """One epoch of 25 steps: exactly 25 losses, each as a plain loop of optimiser steps computes it, however
    the run was cut into chunks (tiny ones, one for the epoch, blocks of 3 with a short last one)."""

    config = TrainConfig(layers=TINY, batch_size=12, epochs=1, optimizer="adam", seed=5)
    data = synthetic(seed=6)
    updates = run(config, data, **how)
    losses = step_losses(updates)
    assert len(losses) == updates[-1]["step"] == 25
    expected, _ = plain_loop(config, data)
    np.testing.assert_allclose(losses, expected, rtol=1e-5)


def test_a_stopped_run_sends_the_losses_of_every_step_it_ran():
    stop = threading.Event()
    stream = train(TrainConfig(layers=TINY, batch_size=10, epochs=100), synthetic(), stop.is_set,
                   update_every_s=0.02)
    updates = []
    for update in stream:
        updates.append(update)
        if update["phase"] == "training":
            stop.set()
    assert updates[-1]["stopped"] and len(step_losses(updates)) == updates[-1]["step"] > 0


@pytest.mark.parametrize("optimizer", ["sgd", "momentum", "adam"])
def test_the_first_state_is_he_initialised_and_the_optimisers_own(optimizer):
    """Made on the host with NumPy (nothing compiled): the same seed the same weights, another seed others; each
    layer's weights with He's spread, sqrt(2 / n_in); zero biases; and the optimiser's state as optax makes it."""
    import jax

    config = TrainConfig(layers=(784, 512, 64, 10), optimizer=optimizer, seed=3)
    params, opt_state = first_state(config)
    again, _ = first_state(config)
    other, _ = first_state(TrainConfig(layers=(784, 512, 64, 10), optimizer=optimizer, seed=4))
    for (w, b), (w2, _), (w3, _), n_in in zip(params, again, other, config.layers, strict=False):
        assert w.dtype == np.float32 and np.array_equal(w, w2) and not np.array_equal(w, w3)
        assert w.std() == pytest.approx(np.sqrt(2 / n_in), rel=0.05) and not b.any()
    expected = make_optimizer(config).init(params)
    assert jax.tree.structure(opt_state) == jax.tree.structure(expected)
    for ours, theirs in zip(jax.tree.leaves(opt_state), jax.tree.leaves(expected), strict=True):
        np.testing.assert_array_equal(ours, theirs)
        assert ours.dtype == theirs.dtype


def test_chunks_of_many_epochs_measure_every_epoch_as_one_epoch_chunks_do():
    """Where an epoch is shorter than a chunk, one update brings many epoch ends (``epoch_ends``), each measured on
    the parameters of its own epoch's end: the same figures as a run whose chunks never cross an epoch."""
    config, data = TrainConfig(layers=TINY, batch_size=30, epochs=12, seed=3), synthetic(seed=7)  # 10 steps an epoch
    long_chunks = run(config, data, update_every_s=5.0)
    short_chunks = run(config, data, update_every_s=1e-4)

    def ends(updates):
        return [end for update in updates for end in update["epoch_ends"]]

    assert len([u for u in long_chunks if u["epoch_ends"]]) < 12  # some update brought several
    assert [(end["step"], end["epoch"]) for end in ends(long_chunks)] == [(10 * e, float(e)) for e in range(1, 13)]
    for long, short in zip(ends(long_chunks), ends(short_chunks), strict=True):
        assert (long["epoch_accuracy"], long["epoch_train_accuracy"]) == (short["epoch_accuracy"],
                                                                          short["epoch_train_accuracy"])
    times = [end["elapsed_s"] for end in ends(long_chunks)]
    assert times == sorted(times) and times[-1] <= long_chunks[-1]["elapsed_s"]
    for update in long_chunks:  # the scalars are the update's last epoch end
        last = update["epoch_ends"][-1] if update["epoch_ends"] else {"epoch_accuracy": None}
        assert update["epoch_accuracy"] == last["epoch_accuracy"]
    assert step_losses(long_chunks) == pytest.approx(step_losses(short_chunks), rel=1e-6)


@pytest.mark.parametrize("block", [None, 4])
# A tiny update_every_s: the two chunks queued before the first is timed are whole epochs, the rest pieces.
@pytest.mark.parametrize(("update_every_s", "whole"), [(5.0, 6), (1e-4, 2)])
def test_whole_epochs_as_programs_of_their_own_train_as_the_chunks_do(block, update_every_s, whole, monkeypatch):
    """An accelerator's whole epochs (one permutation, a scan of known length: epochs.make_train_epoch), run here on
    the CPU beside the chunks' loop: the same losses, the same epochs' accuracies, the same parameters. Such a run
    begins with a whole epoch; where an epoch outlasts a chunk (a tiny ``update_every_s`` here) the chunks after
    it are pieces of epochs, run by the chunks' program, compiled then."""
    config, data = TrainConfig(layers=TINY, batch_size=30, epochs=6, seed=1), synthetic(seed=2)  # 10 steps an epoch
    whole_epochs, compile_epochs = [], epochs.compile_epochs

    def counted(*args):
        epoch = compile_epochs(*args)
        return lambda state, order: whole_epochs.append(order) or epoch(state, order)

    monkeypatch.setattr(epochs, "compile_epochs", counted)
    ours = run(config, data, update_every_s=update_every_s, whole_epochs=True, block=block)
    assert len(whole_epochs) == whole
    theirs = run(config, data, update_every_s=update_every_s, whole_epochs=False, block=block)
    assert step_losses(ours) == pytest.approx(step_losses(theirs), rel=1e-6) and len(step_losses(ours)) == 60
    assert [end["epoch_accuracy"] for u in ours for end in u["epoch_ends"]] == [
        end["epoch_accuracy"] for u in theirs for end in u["epoch_ends"]]
    assert_same_training(ours, theirs, 1e-5, 1e-6)
