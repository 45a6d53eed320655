"""What the server keeps of a run while it streams: the metric rows, every step's loss, the time to the target
accuracy, and the samples/s this server measured for each model and batch size (for the next run's estimate).

Plain Python and NumPy: the Gradio server process imports it. ::

    >>> record = RunRecord(started=100.0)
    >>> def end(step, accuracy, elapsed_s):
    ...     return {"step": step, "epoch": step / 4, "elapsed_s": elapsed_s, "epoch_accuracy": accuracy,
    ...             "epoch_train_accuracy": accuracy}
    >>> record.add({"step": 4, "losses": [2.3, 2.1, 1.9, 1.8], "first_loss_step": 1, "elapsed_s": 1.0,
    ...             "epoch_ends": [end(4, 0.91, 1.0)]}, 101.0)
    >>> record.add({"step": 12, "losses": [1.5] * 8, "first_loss_step": 5, "elapsed_s": 2.5,
    ...             "epoch_ends": [end(8, 0.975, 1.75), end(12, 0.98, 2.5)]}, 102.5)
    >>> len(record.losses), record.time_to_target_s, [row["step"] for row in record.rows]
    (12, 1.75, [4, 8, 12])
"""

from __future__ import annotations

import statistics
import threading
from collections import OrderedDict

from playground.mnist.config import TrainConfig
from playground.server.training.loss_series import LossSeries
from playground.server.training.results import METRIC_COLUMNS

TARGET_ACCURACY = 0.97
# Where only a test set is here (a classroom's MNIST_DIR: 8,000 digits to train on), the target a run can reach: 97 %
# is rare there (seeds 0-2, 8 epochs: 96.3-96.8 % with SGD; the best of a class's runs 95.75 %).
TEST_SET_TARGET = 0.95
# Buckets of per-step losses kept per run: each step on its own up to 2^18 steps (560 epochs of full MNIST at
# batch 128), then pairs of steps, and so on: at most 2^18 rows in the run's losses CSV (about 8 MB).
KEPT_LOSS_BUCKETS = 2**18
MEASURED_SHAPES = 64  # model and batch shapes whose last samples/s the server remembers


class RunRecord:
    """One run's history on the server, from the updates the owner sends.

    ``time_to_target_s``: seconds from ``started`` (when the server got the
    request: fetching the data, waiting in line and compiling count) to the
    first full-test-set measurement at or above ``target_accuracy``
    (``TARGET_ACCURACY``, or ``TEST_SET_TARGET`` where the run trains on a
    test set's part: ``test_split``): an
    epoch's end (``epoch_ends``; one that ended before its update's
    ``elapsed_s`` is dated as much before the update came) or the run's
    final measurement (a done update's ``test_accuracy``). The quick
    estimates on 1,000 test images do not count.
    """

    def __init__(self, started: float, remember: bool = True) -> None:
        """``remember``: whether the run's rate may stand for this configuration's in the expected times (not that
        of a race's CPU side, which trains beside the device)."""
        self.started, self.remember = started, remember
        self.rows: list[dict] = []
        self.losses = LossSeries(KEPT_LOSS_BUCKETS)
        self.time_to_target_s: float | None = None
        self.target_accuracy = TARGET_ACCURACY
        self._rates: dict[bool, list[float]] = {False: [], True: []}  # after the first epoch: the updates' rates

    def add(self, update: dict, now: float, done: bool = False) -> None:
        """An update from the owner, received at ``now`` (time.monotonic()): a row of the metrics CSV after a row
        for each epoch that ended before it (``add_steps``)."""
        self.add_steps(update, now)
        self.rows.append(_row(update))
        if update.get("samples_per_s") and update.get("phase") == "training":
            self._rates[update.get("epoch", 0.0) > 1.0].append(update["samples_per_s"])
        if done and update.get("test_accuracy") is not None and not update.get("epoch_ends"):
            self._reached(update["test_accuracy"], now)

    def add_steps(self, update: dict, now: float) -> None:
        """The losses of the steps an update brings, and the epochs that ended with them (``epoch_ends``), each
        dated by its ``elapsed_s`` before the update's. (The "finishing" update is no row: only these are kept.)"""
        if update.get("test_split"):  # said from the run's first update on
            self.target_accuracy = TEST_SET_TARGET
        if update.get("losses") and update.get("first_loss_step") is not None:
            self.losses.add(update["first_loss_step"], update["losses"])
        for end in update.get("epoch_ends") or []:
            if end["step"] != update.get("step") or update.get("phase") == "finishing":
                self.rows.append(_row({**end, "test_accuracy": end["epoch_accuracy"],
                                       "train_accuracy": end["epoch_train_accuracy"]}))
            self._reached(end["epoch_accuracy"], now - max(0.0, update["elapsed_s"] - end["elapsed_s"]))

    def _reached(self, accuracy: float, when: float) -> None:
        if self.time_to_target_s is None and accuracy >= self.target_accuracy:
            self.time_to_target_s = when - self.started

    def samples_per_s(self) -> float | None:
        """The run's typical rate: the median of its updates' after its first epoch (each over about the last
        second), so that the first steps after compiling, faster or slower than the rest, do not set it; of the
        first epoch's in a run of one. On a TPU a run of a few epochs lasts a few dozen updates, most of them the
        first epoch's small chunks."""
        rates = self._rates[True] or self._rates[False]
        return statistics.median(rates) if rates else None

    def target(self) -> dict:
        """The final update's words on the target: ``target_accuracy`` and ``time_to_target_s`` (None: not reached)."""
        return {"target_accuracy": self.target_accuracy, "time_to_target_s": self.time_to_target_s}


