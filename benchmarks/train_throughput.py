"""Training throughput: the app's path (device owner + metric stream) against bare jitted JAX loops of the same MLP.

Run: ``.venv/bin/python benchmarks/train_throughput.py [--epochs 3] [--rounds 3]``

All variants train the 784-512-256-10 MLP of the German blog post "Need for
Speed: JAX" with SGD (batch 128) on the same 60,000 images (the real MNIST test
digits tiled six times where ../shared has them, synthetic digits otherwise)
and evaluate the full 10,000-image test set at each epoch end, as that post's
loop does. They alternate round by round, so the shared machine's noise hits
them alike, each in a process of its own (one process at a time may open a TPU
chip: this one never opens the device):

- bare, per-step: data on the device, one jitted update per batch (the blog post's loop);
- bare, scanned: one jitted ``lax.scan`` over all of an epoch's batches
  (both in a process of bare_device.py);
- app: ``TrainingService`` -> the device owner (started for the round, as the
  app starts it) -> ``owner/training/loop.train`` (adaptive multi-step chunks,
  periodic quick test estimates, metric messages), timed here from the updates
  as they arrive, between the first and the last training update.

Samples/s exclude compilation (the bare loops are warmed up; the app's window
starts after its first chunk). Ratio = app / the faster bare loop.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402
from jax import lax  # noqa: E402

from playground import mlp as model  # noqa: E402
from playground.mnist.config import TrainConfig  # noqa: E402
from playground.mnist.idx import write_idx  # noqa: E402
from playground.server import worker_pools  # noqa: E402
from playground.server.config import Settings  # noqa: E402
from playground.server.device_owner.handle import DeviceOwner  # noqa: E402
from playground.server.pools.accelerator import detect  # noqa: E402
from playground.server.training.service import TrainingService  # noqa: E402
from tests.mnist_folders import REAL_DIGITS, real_digits, synthetic_digits  # noqa: E402

LAYERS, BATCH, LEARNING_RATE = (784, 512, 256, 10), 128, 0.1


class NoTraining(RuntimeError):
    """A run that never trained long enough to be timed: its error or its last update says why."""


def dataset() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    images, labels = real_digits() if REAL_DIGITS else synthetic_digits(10_000)
    return np.tile(images, (6, 1, 1)), np.tile(labels, 6), images, labels


def bare_loops(train_x, train_y, test_x, test_y, epochs: int, layers: tuple[int, ...] = LAYERS) -> dict[str, float]:
    """Seconds per epoch of the two bare loops, after a warm-up epoch each."""
    optimizer = optax.sgd(LEARNING_RATE)
    steps = len(train_x) // BATCH
    x, y = jax.device_put(train_x), jax.device_put(train_y.astype(np.int32))
    tx, ty = jax.device_put(test_x), jax.device_put(test_y.astype(np.int32))

    def step(params, state, images, labels):
        grads = jax.grad(model.loss)(params, images.astype(jnp.float32) / 255, labels)
        updates, state = optimizer.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    update = jax.jit(step, donate_argnums=(0, 1))

    # The data are arguments, not closed-over constants: XLA would otherwise bake 47 MB into each program.
    @jax.jit
    def batch_of(images, labels, order, i):
        picked = lax.dynamic_slice(order, (i * BATCH,), (BATCH,))
        return images[picked], labels[picked]

    @partial(jax.jit, donate_argnums=(0, 1))
    def scanned_epoch(params, state, images, labels, order):
        def body(carry, picked):
            return step(*carry, images[picked], labels[picked]), None
        return lax.scan(body, (params, state), order[:steps * BATCH].reshape(steps, BATCH))[0]

    @jax.jit
    def test_accuracy(params, images, labels):
        return model.accuracy(params, images.astype(jnp.float32) / 255, labels)

    def per_step_epoch(params, state, images, labels, order):
        for i in range(steps):
            params, state = update(params, state, *batch_of(images, labels, order, i))
        return params, state

    results = {}
    for name, run_epoch in (("bare, per-step", per_step_epoch), ("bare, scanned", scanned_epoch)):
        params = model.init_params(jax.random.key(0), layers)
        state = optimizer.init(params)
        key = jax.random.key(1)
        times = []
        for epoch in range(epochs + 1):  # epoch 0 compiles and warms up
            key, shuffle = jax.random.split(key)
            started = time.perf_counter()
            params, state = run_epoch(params, state, x, y, jax.random.permutation(shuffle, len(train_x)))
            test_accuracy(params, tx, ty).block_until_ready()
            if epoch:
                times.append(time.perf_counter() - started)
        results[name] = statistics.median(times)
    return results


def app_path(service: TrainingService, epochs: int, n_train: int, layers: tuple[int, ...], timed: bool = True):
    """The updates of a run of the app's, as a client sees them."""
    config = TrainConfig.from_dict({"layers": list(layers), "optimizer": "sgd", "learning_rate": LEARNING_RATE,
                                    "batch_size": BATCH, "epochs": epochs})
    return service.train(config, "benchmark" if timed else "warm-up")


