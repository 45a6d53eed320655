"""How long TrainingService waits for a stopped worker: a chunk's time to stop, then the final measurement's.

A wide model on a loaded classroom server takes seconds to measure the whole test set and save its weights after
its last chunk; a Stop that killed it after the chunk's grace lost the weights. The worker here is a scripted
stand-in for the training worker's handle (the real worker's stream is tested in test_mnist_server_service.py and
test_mnist_worker_loop.py): it answers a stop with the messages the real one sends, at moments the test chooses.

Each bound a test checks is either one the service cannot break however slow the machine (it kills no sooner than
its grace) or one with a minute's room (it kills at all, and not after the longer grace).
"""

from __future__ import annotations

import os
import queue
import threading
import time

import pytest

from playground.mnist.config import TrainConfig
from playground.server.training.service import TrainingService

STOP_GRACE_S = 1.0
FINISH_GRACE_S = 4.0  # where a test waits for the finishing grace to run out
# Room for the service's own steps around a grace (milliseconds), however loaded the machine.
WAIT_S = 60.0
LONG_FINISH_GRACE_S = WAIT_S  # where a test tells the two graces apart
TRAINING = {"kind": "update", "phase": "training", "step": 3, "epoch": 0.1, "loss": 1.5, "done": False}


class ScriptedWorker:
    """Answers "train" with one training update, and "stop" with ``after_stop``: (seconds after it, message); those
    at 0 s are there before ``send`` returns, so the service has them at its next look, however loaded the machine."""

    def __init__(self, after_stop: list[tuple[float, dict]]) -> None:
        self.killed_at: float | None = None
        self._after_stop = after_stop
        self._outbox: queue.Queue[dict] = queue.Queue()

    def ensure_started(self) -> bool:
        return False  # already running: no "starting" phase

    def send(self, message: dict) -> None:
        if message["kind"] == "train":
            self._outbox.put(dict(TRAINING))
        elif message["kind"] == "stop":
            for after, answer in self._after_stop:
                if after == 0:
                    self._outbox.put(dict(answer))
            threading.Thread(target=self._answer_stop, args=(time.monotonic(),), daemon=True).start()

    def receive(self, timeout_s: float) -> dict | None:
        try:
            return self._outbox.get(timeout=timeout_s)
        except queue.Empty:
            return None

    def kill(self) -> None:
        if self.killed_at is None:
            self.killed_at = time.monotonic()

    def _answer_stop(self, asked: float) -> None:
        for after, message in self._after_stop:
            if after == 0:
                continue
            time.sleep(max(0.0, asked + after - time.monotonic()))
            if self.killed_at is not None:
                return
            self._outbox.put(dict(message))


def finishing() -> dict:
    return {**TRAINING, "phase": "finishing", "stopped": True}


def done(params_file: str) -> dict:
    return {**TRAINING, "kind": "done", "done": True, "stopped": True, "params_file": params_file,
            "class_names": [str(n) for n in range(10)]}


@pytest.fixture
def make_service(tmp_path):
    """A TrainingService with a stop grace of STOP_GRACE_S and the finishing grace asked for."""
    made = []

    def make(finish_grace_s: float) -> TrainingService:
        made.append(TrainingService({**os.environ, "PLAYGROUND_CACHE": str(tmp_path)}, slots=1,
                                    stop_grace_s=STOP_GRACE_S, finish_grace_s=finish_grace_s))
        return made[-1]

    yield make
    for training in made:
        training.close()


def stopped_run(service: TrainingService, worker: ScriptedWorker) -> tuple[list[dict], float]:
    """A digits run (no files to fetch) on ``worker``, stopped at its first training update: (updates, seconds
    from the Stop to the last update)."""
    service._workers = [worker]
    updates, asked = [], None
    for update in service.train(TrainConfig(dataset="digits"), "pupil"):
        updates.append(update)
        if update["phase"] == "training" and asked is None:
            assert service.stop("pupil")
            asked = time.monotonic()
    return updates, time.monotonic() - asked


def test_a_worker_that_is_finishing_gets_the_time_to_save_its_weights(make_service, tmp_path):
    params = str(tmp_path / "params.npz")
    # Finishing at once, done well after the stop grace (which would have killed it) and long before the other.
    worker = ScriptedWorker([(0, finishing()), (2.5 * STOP_GRACE_S, done(params))])
    updates, took = stopped_run(make_service(LONG_FINISH_GRACE_S), worker)
    assert worker.killed_at is None
    assert [u["phase"] for u in updates] == ["training", "finishing", "stopped"]
    assert updates[1]["stopped"] is True  # the page says "Stopping: …" meanwhile
    final = updates[-1]
    assert final["params_file"] == params and final["message_words"] == ["train.stopped", {}]
    assert 2.5 * STOP_GRACE_S <= took < LONG_FINISH_GRACE_S


def test_a_worker_that_ignores_the_stop_is_killed_after_the_stop_grace(make_service):
    worker = ScriptedWorker([])
    updates, took = stopped_run(make_service(LONG_FINISH_GRACE_S), worker)
    assert worker.killed_at is not None
    final = updates[-1]
    assert final["phase"] == "stopped" and final["message_words"] == ["train.worker_restarted", {}]
    assert "params_file" not in final
    assert STOP_GRACE_S <= took < LONG_FINISH_GRACE_S  # not the finishing grace: it never said it was finishing


def test_a_worker_that_finishes_for_too_long_is_killed_after_the_finish_grace(make_service):
    worker = ScriptedWorker([(0, finishing())])
    updates, took = stopped_run(make_service(FINISH_GRACE_S), worker)
    assert worker.killed_at is not None
    assert [u["phase"] for u in updates] == ["training", "finishing", "stopped"]
    assert updates[-1]["message_words"] == ["train.worker_restarted", {}]
    # Not the stop grace, which is shorter: the finishing one, and then a kill, not a wait without end.
    assert FINISH_GRACE_S <= took < FINISH_GRACE_S + WAIT_S
