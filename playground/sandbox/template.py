"""The template process: imports JAX once, then forks a fresh worker per request.

Forking from an already-imported interpreter makes a new worker cost tens of
milliseconds instead of seconds. It stays safe because the template never runs
user code, holds no secrets (its environment is whitelisted), never starts
JAX's backend (so it has no XLA threads to lose in a fork), and every worker
locks itself down before it touches user input.

Control protocol (SOCK_SEQPACKET, one JSON datagram each way):
server -> {"scratch": path, "limits": {...}} with the worker's socket attached
(SCM_RIGHTS); template -> {"pid": pid}.
"""

from __future__ import annotations

import json
import os
import signal
import socket

from playground.sandbox import worker  # imports JAX and the job modules before any fork


def main(control_fd: int) -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps workers for us
    control = socket.socket(fileno=control_fd)
    control.send(json.dumps({"ready": True, "pid": os.getpid()}).encode())
    while True:
        data, fds, _flags, _addr = socket.recv_fds(control, 1 << 16, 1)
        if not data:  # the server went away: so do we
            os._exit(0)
        request = json.loads(data)
        if len(fds) != 1:
            for fd in fds:
                os.close(fd)
            control.send(json.dumps({"error": "expected exactly one socket"}).encode())
            continue
        pid = os.fork()
        if pid == 0:
            control.close()
            worker.serve_one_job(fds[0], request["scratch"], request["limits"])
        os.close(fds[0])
        control.send(json.dumps({"pid": pid}).encode())
