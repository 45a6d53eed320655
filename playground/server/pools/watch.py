"""Watching one job from the server: every watchdog at once, and what to say when one fires.

The wall clock is checked every tick whatever else is measured: resident memory
and threads from /proc/<pid>/stat, and the scratch folder (only where it is not
a tmpfs of the job's own) with a walk that has a time budget per tick and goes
on where it stopped, so a folder too big for one tick is counted whole over several. The reply is read
as it arrives, bounded in size. What the user is told comes from verdicts.py.

A job may ask the server a question while it runs (``{"ask": request, "tag": tag}``; a device job asks its
device owner, through the server, to run what it lowered): the question goes to ``on_ask`` on a thread of its own,
so the watchdogs go on meanwhile, and its answer back to the worker as ``{"answer": ..., "tag": tag}`` (the tag
lets the worker tell its own answers from those of questions user code wrote itself). One question at a time;
a job whose pool was given no ``on_ask`` is answered ``{"error": ...}``. ``on_ask`` may end the job instead, by
raising ``AskEnded`` with the job's error (the device owner was killed on this job's account), and may return an
``Answer`` that gives the job's clock back the time its answer waited for work that was not the job's.
"""

from __future__ import annotations

import logging
import re
import select
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from playground.errors import USER_FILENAME, reply_refused
from playground.ipc import protocol, scratch
from playground.ipc.limits import Limits
from playground.server.pools import verdicts
from playground.server.pools.reply import validated

if TYPE_CHECKING:  # a WorkerHandle (pool.py) or a SpawnedWorker (process_pool.py): the same methods
    from playground.server.pools.cgroups import JobCgroups
    from playground.server.pools.handle import WorkerHandle

log = logging.getLogger(__name__)

_WATCH_TICK_S = 0.05
_WALK_EVERY_S = 0.25
_WALK_BUDGET_S = 0.02
MAX_EARLY = 8  # replies ahead of the final one that a job may send (Inspect sends one; vmap one per batch size)
Ask = Callable[[object, float], object]  # (the worker's request, seconds the job has left) -> the answer


@dataclass(frozen=True)
class Answer:
    """What ``on_ask`` may return instead of a bare answer: the answer, and the seconds of its making that were not
    the job's own (a device owner's own work, waited for): the job's clock is given them back."""

    value: object
    not_the_jobs_s: float = 0.0


class AskEnded(Exception):
    """Raised by ``on_ask``: the job ends with ``result`` (an error dict), whatever the worker does next."""

    def __init__(self, result: dict) -> None:
        super().__init__(result.get("error", {}).get("kind"))
        self.result = result


class _Asking:
    """The one question a job may have open: answered on a thread, while the watch goes on."""

    def __init__(self, worker: WorkerHandle, on_ask: Ask | None) -> None:
        self._worker, self._on_ask = worker, on_ask
        self._open = threading.Event()  # a question is being answered
        self.ended: dict | None = None  # set when on_ask ended the job
        self.given_back_s = 0.0  # the seconds the answers took that were not the job's own (Answer)

    def start(self, question: dict, remaining_s: float) -> str | None:
        """Start answering ``question`` (``{"ask": request}``, maybe with a ``tag``); the reason it is refused
        instead, or None."""
        if self._open.is_set():
            return "it asked a second question before the first was answered"
        self._open.set()
        threading.Thread(target=self._answer, args=(question["ask"], question.get("tag"), remaining_s),
                         name="job-ask", daemon=True).start()
        return None

    def _answer(self, request: object, tag: str | None, remaining_s: float) -> None:
        if self._on_ask is None:
            answer: object = {"error": "this job may not ask the server anything"}
        else:
            try:
                answer = self._on_ask(request, remaining_s)
            except AskEnded as ended:
                self.ended = ended.result
                return
            if isinstance(answer, Answer):
                self.given_back_s += answer.not_the_jobs_s
                answer = answer.value
        self._open.clear()  # before the answer: the worker's next question may come at once
        try:
            self._worker.channel.sendall(protocol.encode({"answer": answer, "tag": tag}))
        except OSError:
            pass  # the worker is gone; the watch says why


