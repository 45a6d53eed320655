"""What a share link's state may hold: a tab's fields, each of a kind that checks a value read from a link.

Anyone can craft a link, so every value is checked against its field before the page sees it, and a value the
field refuses is a ValueError whose message is meant for the person who clicked the link (sharing.py). A tab's
fields are made from its jobs' declarations (``fields_of``), as a form holds each argument.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from playground import jobs
from playground.jobs.arguments import Form


@dataclass(frozen=True)
class Text:
    """Any text up to ``limit`` characters."""

    limit: int

    def check(self, name: str, value: object) -> str:
        if not isinstance(value, str):
            raise ValueError(f"The link's `{name}` must be text, not {type(value).__name__}.")
        if len(value) > self.limit:
            raise ValueError(f"The link's `{name}` is {len(value):,} characters long; the limit is {self.limit:,}.")
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
            raise ValueError(f"The link's `{name}` must be a number, not {str(value)[:40]!r}.")
        if self.whole and value != int(value):
            raise ValueError(f"The link's `{name}` must be a whole number, not {value!r}.")
        if not self.low <= value <= self.high:
            raise ValueError(f"The link's `{name}` is {value!r}; it must be from {self.low:g} to {self.high:g}.")
        return int(value) if self.whole else value


@dataclass(frozen=True)
class Flag:
    """True or False."""

    def check(self, name: str, value: object) -> bool:
        if not isinstance(value, bool):
            raise ValueError(f"The link's `{name}` must be true or false, not {str(value)[:40]!r}.")
        return value


@dataclass(frozen=True)
class Choice:
    """One of ``options``."""

    options: tuple[str, ...]

    def check(self, name: str, value: object) -> str:
        if value not in self.options:
            raise ValueError(f"The link's `{name}` is {str(value)[:40]!r}, which is not one of "
                             f"{', '.join(map(repr, self.options))}.")
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
