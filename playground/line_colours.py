"""One colour per line of the user's code, shared by every view that ties IR to source (Source ↔ IR, the graphs).

>>> colours([7, 2, None, 2])
{2: '#fde2e4', 7: '#e2ece9'}
"""

from __future__ import annotations

from collections.abc import Iterable

PALETTE = ("#fde2e4", "#e2ece9", "#dfe7fd", "#fff1c1", "#e8dff5", "#d7f0db", "#fce1c8", "#d9f1f7")


def colours(lines: Iterable) -> dict[int, str]:
    """The user lines that produced something, in order, each with its colour (the palette repeats)."""
    used = sorted({line for line in lines if type(line) is int})
    return {line: PALETTE[i % len(PALETTE)] for i, line in enumerate(used)}
