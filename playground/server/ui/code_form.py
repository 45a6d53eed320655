"""The form a tab of code opens with, made once for every such tab.

From the top: the notes a link brings (link_notes.py), the tab's introduction, then side by side the code editor
(a preset picker above it where the tab has presets) and the tab's own fields, under them the run button (Measure
again beside it on a timing tab), Copy link and the class-link panel. Under the form, ``status`` is the line that
says how a run stands. A tab gives its editor, a function that makes its own fields and its button's words; the
element ids are ``<ids>-code``, ``<ids>-preset``, ``<ids>-run`` and ``<ids>-status``, the link's controls
``<tab>-share`` and so on (share_links.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import gradio as gr

from playground.server.links.fields import TabSchema
from playground.server.ui import measure_again, share_links
from playground.server.ui.link_notes import LinkNotes, link_notes
from playground.server.ui.preset_pick import named_while_unchanged
from playground.server.ui.translations import t


@dataclass(frozen=True)
class Editor:
    """The code editor: the code it opens with, its height in lines, its label's catalogue key."""

    code: str
    lines: int
    label: str = "pg.field.function"


@dataclass(frozen=True)
class Presets:
    """The picker above the editor: each preset's code by its name, the first one picked, and the words the picker
    shows for a name that each language writes its own way (others, such as "tanh", are shown as they are)."""

    code: Mapping[str, str]
    shown: Mapping[str, str]


@dataclass(frozen=True)
class Form:
    """What ``form`` made. ``fields``: the editor (``code``) and the tab's own fields, by the names of the tab's
    link; ``run`` and ``again`` are None where the tab has none, ``preset`` where it has no presets."""

    tab: str
    fields: dict
    notes: LinkNotes
    links: share_links.LinkControls
    run: gr.Button | None
    again: gr.Button | None
    preset: gr.Dropdown | None

    def sharing(self, schema: TabSchema, hideable: dict, *, fields: dict | None = None, code: tuple = (),
                **more) -> share_links.Sharing:
        """The tab's links: this form's fields and ``fields`` (what the tab holds beyond its form), its editor and
        ``code`` (other editors) for a class link to make read-only, its run button pressed (``more`` may say
        ``runs`` otherwise, and anything else share_links.Sharing takes)."""
        more.setdefault("runs", (self.run.elem_id,) if self.run is not None else ())
        return share_links.Sharing(self.tab, schema, {**self.fields, **(fields or {})}, self.links, self.notes,
                                   code=(self.fields["code"], *code), hideable=hideable, **more)


def form(tab: str, editor: Editor, fields: Callable[[], dict], hideable: dict[str, str], *,
              ids: str | None = None, intro: str | None = None, run: str | None = None, again: bool = False,
              presets: Presets | None = None) -> Form:
    """The form (the module's docstring). ``fields`` makes the tab's own fields in the right-hand column and returns
    them by their link's names; ``hideable``: what a class link can hide (link_panel); ``ids`` begins the element
    ids where it is not the tab's id; ``intro``: the words above the form; ``run``: the run button's catalogue key
    (None: the tab's views have buttons of their own); ``again``: Measure again beside it."""
    ids = ids or tab
    notes = link_notes(tab)
    if intro is not None:
        gr.Markdown(intro)
    with gr.Row():
        with gr.Column(scale=3):
            preset = _picker(ids, presets) if presets is not None else None
            code = gr.Code(editor.code, language="python", lines=editor.lines, label=t(editor.label),
                           elem_id=f"{ids}-code")
        with gr.Column(scale=2):
            own = fields()
            run_button, again_button, copy = _buttons(tab, ids, run, again)
            links = share_links.link_panel(tab, copy, hideable)
    if presets is not None:
        named_while_unchanged(preset, code, presets.code.__getitem__)
    return Form(tab, {"code": code, **own}, notes, links, run_button, again_button, preset)


def status(ids: str) -> gr.Markdown:
    """The line that says how a run stands: what to do until the first run, then its place in line, then what it
    gave (progress.py); ``<ids>-status``, which a phone scrolls into sight on a click (layout.RESULT_IN_SIGHT_JS)."""
    return gr.Markdown(t("pg.hint.run"), elem_id=f"{ids}-status")


def _picker(ids: str, presets: Presets) -> gr.Dropdown:
    first = next(iter(presets.code))
    return gr.Dropdown([(presets.shown.get(name, name), name) for name in presets.code], value=first,
                       label=t("pg.field.preset"), elem_id=f"{ids}-preset")


def _buttons(tab: str, ids: str, run: str | None, again: bool) -> tuple:
    """The run button, Measure again and Copy link, in a row; Copy link alone where the tab's views run it."""
    if run is None:
        return None, None, share_links.copy_button(tab)
    with gr.Row():
        return (gr.Button(t(run), variant="primary", elem_id=f"{ids}-run"),
                measure_again.button(tab) if again else None, share_links.copy_button(tab))
