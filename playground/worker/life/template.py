"""The template process: imports JAX once, then forks a fresh worker per request.

Forking from an already-imported interpreter makes a new worker cost tens of
milliseconds instead of seconds. It stays safe because the template never runs
user code, holds no secrets (its environment is whitelisted), never starts
JAX's backend (so it has no XLA threads to lose in a fork), and every worker
locks itself down before it touches user input. Each worker is forked into a
PID namespace of its own where the kernel allows (see namespaces.py).

The template is the workers' parent, so it reaps them and tells the server how
each one ended (the kernel's wait status: a structured fact, unlike a log). It
hears of an end through SIGCHLD and asks the kernel about each worker it has
not reaped yet (``waitid`` by pid, without waiting). A parent needs no pidfd for
that: until it reaps a child, the child's pid names it and no other process.
For the same reason the template opens each worker's pidfd for the server,
before it could reap it; where the kernel has no pidfds (gVisor, Linux < 5.3)
the server asks the template to signal a worker instead, and learns of its end
from the template's report. For a worker without a cgroup the template also
answers each request for a new thread (thread_gate.py), and says how many it
refused when the worker ends.

Sockets (SOCK_SEQPACKET, one JSON datagram each):
- control: server -> {"scratch", "limits", "cgroups", "namespaces"} with
  the worker's job socket and the write end of its log pipe attached (SCM_RIGHTS);
  template -> {"pid": pid, "worker": n} (pid as the server sees it; n counts the template's workers and, unlike a
  pid, is never used twice), with the worker's pidfd attached where the kernel has pidfds, or {"error": text}.
  server -> {"signal": signum, "worker": n}; template -> {"signalled": bool} (false: it had reaped it already).
- exits: template -> {"worker", "pid", "code": "exited" | "killed" | "dumped", "status", "threads_refused"}.
- one per worker without a cgroup: worker -> its thread gate's listener (SCM_RIGHTS), once.
"""

from __future__ import annotations

import errno
import importlib
import json
import os
import select
import signal
import socket

from playground.ipc import child_life
from playground.worker.life import forked, namespaces
from playground.worker.life.thread_gate import ThreadGate

_CLD_CODES = {os.CLD_EXITED: "exited", os.CLD_KILLED: "killed", os.CLD_DUMPED: "dumped"}


def main(control_fd: int, exits_fd: int, handlers_module: str) -> None:
    """Serve worker requests; ``handlers_module`` (imported once, with JAX, before any fork) runs their jobs."""
    # The server's death ends us, and so our workers; a worker cannot read our memory or environment.
    child_life.die_with_parent(undumpable=True)
    control = socket.socket(fileno=control_fd)
    exits = socket.socket(fileno=exits_fd)
    handlers = importlib.import_module(handlers_module)
    handlers.preload()
    forker, why = _pid_namespaces()
    pidfds, pidfds_why = _pidfds()
    children = _Children(pidfds)
    control.send(json.dumps({"ready": True, "pid": os.getpid(), "pid_namespaces": forker is not None,
                             "why": why, "pidfds": pidfds, "pidfds_why": pidfds_why}).encode())
    while True:
        for ready in select.select([control, *children.watched()], [], [])[0]:
            if ready is control:
                _serve_request(control, forker, children, handlers)
            else:
                children.serve(ready, exits)


