"""One worker's life: isolate, lock down, warm up, run one job, exit.

Runs in a child forked from the template. Nothing here returns: the process
ends with os._exit so that no cleanup handler inherited from the template runs.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import socket
import sys
import traceback
from typing import NoReturn

from playground.sandbox import jobs, lockdown, protocol
from playground.sandbox.limits import Limits

JOB_FD = 3


def serve_one_job(job_fd: int, scratch: str, limits: dict) -> NoReturn:
    status = 0
    try:
        budget = Limits(**limits)
        _isolate(job_fd, scratch)
        layers = lockdown.apply(budget, scratch)
        jobs.warm_up()
        channel = socket.socket(fileno=JOB_FD)
        protocol.send(channel, {"ready": True, "pid": os.getpid(), "layers": layers})
        job = protocol.receive(channel, budget.message_bytes)
        protocol.send(channel, jobs.run(job, budget))
    except BaseException:  # the log is read by the server on a crash, never shown raw
        traceback.print_exc()
        status = 1
    finally:
        os._exit(status)


def _isolate(job_fd: int, scratch: str) -> None:
    """Own session, only the job socket open, output to a log in the scratch dir."""
    os.setsid()
    if job_fd != JOB_FD:
        os.dup2(job_fd, JOB_FD, inheritable=False)
    os.closerange(JOB_FD + 1, 1 << 16)  # the template's control socket, the job_fd copy, all else
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    log = os.open(os.path.join(scratch, protocol.WORKER_LOG_NAME), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.chdir(scratch)
    os.environ["HOME"] = os.environ["TMPDIR"] = scratch
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a full file gives EFBIG instead of a kill
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    faulthandler.enable(file=sys.stderr, all_threads=True)
    # The server asks for a traceback before it kills a job that ran out of time.
    faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)
