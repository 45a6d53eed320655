"""What a tab says above its controls when a link opened it: the class link's exercise, that the visitor's own
edits came back after a reload (with the way back to the link's version), and that the code is read-only (with
the way to a copy to edit). Each tab places them with ``link_notes`` (a tab of code through code_form.py);
share_links.py shows them.
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from playground.server.ui.layout import beside
from playground.server.ui.translations import composed, shown, t, text


@dataclass
class LinkNotes:
    """One tab's notes, hidden until a link needs them; ``back`` and ``edit_copy`` are their buttons."""

    exercise: gr.HTML
    kept: gr.Row
    back: gr.Button
    locked: gr.Row
    edit_copy: gr.Button


def link_notes(tab: str) -> LinkNotes:
    """The tab's notes, at the top of the tab.

    The exercise is HTML, not Markdown: the text arrives rendered by sharing.exercise_html, which a second
    Markdown pass could turn back into links it refused.
    """
    exercise = gr.HTML(visible=False, elem_id=f"{tab}-exercise", elem_classes=["exercise", "prose"])
    with gr.Row(visible=False, elem_id=f"{tab}-kept", elem_classes=["pg-link-note"]) as kept:
        with beside():
            gr.Markdown(t("pg.share.kept"), elem_id=f"{tab}-kept-note")
        back = gr.Button(t("pg.share.back_link"), size="sm", scale=0, min_width=160, elem_id=f"{tab}-back")
    with gr.Row(visible=False, elem_id=f"{tab}-locked", elem_classes=["pg-link-note"]) as locked:
        with beside():
            gr.Markdown(t("pg.share.locked"), elem_id=f"{tab}-locked-note")
        edit_copy = gr.Button(t("pg.share.edit_copy"), size="sm", scale=0, min_width=160, elem_id=f"{tab}-edit-copy")
    return LinkNotes(exercise, kept, back, locked, edit_copy)


def locked_label(editor: gr.Code) -> str:
    """The label of ``editor`` while a class link makes it read-only: its own, then that it is read-only, in the
    page's language (a marker Gradio's frontend fills in)."""
    own = editor.label or ""

    def write(lang: str) -> str:
        said = text("pg.share.locked_label", lang)
        return f"{shown(own, lang)} · {said}" if own else said

    return composed(f"pg.share.locked_label@{editor.elem_id}", write)
