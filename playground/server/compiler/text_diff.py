"""Two texts compared line by line, once: a unified diff and rows for a side-by-side view. Pure; stdlib only.

>>> diff = compare("a\\nb\\nc", "a\\nB\\nc", "before", "after")
>>> print(diff.unified)
--- before
+++ after
@@ -1,3 +1,3 @@
 a
-b
+B
 c
>>> [row[0] for row in diff.rows]
['same', 'changed', 'same']
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass

MAX_LINES = 5_000  # per text: past it, the diff compares the first lines and says so
_FRAME_ID = re.compile(r" stack_frame_id=\d+")


def without_frame_ids(hlo: str) -> str:
    """HLO text without its ``stack_frame_id`` numbers: two compiles number the same frames differently.

    >>> without_frame_ids('add(a, b), metadata={op_name="jit(f)/add" stack_frame_id=3}')
    'add(a, b), metadata={op_name="jit(f)/add"}'
    """
    return _FRAME_ID.sub("", hlo)


@dataclass(frozen=True)
class Diff:
    """One comparison of two texts, in both forms the page shows: ``unified`` (empty when the texts are the same)
    and ``rows``, (kind, left line, right line) per row for a side-by-side view: kind "same", "changed",
    "removed" (left only) or "added" (right only)."""

    unified: str
    rows: list[tuple[str, str | None, str | None]]


def compare(before: str, after: str, before_label: str, after_label: str, context: int = 3) -> Diff:
    """The texts compared once, at most ``MAX_LINES`` lines of each."""
    a, b = before.splitlines()[:MAX_LINES], after.splitlines()[:MAX_LINES]
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    rows = _rows(matcher.get_opcodes(), a, b)  # first: grouping the opcodes trims the matcher's own list of them
    text = "\n".join(_unified_lines(matcher, a, b, before_label, after_label, context))
    if text and max(len(before.splitlines()), len(after.splitlines())) > MAX_LINES:
        text += f"\n… (only the first {MAX_LINES:,} lines of each were compared)"
    return Diff(text, rows)


def _unified_lines(matcher: difflib.SequenceMatcher, a: list[str], b: list[str], before_label: str,
                   after_label: str, context: int) -> Iterator[str]:
    """What ``difflib.unified_diff`` writes, from this matcher's groups (the same comparison as the rows)."""
    for number, group in enumerate(matcher.get_grouped_opcodes(context)):
        if number == 0:
            yield f"--- {before_label}"
            yield f"+++ {after_label}"
        yield f"@@ -{_range(group[0][1], group[-1][2])} +{_range(group[0][3], group[-1][4])} @@"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                yield from ("-" + line for line in a[i1:i2])
            if tag in ("replace", "insert"):
                yield from ("+" + line for line in b[j1:j2])


def _range(start: int, stop: int) -> str:
    """A hunk's range as unified diffs write it: "3" for one line, "2,4" (first, count), "2,0" for none."""
    length = stop - start
    if length == 1:
        return f"{start + 1}"
    return f"{start + 1 if length else start},{length}"


def _rows(opcodes: list, a: list[str], b: list[str]) -> list[tuple[str, str | None, str | None]]:
    rows: list[tuple[str, str | None, str | None]] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            rows.extend(("same", a[i], b[j]) for i, j in zip(range(i1, i2), range(j1, j2), strict=True))
        elif tag == "delete":
            rows.extend(("removed", a[i], None) for i in range(i1, i2))
        elif tag == "insert":
            rows.extend(("added", None, b[j]) for j in range(j1, j2))
        else:
            left, right = a[i1:i2], b[j1:j2]
            for k in range(max(len(left), len(right))):
                rows.append(("changed", left[k] if k < len(left) else None, right[k] if k < len(right) else None))
    return rows
