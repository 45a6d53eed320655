"""Derivatives tab: nth-order derivatives of f: R -> R, their checks and program growth; gradient and Hessian."""

from __future__ import annotations

from collections.abc import Iterator

import gradio as gr

from playground import validation
from playground.gallery import DERIVATIVE_PRESETS, GRADIENT_EXAMPLE
from playground.jobs.arguments import MAX_ORDER, MAX_POINTS
from playground.server.api import PlaygroundAPI
from playground.server.links.fields import Number, TabSchema, fields_of
from playground.server.ui import code_form, language, progress, share_links
from playground.server.ui.derivatives_views import (
    pick_jaxpr,
    render_gradient,
    render_orders,
    running_gradient,
    running_orders,
)
from playground.server.ui.layout import SIDE_BY_SIDE_MIN_PX, beside
from playground.server.ui.preset_pick import run_stopped_by_preset
from playground.server.ui.tabs import Tab, TabContext
from playground.server.ui.translations import t

TAB = Tab("pg.tab.derivatives", "derivatives", 30)

# The presets; the picker's names for them (tanh, sin and softplus are JAX's names everywhere).
_PRESETS = code_form.Presets(DERIVATIVE_PRESETS, {"polynomial": t("pg.derivatives.polynomial"),
                                                  "x + x² + x³ (JAX's introduction)": t("pg.field.x_cubed_intro")})
# What a Derivatives link holds (both parts of the tab), and the controls a class link can hide.
HIDEABLE = {"preset": "Preset", "order": "Highest order", "range": "The range of x", "points": "Grid points",
            "jaxpr": "The jaxpr of one order", "gradient": "The gradient and Hessian part"}
LINK = TabSchema({
    **fields_of("derivatives"), **fields_of("gradient", renamed={"code": "gradient_code"}),
    "points": Number(10, MAX_POINTS, whole=True),  # the form's slider starts at 10 (the job takes 2)
    "shown": Number(0, MAX_ORDER, whole=True)}, tuple(HIDEABLE))


def build(context: TabContext) -> share_links.Sharing:
    api, jobs = context.api, context.line("sandbox")
    editor = code_form.Editor(next(iter(DERIVATIVE_PRESETS.values())), 6, "pg.derivatives.scalar_f")
    form = code_form.form(TAB.id, editor, _fields, HIDEABLE, ids="deriv", intro=t("pg.derivatives.intro"),
                          run="pg.derivatives.run", presets=_PRESETS)
    code, order, x_min, x_max, points = form.fields.values()
    status = code_form.status("deriv")
    curves = gr.Plot(label=t("pg.derivatives.curves"), elem_id="deriv-plot")
    with gr.Row():
        with beside():
            checks = gr.Markdown(elem_id="deriv-checks")
        growth = gr.Plot(label=t("pg.derivatives.growth"), elem_id="deriv-growth", min_width=SIDE_BY_SIDE_MIN_PX)
    with gr.Accordion(t("pg.derivatives.jaxpr"), open=False) as jaxpr_panel:
        shown = gr.Slider(0, MAX_ORDER, value=1, step=1, label=t("pg.derivatives.shown"))
        jaxpr = gr.Code(language=None, interactive=False, elem_id="deriv-jaxpr")
    last = gr.State({})

    form.preset.change(lambda name: DERIVATIVE_PRESETS[name] if name else gr.update(), form.preset, code)

    def on_run(code_text: str, n, low, high, count, show: float,
               request: gr.Request | None = None) -> Iterator[tuple]:
        # the server's messages in the reader's language (Accept-Language)
        yield from differentiate(api, code_text, n, low, high, count, show, language.of(request))

    def on_show(response: dict, show: float, request: gr.Request | None = None) -> str:
        return pick_jaxpr(response, show, language.of(request))

    # A preset picked by hand: the run of the code before it stops, and its results go (a link's preset, set
    # by the page, keeps what the link ran).
    run_stopped_by_preset(form.run, form.preset, on_run, [*form.fields.values(), shown],
                          [status, curves, checks, growth, last, jaxpr],
                          lambda: (t("pg.hint.preset"), None, "", None), [status, curves, checks, growth], **jobs)
    shown.change(on_show, [last, shown], jaxpr)

    g_code, point, gradient_part = _gradient_part(api, jobs)
    return form.sharing(
        LINK, {"preset": [form.preset], "order": [order], "range": [x_min, x_max], "points": [points],
               "jaxpr": [jaxpr_panel], "gradient": [gradient_part]},
        fields={"shown": shown, "gradient_code": g_code, "point": point}, code=(g_code,), writes_code=("preset",),
        runs=("deriv-run", "grad-run"))


