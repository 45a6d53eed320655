"""Evaluation, in the training worker: the accuracies the training loop reports, when it measures them, its last update.

Four sets of images are measured: the whole test set, the quick estimate
(the first ``estimate_size`` test images) and a training twin of each (the
loop picks which training images: ``loop._evaluation``). Each set goes to
the device(s) once, padded to whole batches of ``EVAL_BATCH``, so one
compiled ``worker_steps.classify`` per shape serves every measurement.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import jax
import numpy as np

from playground.mnist.catalogue import ArrayData
from playground.worker.training import steps as worker_steps
from playground.worker.training.model import Params

EVAL_BATCH = 1000  # images per evaluation batch: bounds activation memory for any test-set size


@dataclass(frozen=True)
class Images:
    """Labelled images on the device(s), as ``(n_batches, EVAL_BATCH, 28, 28)`` (the last batch padded blank)."""

    batches: jax.Array
    labels: np.ndarray

    @classmethod
    def place(cls, replicate: Callable[[object], object], images: np.ndarray, labels: np.ndarray) -> Images:
        return cls(replicate(worker_steps.as_batches(images, EVAL_BATCH)), labels)

    def accuracy(self, params: Params) -> tuple[float, np.ndarray]:
        """The fraction classified right, and the predicted classes (the padding's cut off)."""
        predictions = np.asarray(worker_steps.classify(params, self.batches))[:len(self.labels)]
        return float(np.mean(predictions == self.labels)), predictions


class Evaluation:
    """The measured sets, and the clock that spaces the quick estimates ``estimate_every_s`` apart.

    ``train_sample`` and ``train_estimate`` index the training images of the
    two twins. A set that is all of its full-size partner (an estimate as
    large as the test set) shares its device copy instead of making another.
    """

    def __init__(self, data: ArrayData, replicate: Callable[[object], object], estimate_size: int,
                 train_sample: np.ndarray, train_estimate: np.ndarray, estimate_every_s: float) -> None:
        self.test = Images.place(replicate, data.test_images, data.test_labels)
        self.estimate = (self.test if estimate_size >= len(data.test_labels) else
                         Images.place(replicate, data.test_images[:estimate_size], data.test_labels[:estimate_size]))
        self.train = Images.place(replicate, data.train_images[train_sample], data.train_labels[train_sample])
        self.train_estimate = (self.train if len(train_estimate) == len(train_sample) else
                               Images.place(replicate, data.train_images[train_estimate],
                                            data.train_labels[train_estimate]))
        self.estimate_every_s = estimate_every_s
        self.last_measured = -np.inf  # perf_counter() when the last measurement ended

    def compile(self, params: Params) -> None:
        """Compile ``classify`` for each shape of batches now, so no chunk's timing includes a compile."""
        sets = (self.test, self.estimate, self.train, self.train_estimate)
        for batches in {s.batches.shape: s.batches for s in sets}.values():
            worker_steps.classify.lower(params, batches).compile()  # jit's cache keeps it for the calls below

    def after_chunk(self, params: Params, epoch_ended: bool) -> dict:
        """The metrics to refresh after a chunk: at an epoch's end the full test set and the training sample (and
        their ``epoch_`` figures), else the quick estimate once ``estimate_every_s`` have passed, else none.

        The clock restarts when a measurement ends, so the time a measurement
        takes never eats into the training between two of them.
        """
        if epoch_ended:
            test_accuracy, train_accuracy = self.test.accuracy(params)[0], self.train.accuracy(params)[0]
            refreshed = {"epoch_accuracy": test_accuracy, "test_accuracy": test_accuracy,
                         "epoch_train_accuracy": train_accuracy, "train_accuracy": train_accuracy}
        elif time.perf_counter() - self.last_measured >= self.estimate_every_s:
            refreshed = {"test_accuracy": self.estimate.accuracy(params)[0],
                         "train_accuracy": self.train_estimate.accuracy(params)[0]}
        else:
            return {}
        self.last_measured = time.perf_counter()
        return refreshed

    def final_updates(self, metrics: dict, params: Params, stopped: bool, completed: bool,
                      started: float) -> Iterator[dict]:
        """The loop's last two updates: ``finishing`` at once, then, once the full test set and the training sample
        are measured, the final one, with ``done``, the parameters and the test set's predictions.

        ``finishing`` comes first because the measurement can take seconds (a
        wide model, a loaded machine): a caller waiting for a stop sees the
        loop wrap up. ``completed``: every epoch ran, so the final figures are
        also the last epoch's.
        """
        yield dict(metrics, phase="finishing", stopped=stopped, elapsed_s=time.perf_counter() - started)
        test_accuracy, predictions = self.test.accuracy(params)
        train_accuracy = self.train.accuracy(params)[0]
        metrics.update(test_accuracy=test_accuracy, epoch_accuracy=test_accuracy if completed else None,
                       train_accuracy=train_accuracy, epoch_train_accuracy=train_accuracy if completed else None,
                       elapsed_s=time.perf_counter() - started, done=True, stopped=stopped,
                       params=[(np.asarray(w, np.float32), np.asarray(b, np.float32))
                               for w, b in jax.device_get(params)],
                       test_predictions=predictions.astype(np.int64))
        yield metrics
