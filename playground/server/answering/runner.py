"""How the server answers a job request: from the cache, from an identical job already running, or in line.

Each request gets a stream of updates: while it waits, its place in line and
the estimated wait (line.py); for kinds whose worker sends one, the early
reply; then the final reply. The job itself runs in a thread of its own, so
that it finishes (and fills the cache) even when the request that started it
goes away, and every identical request that came meanwhile gets its result.

Every reply from a worker is checked against its kind's schema (replies.py)
before anyone sees it, early ones too. A kind's ``finish`` (the server's own
work on the checked reply, playground/jobs) runs here too: in the job's
thread, kept with the result; or, for a finish that depends on what the
server holds at the time, on each request's answer, in its stream
(finishing.py says what a finish is handed).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from playground import jobs, messages, replies
from playground.errors import internal_error, new_incident_id, said_error
from playground.server.answering.finishing import Finishing
from playground.server.answering.line import JobLine, LineFull, Ticket
from playground.server.answering.result_cache import ResultCache

if TYPE_CHECKING:
    from playground.server.pools import JobPool

log = logging.getLogger(__name__)

UPDATE_EVERY_S = 0.5  # how often a waiting request hears its place again
# A job that ends so after its early reply ran out of something in the checks that follow it: the early reply
# stands. A refused reply (the worker misbehaved) or our own bug keeps nothing of it.
_CHECKS_STOPPED = frozenset({"timeout", "memory", "disk", "tasks", "crashed"})


@dataclass(eq=False)
class Flight:
    """One job on its way, for every request that asked for it while it ran."""

    kind: str
    job: dict
    pool: JobPool
    ticket: Ticket
    key: str | None
    early: dict | None = None  # the newest early reply
    earlies: int = 0  # how many have come (vmap sends one per batch size): each is said once
    final: dict | None = None
    ended_at: float | None = None
    others_meanwhile: int = 0  # the other jobs, of any line, that ran at some time while this one ran
    _changed: threading.Condition = field(default_factory=threading.Condition)

    def publish(self, early: dict | None = None, final: dict | None = None, ended_at: float | None = None) -> None:
        with self._changed:
            if early is not None and early.get("ok") and self.final is None:
                self.early, self.earlies = early, self.earlies + 1
            if final is not None:
                self.final, self.ended_at = final, ended_at
            self._changed.notify_all()

    def wait(self, timeout_s: float, earlies_seen: int) -> None:
        """Until the final reply, an early one not yet seen, or ``timeout_s``."""
        with self._changed:
            self._changed.wait_for(lambda: self.final is not None or self.earlies > earlies_seen, timeout_s)


class JobRunner:
    def __init__(self, pools: dict[str, JobPool], max_waiting: int, timeout_s: Callable[[str], float],
                 cache: ResultCache | None) -> None:
        """``pools`` by the registry's names (one pool may go by several); ``timeout_s(kind)`` its wall clock."""
        self._pools = pools
        self._lines = {pool: JobLine(pool.size, max_waiting, limit_s=timeout_s) for pool in set(pools.values())}
        self._timeout_s = timeout_s
        self._cache = cache
        self._flights: dict[str, Flight] = {}
        self._running: set[Flight] = set()  # every line's
        self._lock = threading.Lock()
        self._finishing = Finishing(self.updates)

    def updates(self, kind: str, job: dict, fresh: bool = False) -> Iterator[dict]:
        """Updates for a built job: ``done`` False while it waits or checks on, True on the last (the result).

        ``fresh``: never the kept result of an earlier job (a timing measured again); an identical job already
        running is still followed, since it measures now, and the new result replaces the kept one. A result is
        finished for this answer where its kind's finish is done for each: what the finish shows meanwhile comes
        before it."""
        row = jobs.REGISTRY[kind]
        for update in self._answer(kind, job, fresh):
            if update["done"] and update["ok"] and row.finish is not None and row.finish_each_answer:
                yield from jobs.named(row.finish)(update, self._finishing)
            else:
                yield update

    def _answer(self, kind: str, job: dict, fresh: bool) -> Iterator[dict]:
        """A built job's updates, its result last: kept, shared with an identical job running, or run in line."""
        pool_name = jobs.pool_of(kind, job)
        pool = self._pools[pool_name]
        key = self._cache.key(job, pool_name) if self._cache is not None else None
        found = self._cache.get(key) if key is not None and not fresh else None
        if found is not None:
            yield _final(found.reply, {"hit": True, "shared": False, **_when(found.measured_at)})
            return
        refused = None
        with self._lock:  # never held across a yield: a reader that stops reading must not stop the others
            flight = self._flights.get(key) if key is not None else None
            shared = flight is not None
            if flight is None:
                line = self._lines[pool]
                try:
                    flight = Flight(kind, job, pool, line.join(kind), key)
                except LineFull as full:
                    refused = {**busy(full, line.slots), "done": True}
                else:
                    if key is not None:
                        self._flights[key] = flight
                    threading.Thread(target=self._fly, args=(flight,), name=f"job-{kind}", daemon=True).start()
        if refused is not None:
            yield refused
            return
        yield from self._follow(flight, shared)

    def status(self) -> dict:
        """Each pool's line (workers, running, waiting, typical job seconds) and the cache's counts."""
        return {"lines": {name: self._lines[pool].status() for name, pool in self._pools.items()},
                "cache": None if self._cache is None else self._cache.status()}

    def _fly(self, flight: Flight) -> None:
        line = self._lines[flight.pool]
        row = jobs.REGISTRY[flight.kind]
        schema = row.reply
        result = None
        try:
            line.wait_turn(flight.ticket, None)
            self._started(flight)
            result = replies.check(schema, flight.pool.run(
                flight.job, self._timeout_s(flight.kind),
                on_early=lambda early: flight.publish(early=replies.check(schema, early))))
            if row.finish is not None and not row.finish_each_answer and result["ok"]:
                # While the job holds its place (a few at a time); its last update is the finished reply.
                *_, result = jobs.named(row.finish)(result, self._finishing)
        except Exception:  # our bug: the requests waiting on this job must still get an answer
            incident = new_incident_id()
            log.exception("internal error %s running a %r job", incident, flight.kind)
            result = internal_error(incident)
        finally:
            line.leave(flight.ticket)
            ended_at = time.time()
            result = result or internal_error(new_incident_id())
            with self._lock:
                self._running.discard(flight)
            if result["ok"] and replies.MEANWHILE in getattr(schema, "optional", {}):
                result = {**result, replies.MEANWHILE: flight.others_meanwhile}
            if flight.key is not None and self._cache is not None:
                self._cache.put(flight.key, result, ended_at)  # an error after an early reply is not kept
            if (not result["ok"] and result["error"]["kind"] in _CHECKS_STOPPED and flight.early is not None
                    and row.after_early is not None):
                result = row.after_early(flight.early, result)
            with self._lock:
                if self._flights.get(flight.key) is flight:
                    del self._flights[flight.key]
            flight.publish(final=result, ended_at=ended_at)

    def _started(self, flight: Flight) -> None:
        """Counts, for it and for each job running now, the other: a measurement says whether it shared the machine."""
        with self._lock:
            flight.others_meanwhile = len(self._running)
            for other in self._running:
                other.others_meanwhile += 1
            self._running.add(flight)

    def _follow(self, flight: Flight, shared: bool) -> Iterator[dict]:
        line = self._lines[flight.pool]
        earlies_seen = 0
        told = None
        while True:
            flight.wait(0 if told is None else UPDATE_EVERY_S, earlies_seen)
            if flight.final is not None:
                cache = None if self._cache is None else {"hit": False, "shared": shared, **_when(flight.ended_at)}
                yield _final(flight.final, cache)
                return
            if flight.earlies > earlies_seen:
                earlies_seen = flight.earlies
                yield {**flight.early, "done": False}
                continue
            if earlies_seen:
                continue
            place = line.place(flight.ticket).to_dict()
            update = {"ok": True, "done": False, "phase": "queued" if place["position"] else "running",
                      "queue": place, "shared": shared}
            # Said: each place in line, and the start after waiting; a job that had a worker at once just runs.
            if update["phase"] == "queued" or (told or {}).get("phase") == "queued" or (told is None and shared):
                yield update
            told = update


def busy(full: LineFull, workers: int) -> dict:
    """The answer when the line is full: how much work waits, and when to try again."""
    retry = max(1, math.ceil(full.wait_s)) if full.wait_s is not None else 5
    key = "busy.line_full.one" if workers == 1 else "busy.line_full"
    result = said_error("busy", messages.piece(key, waiting=full.waiting, workers=workers, retry=retry))
    result["error"]["retry_after_s"] = retry
    return result


def _final(reply: dict, cache: dict | None) -> dict:
    if not reply.get("ok"):
        return {**reply, "done": True}
    return {**reply, "cache": cache, "done": True}


def _when(measured_at: float) -> dict:
    stamp = datetime.fromtimestamp(measured_at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return {"measured_at": stamp, "age_s": round(max(0.0, time.time() - measured_at), 3)}
