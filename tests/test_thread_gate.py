"""The thread gate's answers (worker/life/thread_gate.py): a thread while the worker is below its limit, nothing else.

The gate's answers to real requests are exercised by the hostile suites run
unprivileged (thread bombs); here, its bookkeeping, with this test process
standing in for the worker and the kernel's two ioctls (take a request, send
the answer) stood in for, so that each answer can be read.
"""

from __future__ import annotations

import errno
import os
import threading

import pytest

from playground.ipc import procfs
from playground.worker.life import thread_gate
from playground.worker.life.thread_gate import ThreadGate

CLONE_THREAD = 0x00010000
THREAD_FLAGS = 0x003D0F00  # what glibc's pthread_create passes to clone: CLONE_VM | CLONE_THREAD | ...
FORK_FLAGS = 0x01200011  # what glibc's fork passes (SIGCHLD, CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID): no thread


@pytest.fixture
def kernel(monkeypatch):
    """The requests the gate takes (each: clone's flags) and the answers it sends, in place of the listener's."""
    requests: list[int] = []
    answers: list[dict] = []

    def ioctl(fd, request, arg):
        if request == thread_gate._RECEIVE:
            if not requests:
                raise OSError(errno.ENOENT, "the asking thread is gone")
            arg.id, arg.pid = len(answers) + 1, os.getpid()
            arg.data.args[0] = requests.pop(0)
        else:
            answers.append({"id": arg.id, "continue": arg.flags == thread_gate._CONTINUE, "error": arg.error})
        return 0

    monkeypatch.setattr(thread_gate.fcntl, "ioctl", ioctl)
    return requests, answers


def _threads_now() -> int:
    return procfs.sample(os.getpid()).threads


def test_a_thread_is_let_through_below_the_limit_and_refused_at_it(kernel):
    requests, answers = kernel
    gate = ThreadGate(os.getpid(), -1, max_tasks=_threads_now() + 1)
    requests += [THREAD_FLAGS, THREAD_FLAGS]
    gate.answer()  # below the limit: on its way (and counted until a reading shows it)
    gate.answer()  # the one let through counts: at the limit now
    assert answers == [{"id": 1, "continue": True, "error": 0}, {"id": 2, "continue": False, "error": -errno.EAGAIN}]
    assert gate.refused == 1


def test_a_new_process_is_never_let_through(kernel):
    """The gate's filter asks only about threads, and the worker's own filter denies every new process; a request
    for one that reached the gate anyway is refused, however few threads the worker has."""
    requests, answers = kernel
    gate = ThreadGate(os.getpid(), -1, max_tasks=10_000)
    requests.append(FORK_FLAGS)
    gate.answer()
    assert answers == [{"id": 1, "continue": False, "error": -errno.EAGAIN}] and gate.refused == 1
    assert not FORK_FLAGS & CLONE_THREAD and THREAD_FLAGS & CLONE_THREAD


def test_a_request_whose_thread_is_gone_is_dropped(kernel):
    _, answers = kernel
    gate = ThreadGate(os.getpid(), -1, max_tasks=10_000)
    gate.answer()  # the kernel says ENOENT: nothing to answer
    assert answers == [] and gate.refused == 0


def test_threads_let_through_count_until_a_reading_shows_them_or_for_at_most_a_second(monkeypatch):
    gate = ThreadGate(os.getpid(), -1, max_tasks=10_000)
    listed = _threads_now()
    now = [1000.0]
    monkeypatch.setattr(thread_gate.time, "monotonic", lambda: now[0])
    gate._in_flight = [(listed + 3, now[0])]  # three let through, not listed yet
    assert gate._threads() == listed + 3
    now[0] += thread_gate.IN_FLIGHT_S
    assert gate._threads() == listed  # never listed: they did not start


def test_a_thread_that_is_listed_is_counted_once():
    gate = ThreadGate(os.getpid(), -1, max_tasks=10_000)
    before = _threads_now()
    started, done = threading.Event(), threading.Event()
    gate._in_flight = [(before + 1, thread_gate.time.monotonic())]
    extra = threading.Thread(target=lambda: (started.set(), done.wait()))
    extra.start()
    try:
        started.wait()
        assert gate._threads() == before + 1 and gate._in_flight == []  # the reading shows it: in flight no more
    finally:
        done.set()
        extra.join()
