"""What makes a module a tab of the app, and what every tab's ``build`` gets.

A module of this package named ``*_tab.py`` with a ``TAB`` is a tab: ``build_app`` finds it and builds it in its
place (``TAB.position``), titled ``TAB.title``, inside ``gr.Tab``; its ``build(context)`` lays the tab out, wires
its events and returns what its share links hold (share_links.Sharing), or None for a tab without links. A tab of
code opens with the form code_form.py makes. Adding a tab adds such a module; nothing else lists the tabs.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from types import ModuleType

import gradio as gr

from playground.server.api import PlaygroundAPI
from playground.server.config import Settings


@dataclass(frozen=True)
class Tab:
    """``title``: a catalogue key (pg.tab.*), or the name itself where every language writes it so ("vmap")."""

    title: str
    id: str
    position: int  # its place among the tabs: tens, so that a new tab fits between two without moving them


@dataclass(frozen=True)
class TabContext:
    """The API, the page, the server's settings, and the concurrency id of each line jobs wait in ("sandbox",
    "parallel", "device", "training")."""

    api: PlaygroundAPI
    demo: gr.Blocks | None
    settings: Settings
    queues: dict[str, str]

    def line(self, name: str) -> dict:
        """The concurrency limit and id of the events that run a job in line ``name``, as the keywords of an event
        (``run.click(..., **context.line("sandbox"))``): as many at once as the server lets in (its line tells
        each its place); training runs wait inside the training service."""
        limit = self.settings.queue_size if name == "training" else self.settings.requests_at_once
        return {"concurrency_limit": limit, "concurrency_id": self.queues[name]}


def tab_modules() -> list[ModuleType]:
    """Every tab module of this package, in the order of the tabs."""
    package = importlib.import_module(__package__)
    found = [importlib.import_module(f"{__package__}.{info.name}") for info in pkgutil.iter_modules(package.__path__)
             if info.name.endswith("_tab")]
    return sorted((module for module in found if hasattr(module, "TAB")), key=lambda module: module.TAB.position)
