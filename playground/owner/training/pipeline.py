"""The training loop's pipeline, one chunk deep: a chunk on its way (``Queued``), its update once it is done,
and the pace that sizes the chunks to come (``Pace``).

Each update carries the losses of every step its chunk ran (``losses``,
the first of them the loss of step ``first_loss_step``, counting from 1):
the device wrote them into ``TrainState.losses`` inside the compiled loop,
and the host reads them with the chunk's smoothed loss, after the next
chunk is queued, so reading them never leaves the device idle. A chunk
never crosses an epoch boundary, so an update holds at most one epoch's
steps (two after a stop: ``take``), a bounded message whatever the run's length.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent import futures
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import jax
import numpy as np

from playground.owner.training.evaluation import Measurement
from playground.owner.training.steps import Smoothed, smoothed_value

RATE_WINDOW_S = 1.0  # samples/s averages the chunks of about the last second: steadier than one chunk
FIRST_CHUNK_STEPS = 4
STOP_POLL_S = 0.02  # how often the host, waiting for the device, asks whether the run was stopped
_WAITERS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="chunk-waits")  # a run waits for one thing at a time


def take(metrics: dict, **more: object) -> dict:
    """A copy of ``metrics`` (with ``more``) for the stream: the losses gathered so far go with it, once, so the
    next update starts without them."""
    update = dict(metrics, **more)
    metrics.update(losses=[], first_loss_step=None)
    return update


def wait_unless_stopped(arrays: list[object], should_stop: Callable[[], bool]) -> bool:
    """Wait until the device has computed ``arrays``; False as soon as ``should_stop()`` says so instead (asked
    every ``STOP_POLL_S``), so that a stop is heard while the host waits for a long chunk or measurement.

    A thread of ``_WAITERS`` blocks on them, and this one wakes the moment it is done: a TPU trains an epoch of
    MNIST in 4 ms, where a poll's sleep between looks would add up to its own length to each chunk's report.
    """
    pending = [array for array in arrays if hasattr(array, "is_ready")]  # host values (numpy) are ready
    if all(array.is_ready() for array in pending):
        return True
    ready = _WAITERS.submit(jax.block_until_ready, pending)
    while not futures.wait([ready], STOP_POLL_S).done:
        if should_stop():
            return False
    return True



@dataclass
class Queued:
    """A chunk on its way: what its update will say once the device is done with it."""

    step: int  # steps done when this chunk ends
    first: int  # its first step within the epoch: its losses are losses[first:first + done]
    done: int  # its own steps
    steps_per_epoch: int
    smoothed: Smoothed  # its smoothed loss (device scalars; waiting for them waits for the chunk)
    losses: jax.Array  # each step's loss, one slot per step of the epoch (steps.TrainState.losses)
    measured: Measurement | None  # the accuracies asked for after it; None after the last chunk
    queued_at: float  # perf_counter() when the loop began to queue it
    done_at: float | None = None  # when it was seen done, where that was before its report (a pause)

    def arrays(self) -> list[object]:
        """What the chunk's update reads: its losses, and the accuracies measured after it."""
        return [*self.smoothed, self.losses, *(self.measured.arrays() if self.measured is not None else [])]

    def report(self, metrics: dict, pace: Pace, started: float) -> None:
        """Wait for the chunk and fold its figures into ``metrics``; its steps' losses join those not sent yet."""
        # One transfer of everything the update reads (each of its own would wait for the device in turn).
        smoothed, losses, classified = self._fetched()
        loss = smoothed_value(smoothed)
        losses = losses[self.first:self.first + self.done].astype(float).tolist()
        samples_per_s = pace.record(self.done, self.queued_at, self.done_at or time.perf_counter())
        if metrics["first_loss_step"] is None:
            metrics["first_loss_step"] = self.step - self.done + 1
        metrics.update(step=self.step, epoch=self.step / self.steps_per_epoch, loss=loss,
                       losses=metrics["losses"] + losses, samples_per_s=samples_per_s,
                       seconds_per_epoch=self.steps_per_epoch * pace.batch_size / samples_per_s
                       if samples_per_s > 0 else None,
                       epoch_accuracy=None, epoch_train_accuracy=None)
        if self.measured is not None:
            metrics.update(self.measured.result(classified))
        metrics["elapsed_s"] = time.perf_counter() - started

    def _fetched(self) -> tuple[tuple, np.ndarray, list[np.ndarray]]:
        """The chunk's smoothed loss and losses, and the measurement's classified images, on the host."""
        fetched = jax.device_get([*self.smoothed, self.losses,
                                  *(self.measured.arrays() if self.measured is not None else [])])
        return (fetched[0], fetched[1]), np.asarray(fetched[2]), fetched[3:]


