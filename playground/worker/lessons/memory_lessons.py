"""The lesson for a program too big for the job's memory: XLA's failed allocation, its size, and a smaller shape.

XLA on the CPU says ``RESOURCE_EXHAUSTED: Out of memory allocating N bytes.``, or, where
a computation's input is the array that could not be made, ``INTERNAL: Error dispatching
computation: Out of memory allocating N bytes.`` (user_errors.classify makes both kind
``memory``). The size in bytes is all XLA says; the lesson writes it as a reader reads it::

    >>> size_text(40_000_000_000), size_text(4_800_000_772), size_text(600_000_000), size_text(4 * 10**15)
    ('40 GB', '4800 MB', '600 MB', '4000 TB')
"""

from __future__ import annotations

from playground.messages import piece
from playground.worker.lessons.lesson_kit import Clue, taught
from playground.worker.lessons.user_errors import ALLOCATION_FAILED


def size_text(size: int) -> str:
    """Bytes in the largest of MB, GB, TB and PB that leaves a whole number of at least 10 (or 1 MB): a figure
    without a decimal point or a thousands separator reads the same in every language of the page."""
    for unit, scale in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if size >= 10 * scale:
            return f"{size / scale:.0f} {unit}"
    return f"{max(size / 1e6, 1):.0f} MB"


def _fix_memory(clue: Clue) -> list:
    return [piece("lfix.memory", where=clue.where_piece(), size=size_text(int(clue.group("bytes"))))]


LESSONS = (
    taught(("JaxRuntimeError",), ALLOCATION_FAILED, "memory", _fix_memory,
           "https://docs.jax.dev/en/latest/_autosummary/jax.lax.map.html"),
)
