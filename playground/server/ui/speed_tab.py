"""Speed of light tab: where a function's time goes against what this machine can do, with a roofline under the
device's measured ceilings, its memory over XLA's schedule (and its gradient's, with and without jax.checkpoint),
and the kernels XLA ran. The words and figures come from speed_views.py; this module lays them out and wires them.
"""

from __future__ import annotations

from collections.abc import Iterator

import gradio as gr

from playground import messages
from playground.gallery import SPEED_EXAMPLES
from playground.server.sharing import TabSchema, fields_of
from playground.server.ui import example_runs, language, measure_again, progress, share_links
from playground.server.ui import markdown as md
from playground.server.ui import speed_views as views
from playground.server.ui.link_notes import link_notes
from playground.server.ui.tabs import Tab, TabContext
from playground.server.ui.translations import t

TAB = Tab("pg.tab.speed", "speed", 55)

DEFAULT = SPEED_EXAMPLES[0]
# What a Speed of light link holds, and the controls a class link can hide (with the words its checkboxes say).
HIDEABLE = {"args": "Arguments", "examples": "Examples"}
LINK = TabSchema(fields_of("speed_of_light"), tuple(HIDEABLE))
PLOTS = ("roofline", "memory", "gradient", "kernels")  # the outputs that are figures


def build(context: TabContext) -> share_links.Sharing:
    api = context.api
    concurrency, concurrency_id = context.line("device")  # it times the function where jit and vmap do
    notes = link_notes("speed")
    gr.Markdown(t("pg.speed.intro"))
    with gr.Row():
        with gr.Column(scale=3):
            code = gr.Code(DEFAULT.code, language="python", lines=8, label=t("pg.field.function"),
                           elem_id="speed-code")
        with gr.Column(scale=2):
            args = gr.Textbox(DEFAULT.args, label=t("pg.field.arguments"), info=t("pg.field.in_scope"),
                              elem_id="speed-args")
            gradient = gr.Checkbox(True, label=t("pg.speed.gradient"), info=t("pg.speed.gradient_info"),
                                   elem_id="speed-gradient")
            with gr.Row():
                run = gr.Button(t("pg.speed.run"), variant="primary", elem_id="speed-run")
                again = measure_again.button("speed")
                copy = share_links.copy_button("speed")
            links = share_links.link_panel("speed", copy, HIDEABLE)
    examples = gr.Examples([[e.code, e.args] for e in SPEED_EXAMPLES], [code, args],
                           example_labels=[e.name for e in SPEED_EXAMPLES], label=t("pg.field.examples"))
    outputs = _results()

    def measure(code_text: str, args_text: str, with_gradient: bool, fresh: bool, lang: str) -> Iterator[tuple]:
        yield *render(views.blank(running(lang))), measure_again.hidden()  # the last run's results go
        yield from progress.follow(
            api.speed_of_light(code_text, args_text, bool(with_gradient), fresh=fresh),
            lambda reply: (*render(views.render(code_text, reply, lang), bool(reply.get("ok"))),
                           measure_again.shown(reply)), len(outputs) + 1, language=lang)

    # language.of: the server's messages in the reader's language (Accept-Language)
    def on_run(code_text: str, args_text: str, with_gradient: bool,
               request: gr.Request | None = None) -> Iterator[tuple]:
        yield from measure(code_text, args_text, with_gradient, False, language.of(request))

    def on_again(code_text: str, args_text: str, with_gradient: bool,
                 request: gr.Request | None = None) -> Iterator[tuple]:
        yield from measure(code_text, args_text, with_gradient, True, language.of(request))

    example_runs.run_on_click(examples, ["speed-run"])  # Measure's own click: a second Measure is served the result
    for button, handler in ((run, on_run), (again, on_again)):
        button.click(handler, [code, args, gradient], [*outputs, again], trigger_mode="always_last",
                     concurrency_limit=concurrency, concurrency_id=concurrency_id)
    return share_links.Sharing(
        "speed", LINK, {"code": code, "args": args, "gradient": gradient}, links, notes, code=(code,),
        hideable={"args": [args], "examples": [examples.dataset]}, writes_code=("examples",), runs=("speed-run",))


def _results() -> list:
    """What a run shows, top to bottom, in views.Shown's order."""
    status = gr.Markdown(t("pg.hint.run"), elem_id="speed-status")
    verdict = gr.Markdown(elem_id="speed-verdict")
    ceilings = gr.Markdown(elem_id="speed-ceilings")
    roofline = gr.Plot(label=t("pg.speed.roofline"), elem_id="speed-roofline")
    memory = gr.Plot(label=t("pg.speed.memory"), elem_id="speed-memory")
    buffers = gr.Markdown(elem_id="speed-buffers")
    gradient = gr.Plot(label=t("pg.speed.gradient_plot"), elem_id="speed-gradient-plot")
    gradient_text = gr.Markdown(elem_id="speed-gradient-text")
    kernels = gr.Plot(label=t("pg.speed.kernels"), elem_id="speed-kernels")
    kernel_table = gr.Markdown(elem_id="speed-kernel-table")
    notes = gr.Markdown(elem_id="speed-notes")
    return [status, verdict, ceilings, roofline, memory, buffers, gradient, gradient_text, kernels, kernel_table,
            notes]


def render(shown: views.Shown, result: bool = False) -> tuple:
    """The views' values as the components' updates. A ``result`` hides the figures it has none for (no gradient
    asked for, no kernels traced); until then every figure's box stays, empty, so that the page is as long as the
    results will make it: a phone scrolls the status to its top from the click on (layout.RESULT_IN_SIGHT_JS),
    which a page that ended below the status would not let it."""
    plots = {views.Shown._fields.index(name) for name in PLOTS}
    return tuple(gr.update(value=value, visible=value is not None or not result) if i in plots else value
                 for i, value in enumerate(shown))


def running(lang: str = "en") -> str:
    """The status from Run on, before the job's first word."""
    return f"{md.verdict('busy', lang)} {messages.say('sol.working', lang)}"
