"""The server's line for the training slots: first come, first served, with each waiter's place in line."""

from __future__ import annotations

import threading
import time
from collections.abc import Generator
from dataclasses import dataclass

POLL_S = 0.5


@dataclass(eq=False)
class Ticket:
    all_slots: bool = False  # a data-parallel run: it needs every accelerator at once
    held: tuple[int, ...] = ()  # the slots it holds, once it is its turn

    @property
    def slot(self) -> int | None:
        """The slot this run trains in once it is its turn: its one slot, or slot 0 when it holds them all."""
        return min(self.held) if self.held else None


class SlotQueue:
    """``slots`` runs at a time (one per accelerator); the rest wait in arrival order.

    A data-parallel run (``join(all_slots=True)``) waits until every slot is
    free and holds them all. Nobody overtakes: a one-slot run behind it waits
    too, even while a slot stands free, or a steady trickle of small runs
    could keep the big one waiting for ever.
    """

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"at least one training slot is needed, got {slots}")
        self._total = slots
        self._free = list(range(slots))
        self._running = 0
        self._waiting: list[Ticket] = []
        self._changed = threading.Condition()

    def join(self, all_slots: bool = False) -> Ticket:
        """A place at the end of the line, for one slot or (``all_slots``) every slot at once."""
        ticket = Ticket(all_slots)
        with self._changed:
            self._waiting.append(ticket)
            self._assign()
        return ticket

    def wait(self, ticket: Ticket, timeout_s: float) -> bool:
        """True once ``ticket`` holds its slots; False after ``timeout_s`` of waiting."""
        with self._changed:
            return self._changed.wait_for(lambda: ticket.slot is not None, timeout_s)

    def waited(self, ticket: Ticket, stop: threading.Event, base: dict, started: float) -> Generator[dict, None, bool]:
        """Wait for ``ticket``'s slots, yielding its place in line as a "queued" update on ``base`` (``elapsed_s``
        since ``started``, time.monotonic()) every ``POLL_S``: True once it holds them, False once ``stop`` is set."""
        while not self.wait(ticket, POLL_S):
            if stop.is_set():
                return False
            yield {**base, "phase": "queued", "queue_position": self.position(ticket),
                   "elapsed_s": time.monotonic() - started}
        return True

    def position(self, ticket: Ticket) -> int:
        """Its place in line: 1 = next to start; 0 once it holds its slots (or has left)."""
        with self._changed:
            return self._waiting.index(ticket) + 1 if ticket in self._waiting else 0

    def leave(self, ticket: Ticket) -> None:
        """Give the slots back, or give up the place in line."""
        with self._changed:
            if ticket.held:
                self._free.extend(ticket.held)
                ticket.held = ()
                self._running -= 1
            elif ticket in self._waiting:
                self._waiting.remove(ticket)
            self._assign()

    def counts(self) -> dict:
        """Slots in all, runs holding slots (a data-parallel run is one run on every slot), runs waiting."""
        with self._changed:
            return {"slots": self._total, "running": self._running, "waiting": len(self._waiting)}

    def _assign(self) -> None:
        while self._waiting:
            wanted = self._total if self._waiting[0].all_slots else 1
            if len(self._free) < wanted:
                break  # the first in line waits for its slots, and so does everyone behind it
            self._waiting.pop(0).held = tuple(sorted(self._free[:wanted]))
            del self._free[:wanted]
            self._running += 1
        self._changed.notify_all()
