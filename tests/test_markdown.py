"""Text from a job, made safe for Markdown: no markup, links, images or broken tables get through."""

from __future__ import annotations

import pytest

from playground.server.ui import markdown as md


@pytest.mark.parametrize("hostile", [
    "<img src=x onerror=alert(1)>", "<form action=https://evil.example><input></form>", "![pixel](https://evil.example/p)",
    "[log in](https://evil.example)", "<https://evil.example>",
])
def test_no_markup_or_link_survives(hostile):
    safe = md.text(hostile)
    assert "<" not in safe  # no tag and no autolink can open
    assert "[" not in safe.replace("\\[", "")  # no link or image can open


def test_entities_are_shown_not_decoded():
    assert md.text("&lt;img src=x&gt;") == "&amp;lt;img src=x&amp;gt;"


def test_code_spans_and_fenced_blocks_stay_code():
    honest = "Use `jnp.where(x > 0, a, b)`:\n```python\ny = x[x > 0]\n```"
    assert md.text(honest) == honest


def test_a_fence_cannot_be_left_open_to_swallow_what_follows():
    assert md.text("```<img src=x>\nstill text") == "\\`\\`\\`&lt;img src=x&gt;\nstill text"


def test_table_cells_stay_one_cell_on_one_line():
    assert md.cell("a | b\nc") == "a \\| b c"


@pytest.mark.parametrize(("value", "rendered"), [
    ("plain", "`plain`"), ("a`b", "`` a`b ``"), ("``x``", "``` ``x`` ```"), ("line\nbreak", "`line break`"),
])
def test_inline_code_cannot_be_closed_by_its_text(value, rendered):
    assert md.code(value) == rendered


def test_code_block_cannot_be_closed_by_its_text():
    assert md.code_block("a\n```\n<b>") == "```\na\n‘‘‘\n<b>\n```"
