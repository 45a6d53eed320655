"""The training loop's pipeline, one chunk deep: a chunk on its way (``Queued``), its update once it is done,
and the pace that sizes the chunks to come (``Pace``).

A chunk is one or more pieces (``Piece``): steps of one epoch, each one
call of the chunk runner. A chunk that outlasts its epoch's rest goes on
with whole epochs while they fit in its length, each epoch's end measured
(the full test set and the training sample) between two pieces: a TPU
trains an epoch of MNIST in about 4 ms, and a chunk, its report and its
message to the server cost the host about as much, so short epochs are
sent a chunk of many at a time (``epoch_ends``), not one message each.

Each update carries the losses of every step its chunk ran (``losses``,
the first of them the loss of step ``first_loss_step``, counting from 1):
the device wrote them into ``TrainState.losses`` inside the compiled loop,
and the host reads them with the chunk's smoothed loss, after the next
chunk is queued, so reading them never leaves the device idle. A chunk
lasts about ``update_every_s``, so an update is bounded by time whatever
the run's length.
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent import futures
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import NamedTuple

import jax
import numpy as np

from playground.owner.training.evaluation import Measurement
from playground.owner.training.steps import Smoothed, smoothed_value

RATE_WINDOW_S = 1.0  # samples/s averages the chunks of about the last second: steadier than one chunk
FIRST_CHUNK_STEPS = 4
STOP_POLL_S = 0.02  # how often the host, waiting for the device, asks whether the run was stopped
_WAITERS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="chunk-waits")  # a run waits for one thing at a time


def take(metrics: dict, **more: object) -> dict:
    """A copy of ``metrics`` (with ``more``) for the stream: the losses and epoch ends gathered so far go with it,
    once, so the next update starts without them."""
    update = dict(metrics, **more)
    metrics.update(losses=[], first_loss_step=None, epoch_ends=[])
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



class Piece(NamedTuple):
    """Steps ``first``, ``first + 1``, ... of ``epoch``: one call of the chunk runner."""

    epoch: int
    first: int
    steps: int


@dataclass
class Part:
    """A piece on its way: the losses its steps wrote, and the accuracies asked for after it."""

    step: int  # steps done in the run when it ends
    first: int  # its first step within the epoch: its losses are losses[first:first + done]
    done: int  # its own steps
    smoothed: Smoothed  # the smoothed loss after it (device scalars; waiting for them waits for the piece)
    losses: jax.Array  # each step's loss, one slot per step of the epoch (steps.TrainState.losses)
    measured: Measurement | None  # the accuracies asked for after it, or None

    def arrays(self) -> list[object]:
        return [*self.smoothed, self.losses, *(self.measured.arrays() if self.measured is not None else [])]


@dataclass
class Queued:
    """A chunk on its way: what its update will say once the device is done with it."""

    parts: list[Part]
    steps_per_epoch: int
    queued_at: float  # perf_counter() when the loop began to queue it
    done_at: float | None = None  # when it was seen done, where that was before its report (a pause)

    @property
    def step(self) -> int:
        """Steps done in the run when the chunk ends."""
        return self.parts[-1].step

    @property
    def done(self) -> int:
        """The chunk's own steps."""
        return sum(part.done for part in self.parts)

    def arrays(self) -> list[object]:
        """What the chunk's update reads: its losses, and the accuracies measured after its pieces."""
        return [array for part in self.parts for array in part.arrays()]

    def unmeasured(self) -> Queued:
        """The chunk without its measurements: after a stop, the final update measures."""
        return dataclasses.replace(self, parts=[dataclasses.replace(part, measured=None) for part in self.parts])

    def report(self, metrics: dict, pace: Pace, started: float) -> None:
        """Wait for the chunk and fold its figures into ``metrics``; its steps' losses join those not sent yet, and
        each epoch it ended joins ``epoch_ends`` (``epoch_accuracy`` and ``epoch_train_accuracy``: the last's).

        An epoch that ended inside the chunk is dated by its share of the
        chunk's steps: the device ran them at one pace, and the host saw only
        the chunk's end.
        """
        # One transfer of everything the update reads (each of its own would wait for the device in turn).
        fetched = jax.device_get([part.arrays() for part in self.parts])
        done_at = self.done_at or time.perf_counter()
        began = max(self.queued_at, pace.last_done)
        # The first epoch warms up (small chunks, the compile's wake), as a plain loop's first epoch does: the rate
        # of a run as short as a TPU's few epochs would be the warm-up's otherwise.
        samples_per_s = pace.record(self.done, self.queued_at, done_at,
                                    afresh=self.step - self.done == self.steps_per_epoch)
        if metrics["first_loss_step"] is None:
            metrics["first_loss_step"] = self.step - self.done + 1
        losses, ends = list(metrics["losses"]), list(metrics["epoch_ends"])
        metrics.update(epoch_accuracy=None, epoch_train_accuracy=None)
        for part, (_, _, part_losses, *classified) in zip(self.parts, fetched, strict=True):
            losses += np.asarray(part_losses)[part.first:part.first + part.done].astype(float).tolist()
            if part.measured is None:
                continue
            measured = part.measured.result(classified)
            metrics.update(measured)
            if "epoch_accuracy" in measured:
                at = began + (done_at - began) * (self.done - (self.step - part.step)) / self.done
                ends.append({"step": part.step, "epoch": part.step / self.steps_per_epoch, "elapsed_s": at - started,
                             "epoch_accuracy": measured["epoch_accuracy"],
                             "epoch_train_accuracy": measured["epoch_train_accuracy"]})
        metrics.update(step=self.step, epoch=self.step / self.steps_per_epoch,
                       loss=smoothed_value(tuple(fetched[-1][:2])), losses=losses, epoch_ends=ends,
                       samples_per_s=samples_per_s,
                       seconds_per_epoch=self.steps_per_epoch * pace.batch_size / samples_per_s
                       if samples_per_s > 0 else None)
        metrics["elapsed_s"] = time.perf_counter() - started


