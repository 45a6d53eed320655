"""Training throughput: the app's path (device owner + metric stream) against plain jitted JAX loops of the same MLP.

Run: ``.venv/bin/python benchmarks/train_throughput.py [--epochs 3] [--rounds 3]``

All variants train the 784-512-256-10 MLP of the German blog post "Need for
Speed: JAX" with SGD (batch 128) on the same 60,000 training images (MNIST's
own where ``MNIST_DIR`` holds its training files; else the real test digits
six times over where ../shared or ``MNIST_DIR`` has them, synthetic digits
otherwise: the first line says which) and evaluate the full 10,000-image test
set at each epoch end, as that post's loop does. They alternate round by round,
so the shared machine's noise hits them alike, each in a process of its own
(one process at a time may open a TPU chip: this one never opens the device):

- the plain loops (``bare_loops``, in a process of bare_device.py): one
  jitted update per batch (the blog post's loop), and one jitted ``lax.scan``
  over an epoch's batches three ways: the epoch's order gathered at each step,
  the images permuted once an epoch, and no shuffling at all (an upper bound:
  the app shuffles every epoch); and the gathering scan with 28 × 28 images,
  which an accelerator pads (pixels.as_rows);
- app: ``TrainingService`` -> the device owner (started for the round, as the
  app starts it) -> ``owner/training/loop.train`` (adaptive multi-step chunks,
  periodic quick test estimates, metric messages), timed here from the updates
  as they arrive, between the first and the last training update.

Each variant's rate leaves its first epoch out: a plain loop's is its samples
over its median epoch after a warm-up epoch (the per-step loop times at most
``PER_STEP_EPOCHS``: it is the slowest by far), the app's its steps from the
first update past its first epoch to its last step, timed as the updates
arrive (a TPU trains dozens of epochs a chunk: epochs come many to an update).
The ratio is the app's over the fastest plain loop that shuffles every epoch.
On a TPU, where an epoch takes milliseconds, ask for a hundred epochs or more.
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
from playground.mnist.idx import read_idx, write_idx  # noqa: E402
from playground.server.config import Settings, data_places  # noqa: E402
from playground.server.device_owner import starting  # noqa: E402
from playground.server.device_owner.accelerator import detect  # noqa: E402
from playground.server.device_owner.handle import DeviceOwner  # noqa: E402
from playground.server.training.service import TrainingService  # noqa: E402
from tests.mnist_folders import REAL_DIGITS, SHARED_MNIST, real_digits, synthetic_digits  # noqa: E402

LAYERS, BATCH, LEARNING_RATE = (784, 512, 256, 10), 128, 0.1


class NoTraining(RuntimeError):
    """A run that never trained long enough to be timed: its error or its last update says why."""


def dataset() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, str]:
    """Training and test images and labels, and what they are."""
    folder = Path(data_places(os.environ).folders.get("mnist", SHARED_MNIST))
    found = {name: next(iter(sorted(folder.glob(f"{name}-idx*"))), None)
             for name in ("train-images", "train-labels", "t10k-images", "t10k-labels")}
    if all(found.values()):
        return (read_idx(found["train-images"], 3, (28, 28)), read_idx(found["train-labels"], 1),
                read_idx(found["t10k-images"], 3, (28, 28)), read_idx(found["t10k-labels"], 1),
                f"MNIST's own training set, from {folder}")
    if found["t10k-images"] and found["t10k-labels"]:
        images, labels = read_idx(found["t10k-images"], 3, (28, 28)), read_idx(found["t10k-labels"], 1)
        said = f"no MNIST training set in {folder}: its 10,000 test digits six times over"
    elif REAL_DIGITS:
        (images, labels), said = real_digits(), "the real MNIST test digits six times over (../shared)"
    else:
        (images, labels), said = synthetic_digits(10_000), "synthetic digits: no MNIST here"
    return *six_times_over(images, labels), images, labels, said


def six_times_over(images: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """MNIST's 10,000 test digits as a training set of its full size, 60,000: where its training files are not."""
    return np.tile(images, (6, 1, 1)), np.tile(labels, 6)


