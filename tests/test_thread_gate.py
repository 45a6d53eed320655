"""The thread gate's count for a worker that may start programs (sandbox/thread_gate.py, ``compiler_programs``).

The gate's answers to real requests are exercised by the hostile suites run
unprivileged (thread bombs); here, its bookkeeping for new processes, with
this test process standing in for the worker and real children of it.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from playground.sandbox import thread_gate
from playground.sandbox.thread_gate import MAX_PROGRAMS, ThreadGate

pytestmark = pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"),
                                reason="the kernel lists no children (CONFIG_PROC_CHILDREN)")


@pytest.fixture
def gate():
    read, write = os.pipe()  # stands in for the listener: the bookkeeping never reads it
    yield ThreadGate(os.getpid(), read, max_tasks=10_000)
    os.close(read)
    os.close(write)


@pytest.fixture
def children():
    started = []
    yield started
    for child in started:
        child.kill()
        child.wait()


def _child(started: list, threads: int = 0) -> subprocess.Popen:
    """A child that has started ``threads`` extra threads once it has said so on its stdout."""
    code = (f"import sys, threading; [threading.Thread(target=threading.Event().wait, daemon=True).start() "
            f"for _ in range({threads})]; print('ready', flush=True); sys.stdin.read()")
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    started.append(child)
    assert child.stdout.readline().strip() == "ready"
    return child


def test_only_the_worker_itself_may_start_a_program_and_only_a_few_at_a_time(gate, children):
    # This process may have children of its own already (servers started by other tests): counted like any.
    first = _child(children)
    assert first.pid in gate._children()
    assert not gate._may_start_program(first.pid)  # a child may make no process of its own
    while len(gate._children()) < MAX_PROGRAMS:
        _child(children)
    assert not gate._may_start_program(os.getpid())  # MAX_PROGRAMS running: the next waits for one to end
    ended = children.pop()
    ended.kill()
    ended.wait()
    assert ended.pid not in gate._children()
    assert gate._may_start_program(os.getpid()) == (len(gate._children()) < MAX_PROGRAMS)


def test_the_threads_of_its_programs_count_with_the_worker_s(gate, children):
    child = _child(children, threads=5)
    assert thread_gate.procfs.sample(child.pid).threads == 6
    assert gate._threads() >= 6 + 1  # the child's and at least the worker's own
