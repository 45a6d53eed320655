"""Measure again: a timing tab's second button, in sight only beside a result served from the cache.

The tab's own button answers with an identical job's kept result (a class pressing it on one example runs one
job; an example's click is that button's click, so Measure after it measures nothing twice). That result says
how old it is (progress.cache_note); this button runs the job afresh (the API's ``fresh``), and its result is
then the one kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import gradio as gr

from playground.server.ui import language
from playground.server.ui.translations import t


def button(tab: str) -> gr.Button:
    """The button, hidden until a cached result is shown; its id is ``<tab>-again``."""
    return gr.Button(t("pg.measure_again"), variant="secondary", visible=False, elem_id=f"{tab}-again")


def shown(response: dict) -> dict:
    """The button's update for a reply: in sight for a result served from the cache, else hidden."""
    return gr.update(visible=bool((response.get("cache") or {}).get("hit")))


def hidden() -> dict:
    """Hidden while a job runs: what it will give is measured now."""
    return gr.update(visible=False)


def handlers(measure: Callable[..., Iterator[tuple]]) -> tuple[Callable, Callable]:
    """The handlers of the tab's run button and of this one: each yields ``measure(*values, fresh=..., lang=...)``
    for the form's values, afresh for this one, in the reader's language (Accept-Language). The request comes
    first: Gradio passes it to a parameter typed gr.Request wherever that stands among the values, and only the
    first place is the same whatever the number of the tab's fields."""
    def on_run(request: gr.Request | None, *values) -> Iterator[tuple]:
        yield from measure(*values, fresh=False, lang=language.of(request))

    def on_again(request: gr.Request | None, *values) -> Iterator[tuple]:
        yield from measure(*values, fresh=True, lang=language.of(request))

    return on_run, on_again
