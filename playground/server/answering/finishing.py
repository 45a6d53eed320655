"""What a job's finish (its kind's ``finish``, playground/jobs) is handed besides the checked reply.

A finish is the server's own work on a reply: pictures and diffs (compiler/replies.py), the roofline under the
device's ceilings (device_owner/kept_ceilings.py). The job runner calls it as ``finish(reply, server)`` with its one
``Finishing``: the runner's jobs, for a finish that needs one run (the ceilings are measured by a job of their own,
in line like any other), and the objects finishes keep from one reply to the next, for the server's life.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

from playground import jobs

Kept = TypeVar("Kept")


class Finishing:
    def __init__(self, updates: Callable[[str, dict], Iterator[dict]]) -> None:
        """``updates(kind, job)``: a built job's updates, as any request gets them (JobRunner.updates)."""
        self._updates = updates
        self._kept: dict[type, object] = {}
        self._lock = threading.Lock()

    def updates(self, kind: str, values: dict) -> Iterator[dict]:
        """A ``kind`` job's updates from ``values`` (missing ones take their defaults), each argument checked as a
        request's: its place in line while it waits, then its result, or the error dict, marked ``done``."""
        job = jobs.build(kind, values)
        if job.get("ok") is False:
            yield {**job, "done": True}
            return
        yield from self._updates(kind, job)

    def kept(self, cls: type[Kept]) -> Kept:
        """The one ``cls()`` of this server, made on first use: what a finish keeps from one reply to the next."""
        with self._lock:
            if cls not in self._kept:
                self._kept[cls] = cls()
            return self._kept[cls]
