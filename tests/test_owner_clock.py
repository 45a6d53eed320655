"""A job's clock on the device owner counts the job's own time (server/device_owner/handle.py): a request is timed
from when the owner says it began it, after the owner's own work (a training run finishing its chunk), and the
time before that is said apart, for the job's clock to give back (pools/watch.py's ``Answer``). A stand-in for the
owner's process answers as the owner does, when the test lets it."""

from __future__ import annotations

import threading
import time

import pytest

from playground.ipc.limits import Limits
from playground.server.device_owner import handle
from playground.server.device_owner.handle import DeviceOwner, OwnerSetup
from playground.server.device_owner.sessions import OwnerLost

pytestmark = pytest.mark.slow  # each test starts a device owner (a stand-in's process): not for make test-quick
HELD_S = 1.5  # the owner's own work before it begins a request: longer than the request's time below
REQUEST_S = 1.0


class StandInOwner:
    """Answers ``open``/``close`` at once; a session's request once ``begin`` is set: ``began``, then its answer
    (unless ``answer`` is cleared: a request that never ends)."""

    begin = threading.Event()
    answer = threading.Event()

    def __init__(self, setup, on_message, on_end, start_timeout_s) -> None:
        self.hello, self.pid, self._on_message, self._alive = {"ready": True}, 0, on_message, True

    def send(self, message: dict) -> None:
        if "session" not in message:
            self._on_message({"id": message["id"]})
            return
        threading.Thread(target=self._work, args=(message["id"],), daemon=True).start()

    def _work(self, number: int) -> None:
        self.begin.wait()
        self._on_message({"id": number, "began": True})
        if self.answer.is_set():
            self._on_message({"id": number, "reply": {"done": True}})

    def alive(self) -> bool:
        return self._alive

    def resident_mb(self, past_mb=None):
        return None

    def kill(self) -> None:
        self._alive = False

    def describe_end(self) -> str:
        return "killed"


@pytest.fixture
def owner(monkeypatch, tmp_path):
    monkeypatch.setattr(handle, "OwnerProcess", StandInOwner)
    StandInOwner.begin.clear()
    StandInOwner.answer.set()
    made = DeviceOwner(OwnerSetup("cpu", "process", str(tmp_path), Limits(), 1024, {}))
    made.start()
    yield made
    made.close()


def _begin_after(seconds: float) -> None:
    threading.Timer(seconds, StandInOwner.begin.set).start()


def test_a_request_is_timed_from_when_the_owner_begins_it_and_its_wait_is_said_apart(owner):
    session = owner.open_session()
    _begin_after(HELD_S)
    reply, waited = owner.ask_timed(session, {"op": "call"}, REQUEST_S)
    assert reply == {"done": True} and owner.restarts == 0 and owner.alive()
    assert waited >= HELD_S  # longer than the request's own time, which it was not charged


def test_a_request_that_runs_past_its_time_once_begun_ends_the_owner_as_a_timeout(owner):
    session = owner.open_session()
    StandInOwner.answer.clear()
    StandInOwner.begin.set()
    started = time.monotonic()
    with pytest.raises(OwnerLost) as lost:
        owner.ask_timed(session, {"op": "call"}, REQUEST_S)
    assert (lost.value.kind, lost.value.piece[0]) == ("timeout", "device.timeout")
    assert time.monotonic() - started >= REQUEST_S


def test_an_owner_that_never_begins_a_request_is_ended_as_stuck_not_as_the_jobs_timeout(owner, monkeypatch):
    monkeypatch.setattr(handle, "TURN_WAIT_S", HELD_S)
    session = owner.open_session()
    with pytest.raises(OwnerLost) as lost:
        owner.ask_timed(session, {"op": "call"}, REQUEST_S)
    assert (lost.value.kind, lost.value.piece[0]) == ("unavailable", "device.turn_hung")


def test_an_answer_that_waited_for_the_owners_own_work_gives_the_job_its_clock_back():
    """pools/watch.py: the device line's ``Answer`` reaches the worker as its bare value, and the seconds that were
    not the job's go to the watch, which moves the job's deadline by them."""
    import socket

    from playground.ipc import protocol
    from playground.server.pools.watch import Answer, _Asking

    class Worker:
        channel, worker_end = socket.socketpair()

    asking = _Asking(Worker, lambda request, left_s: Answer({"echo": request}, not_the_jobs_s=HELD_S))
    assert asking.start({"ask": 7, "tag": "t"}, REQUEST_S) is None
    assert protocol.receive(Worker.worker_end, 1 << 16) == {"answer": {"echo": 7}, "tag": "t"}
    assert asking.given_back_s == HELD_S
    plain = _Asking(Worker, lambda request, left_s: {"echo": request})
    plain.start({"ask": 8, "tag": "u"}, REQUEST_S)
    assert protocol.receive(Worker.worker_end, 1 << 16) == {"answer": {"echo": 8}, "tag": "u"}
    assert plain.given_back_s == 0.0
