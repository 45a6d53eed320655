"""Compiler tab: XLA's passes one by one, the program as a graph, and two versions side by side."""

from __future__ import annotations

import json

import gradio as gr

from playground import messages
from playground.compiler_settings import SETTINGS
from playground.gallery import COMPILER_EXAMPLES
from playground.server.api import PlaygroundAPI
from playground.server.compiler import text_diff
from playground.server.links.fields import Choice, Flag, TabSchema, fields_of
from playground.server.ui import call_fields, code_form, example_runs, language, share_links
from playground.server.ui import compiler_views as views
from playground.server.ui.error_views import error_markdown
from playground.server.ui.field_labels import LABELS
from playground.server.ui.layout import beside
from playground.server.ui.tabs import Tab, TabContext
from playground.server.ui.translations import choice, composed, t, tab, text

TAB = Tab("pg.tab.compiler", "compiler", 20)

DEFAULT = COMPILER_EXAMPLES[0]
SIDE_BY_SIDE, UNIFIED = "side by side", "unified"
A_SETTING, A_FUNCTION = "the same function under a setting", "a second function"
DIFF_STYLES = [choice("pg.compiler.side_by_side", SIDE_BY_SIDE), choice("pg.compiler.unified", UNIFIED)]
VIEWS = ("passes", "graph", "compare")
# What a Compiler link holds, and the controls a class link can hide (with the words its checkboxes say).
HIDEABLE = {"args": "Arguments", "static_argnums": "static_argnums", "examples": "Examples"}
LINK = TabSchema({
    **fields_of("compare"), "view": Choice(VIEWS), "hide_unchanged": Flag(),
    "diff_style": Choice((SIDE_BY_SIDE, UNIFIED)), "b_kind": Choice((A_SETTING, A_FUNCTION)),
    "compare_style": Choice((SIDE_BY_SIDE, UNIFIED))}, tuple(HIDEABLE))


def build(context: TabContext) -> share_links.Sharing:
    api = context.api
    form = code_form.form(TAB.id, code_form.Editor(DEFAULT.code, 8), lambda: _fields(api), HIDEABLE,
                          intro=t("pg.compiler.intro"))
    code, args, static, on_device, view = form.fields.values()
    examples = example_runs.examples(COMPILER_EXAMPLES, {"code": code, "args": args},
                                     [f"compiler-{name}-run" for name in VIEWS])
    jobs = context.line("sandbox")
    function = [code, args, static, on_device]
    with gr.Tabs(overflow_behavior="wrap") as views_tabs:
        with tab("pg.compiler.passes", "compiler-passes") as passes_tab:
            options = _passes(api, function, jobs)
        with tab("pg.compiler.graph", "compiler-graph") as graph_tab:
            _graph(api, function, jobs)
        with tab("pg.field.compare", "compiler-compare") as compare_tab:
            options |= _compare(api, function, jobs)
    for name, view_tab in zip(VIEWS, (passes_tab, graph_tab, compare_tab), strict=True):
        # In the browser alone: a round trip to the server could land after Copy link on a busy server (a CI run's
        # link opened Passes although it was made in Graph).
        view_tab.select(None, None, view, js=f"() => {json.dumps(name)}", queue=False)
    return form.sharing(
        LINK, {"args": [args], "static_argnums": [static], "examples": [examples.dataset]}, fields=options,
        writes_code=("examples",), runs=lambda state: [f"compiler-{state.get('view', VIEWS[0])}-run"],
        select={"view": {name: (views_tabs, f"compiler-{name}") for name in VIEWS}})


def _fields(api: PlaygroundAPI) -> dict:
    """The arguments and how the function is compiled, by the names of the link's fields, and the view in sight."""
    return {"args": call_fields.arguments("compiler", DEFAULT.args),
            "static_argnums": call_fields.static_argnums("compiler"),
            # Compiled for the CPU; for the host's GPU or TPU on request: its pipeline has passes of its own.
            "on_accelerator": call_fields.on_accelerator("compiler", api.accelerator),
            "view": gr.Textbox(VIEWS[0], visible="hidden")}  # the view shown, for the link


