"""What a worker sees: its backend and devices, for About (whose endpoint adds the server's side to it)."""

from __future__ import annotations

from playground import replies
from playground.jobs import JobKind
from playground.schema import ListOf, Text

POSITION = 90

# The reply's every field, checked in the server before anything uses it (playground/replies.py).
ABOUT = replies.ok(python=Text(40), backend=Text(100), devices=ListOf(Text(400), 4096))

KINDS = (JobKind("about", "playground.worker.jobs.about:about_job", (), ABOUT,
                 "A worker's backend and devices.", public=False),)
