"""What a share link's state may hold: a tab's fields, each of a kind that checks a value read from a link.

Anyone can craft a link, so every value is checked against its field before the page sees it, and a value the
field refuses is a BrokenLink whose message is meant for the person who clicked the link (sharing.py), in the
page's language. A tab's fields are made from its jobs' declarations (``fields_of``), as a form holds each
argument.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from playground import jobs, messages
from playground.jobs.arguments import Form


class BrokenLink(ValueError):
    """Why a link cannot be opened or made: ``piece``, a catalogue message (messages/link_texts.py) for the page to
    write in its reader's language; ``str()`` is its English."""

    def __init__(self, key: str, **params: object) -> None:
        self.piece = messages.piece(key, **params)
        super().__init__(messages.render([self.piece]))


def quoted(value: object) -> str:
    """A value a link holds, as Python writes it, cut to 40 characters: the link's own words, never translated."""
    return repr(value) if not isinstance(value, str) else repr(value[:40])


@dataclass(frozen=True)
class Text:
    """Any text up to ``limit`` characters."""

    limit: int

    def check(self, name: str, value: object) -> str:
        if not isinstance(value, str):
            raise BrokenLink("link.field_not_text", name=name, type=type(value).__name__)
        if len(value) > self.limit:
            raise BrokenLink("link.field_too_long", name=name, length=float(len(value)), limit=float(self.limit))
        return value


@dataclass(frozen=True)
class Number:
    """A finite number from ``low`` to ``high``; a whole one if ``whole``."""

    low: float
    high: float
    whole: bool = False

    def check(self, name: str, value: object) -> float | int:
        if isinstance(value, bool) or not isinstance(value, int | float) or (
                isinstance(value, float) and not math.isfinite(value)):
            raise BrokenLink("link.field_not_number", name=name, value=quoted(str(value)))
        if self.whole and value != int(value):
            raise BrokenLink("link.field_not_whole", name=name, value=quoted(value))
        if not self.low <= value <= self.high:
            raise BrokenLink("link.field_out_of_range", name=name, value=quoted(value), low=float(self.low),
                             high=float(self.high))
        return int(value) if self.whole else value


@dataclass(frozen=True)
class Flag:
    """True or False."""

    def check(self, name: str, value: object) -> bool:
        if not isinstance(value, bool):
            raise BrokenLink("link.field_not_flag", name=name, value=quoted(str(value)))
        return value


@dataclass(frozen=True)
class Choice:
    """One of ``options``."""

    options: tuple[str, ...]

    def check(self, name: str, value: object) -> str:
        if value not in self.options:
            raise BrokenLink("link.field_not_option", name=name, value=quoted(str(value)),
                             options=", ".join(map(repr, self.options)))
        return value


@dataclass(frozen=True)
class TabSchema:
    """What a tab's link may hold: its fields, and the controls a class link may hide."""

    fields: Mapping[str, Text | Number | Flag | Choice]
    hideable: tuple[str, ...] = ()


def fields_of(kind: str, renamed: Mapping[str, str] | None = None) -> dict[str, Text | Number | Flag | Choice]:
    """A job's arguments as a link's fields, each as its declaration says a form holds it (jobs.arguments.Form);
    ``renamed``: an argument's name in this tab, where it differs (a tab of two jobs has two ``code`` fields).

    >>> fields_of("jit_speed")["repeats"]
    Number(low=1, high=50, whole=True)
    """
    renamed = renamed or {}
    return {renamed.get(a.name, a.name): _field(a.form) for a in jobs.REGISTRY[kind].arguments}


def _field(form: Form) -> Text | Number | Flag | Choice:
    if form.kind == "text":
        return Text(form.limit)
    if form.kind == "number":
        return Number(form.low, form.high, form.whole)
    return Flag() if form.kind == "flag" else Choice(form.choices)
