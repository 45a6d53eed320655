"""Two texts compared line by line: a unified diff, and rows for a side-by-side view. Pure; stdlib only.

>>> print(unified("a\\nb\\nc", "a\\nB\\nc", "before", "after"))
--- before
+++ after
@@ -1,3 +1,3 @@
 a
-b
+B
 c
>>> [row[0] for row in side_by_side("a\\nb", "a\\nc")]
['same', 'changed']
"""

from __future__ import annotations

import difflib
import re

MAX_LINES = 5_000  # per text: past it, the diff compares the first lines and says so
_FRAME_ID = re.compile(r" stack_frame_id=\d+")


def without_frame_ids(hlo: str) -> str:
    """HLO text without its ``stack_frame_id`` numbers: two compiles number the same frames differently.

    >>> without_frame_ids('add(a, b), metadata={op_name="jit(f)/add" stack_frame_id=3}')
    'add(a, b), metadata={op_name="jit(f)/add"}'
    """
    return _FRAME_ID.sub("", hlo)


def unified(before: str, after: str, before_label: str, after_label: str, context: int = 3) -> str:
    """The unified diff (empty when the texts are the same), of at most ``MAX_LINES`` lines of each."""
    a, b = before.splitlines()[:MAX_LINES], after.splitlines()[:MAX_LINES]
    text = "\n".join(difflib.unified_diff(a, b, before_label, after_label, n=context, lineterm=""))
    if text and max(len(before.splitlines()), len(after.splitlines())) > MAX_LINES:
        text += f"\n… (only the first {MAX_LINES:,} lines of each were compared)"
    return text


def side_by_side(before: str, after: str) -> list[tuple[str, str | None, str | None]]:
    """(kind, left line, right line) per row: kind "same", "changed", "removed" (left only) or "added" (right)."""
    a, b = before.splitlines()[:MAX_LINES], after.splitlines()[:MAX_LINES]
    rows: list[tuple[str, str | None, str | None]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
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
