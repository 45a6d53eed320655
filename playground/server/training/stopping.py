"""How a run in the owner ends when it must: Stop, the server's time limit, and the graces a run has to wrap up.

``watched`` hands the loop (service.py) the owner's messages of one run as they come, and does the rest: it asks
the run to stop when Stop is pressed or the time limit passes, gives it ``stop_grace_s`` to end its chunk and say
it is finishing, then ``finish_grace_s`` for the final measurement and the weights (seconds on a wide model, more
on a loaded machine). A run that misses either is taken for a hung device: its owner is killed and started
again, and ``watched`` ends with a ``{"kind": "hung"}`` of its own.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from playground.messages import piece, render
from playground.mnist.catalogue import DataUnavailable
from playground.server.device_owner.sessions import OwnerLost
from playground.server.device_owner.training_stream import TrainingStream

POLL_S = 0.1


class TrainingFailed(RuntimeError):
    """The run could not finish: the owner reported an error, or ended."""


@dataclass
class RunStop:
    """A session's run: its Stop, and why it stopped (a catalogue piece)."""

    stop: threading.Event = field(default_factory=threading.Event)
    reason: list = field(default_factory=lambda: piece("train.stopped"))


@dataclass(frozen=True)
class Graces:
    """A run's time limit, and how long it has after a stop to say it is finishing, then to finish (seconds)."""

    max_run_s: float = 900.0
    stop_grace_s: float = 2.0
    finish_grace_s: float = 120.0


def watched(stream: TrainingStream, run: RunStop, graces: Graces) -> Iterator[dict]:
    """The run's messages, each with its ``kind`` ("update", "done", "error"), ended by a ``{"kind": "hung"}``
    where it did not stop in time (its owner is then started again)."""
    deadline = time.monotonic() + graces.max_run_s
    give_up_at = None  # set by a stop: when a run that has not sent "done" is taken for hung
    finishing = False  # the run's steps are over; only the final measurement is left
    while True:
        if give_up_at is None and (run.stop.is_set() or time.monotonic() > deadline):
            if not run.stop.is_set():
                run.reason = piece("train.stopped_time_limit", limit=float(graces.max_run_s))
            stream.stop()
            give_up_at = time.monotonic() + (graces.finish_grace_s if finishing else graces.stop_grace_s)
        if give_up_at is not None and time.monotonic() > give_up_at:
            stream.abandon()
            yield {"kind": "hung"}
            return
        message = stream.receive(POLL_S)
        if message is None:
            continue
        if message.get("phase") == "finishing":
            finishing = True
            if give_up_at is not None:  # it stopped in time; the measurement and the weights get their own
                give_up_at = time.monotonic() + graces.finish_grace_s
        kind = message.get("kind")
        yield message
        if kind in ("done", "error"):
            return


def lost_run(lost: OwnerLost) -> TrainingFailed:
    """The owner ended under the run (a job's program hung or crashed it, or the run did), or was asked between
    two lives."""
    if lost.piece[0] == "device.restarting":
        return TrainingFailed(render([lost.piece]))
    return TrainingFailed(render([piece("device.run_lost", why=lost.piece[1].get("why") or f"killed ({lost.kind})")]))


def stopped(update: dict, words: list, **more: object) -> dict:
    """The last update of a run that Stop (or a limit) ended before the owner finished it."""
    return {**update, "phase": "stopped", "done": True, "stopped": True, **said(words), **more}


def said(words: list) -> dict:
    """``message`` in English (the API's) and ``message_words``, the catalogue piece the UI writes in its reader's."""
    return {"message": render([words]), "message_words": words}


def failure(message: dict) -> Exception:
    """The owner's error message as the exception the API answers it by."""
    if message.get("invalid_input"):
        return ValueError(message.get("message"))
    if isinstance(message.get("unavailable"), dict):
        return DataUnavailable(message.get("message", ""), **message["unavailable"])
    return TrainingFailed(message.get("message", "the training run failed"))


def abandon(stream: TrainingStream, graces: Graces) -> None:
    """Stop a run whose follower went away (a client that left mid-run) and wait for its end, so that its slot is
    free when it is given again; one that does not end in its graces is taken for hung."""
    try:
        stream.stop()
        deadline = time.monotonic() + graces.stop_grace_s + graces.finish_grace_s
        while time.monotonic() < deadline:
            message = stream.receive(POLL_S)
            if message and message.get("kind") in ("done", "error"):
                return
    except OwnerLost:
        return
    stream.abandon()
