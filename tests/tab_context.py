"""A tab's build context for tests that build one tab alone: every line's concurrency id "jobs"."""

from __future__ import annotations

from playground.server.api import PlaygroundAPI
from playground.server.config import Settings
from playground.server.ui.tabs import TabContext


def tab_context(api: PlaygroundAPI, settings: Settings | None = None) -> TabContext:
    return TabContext(api, None, settings or Settings(), dict.fromkeys(("sandbox", "parallel", "device", "training"),
                                                                       "jobs"))