def _passes(api: PlaygroundAPI, function: list, jobs: dict) -> dict:
    run = gr.Button(t("pg.compiler.show_passes"), variant="primary", elem_id="compiler-passes-run")
    status = code_form.status("compiler-passes")
    with gr.Row():
        hide = gr.Checkbox(True, label=t("pg.compiler.hide_unchanged"), elem_id="compiler-hide-unchanged")
        style = gr.Radio(DIFF_STYLES, value=SIDE_BY_SIDE, label=t("pg.compiler.diff"), elem_id="compiler-diff-style")
    chooser = gr.Dropdown([], label=t("pg.compiler.pass_choice"), elem_id="compiler-pass-choice")
    diff = gr.HTML(elem_id="compiler-pass-diff")
    table = gr.HTML(elem_id="compiler-pass-table")
    shown = gr.State(None)

    def listed(response: dict | None, hide_unchanged: bool, keep: int | None = None, lang: str = "en"):
        if not response or not response.get("ok"):
            return "", gr.update(choices=[], value=None)
        records = views.shown_passes(response, hide_unchanged)
        choices = [(views.pass_choice(p, lang), p["index"]) for p in records]
        indices = [p["index"] for p in records]
        fusion = next((p["index"] for p in records if p["name"] == "fusion" and p["changed"]), None)
        first_changed = next((p["index"] for p in records if p["changed"]), None)
        value = keep if keep in indices else fusion if fusion is not None else first_changed
        return views.passes_table(records, lang), gr.update(choices=choices, value=value)

    def render(response: dict, hide_unchanged: bool, unified: str, lang: str = "en") -> tuple:
        if not response.get("ok"):
            shown = error_markdown(response["error"], lang, labels=LABELS["passes"])
            return shown, "", gr.update(choices=[], value=None), "", None
        table_html, choice = listed(response, hide_unchanged, lang=lang)
        chosen = choice["value"]
        shown_diff = views.pass_diff(response, chosen, unified == UNIFIED, lang) if chosen is not None else ""
        return views.passes_status(response, lang), table_html, choice, shown_diff, response

    def on_run(code_text: str, args_text: str, static_text: str, accelerator: bool, hide_unchanged: bool,
               unified: str, request: gr.Request | None = None):
        lang = language.of(request)  # the server's messages in the reader's language (Accept-Language)
        yield from call_fields.follow(static_text,
                                      lambda argnums: api.passes(code_text, args_text, argnums, bool(accelerator)),
                                      lambda r: render(r, hide_unchanged, unified, lang), 5, lang, "work.passes")

    def on_choose(response: dict | None, index, unified: str, request: gr.Request | None = None) -> str:
        if not response or not response.get("ok") or index is None:
            return ""
        return views.pass_diff(response, int(index), unified == UNIFIED, language.of(request))

    def on_hide(response: dict | None, hide_unchanged: bool, keep, request: gr.Request | None = None):
        return listed(response, hide_unchanged, keep, language.of(request))

    run.click(on_run, [*function, hide, style], [status, table, chooser, diff, shown],
              trigger_mode="always_last", **jobs)
    hide.change(on_hide, [shown, hide, chooser], [table, chooser])
    chooser.change(on_choose, [shown, chooser, style], [diff])
    style.change(on_choose, [shown, chooser, style], [diff])
    return {"hide_unchanged": hide, "diff_style": style}


def _graph(api: PlaygroundAPI, function: list, jobs: dict) -> None:
    run = gr.Button(t("pg.compiler.draw"), variant="primary", elem_id="compiler-graph-run")
    status = code_form.status("compiler-graph")
    with gr.Row():
        with beside():
            source = gr.HTML(elem_id="compiler-graph-source")
        with beside():
            jaxpr = gr.HTML(elem_id="compiler-jaxpr-graph")
    hlo = gr.HTML(elem_id="compiler-hlo-graph")

    def render(code_text: str, response: dict, lang: str = "en") -> tuple:
        if not response.get("ok"):
            return error_markdown(response["error"], lang, labels=LABELS["graph"]), "", "", ""
        return (views.graph_status(response, lang), views.coloured_source(code_text, response, lang),
                views.graph_html(response["jaxpr_svg"], response["jaxpr_dot"],
                                 messages.say("comp.jaxpr_title", lang), lang),
                views.graph_html(response["hlo_svg"], response["hlo_dot"], messages.say("comp.hlo_title", lang),
                                 lang))

    def on_run(code_text: str, args_text: str, static_text: str, accelerator: bool,
               request: gr.Request | None = None):
        lang = language.of(request)
        yield from call_fields.follow(static_text,
                                      lambda argnums: api.graph(code_text, args_text, argnums, bool(accelerator)),
                                      lambda r: render(code_text, r, lang), 4, lang, "work.graph")

    run.click(on_run, function, [status, source, jaxpr, hlo], trigger_mode="always_last",
              **jobs)