class Pace:
    """How many steps the next chunk runs, and the samples/s of about the last second's chunks."""

    def __init__(self, target_s: float, block: int, batch_size: int, first_steps: int = FIRST_CHUNK_STEPS) -> None:
        self.target_s, self.block, self.batch_size = target_s, block, batch_size
        self.chunk_steps = -(-first_steps // block) * block  # whole blocks: 4 steps, or 6 in blocks of 3
        self.recent: deque[tuple[int, float]] = deque()  # (samples, seconds) of the latest chunks
        self.last_done = -np.inf  # perf_counter() when the last chunk recorded was seen done

    def chunks(self, epochs: int, steps_per_epoch: int) -> Iterator[list[Piece]]:
        """The pieces of each chunk: the rest of an epoch, or ``chunk_steps`` of it, then as many whole epochs as
        fit in ``chunk_steps``. So a chunk ends inside an epoch only where it began in it, and its pieces are
        whole blocks or an epoch's rest (steps.compile_blocks).

        Each chunk's length is read when it is due, from the chunks ``record``
        saw before. The caller stops iterating after a chunk that ran short.
        """
        epoch, first = 0, 0
        while epoch < epochs:
            n = min(self.chunk_steps, steps_per_epoch - first)
            pieces, room = [Piece(epoch, first, n)], self.chunk_steps - n
            first += n
            if first == steps_per_epoch:
                epoch, first = epoch + 1, 0
                while epoch < epochs and room >= steps_per_epoch:
                    pieces.append(Piece(epoch, 0, steps_per_epoch))
                    epoch, room = epoch + 1, room - steps_per_epoch
            yield pieces

    def record(self, steps: int, queued_at: float, done_at: float, afresh: bool = False) -> float:
        """A chunk of ``steps`` queued at ``queued_at`` was seen done at ``done_at`` (perf_counter() times): sizes
        the chunks to come, and returns the samples/s over the chunks of about the last second (``afresh``: over
        this chunk alone, the chunks before it forgotten).

        A chunk's time runs from when it was queued, or from when the chunk
        before it was done if it waited behind that one in the device's queue.
        """
        seconds = done_at - max(queued_at, self.last_done)
        self.last_done = done_at
        if afresh:
            self.recent.clear()
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

    The cap matters at the start: the first steps after compiling run 2-3x
    faster than the steady state on a CPU, and a chunk sized from them would
    overrun its target, so growth is gentle: 2x, not more. It is taken of the
    length planned, not of the steps a chunk ran: the last chunk of an epoch
    runs only the epoch's rest, and a cap on that would shrink the next
    epoch's chunks for no reason. A chunk of whole ``block``s computes every step of each block
    (steps.compile_blocks).

    >>> next_chunk_steps(16, 16_000, 0.2, 16), next_chunk_steps(160, 320, 0.2, 16), next_chunk_steps(4, 0, 0.2)
    (32, 64, 1)
    """
    steps = max(1, min(int(steps_per_s * target_s), 2 * planned))
    return max(block, steps - steps % block)