def _fields() -> dict:
    """The highest order, the range of x and the grid's points, by the names of /derivatives' arguments."""
    order = gr.Slider(1, MAX_ORDER, value=4, step=1, label=t("pg.derivatives.order"), elem_id="deriv-order")
    with gr.Row():
        x_min = gr.Number(-3.0, label=t("pg.derivatives.x_min"), elem_id="deriv-xmin")
        x_max = gr.Number(3.0, label=t("pg.derivatives.x_max"), elem_id="deriv-xmax")
    points = gr.Slider(10, MAX_POINTS, value=200, step=10, label=t("pg.derivatives.points"))
    return {"order": order, "x_min": x_min, "x_max": x_max, "points": points}


def _gradient_part(api: PlaygroundAPI, jobs: dict) -> tuple[gr.Code, gr.Textbox, gr.Column]:
    """The gradient and Hessian of f: R^n -> R at a point: its code and point fields, and the part itself (a class
    link can hide it)."""
    with gr.Column() as gradient_part:
        gr.Markdown(t("pg.derivatives.gradient_intro"))
        with gr.Row():
            g_code = gr.Code(GRADIENT_EXAMPLE[0], language="python", lines=4, label=t("pg.derivatives.vector_f"),
                             elem_id="grad-code", min_width=SIDE_BY_SIDE_MIN_PX)
            with gr.Column():
                point = gr.Textbox(GRADIENT_EXAMPLE[1], label=t("pg.derivatives.point"), elem_id="grad-point")
                g_run = gr.Button(t("pg.derivatives.gradient_run"), variant="primary", elem_id="grad-run")
        g_status = code_form.status("grad")
        with gr.Row():
            hessian = gr.Plot(label=t("pg.derivatives.hessian"), elem_id="grad-hessian", min_width=SIDE_BY_SIDE_MIN_PX)
            with beside():
                jacobians = gr.Markdown(elem_id="grad-jacobians")

    def on_gradient(code_text: str, point_text: str, request: gr.Request | None = None) -> Iterator[tuple]:
        yield from gradient_and_hessian(api, code_text, point_text, language.of(request))

    g_run.click(on_gradient, [g_code, point], [g_status, hessian, jacobians], **jobs)
    return g_code, point, gradient_part


def differentiate(api: PlaygroundAPI, code_text: str, n, low, high, count, show: float,
                  lang: str = "en") -> Iterator[tuple]:
    """The Differentiate button: first the last run's results and errors go, then this run's come (in ``lang``)."""
    yield running_orders(lang, code_text), None, "", None, {}, ""
    yield from progress.follow(run_derivatives(api, code_text, n, low, high, count),
                               lambda response: (*render_orders(response, lang, code_text), response,
                                                 pick_jaxpr(response, show, lang)), 6, language=lang)


def gradient_and_hessian(api: PlaygroundAPI, code_text: str, point_text: str, lang: str = "en") -> Iterator[tuple]:
    """The Gradient and Hessian button, the same way."""
    yield running_gradient(lang), None, ""
    yield from progress.follow(api.gradient(code_text, point_text), lambda response: render_gradient(response, lang),
                               3, language=lang)


def run_derivatives(api: PlaygroundAPI, code_text: str, n, low, high, count) -> Iterator[dict]:
    """The form's values, each box checked (an empty one is None; the page names it by its label), then
    /derivatives' updates."""
    problem = validation.first_problem(*(validation.entered_number(name, value) for name, value in (
        ("order", n), ("x_min", low), ("x_max", high), ("points", count))))
    if problem:
        yield problem
        return
    yield from api.derivatives(code_text, n, low, high, count)