@dataclass
class JobWatch:
    """The pool's watchdogs: its limits, its cgroups, how it learns a worker's end, and its counters."""

    limits: Limits
    cgroups: JobCgroups | None
    cgroup_memory_mb: int | None
    exit_report: Callable[[WorkerHandle], dict | None]
    count: Callable[[str], None]

    def watch(self, worker: WorkerHandle, job: dict, timeout_s: float,
              on_early: Callable[[dict], None] | None = None, on_ask: Ask | None = None) -> dict:
        """Wait for the reply while every watchdog runs; none of them can delay the deadline.

        Replies the worker sends ahead of its final one (``{"early": reply}``, at most ``MAX_EARLY``) go to
        ``on_early`` when they are well-formed successes, checked like the final one; the deadline and the
        watchdogs go on until the final reply.
        """
        walk = None if worker.private_scratch else scratch.Walk(worker.scratch, self.limits.scratch_files,
                                                                 self.limits.scratch_depth)
        try:
            return self._watch(worker, job, timeout_s, on_early, walk, _Asking(worker, on_ask))
        finally:
            if walk is not None:
                walk.close()

    def _watch(self, worker: WorkerHandle, job: dict, timeout_s: float, on_early: Callable[[dict], None] | None,
               walk: scratch.Walk | None, asking: _Asking) -> dict:
        limits = self.limits
        early_count = 0
        buffer = protocol.MessageBuffer(limits.message_bytes)
        deadline = time.monotonic() + timeout_s
        next_walk = 0.0
        while (remaining := deadline + asking.given_back_s - time.monotonic()) > 0:
            if select.select([worker.channel], [], [], min(_WATCH_TICK_S, remaining))[0]:
                chunk = worker.channel.recv(1 << 20)
                if not chunk:
                    return self.ended(worker)
                try:
                    message = buffer.feed(chunk)
                    while _is_early(message) or _is_ask(message):  # one chunk may hold several messages
                        if _is_ask(message):
                            refused = asking.start(message, deadline + asking.given_back_s - time.monotonic())
                            if refused:
                                return reply_refused(refused)
                            message = buffer.feed(b"")
                            continue
                        early_count += 1
                        if early_count > MAX_EARLY:
                            return reply_refused(f"it sent more than {MAX_EARLY} early replies")
                        early = message["early"]  # only a success is of use early: anything else is dropped
                        if isinstance(early, dict) and early.get("ok") is True and on_early is not None:
                            on_early(validated(early, job.get("kind", "?")))
                        message = buffer.feed(b"")
                except ValueError as exc:
                    return reply_refused(str(exc))
                if message is not None:
                    return self._with_kernel_facts(worker, validated(message, job.get("kind", "?")))
            if asking.ended is not None:
                return asking.ended
            worker.log.drain()
            sample = worker.sample()
            if sample is not None and sample.rss_mb > limits.memory_mb:
                self.count("memory_kills")
                return verdicts.memory_exceeded(sample, limits, self._last_user_line(worker))
            if sample is not None and sample.threads > limits.max_tasks:
                self.count("task_kills")
                return verdicts.tasks_exceeded(sample, limits, self._last_user_line(worker))
            if walk is not None and time.monotonic() >= next_walk:
                usage = walk.step(min(_WALK_BUDGET_S, max(remaining, 0.001)))
                # A pass that did not end goes on at the next tick; a new pass waits for the walk's interval.
                next_walk = time.monotonic() + (_WALK_EVERY_S if usage.complete else 0.0)
                if usage.hidden or usage.too_deep or usage.entries > limits.scratch_files or \
                        usage.bytes > limits.scratch_mb * 2**20:
                    self.count("disk_kills")
                    return verdicts.scratch_full(usage, limits, self._last_user_line(worker))
        self.count("timeouts")
        return verdicts.timed_out(timeout_s, self._last_user_line(worker))

    def _with_kernel_facts(self, worker: WorkerHandle, result: dict) -> dict:
        """A job that failed after the kernel refused it a thread failed for that reason, whatever it raised.

        Refused by the job's cgroup (pids.max), or, without one, by its thread gate, which the template
        reports when the worker has ended (so it is ended here: its reply is in).
        """
        if result["ok"] or result["error"]["kind"] != "user_exception":
            return result
        if self.cgroups is not None and worker.cgroups:
            refused = self.cgroups.events(worker.cgroups)["task_limit_hits"]
        else:
            worker.kill()
            refused = (self.exit_report(worker) or {}).get("threads_refused", 0)
        return verdicts.after_task_limit(result, refused, self.limits) if refused else result

    def _last_user_line(self, worker: WorkerHandle) -> int | None:
        """Ask the worker's faulthandler where it is, before it is killed (a hint only: the worker may lie)."""
        if not worker.ask_where():
            return None
        time.sleep(0.15)
        lines = re.findall(rf'File "{re.escape(USER_FILENAME)}", line (\d{{1,7}})', worker.log.text())
        return int(lines[0]) if lines else None

    def ended(self, worker: WorkerHandle) -> dict:
        """The worker closed its connection without a reply: wait for its end and say how it ended."""
        self.count("crashes")
        if not worker.exited(wait_s=1.0):  # closed its socket but lives on: it gets no second chance
            line = self._last_user_line(worker)
            worker.kill()
            return verdicts.hung_up(line)
        report = self.exit_report(worker)
        events = self.cgroups.events(worker.cgroups) if self.cgroups is not None else {}
        log.warning("sandbox worker %d ended without a result (%s); its output ends: %r", worker.pid, report,
                    worker.log.text()[-2000:])
        return verdicts.ended_without_reply(report, events, worker.last, self.limits, self.cgroup_memory_mb)


def _is_early(message: object) -> bool:
    return isinstance(message, dict) and len(message) == 1 and "early" in message


def _is_ask(message: object) -> bool:
    return isinstance(message, dict) and "ask" in message and message.keys() <= {"ask", "tag"} \
        and isinstance(message.get("tag", ""), str)
