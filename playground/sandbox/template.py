"""The template process: imports JAX once, then forks a fresh worker per request.

Forking from an already-imported interpreter makes a new worker cost tens of
milliseconds instead of seconds. It stays safe because the template never runs
user code, holds no secrets (its environment is whitelisted), never starts
JAX's backend (so it has no XLA threads to lose in a fork), and every worker
locks itself down before it touches user input. Each worker is forked into a
PID namespace of its own where the kernel allows (see namespaces.py).

The template is the workers' parent, so it reaps them and tells the server how
each one ended (the kernel's wait status: a structured fact, unlike a log). For
a worker without a cgroup it also answers each request for a new thread
(thread_gate.py), and says how many it refused when the worker ends.

Sockets (SOCK_SEQPACKET, one JSON datagram each):
- control: server -> {"scratch", "limits", "cgroups", "namespaces", "devices", "grants"} with
  the worker's job socket and the write end of its log pipe attached (SCM_RIGHTS);
  template -> {"pid": pid} (pid as the server sees it) or {"error": text}.
- exits: template -> {"pid", "code": "exited" | "killed" | "dumped", "status", "threads_refused"}.
- one per worker without a cgroup: worker -> its thread gate's listener (SCM_RIGHTS), once.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import select
import signal
import socket

from playground.sandbox import namespaces, worker
from playground.sandbox.thread_gate import ThreadGate

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_CLD_CODES = {os.CLD_EXITED: "exited", os.CLD_KILLED: "killed", os.CLD_DUMPED: "dumped"}


def main(control_fd: int, exits_fd: int, handlers_module: str) -> None:
    """Serve worker requests; ``handlers_module`` (imported once, with JAX, before any fork) runs their jobs."""
    libc = ctypes.CDLL(None)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the server's death ends us, and so our workers
    libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)  # a worker cannot read our memory or environment
    control = socket.socket(fileno=control_fd)
    exits = socket.socket(fileno=exits_fd)
    handlers = importlib.import_module(handlers_module)
    handlers.preload()
    forker, why = _pid_namespaces()
    control.send(json.dumps({"ready": True, "pid": os.getpid(), "pid_namespaces": forker is not None,
                             "why": why}).encode())
    children = _Children()
    while True:
        for ready in select.select([control, *children.watched()], [], [])[0]:
            if ready is control:
                _serve_request(control, forker, children, handlers)
            else:
                children.serve(ready, exits)


class _Children:
    """The template's workers: each one's end (a pidfd), the socket its thread gate's listener comes through,
    and the gate itself (thread_gate.py; only for workers that have no cgroup to bound their threads)."""

    def __init__(self) -> None:
        self.pidfds: dict[int, int] = {}  # pidfd -> pid
        self.handoffs: dict[socket.socket, tuple[int, int]] = {}  # -> (pid, max_tasks)
        self.gates: dict[int, ThreadGate] = {}  # pid -> its gate

    def watched(self) -> list:
        return [*self.pidfds, *self.handoffs, *self.gates.values()]

    def add(self, pid: int, handoff: socket.socket | None, max_tasks: int) -> None:
        self.pidfds[os.pidfd_open(pid)] = pid
        if handoff is not None:
            self.handoffs[handoff] = (pid, max_tasks)

    def serve(self, ready, exits: socket.socket) -> None:
        """Answer what ``ready`` has; one that an exit earlier in the same round closed is left alone."""
        if isinstance(ready, ThreadGate):
            if self.gates.get(ready.pid) is ready:
                ready.answer()
        elif isinstance(ready, socket.socket):
            if ready in self.handoffs:
                self._receive_listener(ready)
        elif ready in self.pidfds:
            self._report_exit(ready, exits)

    def _receive_listener(self, handoff: socket.socket) -> None:
        pid, max_tasks = self.handoffs.pop(handoff)
        try:
            _data, fds, _flags, _addr = socket.recv_fds(handoff, 16, 1)
        except OSError:
            fds = []
        handoff.close()
        if fds:  # none: the worker ended first, or has a cgroup after all
            self.gates[pid] = ThreadGate(pid, fds[0], max_tasks)

    def _report_exit(self, pidfd: int, exits: socket.socket) -> None:
        pid = self.pidfds.pop(pidfd)
        try:
            info = os.waitid(os.P_PIDFD, pidfd, os.WEXITED)
        except ChildProcessError:
            info = None
        finally:
            os.close(pidfd)
        for handoff in [h for h, (owner, _) in self.handoffs.items() if owner == pid]:
            del self.handoffs[handoff]  # it ended before it sent its gate's listener
            handoff.close()
        gate = self.gates.pop(pid, None)
        report = {"pid": pid, "code": "unknown", "status": None, "threads_refused": gate.refused if gate else 0}
        if gate is not None:
            gate.close()
        if info is not None:
            report.update(code=_CLD_CODES.get(info.si_code, "unknown"), status=info.si_status)
        exits.send(json.dumps(report).encode())


def _pid_namespaces() -> tuple[namespaces.PidNamespaceForker | None, str]:
    try:
        return namespaces.PidNamespaceForker(), "each worker is process 1 of a PID namespace of its own"
    except OSError as exc:
        return None, f"no PID namespaces here ({exc.strerror or exc})"


def _serve_request(control: socket.socket, forker, children: _Children, handlers) -> None:
    data, fds, _flags, _addr = socket.recv_fds(control, 1 << 16, 2)
    if not data:  # the server went away: so do we
        os._exit(0)
    if len(fds) != 2:
        for fd in fds:
            os.close(fd)
        control.send(json.dumps({"error": "expected a job socket and a log pipe"}).encode())
        return
    request = json.loads(data)
    # A worker without a cgroup gets a gate for its threads: its listener comes back over this socket pair.
    gated = not request.get("cgroups")
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) if gated else (None, None)
    try:
        pid = forker.fork() if forker is not None and request.get("namespaces") else os.fork()
    except OSError as exc:
        for fd in fds:
            os.close(fd)
        for end in (ours, theirs):
            if end is not None:
                end.close()
        control.send(json.dumps({"error": f"fork failed: {exc}"}).encode())
        return
    if pid == 0:  # closes every other descriptor first
        worker.serve_one_job(fds[0], fds[1], theirs.detach() if gated else None, request, handlers)
    for fd in fds:
        os.close(fd)
    if theirs is not None:
        theirs.close()
    children.add(pid, ours, request["limits"]["max_tasks"])
    control.send(json.dumps({"pid": pid}).encode())
