"""The line in front of a pool's workers: first come, first served, each waiting job told its place and its wait.

Jobs wait here rather than in Gradio's queue so that a request whose result
is cached never waits behind slow jobs, and so that the estimate each waiting
job is given comes from how long jobs of each kind really took here: a
moving average of measured durations, per kind, replayed over the jobs
running and waiting ahead (each takes the first worker free). A running job
that has outlived its kind's typical time is expected to need as long again,
within its wall clock. A line that is
full refuses at once, with how long the work already waiting would take.

>>> line = JobLine(slots=1, max_waiting=1)
>>> first = line.join("inspect")
>>> line.wait_turn(first, 0)
True
>>> second = line.join("inspect")
>>> line.place(second).position
1
>>> try:
...     line.join("inspect")
... except LineFull as full:
...     print(full.waiting)
1
"""

from __future__ import annotations

import heapq
import itertools
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

_SMOOTHING = 0.3  # weight of the newest duration in each kind's moving average


class LineFull(Exception):
    """No room to wait: ``waiting`` jobs are in line, about ``wait_s`` of work (None: nothing measured yet)."""

    def __init__(self, waiting: int, wait_s: float | None) -> None:
        super().__init__(f"{waiting} jobs are waiting")
        self.waiting, self.wait_s = waiting, wait_s


@dataclass(eq=False)
class Ticket:
    kind: str
    number: int
    started: float | None = None  # on the clock, once it has a worker


@dataclass(frozen=True)
class Place:
    """Where a ticket stands: ``position`` 1 starts next (0: it has a worker); ``wait_s`` until it starts."""

    position: int
    running: int
    slots: int
    wait_s: float | None

    def to_dict(self) -> dict:
        return {"position": self.position, "running": self.running, "workers": self.slots,
                "wait_s": None if self.wait_s is None else round(self.wait_s, 2)}


@dataclass
class JobLine:
    slots: int
    max_waiting: int
    clock: Callable[[], float] = time.monotonic
    limit_s: Callable[[str], float] = lambda kind: math.inf  # each kind's wall clock: no job runs longer
    _waiting: deque = field(default_factory=deque)
    _running: set = field(default_factory=set)
    _typical_s: dict = field(default_factory=dict)  # kind -> moving average of measured durations
    _numbers: itertools.count = field(default_factory=itertools.count)
    _changed: threading.Condition = field(default_factory=threading.Condition)

    def join(self, kind: str) -> Ticket:
        """A place at the end of the line; LineFull when ``max_waiting`` jobs wait already."""
        with self._changed:
            if len(self._waiting) >= self.max_waiting:
                raise LineFull(len(self._waiting), self._start_of(len(self._waiting)))
            ticket = Ticket(kind, next(self._numbers))
            self._waiting.append(ticket)
            self._admit()
            return ticket

    def wait_turn(self, ticket: Ticket, timeout_s: float | None) -> bool:
        """True once the ticket has a worker; False when ``timeout_s`` (None: no limit) passed first (it keeps its
        place)."""
        with self._changed:
            return self._changed.wait_for(lambda: ticket.started is not None, timeout_s)

    def leave(self, ticket: Ticket) -> None:
        """The job is done (its duration counts towards its kind's estimate), or gave up its place in line."""
        with self._changed:
            if ticket in self._running:
                self._running.discard(ticket)
                took = self.clock() - ticket.started
                before = self._typical_s.get(ticket.kind)
                self._typical_s[ticket.kind] = took if before is None else before + _SMOOTHING * (took - before)
            elif ticket in self._waiting:
                self._waiting.remove(ticket)
            self._admit()

    def place(self, ticket: Ticket) -> Place:
        with self._changed:
            if ticket.started is not None:
                return Place(0, len(self._running), self.slots, 0.0)
            index = self._waiting.index(ticket) if ticket in self._waiting else len(self._waiting)
            return Place(index + 1, len(self._running), self.slots, self._start_of(index))

    def typical_s(self, kind: str) -> float | None:
        """The measured moving average for ``kind``; else that of any kind measured; None before any job ended."""
        with self._changed:
            return self._estimate(kind)

    def status(self) -> dict:
        with self._changed:
            return {"workers": self.slots, "running": len(self._running), "waiting": len(self._waiting),
                    "max_waiting": self.max_waiting,
                    "typical_s": {kind: round(s, 3) for kind, s in sorted(self._typical_s.items())}}

    def _admit(self) -> None:
        while self._waiting and len(self._running) < self.slots:
            ticket = self._waiting.popleft()
            ticket.started = self.clock()
            self._running.add(ticket)
        self._changed.notify_all()

    def _estimate(self, kind: str) -> float | None:
        if kind in self._typical_s:
            return self._typical_s[kind]
        measured = list(self._typical_s.values())
        return sum(measured) / len(measured) if measured else None

    def _remaining(self, ticket: Ticket, typical: float, ran: float) -> float:
        """A running job's time left: the typical time's rest; once past it, as long again as it ran (a job that
        outlived the typical one is not about to end), never past its wall clock."""
        left = typical - ran if ran < typical else ran
        return max(0.0, min(left, self.limit_s(ticket.kind) - ran))

    def _start_of(self, index: int) -> float | None:
        """When the job at ``index`` in line would start: the ones running and ahead, each on the first free worker."""
        now = self.clock()
        free = [0.0] * (self.slots - len(self._running))
        for ticket in self._running:
            typical = self._estimate(ticket.kind)
            if typical is None:
                return None
            free.append(self._remaining(ticket, typical, now - ticket.started))
        heapq.heapify(free)
        for ticket in itertools.islice(self._waiting, index):
            typical = self._estimate(ticket.kind)
            if typical is None:
                return None
            heapq.heappush(free, heapq.heappop(free) + typical)
        return free[0] if free else 0.0
