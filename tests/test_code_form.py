"""The form every tab of code opens with (server/ui/code_form.py): where each part goes, the ids the browser tests
and share links find them by, the links it hands on, and a preset picker that forgets a name once the code changes.

The forms are built in a bare gr.Blocks; nothing runs."""

from __future__ import annotations

from dataclasses import replace

import gradio as gr

from playground.server.api import PlaygroundAPI
from playground.server.config import Settings
from playground.server.links.fields import TabSchema, Text
from playground.server.ui import code_form
from playground.server.ui.tabs import tab_modules
from playground.server.ui.translations import shown
from tests.conftest import OnePool
from tests.tab_context import tab_context

CODE = "def f(x):\n    return x\n"
SCHEMA = TabSchema({"code": Text(100), "args": Text(100)}, ("args",))


def _args() -> dict:
    return {"args": gr.Textbox("1.0", elem_id="demo-args")}


def test_the_editor_sits_beside_the_fields_and_the_buttons_under_them_in_one_row():
    with gr.Blocks():
        form = code_form.form("demo", code_form.Editor(CODE, 4), _args, {"args": "Arguments"}, ids="d",
                              run="pg.inspect.run", again=True)
    code, args = form.fields["code"], form.fields["args"]
    assert list(form.fields) == ["code", "args"] and code.elem_id == "d-code" and code.value == CODE.strip()
    assert code.lines == 4 and code.parent.scale == 3 and form.preset is None
    right = form.run.parent.parent
    assert right.scale == 2 and args.parent.parent is right  # a Form of fields, as Gradio groups them
    assert right.parent is code.parent.parent  # one row
    assert [button.elem_id for button in form.run.parent.children] == ["d-run", "demo-again", "demo-share"]
    assert form.links.copy is form.run.parent.children[2] and form.links.link.elem_id == "demo-link"
    assert shown(form.run.value) == "Run"


def test_a_form_whose_views_run_it_has_copy_link_alone_and_its_link_presses_nothing_of_its_own():
    with gr.Blocks():
        form = code_form.form("demo", code_form.Editor(CODE, 4), _args, {"args": "Arguments"})
    assert form.run is None and form.again is None
    assert not isinstance(form.links.copy.parent, gr.Row) and form.links.copy.elem_id == "demo-share"
    sharing = form.sharing(SCHEMA, {"args": [form.fields["args"]]})
    assert sharing.run_buttons({}) == [] and sharing.code == (form.fields["code"],)


def test_the_link_holds_the_form_and_what_the_tab_adds_and_presses_the_run_button():
    with gr.Blocks():
        form = code_form.form("demo", code_form.Editor(CODE, 4), _args, {"args": "Arguments"}, run="pg.inspect.run")
        other = gr.Code(CODE)
    sharing = form.sharing(SCHEMA, {"args": [form.fields["args"]]}, fields={"other": other}, code=(other,))
    assert sharing.tab == "demo" and list(sharing.fields) == ["code", "args", "other"]
    assert sharing.code == (form.fields["code"], other) and sharing.run_buttons({}) == ["demo-run"]
    assert sharing.controls is form.links and sharing.notes is form.notes


def test_the_picker_shows_each_presets_name_opens_on_the_first_and_forgets_it_once_the_code_is_another():
    presets = code_form.Presets({"first": CODE, "tanh": "def f(x):\n    return jnp.tanh(x)\n"},
                                {"first": "The first"})
    with gr.Blocks() as demo:
        form = code_form.form("demo", code_form.Editor(CODE, 4), _args, {}, run="pg.inspect.run", presets=presets)
    assert form.preset.value == "first" and form.preset.elem_id == "demo-preset"
    assert form.preset.choices == [("The first", "first"), ("tanh", "tanh")]  # a name of its own, or as it is
    column = form.fields["code"].parent
    assert column.children.index(form.preset.parent) < column.children.index(form.fields["code"])  # above it
    (forget,) = [f for f in demo.fns.values() if (form.fields["code"]._id, "change") in f.targets]
    assert forget.fn(CODE + "\n", "first") == gr.update()  # the preset's code, but for a line break at its end
    assert forget.fn("def g(y):\n    return y\n", "first") == gr.update(value=None)


def _within(block, ancestor) -> bool:
    while block is not None and block is not ancestor:
        block = block.parent
    return block is ancestor


def test_every_tab_of_code_opens_with_the_form():
    """The tabs as the app finds them (tabs.py): each one whose link holds code has the form's parts, under the
    ids of its editor (``deriv-code``: ``deriv-run``, ``deriv-status``), a new one too."""
    opened = []
    for tab in tab_modules():
        with gr.Blocks() as demo:
            context = tab_context(PlaygroundAPI(pool=OnePool({"ok": True}), settings=Settings()))
            sharing = tab.build(replace(context, demo=demo))  # Train and About load what they show with the page
        code = sharing.fields.get("code") if sharing is not None else None
        if code is None:  # Train's link holds its settings, About has none
            continue
        opened.append(tab.TAB.id)
        found = {block.elem_id: block for block in demo.blocks.values() if block.elem_id}
        ids = code.elem_id.removesuffix("-code")
        row = code.parent.parent
        assert sharing.code[0] is code and found[f"{tab.TAB.id}-share"] is sharing.controls.copy, tab.TAB.id
        assert _within(sharing.controls.copy, row) and _within(sharing.controls.link, row), tab.TAB.id
        assert any(name.startswith(ids) and name.endswith("-status") for name in found), tab.TAB.id
        assert set(sharing.run_buttons({})) <= set(found), tab.TAB.id
    assert len(opened) >= 7, opened