def _settings_info(locale: str) -> str:
    """Each setting's name and label, as the dropdown's info, in ``locale``."""
    return "; ".join(f"{text(f'pg.setting.{name}', locale)}: {text(f'pg.setting_label.{name}', locale)}"
                     for name in SETTINGS)


def _compare(api: PlaygroundAPI, function: list, jobs: dict) -> dict:
    with gr.Row():
        which = gr.Radio([choice("pg.compiler.a_setting", A_SETTING), choice("pg.compiler.a_function", A_FUNCTION)],
                         value=A_SETTING, label=t("pg.compiler.version_b"), elem_id="compiler-b-kind")
        setting = gr.Dropdown([choice(f"pg.setting.{name}", name) for name in SETTINGS], value="fusion: off",
                              label=t("pg.compiler.setting"), info=composed("pg.compiler.setting_info", _settings_info),
                              elem_id="compiler-setting")
    second = gr.Code("def g(x):\n    return x * (1 + x + x*x)\n", language="python", lines=5, visible=False,
                     label=t("pg.compiler.second"), elem_id="compiler-second-code")
    run = gr.Button(t("pg.field.compare"), variant="primary", elem_id="compiler-compare-run")
    table = gr.Markdown(elem_id="compiler-compare-table")
    style = gr.Radio(DIFF_STYLES, value=SIDE_BY_SIDE, label=t("pg.compiler.diff"), elem_id="compiler-compare-style")
    with gr.Tabs(overflow_behavior="wrap"):
        with tab("pg.field.optimised_hlo", "compiler-compare-hlo-tab"):
            hlo_diff = gr.HTML(elem_id="compiler-compare-hlo")
        with gr.Tab("jaxpr"):
            jaxpr_diff = gr.HTML(elem_id="compiler-compare-jaxpr")
    shown = gr.State(None)

    def diffs(response: dict | None, unified: str, lang: str = "en") -> tuple:
        if not response or not response.get("ok"):
            return "", ""
        labels = tuple(f"{side}: {variant['label']}" for side, variant in zip("AB", response["variants"], strict=True))
        return tuple(views.diff_html(text_diff.Diff(response["diff"][key], response["diff_rows"][key]), *labels,
                                     unified == UNIFIED, lang) for key in ("hlo", "jaxpr"))

    def on_style(response: dict | None, unified: str, request: gr.Request | None = None) -> tuple:
        return diffs(response, unified, language.of(request))

    def render(response: dict, unified: str, lang: str = "en") -> tuple:
        if not response.get("ok"):
            return error_markdown(response["error"], lang, labels=LABELS["compare"]), "", "", None
        return (views.compare_table(response, lang), *diffs(response, unified, lang), response)

    def on_run(code_text: str, args_text: str, static_text: str, accelerator: bool, kind: str, name: str,
               second_text: str, unified: str, request: gr.Request | None = None):
        lang = language.of(request)
        version_b = {"setting": name or ""} if kind == A_SETTING else {"second_code": second_text}
        yield from call_fields.follow(static_text,
                                      lambda argnums: api.compare(code_text, args_text, static_argnums=argnums,
                                                                  on_accelerator=bool(accelerator), **version_b),
                                      lambda r: render(r, unified, lang), 4, lang, "work.compare")

    which.change(lambda kind: (gr.update(visible=kind == A_SETTING), gr.update(visible=kind == A_FUNCTION)),
                 [which], [setting, second])
    run.click(on_run, [*function, which, setting, second, style], [table, hlo_diff, jaxpr_diff, shown],
              trigger_mode="always_last", **jobs)
    style.change(on_style, [shown, style], [hlo_diff, jaxpr_diff])
    return {"b_kind": which, "setting": setting, "second_code": second, "compare_style": style}
