"""What to tell the user when the sandbox stopped a job, decided from structured facts only.

The facts: which of the server's watchdogs fired, the kernel's wait status of
the worker (from the template, which reaped it), the job's cgroup event
counters, and the server's last reading of the worker's /proc/<pid>/stat.
Never text the worker wrote: user code can write anything there. Every
message names the limit that was hit, with its value, and is a catalogue piece
(messages/verdict_texts.py), so that the UI writes it in the reader's language.
"""

from __future__ import annotations

import signal

from playground.errors import said_error
from playground.ipc.limits import Limits
from playground.ipc.procfs import Sample
from playground.ipc.scratch import Usage
from playground.messages import piece

_REPLACED = piece("stopped.replaced")


def _at(line: int | None) -> list | str:
    return piece("stopped.at_line", line=line) if line else ""


def timed_out(timeout_s: float, line: int | None) -> dict:
    return said_error("timeout", piece("stopped.timeout", seconds=f"{timeout_s:g}", at=_at(line)), line)


def memory_exceeded(sample: Sample, limits: Limits, line: int | None) -> dict:
    return said_error("memory", piece("stopped.memory", held=f"{sample.rss_mb:,.0f}", limit=f"{limits.memory_mb:,}",
                                      at=_at(line)), line)


def tasks_exceeded(sample: Sample, limits: Limits, line: int | None) -> dict:
    return said_error("tasks", piece("stopped.tasks", threads=f"{sample.threads:,}", limit=f"{limits.max_tasks:,}",
                                     at=_at(line)), line)


def scratch_full(usage: Usage, limits: Limits, line: int | None) -> dict:
    if usage.hidden:
        what = piece("stopped.disk.hidden")
    elif usage.too_deep:
        what = piece("stopped.disk.depth", depth=limits.scratch_depth)
    elif usage.entries > limits.scratch_files:
        what = piece("stopped.disk.files", files=f"{limits.scratch_files:,}")
    else:
        what = piece("stopped.disk.size", used=f"{usage.bytes / 2**20:,.0f}", limit=f"{limits.scratch_mb:,}")
    return said_error("disk", piece("stopped.disk", what=what, at=_at(line)), line)


def after_task_limit(result: dict, refused: int, limits: Limits) -> dict:
    """The job's own error, reported as what caused it: the kernel refused it ``refused`` new threads."""
    error = result["error"]
    said = piece("stopped.after_task_limit", limit=f"{limits.max_tasks:,}", refused=f"{refused:,}",
                 message=error["message"])
    told = said_error("tasks", said, error.get("line"))["error"]
    return {**result, "error": {**error, "kind": "tasks", "message": told["message"], "words": told["words"]}}


def hung_up(line: int | None) -> dict:
    return said_error("crashed", piece("stopped.hung_up", at=_at(line), replaced=_REPLACED), line)


def ended_without_reply(report: dict | None, events: dict[str, int], last: Sample | None, limits: Limits,
                        cgroup_memory_mb: int | None) -> dict:
    """The worker's process ended (or closed its connection) before it replied: say how, from the kernel's facts."""
    if events.get("oom_kills") and cgroup_memory_mb:
        return said_error("memory", piece("stopped.oom_cgroup", limit=f"{cgroup_memory_mb:,}", replaced=_REPLACED))
    if report is None or report.get("code") not in ("exited", "killed", "dumped"):
        return said_error("crashed", piece("stopped.unknown_end", replaced=_REPLACED))
    if report["code"] == "exited":
        return said_error("crashed", piece("stopped.exited", status=report["status"], replaced=_REPLACED))
    number = report["status"]
    name = _signal_name(number)
    if events.get("task_limit_hits"):
        return said_error("tasks", piece("stopped.killed_at_task_limit", signal=name, limit=f"{limits.max_tasks:,}",
                                         replaced=_REPLACED))
    if limits.address_space_mb and last is not None and last.address_space_mb >= 0.9 * limits.address_space_mb:
        return said_error("memory", piece("stopped.address_space", signal=name, used=f"{last.address_space_mb:,.0f}",
                                          limit=f"{limits.address_space_mb:,}", replaced=_REPLACED))
    if number == signal.SIGKILL:
        return said_error("memory", piece("stopped.host_oom", signal=name, replaced=_REPLACED))
    return said_error("crashed", piece("stopped.signal", signal=name, replaced=_REPLACED))


def _signal_name(number: int) -> str:
    try:
        return f"{signal.Signals(number).name} ({signal.strsignal(number)})"
    except ValueError:
        return f"signal {number}"
