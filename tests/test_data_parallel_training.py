"""Data-parallel training: on 8 devices the same numbers as on one, an all-reduce in the chunk, clear errors.

The 8-device runs share ONE subprocess on 8 simulated CPU devices
(tests/eight_devices.py): it trains on learnable synthetic digits, saves each
run's final parameters under ``tmp_path`` and prints the rest as JSON. The
one-device cases run here, in pytest's own JAX (one CPU device).
"""

from __future__ import annotations

import dataclasses

import jax
import numpy as np
import pytest

from playground.mnist.catalogue import ArrayData
from playground.mnist.config import TrainConfig
from playground.owner.training.loop import train
from tests.eight_devices import MARKER, run_driver
from tests.mnist_folders import synthetic_digits

SETTINGS = {"layers": [784, 64, 10], "batch_size": 64, "epochs": 2, "seed": 0}
N_TRAIN, N_TEST = 2048, 512  # 32 steps an epoch
# On 8 simulated CPU devices (2 epochs, 64 steps, two runs alike) the losses differ by at most 3.0e-7
# relative (SGD; Adam 1.2e-7), the final params by at most 9.7e-8 absolute (Adam; SGD 8.9e-8), which is up to
# 1.4% relative at weights near zero, hence an atol. Each device sums its 8 images, then the all-reduce sums the
# 8 partial sums: the same numbers added in another order, so float32 rounding (~6e-8 relative a sum) builds
# up over the steps. rtol 1e-4 / atol 1e-5, as for the one-call chunks against per-step dispatch, is 100+ times
# those (room for longer runs and other XLA versions) and still far below a real fault: a wrong
# gradient scale or a skipped step moves the loss by percents.
RTOL, ATOL = 1e-4, 1e-5

# name -> (optimizer, data_parallel, block: None for the device's own, 5 for an accelerator's path
# with blocks of 5 steps and each epoch's last 32 % 5 = 2 in one more)
RUNS = {
    "single_adam": ("adam", False, None),
    "parallel_adam": ("adam", True, None),
    "parallel_adam_blocks": ("adam", True, 5),
    "single_sgd": ("sgd", False, None),
    "parallel_sgd": ("sgd", True, None),
}

