"""Training throughput: the app's path (worker process + metric stream) against bare jitted JAX loops of the same MLP.

Run: ``.venv/bin/python benchmarks/train_throughput.py [--epochs 3] [--rounds 3]``

All variants train the 784-512-256-10 MLP of the German blog post "Need for
Speed: JAX" with SGD (batch 128) on the same 60,000 images (the real MNIST test
digits tiled six times where ../shared has them, synthetic digits otherwise)
and evaluate the full 10,000-image test set at each epoch end, as that post's
loop does. They run in one process, alternating round by round, so the shared
machine's noise hits them alike:

- bare, per-step: data on the device, one jitted update per batch (the blog post's loop);
- bare, scanned: one jitted ``lax.scan`` over all of an epoch's batches;
- app: ``TrainingService`` -> training worker process -> ``worker_loop.train`` (adaptive
  multi-step chunks, periodic quick test estimates, metric messages), timed here
  from the updates as they arrive, between the first and the last training update.

Samples/s exclude compilation (the bare loops are warmed up; the app's window
starts after its first chunk). Ratio = app / the faster bare loop.
"""

from __future__ import annotations

import argparse
import os
import statistics
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

from playground.mnist.config import TrainConfig  # noqa: E402
from playground.mnist.idx import write_idx  # noqa: E402
from playground.server.training.service import TrainingService  # noqa: E402
from playground.worker.training import model as model  # noqa: E402
from tests.mnist_folders import REAL_DIGITS, real_digits, synthetic_digits  # noqa: E402

LAYERS, BATCH, LEARNING_RATE = (784, 512, 256, 10), 128, 0.1


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


def app_path(service: TrainingService, epochs: int, n_train: int, layers: tuple[int, ...]) -> tuple[float, float]:
    """Samples/s between the first and last training update, and seconds per epoch, as a client sees them."""
    config = TrainConfig.from_dict({"layers": list(layers), "optimizer": "sgd", "learning_rate": LEARNING_RATE,
                                    "batch_size": BATCH, "epochs": epochs})
    return stream_rate(service.train(config, "benchmark"), n_train, BATCH)


def stream_rate(updates, n_train: int, batch: int) -> tuple[float, float]:
    """Samples/s and seconds per epoch of a stream of training updates, timed as they arrive."""
    marks, epoch_ends = [], []
    for update in updates:
        if update["phase"] == "training" and update["step"] > 0:
            marks.append((time.perf_counter(), update["step"]))
            if update.get("epoch_accuracy") is not None:
                epoch_ends.append(time.perf_counter())
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
    device = jax.devices()[0]
    print(f"device: {device.platform.upper()} · {device.device_kind}; {len(train_x):,} training images "
          f"({'real MNIST digits' if REAL_DIGITS else 'synthetic'}), {len(test_x):,} test; "
          f"{' · '.join(map(str, layers))}, SGD, batch {BATCH}; {args.epochs} epochs × {args.rounds} rounds\n")
    with tempfile.TemporaryDirectory() as folder:
        for prefix, images, labels in (("train", train_x, train_y), ("t10k", test_x, test_y)):
            write_idx(Path(folder) / f"{prefix}-images-idx3-ubyte", images)
            write_idx(Path(folder) / f"{prefix}-labels-idx1-ubyte", labels)
        service = TrainingService({**os.environ, "MNIST_DIR": folder}, slots=1)
        try:
            list(service.train(TrainConfig.from_dict({"epochs": 1}), "warm-up"))  # start the worker, load data
            rows: dict[str, list[float]] = {}
            for _ in range(args.rounds):
                for name, seconds in bare_loops(train_x, train_y, test_x, test_y, args.epochs, layers).items():
                    rows.setdefault(name, []).append(seconds)
                samples_per_s, per_epoch = app_path(service, args.epochs, len(train_x), layers)
                rows.setdefault("app (worker + stream)", []).append(per_epoch)
                rows.setdefault("app samples/s", []).append(samples_per_s)
        finally:
            service.close()
    report(rows, len(train_x))


def report(rows: dict[str, list[float]], n_train: int) -> None:
    samples = (n_train // BATCH) * BATCH
    app = statistics.median(rows.pop("app samples/s"))
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
