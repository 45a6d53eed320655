"""One worker's life: isolate, lock down, warm up, run one job, exit.

Runs in a child forked from the template (process 1 of its own PID namespace
where the host allows). Nothing here returns: the process ends with os._exit so
that no cleanup handler inherited from the template runs.

Order matters: join the job's cgroups and take private namespaces while still
root, then lock down (rlimits, capabilities, Landlock, seccomp) while still
single-threaded, then warm up, and only then read the job.
"""

from __future__ import annotations

import fcntl
import os
import socket
from types import ModuleType
from typing import NoReturn

from playground.confinement import lockdown, seccomp_filter
from playground.ipc import child_life, protocol
from playground.ipc.limits import Limits
from playground.worker.life import namespaces
from playground.worker.life.warm_up import warmed_up

JOB_FD = 3
GATE_FD = 4


def serve_one_job(job_fd: int, log_fd: int, gate_fd: int | None, request: dict, handlers: ModuleType) -> NoReturn:
    """Run one job with ``handlers`` (a module with ``warm_up()`` and ``run(job, limits, early, ask) -> dict``).

    ``early(reply)`` sends a reply ahead of the final one, as ``{"early": reply}``; ``ask(request)`` asks the
    server a question and waits for its answer (protocol.py).
    ``gate_fd``: where a worker without a cgroup sends its thread gate's listener (thread_gate.py).
    """
    child_life.live(lambda: _serve(job_fd, log_fd, gate_fd, request, handlers))


def _serve(job_fd: int, log_fd: int, gate_fd: int | None, request: dict, handlers: ModuleType) -> int:
    child_life.die_with_parent()  # never outlive the template
    budget = Limits(**request["limits"])
    scratch = request["scratch"]
    gate = _isolate(job_fd, log_fd, gate_fd)
    layers = {"cgroups": _join_cgroups(request.get("cgroups") or [])}
    layers["namespaces"] = _namespaces(request, budget)
    child_life.settle_in(scratch)
    layers.update(lockdown.apply(budget, scratch, private_scratch=layers["namespaces"]["active"]))
    if gate is not None:
        layers["thread_gate"] = _hand_over_thread_gate(gate, budget, layers["seccomp"]["active"])
    channel = socket.socket(fileno=JOB_FD)
    hello = {
        **warmed_up(handlers), "layers": layers, "rlimits": lockdown.rlimits_in_force(),
        "private_scratch": layers["namespaces"]["active"], "pid_namespace": os.getpid() == 1,
    }
    protocol.send(channel, hello)
    if not hello["ready"]:  # the warm-up's traceback is in the log already
        return 1
    job = protocol.receive(channel, budget.message_bytes)
    protocol.send(channel, handlers.run(job, budget, lambda reply: protocol.send(channel, {"early": reply}),
                                        protocol.asker(channel, budget.message_bytes)))
    return 0


def _isolate(job_fd: int, log_fd: int, gate_fd: int | None) -> int | None:
    """Own session; stdout and stderr into the server's pipe; only the job socket (and the gate's) open besides
    (stdin: child_life.settle_in).

    Returns where the gate's socket is now (GATE_FD), or None.
    """
    os.setsid()
    # Out of the way first, so that placing one cannot close another that sits where it goes.
    job_fd, gate_fd = (None if fd is None else fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 64) for fd in (job_fd, gate_fd))
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    os.dup2(job_fd, JOB_FD, inheritable=False)
    if gate_fd is not None:
        os.dup2(gate_fd, GATE_FD, inheritable=False)
    os.closerange(GATE_FD + 1, 1 << 16)  # the template's sockets, the originals of these, all else
    if gate_fd is None:
        os.closerange(GATE_FD, GATE_FD + 1)
    return None if gate_fd is None else GATE_FD


def _hand_over_thread_gate(gate_fd: int, budget: Limits, seccomp_active: bool) -> dict:
    """Every new thread from now on waits for the template's yes (thread_gate.py)."""
    handoff = socket.socket(fileno=gate_fd)
    try:
        if not seccomp_active:
            return {"active": False, "detail": "needs seccomp, which is not active here"}
        listener = seccomp_filter.install_thread_gate()
        try:
            socket.send_fds(handoff, [b"gate"], [listener])
        finally:
            os.close(listener)  # the worker's own code must never answer for itself
        return {"active": True, "detail": f"each new thread waits for the template's yes, given below "
                                          f"{budget.max_tasks:,} threads (seccomp user notification)"}
    except OSError as exc:
        return {"active": False, "detail": f"refused by the kernel: {exc}"}
    finally:
        handoff.close()


def _join_cgroups(folders: list[str]) -> dict:
    if not folders:
        return {"active": False, "detail": "no cgroup was made for this job"}
    for folder in folders:
        with open(os.path.join(folder, "cgroup.procs"), "w") as f:
            f.write("0")  # "myself", also from inside a PID namespace
    return {"active": True, "detail": f"in the job's own cgroup{'s' if len(folders) > 1 else ''}"}


def _namespaces(request: dict, budget: Limits) -> dict:
    if not request.get("namespaces"):
        return {"active": False, "detail": "turned off (PLAYGROUND_NAMESPACES=0)"}
    try:
        detail = namespaces.enter_private_mounts(request["scratch"], budget.scratch_mb, budget.scratch_files,
                                                 own_pid_namespace=os.getpid() == 1)
    except OSError as exc:
        return {"active": False, "detail": f"refused by the kernel: {exc}"}
    own = "own PID namespace (no other process is visible); " if os.getpid() == 1 else ""
    return {"active": True, "detail": own + detail}