DRIVER = f"""
import json, sys
from pathlib import Path
import jax, numpy as np
from playground.owner.training import steps as worker_steps
from playground.mnist.catalogue import ArrayData
from playground.mnist.config import TrainConfig
from playground.owner.training.loop import train
from playground.owner.training.placement import Placement
from playground.owner.training.steps import make_optimizer
from playground.mlp import init_params
from tests.mnist_folders import synthetic_digits

payload = json.loads(sys.argv[1])
folder, settings = Path(payload["folder"]), payload["settings"]
images, labels = synthetic_digits(payload["n_train"] + payload["n_test"], seed=1)
n_train = payload["n_train"]
data = ArrayData(images[:n_train], labels[:n_train], images[n_train:], labels[n_train:])

def run(name, optimizer, data_parallel, block):
    config = TrainConfig(**settings, optimizer=optimizer, data_parallel=data_parallel)
    updates = list(train(config, data, update_every_s=0.02, block=block))
    np.savez(folder / f"{{name}}.npz", *[array for layer in updates[-1]["params"] for array in layer])
    return {{"losses": [[u["step"], u["loss"]] for u in updates if u["loss"] is not None],
             "devices": sorted({{u["devices"] for u in updates}}), "device": updates[-1]["device"],
             "accuracy": updates[-1]["test_accuracy"], "steps": updates[-1]["step"], "updates": len(updates)}}

def chunk_hlo(placement):
    # The loop's own pieces (Placement, make_train_chunk), lowered for one chunk as the loop compiles them.
    optimizer = make_optimizer(TrainConfig(**settings, optimizer="adam"))
    params = init_params(jax.random.key(0), settings["layers"])
    params, opt_state = placement.replicate((params, optimizer.init(params)))
    train_images, train_labels, order = placement.replicate(
        (data.train_images, data.train_labels.astype(np.int32), np.arange(n_train)))
    chunk = worker_steps.make_train_chunk(optimizer, settings["batch_size"], placement.batch)
    losses = worker_steps.initial_losses(n_train // settings["batch_size"])
    return chunk.lower(params, opt_state, worker_steps.initial_smoothed(), losses, train_images, train_labels,
                       order, np.int32(0), np.int32(1)).compile().as_text()

def refusal(batch_size):
    try:
        train(TrainConfig(**{{**settings, "batch_size": batch_size}}, data_parallel=True), data)
    except ValueError as exc:
        return str(exc)
    return None

results = {{name: run(name, *how) for name, how in payload["runs"].items()}}
results["hlo"] = {{"single": chunk_hlo(Placement.on(jax.devices()[0])),
                  "parallel": chunk_hlo(Placement.data_parallel())}}
results["refusal"] = refusal(100)
print({MARKER!r} + json.dumps(results))
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("data-parallel")
    out = run_driver(DRIVER, {"folder": str(folder), "settings": SETTINGS, "runs": RUNS, "n_train": N_TRAIN,
                              "n_test": N_TEST})
    for name in RUNS:
        with np.load(folder / f"{name}.npz") as saved:
            out[name]["params"] = [saved[f"arr_{i}"] for i in range(len(saved.files))]
    return out


def common_losses(first: dict, second: dict) -> tuple[list[float], list[float]]:
    """The two runs' losses at the steps both reported (chunk lengths follow the clock; epoch ends always report)."""
    theirs = dict(second["losses"])
    pairs = [(loss, theirs[step]) for step, loss in first["losses"] if step in theirs]
    assert len(pairs) >= 3
    return [a for a, _ in pairs], [b for _, b in pairs]


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_eight_devices_train_as_one_does(results, optimizer):
    single, parallel = results[f"single_{optimizer}"], results[f"parallel_{optimizer}"]
    np.testing.assert_allclose(*common_losses(parallel, single), rtol=RTOL)
    for ours, theirs in zip(parallel["params"], single["params"], strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL)
    assert parallel["steps"] == single["steps"] == 2 * (N_TRAIN // SETTINGS["batch_size"])
    assert abs(parallel["accuracy"] - single["accuracy"]) <= 0.01
    assert single["accuracy"] > 0.9  # the bands are learnable: the runs really train


def test_the_run_reports_its_eight_devices(results):
    parallel, single = results["parallel_adam"], results["single_adam"]
    assert parallel["devices"] == [8] and single["devices"] == [1]
    assert parallel["device"] == "CPU · cpu × 8 (data-parallel)" and single["device"] == "CPU · cpu"
    assert parallel["updates"] >= 4  # several updates, so several losses were compared above


def test_blocks_match_the_chunks_in_data_parallel_mode(results):
    chunked, stepped = results["parallel_adam"], results["parallel_adam_blocks"]
    np.testing.assert_allclose(*common_losses(chunked, stepped), rtol=RTOL)
    for ours, theirs in zip(chunked["params"], stepped["params"], strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL)
    assert stepped["steps"] == chunked["steps"]


def test_the_compiled_chunk_all_reduces_the_gradients_only_over_a_mesh(results):
    hlo = results["hlo"]
    assert "all-reduce" in hlo["parallel"] and "all-reduce" not in hlo["single"]
    # Each device flattens its own 64 / 8 = 8 images for the first layer; one device flattens all 64.
    assert "f32[8,784]" in hlo["parallel"] and "f32[8,784]" not in hlo["single"]


def test_a_batch_that_does_not_split_over_the_devices_is_refused(results):
    assert results["refusal"] == "`batch_size` 100 does not split evenly over 8 devices; use a multiple of 8"


def small_data() -> ArrayData:
    images, labels = synthetic_digits(400, seed=2)
    return ArrayData(images[:300], labels[:300], images[300:], labels[300:])


def test_one_device_is_a_mesh_of_one_with_the_same_numbers():
    config = TrainConfig(layers=(784, 32, 10), batch_size=30, epochs=2, optimizer="adam")
    plain = list(train(config, small_data()))
    mesh_of_one = list(train(dataclasses.replace(config, data_parallel=True), small_data()))
    assert {u["devices"] for u in mesh_of_one} == {1}
    assert mesh_of_one[-1]["device"] == f"{plain[-1]['device']} × 1 (data-parallel)"
    np.testing.assert_allclose(mesh_of_one[-1]["loss"], plain[-1]["loss"], rtol=RTOL)
    for (w1, b1), (w2, b2) in zip(mesh_of_one[-1]["params"], plain[-1]["params"], strict=True):
        np.testing.assert_allclose(w1, w2, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(b1, b2, rtol=RTOL, atol=ATOL)


def test_a_data_parallel_run_takes_no_single_device():
    with pytest.raises(ValueError, match="every local device: pass no `device`"):
        train(TrainConfig(layers=(784, 32, 10), data_parallel=True), small_data(), device=jax.devices()[0])
