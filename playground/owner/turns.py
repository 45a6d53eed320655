"""The device's turns in the owner: a job's session has it alone; the training runs take it between their chunks.

A job that measures needs the device to itself, or its timings would count the
training's kernels too. Training runs keep the device busy with a pipeline one
chunk deep (training/loop.py), so a session cannot simply start: it says it
wants the device (``take``), each running training run, at its next chunk's
edge, waits until what it has queued is done (``between_chunks``) and pauses
until the session ends (``give_back``). A run that starts while a session holds
the device waits for it too. Stops are heard while paused.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import jax

PAUSE_POLL_S = 0.05  # how often a paused run asks whether it was stopped


class DeviceTurns:
    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._session = False  # a session has the device, or wants it
        self._running = 0  # training runs using the device now (not paused)

    # -- a job's session ------------------------------------------------------------------------------------------

    def take(self) -> None:
        """The device alone for a session: once every running training run has paused."""
        with self._changed:
            self._session = True
            self._changed.wait_for(lambda: self._running == 0)

    def give_back(self) -> None:
        with self._changed:
            self._session = False
            self._changed.notify_all()

    # -- a training run -------------------------------------------------------------------------------------------

    def run_started(self, should_stop: Callable[[], bool]) -> None:
        """A run may use the device from now on (once no session holds it)."""
        with self._changed:
            self._wait_for_no_session(should_stop)
            self._running += 1

    def run_ended(self) -> None:
        with self._changed:
            self._running -= 1
            self._changed.notify_all()

    def between_chunks(self, queued: list, should_stop: Callable[[], bool]) -> float | None:
        """At a run's chunk edge: where a session wants the device, wait until ``queued`` (the run's work on its
        way) is done, then pause until the session ends or the run is stopped. The time the queued work was seen
        done (``time.perf_counter()``), where the run paused; else None."""
        if not self._session:  # read without the lock: a session that comes a moment later is seen at the next edge
            return None
        jax.block_until_ready(queued)
        drained = time.perf_counter()
        with self._changed:
            self._running -= 1
            self._changed.notify_all()
            self._wait_for_no_session(should_stop)
            self._running += 1
        return drained

    def _wait_for_no_session(self, should_stop: Callable[[], bool]) -> None:
        while self._session and not should_stop():
            self._changed.wait(PAUSE_POLL_S)
