"""Evaluation, in the device owner: the accuracies the training loop reports, when it measures them, its last update.

Four sets of images are measured: the whole test set, the quick estimate
(the first ``estimate_size`` test images) and a training twin of each (the
loop picks which training images: ``prepare._evaluation``). Each set goes to
the device(s) once, padded to whole batches of ``EVAL_BATCH``, so one
compiled ``classify`` per shape serves every measurement. The gap between a test figure and its training
twin (``train_accuracy``, ``epoch_train_accuracy``) is overfitting made visible.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from playground.mlp import Params, batched_predict
from playground.mnist.catalogue import ArrayData
from playground.mnist.config import IMAGE_PIXELS
from playground.owner.training.pixels import as_float, as_rows

EVAL_BATCH = 1000  # images per evaluation batch: bounds activation memory for any test-set size


@dataclass(frozen=True)
class Images:
    """Labelled images on the device(s), as rows ``(n_batches, EVAL_BATCH, 784)`` (the last batch padded blank)."""

    batches: jax.Array
    labels: np.ndarray

    @classmethod
    def place(cls, replicate: Callable[[object], object], images: np.ndarray, labels: np.ndarray) -> Images:
        return cls(replicate(as_batches(as_rows(images), EVAL_BATCH)), labels)

    def classify(self, params: Params) -> jax.Array:
        """The predicted classes, padding included, as a device array that may still be computing."""
        return classify(params, self.batches)

    def score(self, classified: jax.Array) -> tuple[float, np.ndarray]:
        """The fraction ``classify`` got right, and its predicted classes (the padding's cut off); waits for it."""
        predictions = np.asarray(classified)[:len(self.labels)]
        return float(np.mean(predictions == self.labels)), predictions

    def accuracy(self, params: Params) -> tuple[float, np.ndarray]:
        """``score(classify(params))``: measured now."""
        return self.score(self.classify(params))


@dataclass(frozen=True)
class Measurement:
    """Accuracies asked for after a chunk, on their way: ``{metric: (images, classified)}``."""

    pending: dict[str, tuple[Images, jax.Array]]

    def arrays(self) -> list[jax.Array]:
        """The classifications on their way."""
        return [classified for _, classified in self.pending.values()]

    def result(self, classified: list[np.ndarray]) -> dict:
        """``{metric: accuracy}`` from ``classified``: ``arrays()``, fetched to the host, in their order."""
        return {metric: images.score(c)[0] for (metric, (images, _)), c in zip(self.pending.items(), classified,
                                                                                 strict=True)}


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
        self.last_measured = -np.inf  # perf_counter() when the last quick estimate or epoch's measurement was asked for

    def start(self, params: Params, epoch_ended: bool) -> Measurement:
        """The metrics to refresh after a chunk, asked of the device without waiting: at an epoch's end the full
        test set and the training sample (and their ``epoch_`` figures), else the quick estimate once
        ``estimate_every_s`` have passed since the last one was asked for, else none.

        Asked right after the chunk is queued and read after the next chunk is
        queued (the loop's pipeline), so the device measures between the two
        chunks while the host sends the last update, and no measurement holds
        the training up.
        """
        if epoch_ended:
            test, train = self.test.classify(params), self.train.classify(params)
            pending = {"epoch_accuracy": (self.test, test), "test_accuracy": (self.test, test),
                       "epoch_train_accuracy": (self.train, train), "train_accuracy": (self.train, train)}
        elif time.perf_counter() - self.last_measured >= self.estimate_every_s:
            pending = {"test_accuracy": (self.estimate, self.estimate.classify(params)),
                       "train_accuracy": (self.train_estimate, self.train_estimate.classify(params))}
        else:
            return Measurement({})
        self.last_measured = time.perf_counter()
        return Measurement(pending)

    def final_update(self, metrics: dict, params: Params, stopped: bool, completed: bool, started: float) -> dict:
        """The loop's last update, once the full test set and the training sample are measured: ``done``, the
        parameters and the test set's predictions. ``completed``: every epoch ran, so the final figures are also
        the last epoch's."""
        test_accuracy, predictions = self.test.accuracy(params)
        train_accuracy = self.train.accuracy(params)[0]
        elapsed_s = time.perf_counter() - started
        ends = [{"step": metrics["step"], "epoch": metrics["epoch"], "elapsed_s": elapsed_s,
                 "epoch_accuracy": test_accuracy, "epoch_train_accuracy": train_accuracy}] if completed else []
        metrics.update(test_accuracy=test_accuracy, epoch_accuracy=test_accuracy if completed else None,
                       train_accuracy=train_accuracy, epoch_train_accuracy=train_accuracy if completed else None,
                       epoch_ends=metrics["epoch_ends"] + ends, elapsed_s=elapsed_s, done=True, stopped=stopped,
                       params=[(np.asarray(w, np.float32), np.asarray(b, np.float32))
                               for w, b in jax.device_get(params)],
                       test_predictions=predictions.astype(np.int64))
        return metrics


@jax.jit
def classify(params: Params, image_batches: jax.Array) -> jax.Array:
    """Predicted classes for ``image_batches`` of shape ``(n_batches, batch, 784)``, flattened to one vector.

    ``lax.map`` runs one batch at a time, bounding the activations' memory
    for any test-set size; the compiled program is cached per input shape, so
    the full test set and the quick estimate each compile once.
    """
    return lax.map(lambda batch: jnp.argmax(batched_predict(params, as_float(batch)), axis=1),
                   image_batches).reshape(-1)


def batch_shape(n: int) -> tuple[int, int, int]:
    """The shape of ``n`` images' batches on the device (``Images.place``).

    >>> batch_shape(10_000), batch_shape(2_500), batch_shape(7)
    ((10, 1000, 784), (3, 1000, 784), (1, 7, 784))
    """
    size = max(1, min(EVAL_BATCH, n))
    return -(-n // size), size, IMAGE_PIXELS


def as_batches(images: np.ndarray, batch_size: int) -> np.ndarray:
    """``images`` padded with blank images to a whole number of batches and shaped ``(n_batches, batch, ...)``."""
    batch_size = max(1, min(batch_size, len(images)))
    n_batches = -(-len(images) // batch_size)
    padded = np.zeros((n_batches * batch_size, *images.shape[1:]), images.dtype)
    padded[:len(images)] = images
    return padded.reshape(n_batches, batch_size, *images.shape[1:])
