"""The device check's table (device_check.py): a step's rows, or one that names the step that failed and why, so
that one failed step loses no other step's rows; and the table printed."""

from __future__ import annotations

import traceback


def step(rows: list[tuple[str, str]], name: str, run, otherwise):
    """``run()``, or, when it raises, a row naming the step and the exception, and ``otherwise``."""
    try:
        return run()
    except Exception as exc:  # the check goes on: one failed step must not lose the others' rows
        traceback.print_exc()
        rows.append((f"{name}", f"FAILED ({type(exc).__name__}): {str(exc)[:300]}"))
        return otherwise


def failed(reply: dict) -> str:
    """A failed step's row: the error, so that the rest of the check still runs and prints."""
    error = reply.get("error") or {}
    return f"FAILED ({error.get('kind', '?')}): {str(error.get('message') or reply.get('skipped') or reply)[:300]}"


def print_table(rows: list[tuple[str, str]]) -> None:
    width = max(len(name) for name, _ in rows)
    print(f"| {'check':<{width}} | result |\n|{'-' * (width + 2)}|--------|")
    for name, value in rows:
        print(f"| {name:<{width}} | {value} |")
