"""Every tab names an argument in its errors as its form labels the field: the labels table against the jobs and
the built tabs, and an argument check's error rendered on a page in each language."""

from __future__ import annotations

import json

import gradio as gr
import pytest

from playground import messages
from playground.jobs import REGISTRY, build
from playground.server.api import PlaygroundAPI
from playground.server.config import Settings
from playground.server.ui import (
    compiler_tab,
    derivatives_tab,
    inspect_tab,
    jit_tab,
    parallel_tab,
    speed_tab,
    vmap_tab,
)
from playground.server.ui.error_views import error_markdown
from playground.server.ui.field_labels import LABELS
from tests.conftest import OnePool
from tests.tab_context import tab_context

# Each tab, the jobs its form runs, and the name its share link gives a job's argument where it differs.
TABS = {inspect_tab: ("inspect",), compiler_tab: ("passes", "graph", "compare"),
        derivatives_tab: ("derivatives", "gradient"), vmap_tab: ("vmap",), jit_tab: ("jit_speed",),
        speed_tab: ("speed_of_light",), parallel_tab: ("shard",)}
RENAMED = {("gradient", "code"): "gradient_code"}


def test_each_label_is_an_argument_of_its_job_and_a_text_of_the_page():
    assert set(LABELS) <= set(REGISTRY)
    for kind, labels in LABELS.items():
        assert set(labels) <= {argument.name for argument in REGISTRY[kind].arguments}, kind
        assert all(key.startswith(messages.UI_PREFIX) and key in messages.CATALOGUE for key in labels.values()), kind


def _label_key(component: gr.components.Component) -> str | None:
    """The catalogue key of a component's label (the marker translations.t writes), None for a plain label."""
    label = str(component.label or "")
    if not label.startswith("__i18n__"):
        return None
    return json.loads(label[len("__i18n__"):].split("}")[0] + "}")["key"]


@pytest.mark.parametrize("tab", TABS, ids=lambda module: module.__name__.rsplit(".", 1)[-1])
def test_each_field_a_job_argument_is_typed_in_is_named_by_the_label_it_shows(tab):
    with gr.Blocks():
        sharing = tab.build(tab_context(PlaygroundAPI(pool=OnePool({"ok": True}), settings=Settings())))
    for kind in TABS[tab]:
        for argument in REGISTRY[kind].arguments:
            component = sharing.fields.get(RENAMED.get((kind, argument.name), argument.name))
            if component is None:  # not a field of the form (a choice made elsewhere on the tab)
                continue
            assert LABELS.get(kind, {}).get(argument.name) == _label_key(component), (kind, argument.name)


@pytest.mark.parametrize(("language", "said"), [
    ("en", "“Highest order n” must be a whole number from 1 to 8, got 9."),
    ("de", "„Höchste Ordnung n“ muss eine ganze Zahl von 1 bis 8 sein, nicht 9."),
    ("zh", "“最高阶数 n” 必须是 1 到 8 之间的整数，收到的是 9。"),
])
def test_an_argument_check_names_the_field_in_the_pages_language(language, said):
    error = build("derivatives", {"code": "def f(x): return x", "order": 9})["error"]
    assert error["message"] == "`order` must be a whole number from 1 to 8, got 9."
    shown = error_markdown(error, language, labels=LABELS["derivatives"])
    assert said in shown and "`order`" not in shown
    assert "`order`" in error_markdown(error, language)  # a page without labels names the API's argument


def test_forged_words_leave_the_error_as_it_came():
    error = {"kind": "invalid_input", "message": "as it came", "line": None,
             "words": {"message": [["no.such.key", {"field": ["field.argument", {"name": "x_min"}]}]]}}
    assert "as it came" in error_markdown(error, "de", labels=LABELS["derivatives"])
