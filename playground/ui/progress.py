"""What a tab shows while its job waits, and where a result came from (the API's updates, see api.updates).

>>> progress_markdown({"ok": True, "done": False, "phase": "queued", "shared": False,
...                    "queue": {"position": 2, "running": 2, "workers": 2, "wait_s": 1.3}})
'Waiting for a sandbox worker: **number 2 in line**, about **1.3 s** (2 of 2 workers busy).'
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime

import gradio as gr


def is_progress(update: dict) -> bool:
    """An update that says where a job stands, not what it gave."""
    return update.get("done") is False and update.get("phase") in ("queued", "running")


def progress_markdown(update: dict) -> str:
    place = update["queue"]
    whose = ("An identical job (someone else pressed Run on the same input) is" if update.get("shared")
             else "Your job is")
    if update["phase"] == "running":
        return (f"{whose} running in a fresh sandboxed worker." + (" Its result will be yours too."
                                                                  if update.get("shared") else ""))
    wait = place["wait_s"]
    estimate = (f"about **{wait:.1f} s**" if wait is not None
                else "no estimate yet (no job has finished since the server started)")
    head = "Waiting for a sandbox worker" if not update.get("shared") else f"{whose} waiting for a worker"
    tail = " Its result will be yours too." if update.get("shared") else ""
    return (f"{head}: **number {place['position']} in line**, {estimate} ({place['running']} of {place['workers']} "
            f"worker{'s' * (place['workers'] != 1)} busy).{tail}")


def follow(updates: Iterator[dict], render: Callable[[dict], tuple], outputs: int,
           status_at: int = 0) -> Iterator[tuple]:
    """A tab's outputs for each update: progress goes to the status output alone, results through ``render``."""
    for update in updates:
        if is_progress(update):
            yield tuple(gr.update(value=progress_markdown(update)) if i == status_at else gr.update()
                        for i in range(outputs))
        else:
            yield render(update)


def cache_note(response: dict) -> str:
    """'' for a result measured for this request; else when it was measured, and whose job it was.

    >>> note = cache_note({"cache": {"hit": True, "shared": False, "measured_at": "2026-12-01T17:52:03.120Z",
    ...                              "age_s": 95.0}})
    >>> note.startswith("Served from the cache: an identical job ran at 17:52:03 UTC (2 min ago)")
    True
    """
    cache = response.get("cache")
    if not cache or not (cache.get("hit") or cache.get("shared")):
        return ""
    at = datetime.fromisoformat(cache["measured_at"].replace("Z", "+00:00")).strftime("%H:%M:%S UTC")
    if cache.get("shared"):
        return (f"An identical job was already running when you pressed Run: these are its results, measured at "
                f"{at}.")
    return (f"Served from the cache: an identical job ran at {at} ({_age(cache['age_s'])}); these are its results "
            "and timings, measured then.")


def _age(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s ago"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min ago"
    return f"{seconds / 3600:.1f} h ago"
