"""The server's line for the training workers: first come, first served, with each waiter's place in line."""

from __future__ import annotations

import threading
from dataclasses import dataclass


@dataclass(eq=False)
class Ticket:
    slot: int | None = None  # the worker this run may use, once it is its turn


class SlotQueue:
    """``slots`` runs at a time (one per accelerator); the rest wait in arrival order."""

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"at least one training slot is needed, got {slots}")
        self._total = slots
        self._free = list(range(slots))
        self._waiting: list[Ticket] = []
        self._changed = threading.Condition()

    def join(self) -> Ticket:
        ticket = Ticket()
        with self._changed:
            self._waiting.append(ticket)
            self._assign()
        return ticket

    def wait(self, ticket: Ticket, timeout_s: float) -> bool:
        """True once ``ticket`` holds a slot; False after ``timeout_s`` of waiting."""
        with self._changed:
            return self._changed.wait_for(lambda: ticket.slot is not None, timeout_s)

    def position(self, ticket: Ticket) -> int:
        """Its place in line: 1 = next to start; 0 once it holds a slot (or has left)."""
        with self._changed:
            return self._waiting.index(ticket) + 1 if ticket in self._waiting else 0

    def leave(self, ticket: Ticket) -> None:
        """Give the slot back, or give up the place in line."""
        with self._changed:
            if ticket.slot is not None:
                self._free.append(ticket.slot)
                ticket.slot = None
            elif ticket in self._waiting:
                self._waiting.remove(ticket)
            self._assign()

    def counts(self) -> dict:
        with self._changed:
            return {"slots": self._total, "running": self._total - len(self._free), "waiting": len(self._waiting)}

    def _assign(self) -> None:
        while self._free and self._waiting:
            self._waiting.pop(0).slot = self._free.pop(0)
        self._changed.notify_all()
