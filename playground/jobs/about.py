"""What a worker sees: its backend and devices, for About (whose endpoint adds the server's side to it)."""

from __future__ import annotations

from playground import replies
from playground.jobs import JobKind

POSITION = 9

KINDS = (JobKind("about", "playground.worker.about:about_job", (), replies.ABOUT,
                 "A worker's backend and devices.", public=False),)
