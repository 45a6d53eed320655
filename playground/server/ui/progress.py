"""What a tab shows while its job waits, and where a result came from (the API's updates, see api.updates).

>>> progress_markdown({"ok": True, "done": False, "phase": "queued", "shared": False,
...                    "queue": {"position": 2, "running": 2, "workers": 2, "wait_s": 1.3}})
'Waiting for a sandbox worker: **number 2 in line**, about **1.3 s** (2 of 2 workers busy).'
>>> progress_markdown({"ok": True, "done": False, "phase": "running", "shared": False, "queue": {}}, "de")
'Dein Job läuft in einem frischen Sandbox-Worker.'
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime

import gradio as gr

from playground import messages
from playground.server.ui import markdown as md


def is_progress(update: dict) -> bool:
    """An update that says where a job stands, not what it gave."""
    return update.get("done") is False and update.get("phase") in ("queued", "running")


def progress_markdown(update: dict, language: str = "en") -> str:
    """Where the job stands (its place in line, the wait, the busy workers), in ``language``."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    place, shared = update["queue"], "_shared" if update.get("shared") else ""
    if update["phase"] == "running":
        return say("progress.running" + shared)
    wait = place["wait_s"]
    estimate = (say("progress.estimate", wait=messages.number(wait, language, 1)) if wait is not None
                else say("progress.no_estimate"))
    busy = say("progress.busy_one" if place["workers"] == 1 else "progress.busy_many", running=place["running"],
               workers=place["workers"])
    return say("progress.waiting" + shared, position=place["position"], estimate=estimate, busy=busy)


def follow(updates: Iterator[dict], render: Callable[[dict], tuple], outputs: int,
           status_at: int = 0, language: str = "en", working: str | None = None) -> Iterator[tuple]:
    """A tab's outputs for each update: progress goes to the status output alone (in ``language``), results
    through ``render``. ``working``: the catalogue key of what the job does, said from the click on (a job that
    gets a worker at once sends nothing until its result)."""
    if working is not None:
        said = f"{md.verdict('busy', language)} {messages.say(working, language)}"
        yield tuple(gr.update(value=said) if i == status_at else gr.update() for i in range(outputs))
    for update in updates:
        if is_progress(update):
            yield tuple(gr.update(value=progress_markdown(update, language)) if i == status_at else gr.update()
                        for i in range(outputs))
        else:
            yield render(update)


def source_notes(response: dict, language: str = "en") -> list[str]:
    """What the reader must know of where a result came from: a job that ran on the CPU because the accelerator
    could not be opened (and why), and a result that was not measured for this request (``cache_note``)."""
    notes = []
    if fallback := response.get("device_fallback_words"):
        key, params = fallback  # the reason is JAX's text: escaped, like everything a job's reply brings
        why = md.text(messages.render([params["why"]], language))
        notes.append(f"{md.verdict('warning', language)} {messages.say(key, language, why=why)}")
    if cached := cache_note(response, language):
        notes.append(cached)
    return notes


def cache_note(response: dict, language: str = "en") -> str:
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
        return messages.say("progress.shared_result", language, at=at)
    return messages.say("progress.cached", language, at=at, age=_age(cache["age_s"], language))


def _age(seconds: float, language: str = "en") -> str:
    if seconds < 60:
        return messages.say("progress.age_s", language, n=messages.number(seconds, language))
    if seconds < 3600:
        return messages.say("progress.age_min", language, n=messages.number(seconds / 60, language))
    return messages.say("progress.age_h", language, n=messages.number(seconds / 3600, language, 1))
