"""The fields that say how the function is called, as the tabs that share them show them (Inspect, the Compiler,
Speed of light): its arguments, its static_argnums (and the run that reads them) and the accelerator to compile
for. Each field's element id is ``<ids>-args``, ``<ids>-static`` or ``<ids>-on-accelerator``."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import gradio as gr

from playground import validation
from playground.server.ui import progress
from playground.server.ui.translations import t


def arguments(ids: str, value: str) -> gr.Textbox:
    """The arguments the function is called with, an expression in the code's scope."""
    return gr.Textbox(value, label=t("pg.field.arguments"), info=t("pg.field.in_scope"), elem_id=f"{ids}-args")


def static_argnums(ids: str, info: str | None = None) -> gr.Textbox:
    """The positions of the arguments jit takes as static; ``info``: the words under the field, if any."""
    return gr.Textbox(label="static_argnums", placeholder=t("pg.field.static_example"), info=info,
                      elem_id=f"{ids}-static")


def on_accelerator(ids: str, accelerator: str | None, info: str | None = None) -> gr.Checkbox:
    """Compile for the host's GPU or TPU (``accelerator``, its name) instead of the CPU; shown only where the host
    has one."""
    return gr.Checkbox(False, label=t("pg.field.on_accelerator") + f" ({accelerator or '-'})", info=info,
                       visible=bool(accelerator), elem_id=f"{ids}-on-accelerator")


def parse_argnums(text: str) -> list[int] | None:
    """'1' or '0, 2' -> [1] or [0, 2]; blank -> None; anything else is validation.Refused."""
    return validation.whole_numbers_text("static_argnums", text) or None


def follow(static_text: str, job: Callable[[list[int] | None], Iterator[dict]], render: Callable[[dict], tuple],
           outputs: int, lang: str, working: str) -> Iterator[tuple]:
    """A run of a form with static_argnums: the field read, then ``job``'s updates for them as progress.follow
    shows them (``working``: what the job does); a field that is no list of numbers shows its error at once,
    through ``render``."""
    try:
        argnums = parse_argnums(static_text)
    except validation.Refused as exc:
        yield render(exc.error)
        return
    yield from progress.follow(job(argnums), render, outputs, language=lang, working=working)