class _Children:
    """The template's workers until it reaps them: each one's number and pid, the socket its thread gate's listener
    comes through, and the gate itself (thread_gate.py; only for workers that have no cgroup to bound their threads).

    SIGCHLD wakes the template's loop: the interpreter writes a byte to ``_woken`` for it (``set_wakeup_fd``), and
    every worker not yet reaped is asked whether it has ended; a SIGCHLD that comes while the loop is busy leaves
    its byte there for the next look.
    """

    def __init__(self, pidfds: bool) -> None:
        self.pidfds = pidfds  # whether the server gets each worker's pidfd
        self.pids: dict[int, int] = {}  # worker number -> pid, until reaped
        self.handoffs: dict[socket.socket, tuple[int, int]] = {}  # -> (pid, max_tasks)
        self.gates: dict[int, ThreadGate] = {}  # pid -> its gate
        self.forked = 0
        self._woken, self._wake = socket.socketpair()
        self._woken.setblocking(False)
        self._wake.setblocking(False)
        signal.set_wakeup_fd(self._wake.fileno(), warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)  # a handler, so that the wake-up byte is written

    @staticmethod
    def leave() -> None:
        """In a newly forked worker: SIGCHLD and the wake-up byte are the template's, not the worker's."""
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)

    def watched(self) -> list:
        return [self._woken, *self.handoffs, *self.gates.values()]

    def add(self, pid: int, handoff: socket.socket | None, max_tasks: int) -> int:
        """Worker ``pid``'s number, which the server names it by."""
        self.forked += 1
        self.pids[self.forked] = pid
        if handoff is not None:
            self.handoffs[handoff] = (pid, max_tasks)
        return self.forked

    def pidfd(self, pid: int) -> int | None:
        """A pidfd of worker ``pid`` for the server, where the kernel has them: opened before we could reap it."""
        if not self.pidfds:
            return None
        try:
            return os.pidfd_open(pid)
        except OSError:  # none for this one (out of descriptors): the server then asks us, as it would without
            return None

    def signal(self, number: int, signum: int) -> bool:
        """Signal worker ``number`` if it is not reaped yet, which is when its pid names it and no other process."""
        pid = self.pids.get(number)
        if pid is None:
            return False
        os.kill(pid, signum)
        return True

    def serve(self, ready, exits: socket.socket) -> None:
        """Answer what ``ready`` has; one that an exit earlier in the same round closed is left alone."""
        if ready is self._woken:
            self._reap(exits)
        elif isinstance(ready, ThreadGate):
            if self.gates.get(ready.pid) is ready:
                ready.answer()
        elif ready in self.handoffs:
            self._receive_listener(ready)

    def _receive_listener(self, handoff: socket.socket) -> None:
        pid, max_tasks = self.handoffs.pop(handoff)
        try:
            _data, fds, _flags, _addr = socket.recv_fds(handoff, 16, 1)
        except OSError:
            fds = []
        handoff.close()
        if fds:  # none: the worker ended first, or has a cgroup after all
            self.gates[pid] = ThreadGate(pid, fds[0], max_tasks)

    def _reap(self, exits: socket.socket) -> None:
        try:
            while self._woken.recv(4096):
                pass
        except BlockingIOError:
            pass
        for number, pid in list(self.pids.items()):
            ended = _wait_status(pid)
            if ended is not None:
                del self.pids[number]
                self._report_exit(number, pid, ended, exits)

    def _report_exit(self, number: int, pid: int, ended: dict, exits: socket.socket) -> None:
        for handoff in [h for h, (owner, _) in self.handoffs.items() if owner == pid]:
            del self.handoffs[handoff]  # it ended before it sent its gate's listener
            handoff.close()
        gate = self.gates.pop(pid, None)
        if gate is not None:
            gate.close()
        report = {"worker": number, "pid": pid, **ended, "threads_refused": gate.refused if gate else 0}
        exits.send(json.dumps(report).encode())


def _wait_status(pid: int) -> dict | None:
    """How our child ``pid`` ended (it is reaped now), or None while it runs."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG)
    except ChildProcessError:  # not ours to wait for after all: it has ended, how is unknown
        return {"code": "unknown", "status": None}
    if info is None:
        return None
    return {"code": _CLD_CODES.get(info.si_code, "unknown"), "status": info.si_status}


def _pid_namespaces() -> tuple[namespaces.PidNamespaceForker | None, str]:
    try:
        return namespaces.PidNamespaceForker(), "each worker is process 1 of a PID namespace of its own"
    except OSError as exc:
        return None, f"no PID namespaces here ({exc.strerror or exc})"


def _pidfds() -> tuple[bool, str]:
    """Whether the server can hold each worker by a pidfd (opened here, signalled there), and what it means."""
    call = "pidfd_open"
    try:
        pidfd = os.pidfd_open(os.getpid())
        try:
            call = "pidfd_send_signal"
            signal.pidfd_send_signal(pidfd, 0)  # signal 0: only asks whether it may
        finally:
            os.close(pidfd)
    except (AttributeError, OSError) as exc:  # AttributeError: a Python built without them
        name = errno.errorcode.get(getattr(exc, "errno", None) or 0)
        reason = f"{name}: {exc.strerror}" if name else str(exc)
        return False, f"no {call} here ({reason}): workers are watched and killed by their parent, the template"
    return True, "the server watches and kills each worker through a pidfd, which names that process and no other"


def _serve_request(control: socket.socket, forker, children: _Children, handlers) -> None:
    data, fds, _flags, _addr = socket.recv_fds(control, 1 << 16, 2)
    if not data:  # the server went away: so do we
        os._exit(0)
    request = json.loads(data)
    if "signal" in request:
        for fd in fds:
            os.close(fd)
        signalled = children.signal(request["worker"], request["signal"])
        control.send(json.dumps({"signalled": signalled}).encode())
    elif len(fds) != 2:
        for fd in fds:
            os.close(fd)
        control.send(json.dumps({"error": "expected a job socket and a log pipe"}).encode())
    else:
        _fork_worker(control, forker, children, handlers, request, fds)


def _fork_worker(control: socket.socket, forker, children: _Children, handlers, request: dict,
                 fds: list[int]) -> None:
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
        children.leave()
        forked.serve_one_job(fds[0], fds[1], theirs.detach() if gated else None, request, handlers)
    for fd in fds:
        os.close(fd)
    if theirs is not None:
        theirs.close()
    number = children.add(pid, ours, request["limits"]["max_tasks"])
    reply = json.dumps({"pid": pid, "worker": number}).encode()
    pidfd = children.pidfd(pid)
    if pidfd is None:
        control.send(reply)
        return
    try:
        socket.send_fds(control, [reply], [pidfd])
    finally:
        os.close(pidfd)