def _row(values: dict) -> dict:
    """A row of the run's metrics CSV: ``values``' METRIC_COLUMNS, None where it has none."""
    return {column: values.get(column) for column in METRIC_COLUMNS}


class MeasuredRates:
    """The samples/s of the last finished run of each dataset, model, batch size and data-parallel choice here."""

    def __init__(self, limit: int = MEASURED_SHAPES) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._rates: OrderedDict[tuple, dict] = OrderedDict()

    def record(self, config: TrainConfig, dataset: str, samples_per_s: float, n_train: int, device: str) -> None:
        key = (dataset, config.layers, config.batch_size, config.data_parallel)
        with self._lock:
            self._rates.pop(key, None)
            self._rates[key] = {"dataset": dataset, "layers": list(config.layers), "batch_size": config.batch_size,
                                "data_parallel": config.data_parallel, "samples_per_s": samples_per_s,
                                "n_train": n_train, "device": device}
            while len(self._rates) > self._limit:
                self._rates.popitem(last=False)

    def listed(self) -> list[dict]:
        """Each measurement, the latest last (JSON-able)."""
        with self._lock:
            return [dict(rate) for rate in self._rates.values()]


def expected_seconds(config: TrainConfig, measured: list[dict]) -> dict | None:
    """How long ``config``'s training steps take at the rate measured for its dataset, model and batch size:
    ``{"seconds", "seconds_per_epoch", "samples_per_s", "device"}``, or None where none was measured. Compiling
    and the test-set measurements are not counted.

    >>> config = TrainConfig(epochs=10)
    >>> expected_seconds(config, [{"dataset": "mnist", "layers": [784, 512, 256, 10], "batch_size": 128,
    ...     "data_parallel": False, "samples_per_s": 12_800.0, "n_train": 60_000, "device": "CPU · cpu"}])["seconds"]
    46.8
    """
    for rate in reversed(measured):
        if (rate["dataset"], tuple(rate["layers"]), rate["batch_size"], rate["data_parallel"]) == (
                config.dataset, config.layers, config.batch_size, config.data_parallel):
            per_epoch = rate["n_train"] // config.batch_size * config.batch_size / rate["samples_per_s"]
            return {"seconds": config.epochs * per_epoch, "seconds_per_epoch": per_epoch,
                    "samples_per_s": rate["samples_per_s"], "device": rate["device"]}
    return None
