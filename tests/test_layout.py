"""Rows that put results side by side give each result its minimum width, so that a narrow screen stacks them.

A Gradio row wraps only once its children's minimum widths no longer fit. A
result without one is squeezed instead: at 400 px a table beside a 320 px plot
got the 40 px left over, and two plots of Gradio's default 160 px sat side by
side at 180 px each (a phone with 8 px margins, a tablet upright, a narrow
window). The browser tests see this at the widths they open; this test reads the
whole app's layout, so it holds at every width.
"""

from __future__ import annotations

import tempfile

import gradio as gr
import pytest
from gradio.layouts import Form

from playground.server.api import PlaygroundAPI
from playground.server.config import Settings
from playground.server.ui import build_app
from playground.server.ui.layout import SIDE_BY_SIDE_MIN_PX

# Gradio 6 takes min_width from these and leaves their block at a minimum of 0: they go in layout.beside().
NEEDS_A_COLUMN = (gr.Markdown, gr.HTML)
# Side by side at any width: buttons in a line, and the form Gradio makes of input fields in a row.
ALWAYS_IN_A_LINE = (gr.Button, Form)


@pytest.mark.slow  # a real worker pool
def test_every_result_in_a_row_keeps_its_minimum_width(pool, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the Inspect tab's download folder
    settings = Settings()
    demo = build_app(PlaygroundAPI(pool=pool, settings=settings), settings)
    rows = [block for block in demo.blocks.values() if isinstance(block, gr.Row) and len(block.children) > 1]
    assert len(rows) > 20  # every tab's rows were read
    squeezable = [
        f"{child.elem_id or type(child).__name__} (min_width {child.min_width})"
        for row in rows for child in row.children
        if not isinstance(child, ALWAYS_IN_A_LINE)
        and (isinstance(child, NEEDS_A_COLUMN) or (child.min_width or 0) < SIDE_BY_SIDE_MIN_PX)
    ]
    assert squeezable == []