# The plain loops, as a user who knows JAX would write them: the images on the device as uint8 rows (n, 784),
# test accuracy at every epoch's end. Those that shuffle every epoch are the reference; the one that does not is
# an upper bound, printed for what shuffling costs.
PER_STEP, GATHERED, PERMUTED, UNSHUFFLED, GATHERED_28 = (
    "plain, per-step", "plain, scanned, order gathered each step", "plain, scanned, permuted once an epoch",
    "plain, scanned, no shuffling (upper bound)", "plain, scanned, gathered, 28 × 28 images")
SHUFFLING = (PER_STEP, GATHERED, PERMUTED, GATHERED_28)
PER_STEP_EPOCHS = 3
APP = "app (owner + stream)"


def bare_loops(train_x, train_y, test_x, test_y, epochs: int, layers: tuple[int, ...] = LAYERS) -> dict[str, float]:
    """Seconds per epoch of each plain loop (the median of ``epochs``, after a warm-up epoch each)."""
    optimizer = optax.sgd(LEARNING_RATE)
    rows, square = jax.device_put(train_x.reshape(len(train_x), -1)), jax.device_put(train_x)
    y = jax.device_put(train_y.astype(np.int32))
    tx, ty = jax.device_put(test_x.reshape(len(test_x), -1)), jax.device_put(test_y.astype(np.int32))

    @jax.jit
    def test_accuracy(params, images, labels):
        return model.accuracy(params, images.astype(jnp.float32) / 255, labels)

    epochs_of = plain_epochs(optimizer, len(train_x) // BATCH)
    results = {}
    for name, images in ((PER_STEP, rows), (GATHERED, rows), (PERMUTED, rows), (UNSHUFFLED, rows),
                         (GATHERED_28, square)):
        run_epoch = epochs_of[GATHERED if name == GATHERED_28 else name]
        params = model.init_params(jax.random.key(0), layers)
        state = optimizer.init(params)
        key = jax.random.key(1)
        times = []
        for epoch in range(1 + (min(epochs, PER_STEP_EPOCHS) if name == PER_STEP else epochs)):  # 0 warms up
            key, shuffle = jax.random.split(key)
            started = time.perf_counter()
            params, state = run_epoch(params, state, images, y, jax.random.permutation(shuffle, len(train_x)))
            test_accuracy(params, tx, ty).block_until_ready()
            if epoch:
                times.append(time.perf_counter() - started)
        results[name] = statistics.median(times)
    return results


def plain_epochs(optimizer, steps: int) -> dict[str, object]:
    """An epoch of each plain loop: ``epoch(params, state, images, labels, order) -> (params, state)``."""
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

    def per_step_epoch(params, state, images, labels, order):
        for i in range(steps):
            params, state = update(params, state, *batch_of(images, labels, order, i))
        return params, state

    def scanned(batches_of):
        @partial(jax.jit, donate_argnums=(0, 1))
        def epoch(params, state, images, labels, order):
            batches = batches_of(images, labels, order)
            return lax.scan(lambda carry, batch: (step(*carry, *batch), None), (params, state), batches)[0]
        return epoch

    @partial(jax.jit, donate_argnums=(0, 1))
    def gathered_epoch(params, state, images, labels, order):  # each batch gathered inside the scan's step
        def body(carry, picked):
            return step(*carry, images[picked], labels[picked]), None
        return lax.scan(body, (params, state), order[:steps * BATCH].reshape(steps, BATCH))[0]

    def permuted(images, labels, order):
        kept = order[:steps * BATCH]
        return images[kept].reshape(steps, BATCH, -1), labels[kept].reshape(steps, BATCH)

    def unshuffled(images, labels, order):
        return images[:steps * BATCH].reshape(steps, BATCH, -1), labels[:steps * BATCH].reshape(steps, BATCH)

    return {PER_STEP: per_step_epoch, GATHERED: gathered_epoch, PERMUTED: scanned(permuted),
            UNSHUFFLED: scanned(unshuffled)}


def app_path(service: TrainingService, epochs: int, n_train: int, layers: tuple[int, ...], timed: bool = True):
    """The updates of a run of the app's, as a client sees them."""
    config = TrainConfig.from_dict({"layers": list(layers), "optimizer": "sgd", "learning_rate": LEARNING_RATE,
                                    "batch_size": BATCH, "epochs": epochs})
    return service.train(config, "benchmark" if timed else "warm-up")


def stream_rate(updates, n_train: int, batch: int) -> tuple[float, float]:
    """Samples/s and seconds per epoch of a stream of training updates, timed as they arrive: the steps after the
    first epoch (the plain loops' warm-up epoch; the app's first chunks are small) over the time from the first
    update past it to the update that says the last step is done ("finishing"), or a run of one epoch's from its
    first update. NoTraining when fewer than two updates fell there (a failed run: the error says what its last
    update said)."""
    steps_per_epoch, marks, last = n_train // batch, [], None
    for update in updates:
        last = update
        if update.get("phase") in ("training", "finishing") and update.get("step", 0) > 0:
            marks.append((time.perf_counter(), update["step"]))
    after_first = [mark for mark in marks if mark[1] >= steps_per_epoch]
    marks = after_first if len(after_first) >= 2 else marks
    if len(marks) < 2:
        raise NoTraining(f"the run gave {len(marks)} timed update(s); its last: {str(last)[:300]}")
    (t0, s0), (t1, s1) = marks[0], marks[-1]
    samples_per_s = (s1 - s0) * batch / (t1 - t0)
    return samples_per_s, steps_per_epoch * batch / samples_per_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--layers", default=",".join(map(str, LAYERS)),
                        help="e.g. 784,32,10: a step so short that the time around the steps shows, as on a GPU")
    args = parser.parse_args()
    layers = tuple(int(width) for width in args.layers.split(","))
    train_x, train_y, test_x, test_y, said = dataset()
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
                per_epoch = app_round(folder, args.epochs, len(train_x), layers)[1]
            except NoTraining as exc:
                print(f"app round FAILED: {exc}")
                continue
            rows.setdefault(APP, []).append(per_epoch)
    print(f"device: {device}; {len(train_x):,} training images ({said}), {len(test_x):,} test;\n"
          f"{' · '.join(map(str, layers))}, SGD, batch {BATCH}; {args.epochs} epochs × {args.rounds} rounds\n")
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
        owner = DeviceOwner(starting.owner_setup(settings, detect(settings.accelerator)[0], runs))
        owner.start()
        service = TrainingService(owner, settings.data, runs, slots=1)
        try:
            list(app_path(service, 1, n_train, layers, timed=False))
            return stream_rate(app_path(service, epochs, n_train, layers), n_train, BATCH)
        finally:
            service.close()
            owner.close()


def report(rows: dict[str, list[float]], n_train: int) -> None:
    """Each variant's median seconds an epoch over the rounds, and its samples/s (stream_rate says how the app's
    is timed)."""
    samples = (n_train // BATCH) * BATCH
    print(f"{'variant':<48}{'ms / epoch':>12}{'samples / s':>14}")
    rates = {}
    for name, seconds in rows.items():
        epoch_s = statistics.median(seconds)
        rates[name] = samples / epoch_s
        print(f"{name:<48}{epoch_s * 1000:>12.2f}{rates[name]:>14,.0f}")
    app = rates.get(APP, math.nan)
    fastest = max(SHUFFLING, key=lambda name: rates.get(name, 0.0))
    print(f"\nfastest plain loop that shuffles: {fastest}")
    print(f"app / that loop:   {app / rates[fastest]:.3f}  (target ≥ 0.9)")
    print(f"app / the plain loop without shuffling:   {app / rates[UNSHUFFLED]:.3f}")


if __name__ == "__main__":
    main()
