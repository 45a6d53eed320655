"""The template process: imports JAX once, then forks a fresh worker per request.

Forking from an already-imported interpreter makes a new worker cost tens of
milliseconds instead of seconds. It stays safe because the template never runs
user code, holds no secrets (its environment is whitelisted), never starts
JAX's backend (so it has no XLA threads to lose in a fork), and every worker
locks itself down before it touches user input. Each worker is forked into a
PID namespace of its own where the kernel allows (see namespaces.py).

The template is the workers' parent, so it reaps them and tells the server how
each one ended (the kernel's wait status: a structured fact, unlike a log).

Sockets (SOCK_SEQPACKET, one JSON datagram each):
- control: server -> {"scratch", "limits", "cgroups", "namespaces", "devices"} with the
  worker's job socket and the write end of its log pipe attached (SCM_RIGHTS);
  template -> {"pid": pid} (pid as the server sees it) or {"error": text}.
- exits: template -> {"pid", "code": "exited" | "killed" | "dumped", "status"}.
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
    children: dict[int, int] = {}  # pidfd -> pid
    while True:
        for fd in select.select([control, *children], [], [])[0]:
            if fd is control:
                _serve_request(control, exits, forker, children, handlers)
            else:
                _report_exit(fd, children.pop(fd), exits)


def _pid_namespaces() -> tuple[namespaces.PidNamespaceForker | None, str]:
    try:
        return namespaces.PidNamespaceForker(), "each worker is process 1 of a PID namespace of its own"
    except OSError as exc:
        return None, f"no PID namespaces here ({exc.strerror or exc})"


def _serve_request(control: socket.socket, exits: socket.socket, forker, children: dict[int, int], handlers) -> None:
    data, fds, _flags, _addr = socket.recv_fds(control, 1 << 16, 2)
    if not data:  # the server went away: so do we
        os._exit(0)
    if len(fds) != 2:
        for fd in fds:
            os.close(fd)
        control.send(json.dumps({"error": "expected a job socket and a log pipe"}).encode())
        return
    request = json.loads(data)
    try:
        pid = forker.fork() if forker is not None and request.get("namespaces") else os.fork()
    except OSError as exc:
        for fd in fds:
            os.close(fd)
        control.send(json.dumps({"error": f"fork failed: {exc}"}).encode())
        return
    if pid == 0:
        worker.serve_one_job(fds[0], fds[1], request, handlers)  # closes every other descriptor first
    for fd in fds:
        os.close(fd)
    children[os.pidfd_open(pid)] = pid
    control.send(json.dumps({"pid": pid}).encode())


def _report_exit(pidfd: int, pid: int, exits: socket.socket) -> None:
    try:
        info = os.waitid(os.P_PIDFD, pidfd, os.WEXITED)
    except ChildProcessError:
        info = None
    finally:
        os.close(pidfd)
    report = {"pid": pid, "code": "unknown", "status": None}
    if info is not None:
        report.update(code=_CLD_CODES.get(info.si_code, "unknown"), status=info.si_status)
    exits.send(json.dumps(report).encode())
