"""Speed of light tab: where a function's time goes against what this machine can do, with a roofline under the
device's measured ceilings, its memory over XLA's schedule (and its gradient's, with and without jax.checkpoint),
and the kernels XLA ran. The words and figures come from speed_views.py; this module lays them out and wires them.
"""

from __future__ import annotations

from collections.abc import Iterator

import gradio as gr

from playground import messages
from playground.gallery import SPEED_EXAMPLES
from playground.server.links.fields import TabSchema, fields_of
from playground.server.ui import call_fields, code_form, example_runs, measure_again, progress, share_links
from playground.server.ui import markdown as md
from playground.server.ui import speed_views as views
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
    form = code_form.form(TAB.id, code_form.Editor(DEFAULT.code, 8), _fields, HIDEABLE, intro=t("pg.speed.intro"),
                          run="pg.speed.run", again=True)
    code, args, gradient = form.fields.values()
    # An example's click is Measure's own: a second Measure is served its result.
    examples = example_runs.examples(SPEED_EXAMPLES, {"code": code, "args": args}, ["speed-run"])
    outputs = _results()

    def measure(code_text: str, args_text: str, with_gradient: bool, fresh: bool, lang: str) -> Iterator[tuple]:
        yield *render(views.blank(running(lang))), measure_again.hidden()  # the last run's results go
        yield from progress.follow(
            api.speed_of_light(code_text, args_text, bool(with_gradient), fresh=fresh),
            lambda reply: (*render(views.render(code_text, reply, lang), bool(reply.get("ok"))),
                           measure_again.shown(reply)), len(outputs) + 1, language=lang)

    for button, handler in zip((form.run, form.again), measure_again.handlers(measure), strict=True):
        button.click(handler, [code, args, gradient], [*outputs, form.again], trigger_mode="always_last",
                     **context.line("device"))  # it times the function where jit and vmap do
    return form.sharing(LINK, {"args": [args], "examples": [examples.dataset]}, writes_code=("examples",))


def _fields() -> dict:
    """The arguments, and whether the gradient is measured too, by the names of the link's fields."""
    return {"args": call_fields.arguments("speed", DEFAULT.args),
            "gradient": gr.Checkbox(True, label=t("pg.speed.gradient"), info=t("pg.speed.gradient_info"),
                                    elem_id="speed-gradient")}


def _results() -> list:
    """What a run shows, top to bottom, in views.Shown's order."""
    status = code_form.status("speed")
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