class Pace:
    """How many steps the next chunk runs, and the samples/s of about the last second's chunks."""

    def __init__(self, target_s: float, block: int, batch_size: int) -> None:
        self.target_s, self.block, self.batch_size = target_s, block, batch_size
        self.chunk_steps = -(-FIRST_CHUNK_STEPS // block) * block  # whole blocks: 4 steps, or 6 in blocks of 3
        self.recent: deque[tuple[int, float]] = deque()  # (samples, seconds) of the latest chunks
        self.last_done = -np.inf  # perf_counter() when the last chunk recorded was seen done

    def chunks(self, epochs: int, steps_per_epoch: int) -> Iterator[tuple[int, int, int]]:
        """``(epoch, first step in the epoch, steps)`` of each chunk; a chunk never crosses an epoch boundary.

        Each chunk's length is read when it is due, from the chunks ``record``
        saw before. The caller stops iterating after a chunk that ran short.
        """
        for epoch in range(epochs):
            first = 0
            while first < steps_per_epoch:
                n = min(self.chunk_steps, steps_per_epoch - first)
                yield epoch, first, n
                first += n

    def record(self, steps: int, queued_at: float, done_at: float) -> float:
        """A chunk of ``steps`` queued at ``queued_at`` was seen done at ``done_at`` (perf_counter() times): sizes
        the chunks to come, and returns the samples/s over the chunks of about the last second.

        A chunk's time runs from when it was queued, or from when the chunk
        before it was done if it waited behind that one in the device's queue.
        """
        seconds = done_at - max(queued_at, self.last_done)
        self.last_done = done_at
        self.recent.append((steps * self.batch_size, seconds))
        while len(self.recent) > 1 and sum(s for _, s in self.recent) - self.recent[0][1] >= RATE_WINDOW_S:
            self.recent.popleft()
        samples_per_s = sum(n for n, _ in self.recent) / max(sum(s for _, s in self.recent), 1e-9)
        self.chunk_steps = next_chunk_steps(self.chunk_steps, samples_per_s / self.batch_size, self.target_s,
                                            self.block)
        return samples_per_s


def next_chunk_steps(planned: int, steps_per_s: float, target_s: float, block: int = 1) -> int:
    """Steps for the next chunk so that it lasts about ``target_s`` at ``steps_per_s``, at most twice the ``planned``
    length of the chunks so far, in whole blocks.

    The cap matters at the start: the first steps after compiling measure
    2-3x faster than the steady state on a CPU (measured: 13 steps at 4 ms,
    the next 45 at 11 ms, one 0.5 s chunk where 0.2 s was meant), so growth
    is gentle: 2x, not more. It is taken of the length planned, not of the
    steps a chunk ran: the last chunk of an epoch runs only the epoch's
    rest, and a cap on that would shrink the next epoch's chunks for no
    reason. A chunk of whole ``block``s computes every step of each block
    (steps.compile_blocks).

    >>> next_chunk_steps(16, 16_000, 0.2, 16), next_chunk_steps(160, 320, 0.2, 16), next_chunk_steps(4, 0, 0.2)
    (32, 64, 1)
    """
    steps = max(1, min(int(steps_per_s * target_s), 2 * planned))
    return max(block, steps - steps % block)