def stream_rate(updates, n_train: int, batch: int) -> tuple[float, float]:
    """Samples/s and seconds per epoch of a stream of training updates, timed as they arrive; NoTraining when it
    held fewer than two training updates (a failed run: the error says what its last update said)."""
    marks, epoch_ends, last = [], [], None
    for update in updates:
        last = update
        if update.get("phase") == "training" and update.get("step", 0) > 0:
            marks.append((time.perf_counter(), update["step"]))
            if update.get("epoch_accuracy") is not None:
                epoch_ends.append(time.perf_counter())
    if len(marks) < 2:
        raise NoTraining(f"the run gave {len(marks)} training update(s); its last: {str(last)[:300]}")
    (t0, s0), (t1, s1) = marks[0], marks[-1]
    per_epoch = statistics.median(np.diff(epoch_ends)) if len(epoch_ends) > 1 else (t1 - t0) * (
        n_train // batch) / (s1 - s0)
    return (s1 - s0) * batch / (t1 - t0), per_epoch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--layers", default=",".join(map(str, LAYERS)),
                        help="e.g. 784,32,10: a step so short that the time around the steps shows, as on a GPU")
    args = parser.parse_args()
    layers = tuple(int(width) for width in args.layers.split(","))
    train_x, train_y, test_x, test_y = dataset()
    with tempfile.TemporaryDirectory() as folder:
        for prefix, images, labels in (("train", train_x, train_y), ("t10k", test_x, test_y)):
            write_idx(Path(folder) / f"{prefix}-images-idx3-ubyte", images)
            write_idx(Path(folder) / f"{prefix}-labels-idx1-ubyte", labels)
        rows: dict[str, list[float]] = {}
        device = None
        for _ in range(args.rounds):
            bare = bare_reference(folder, args.epochs, layers)
            device = bare.pop("device")
            for name, seconds in bare.items():
                rows.setdefault(name, []).append(seconds)
            try:
                samples_per_s, per_epoch = app_round(folder, args.epochs, len(train_x), layers)
            except NoTraining as exc:
                print(f"app round FAILED: {exc}")
                continue
            rows.setdefault("app (owner + stream)", []).append(per_epoch)
            rows.setdefault("app samples/s", []).append(samples_per_s)
    print(f"device: {device}; {len(train_x):,} training images ({'real MNIST digits' if REAL_DIGITS else 'synthetic'}),"
          f" {len(test_x):,} test; {' · '.join(map(str, layers))}, SGD, batch {BATCH}; {args.epochs} epochs × "
          f"{args.rounds} rounds\n")
    report(rows, len(train_x))


def bare_reference(folder: str, epochs: int, layers: tuple[int, ...]) -> dict:
    """The bare loops' seconds per epoch, in a process of bare_device.py (which opens the device, then ends)."""
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("bare_device.py")), "train", folder,
                           str(epochs), ",".join(map(str, layers))], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def app_round(folder: str, epochs: int, n_train: int, layers: tuple[int, ...]) -> tuple[float, float]:
    """A device owner started as the app starts it, a warm-up run (its start, the data, the compiles), and the timed
    run; the owner then ends, so that the next round's bare loops can open the device."""
    settings = Settings.from_env({**os.environ, "MNIST_DIR": folder})
    with tempfile.TemporaryDirectory() as runs:
        owner = DeviceOwner(worker_pools.owner_setup(settings, detect(settings.accelerator)[0], runs))
        owner.start()
        service = TrainingService(owner, settings.data, runs, slots=1)
        try:
            list(app_path(service, 1, n_train, layers, timed=False))
            return stream_rate(app_path(service, epochs, n_train, layers), n_train, BATCH)
        finally:
            service.close()
            owner.close()


def report(rows: dict[str, list[float]], n_train: int) -> None:
    samples = (n_train // BATCH) * BATCH
    app = statistics.median(rows.pop("app samples/s", [math.nan]))
    print(f"{'variant':<24}{'s / epoch':>12}{'samples / s':>14}")
    rates = {}
    for name, seconds in rows.items():
        epoch_s = statistics.median(seconds)
        rates[name] = app if name.startswith("app") else samples / epoch_s
        print(f"{name:<24}{epoch_s:>12.3f}{rates[name]:>14,.0f}")
    best_bare = max(rate for name, rate in rates.items() if name.startswith("bare"))
    per_step, scanned = rates["bare, per-step"], rates["bare, scanned"]
    print(f"\nscanned / per-step (bare): {scanned / per_step:.3f}")
    print(f"app / fastest bare loop:   {app / best_bare:.3f}  (target ≥ 0.9)")


if __name__ == "__main__":
    main()
