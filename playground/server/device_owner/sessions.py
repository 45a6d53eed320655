"""A job's session on the device owner, and why an owner was lost while something was on it."""

from __future__ import annotations

from dataclasses import dataclass


class OwnerLost(RuntimeError):
    """The owner ended while a request or a run was on it: ``piece`` says why (a catalogue piece), ``kind`` is the
    job's error kind."""

    def __init__(self, kind: str, piece: list) -> None:
        super().__init__(kind)
        self.kind, self.piece = kind, piece


@dataclass(frozen=True)
class Session:
    """A job's session: its number, on the owner of ``generation``."""

    number: int
    generation: int
