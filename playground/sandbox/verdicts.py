"""What to tell the user when the sandbox stopped a job, decided from structured facts only.

The facts: which of the server's watchdogs fired, the kernel's wait status of
the worker (from the template, which reaped it), the job's cgroup event
counters, and the server's last reading of the worker's /proc/<pid>/stat.
Never text the worker wrote: user code can write anything there. Every
message names the limit that was hit, with its value.
"""

from __future__ import annotations

import signal

from playground.errors import error_dict
from playground.sandbox.limits import Limits
from playground.sandbox.procfs import Sample
from playground.sandbox.scratch import Usage

_REPLACED = "It was replaced by a fresh worker."


def _at(line: int | None) -> str:
    return f" It was at line {line} of your code." if line else ""


def timed_out(timeout_s: float, line: int | None) -> dict:
    return error_dict(
        "timeout",
        f"Time limit: your code ran longer than {timeout_s:g} s and was stopped.{_at(line)} "
        "Look for a loop that never ends (a jitted lax.while_loop cannot be interrupted, only killed).",
        line,
    )


def memory_exceeded(sample: Sample, limits: Limits, line: int | None) -> dict:
    return error_dict("memory", f"Out of memory: the job held {sample.rss_mb:,.0f} MB of resident memory, more "
                      f"than its limit of {limits.memory_mb:,} MB, and was stopped.{_at(line)}", line)


def tasks_exceeded(sample: Sample, limits: Limits, line: int | None) -> dict:
    return error_dict("tasks", f"Too many threads: the job ran {sample.threads:,} threads, more than its limit of "
                      f"{limits.max_tasks:,}, and was stopped.{_at(line)}", line)


def scratch_full(usage: Usage, limits: Limits, line: int | None) -> dict:
    if usage.too_deep:
        what = f"folders nested more than {limits.scratch_depth} deep"
    elif usage.entries > limits.scratch_files:
        what = f"more than its limit of {limits.scratch_files:,} files and folders"
    else:
        what = f"{usage.bytes / 2**20:,.0f} MB, more than its limit of {limits.scratch_mb:,} MB"
    return error_dict("disk", f"Scratch folder full: the job's folder held {what}, and the job was stopped."
                      f"{_at(line)}", line)


def reply_refused(reason: str) -> dict:
    return error_dict("forbidden", f"The worker's reply was refused: {reason}. Code that writes to the worker's "
                      "connection to the server cannot forge a result.")


def after_task_limit(result: dict, refused: int, limits: Limits) -> dict:
    """The job's own error, reported as what caused it: the kernel refused it ``refused`` new threads."""
    error = result["error"]
    message = (f"Too many threads: the job reached its limit of {limits.max_tasks:,} threads (the kernel refused "
               f"{refused:,} more), and then failed: {error['message']}")
    return {**result, "error": {**error, "kind": "tasks", "message": message}}


def hung_up(line: int | None) -> dict:
    return error_dict("crashed", f"The job closed the worker's connection to the server without replying, and was "
                      f"stopped.{_at(line)} {_REPLACED}", line)


def ended_without_reply(report: dict | None, events: dict[str, int], last: Sample | None, limits: Limits,
                        cgroup_memory_mb: int | None) -> dict:
    """The worker's process ended (or closed its connection) before it replied: say how, from the kernel's facts."""
    if events.get("oom_kills") and cgroup_memory_mb:
        return error_dict("memory", f"Out of memory: the kernel stopped the job at its memory limit of "
                          f"{cgroup_memory_mb:,} MB (all it held: memory, scratch files, shared memory). {_REPLACED}")
    if report is None or report.get("code") not in ("exited", "killed", "dumped"):
        return error_dict("crashed", f"The worker running your code ended without a result; how it ended is not "
                          f"known. {_REPLACED}")
    if report["code"] == "exited":
        return error_dict("crashed", f"The worker running your code exited with status {report['status']} before it "
                          f"replied. {_REPLACED}")
    number = report["status"]
    name = _signal_name(number)
    if events.get("task_limit_hits"):
        return error_dict("tasks", f"The worker running your code was killed by {name} after the job reached its "
                          f"limit of {limits.max_tasks:,} threads. {_REPLACED}")
    if limits.address_space_mb and last is not None and last.address_space_mb >= 0.9 * limits.address_space_mb:
        return error_dict("memory", f"Out of memory: the worker was killed by {name} with its address space at "
                          f"{last.address_space_mb:,.0f} MB of its {limits.address_space_mb:,} MB limit. {_REPLACED}")
    if number == signal.SIGKILL:
        return error_dict("memory", f"The worker running your code was killed by {name}, and not by the playground: "
                          f"the kernel does that when the host runs out of memory. {_REPLACED}")
    return error_dict("crashed", f"The worker running your code crashed: it was killed by {name}. {_REPLACED}")


def _signal_name(number: int) -> str:
    try:
        return f"{signal.Signals(number).name} ({signal.strsignal(number)})"
    except ValueError:
        return f"signal {number}"
