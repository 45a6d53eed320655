"""Derivatives tab: nth-order derivatives of f: R -> R, their checks and program growth; gradient and Hessian."""

from __future__ import annotations

from collections.abc import Iterator

import gradio as gr

from playground import validation
from playground.api import PlaygroundAPI
from playground.gallery import DERIVATIVE_PRESETS, GRADIENT_EXAMPLE
from playground.jobs import MAX_ORDER, MAX_POINTS
from playground.ui import progress
from playground.ui.derivatives_views import (
    RUNNING_GRADIENT,
    RUNNING_ORDERS,
    pick_jaxpr,
    render_gradient,
    render_orders,
)

_FIRST = next(iter(DERIVATIVE_PRESETS))
# The form's labels: an empty or non-numeric box is named by them.
ORDER_LABEL, X_MIN_LABEL, X_MAX_LABEL, POINTS_LABEL = "Highest order n", "x from", "x to", "Grid points"


def build(api: PlaygroundAPI, concurrency: int, concurrency_id: str) -> None:
    gr.Markdown("### f: ℝ → ℝ, differentiated again and again\nEach order is `grad` of the one before, evaluated "
                "over the grid with `jit(vmap(...))`, in float64, and checked against a reference. If Python control "
                "flow on x keeps `jit` and `vmap` from tracing f, `grad` runs at each point on its own, without jit.")
    with gr.Row():
        with gr.Column(scale=3):
            preset = gr.Dropdown(list(DERIVATIVE_PRESETS), value=_FIRST, label="Preset", elem_id="deriv-preset")
            code = gr.Code(DERIVATIVE_PRESETS[_FIRST], language="python", lines=6, label="f (scalar in, scalar out)",
                           elem_id="deriv-code")
        with gr.Column(scale=2):
            order = gr.Slider(1, MAX_ORDER, value=4, step=1, label=ORDER_LABEL, elem_id="deriv-order")
            with gr.Row():
                x_min = gr.Number(-3.0, label=X_MIN_LABEL, elem_id="deriv-xmin")
                x_max = gr.Number(3.0, label=X_MAX_LABEL, elem_id="deriv-xmax")
            points = gr.Slider(10, MAX_POINTS, value=200, step=10, label=POINTS_LABEL)
            run = gr.Button("Differentiate", variant="primary", elem_id="deriv-run")
    status = gr.Markdown(elem_id="deriv-status")
    curves = gr.Plot(label="f and its derivatives", elem_id="deriv-plot")
    with gr.Row():
        checks = gr.Markdown(elem_id="deriv-checks")
        growth = gr.Plot(label="Program size by order", elem_id="deriv-growth")
    with gr.Accordion("The jaxpr of one order", open=False):
        shown = gr.Slider(0, MAX_ORDER, value=1, step=1, label="Order to show")
        jaxpr = gr.Code(language=None, interactive=False, elem_id="deriv-jaxpr")
    last = gr.State({})

    preset.change(lambda name: DERIVATIVE_PRESETS[name], preset, code, api_visibility="private")

    def on_run(code_text: str, n, low, high, count, show: float) -> Iterator[tuple]:
        yield from differentiate(api, code_text, n, low, high, count, show)

    run.click(on_run, [code, order, x_min, x_max, points, shown], [status, curves, checks, growth, last, jaxpr],
              api_visibility="private", concurrency_limit=concurrency, concurrency_id=concurrency_id)
    shown.change(pick_jaxpr, [last, shown], jaxpr, api_visibility="private")
    gr.api(api.derivatives, api_name="derivatives", concurrency_limit=concurrency, concurrency_id=concurrency_id)

    gr.Markdown("### f: ℝⁿ → ℝ: gradient and Hessian")
    with gr.Row():
        g_code = gr.Code(GRADIENT_EXAMPLE[0], language="python", lines=4, label="f (vector in, scalar out)",
                         elem_id="grad-code")
        with gr.Column():
            point = gr.Textbox(GRADIENT_EXAMPLE[1], label="At the point", elem_id="grad-point")
            g_run = gr.Button("Gradient and Hessian", variant="primary", elem_id="grad-run")
    g_status = gr.Markdown(elem_id="grad-status")
    with gr.Row():
        hessian = gr.Plot(label="Hessian", elem_id="grad-hessian")
        jacobians = gr.Markdown(elem_id="grad-jacobians")

    def on_gradient(code_text: str, point_text: str) -> Iterator[tuple]:
        yield from gradient_and_hessian(api, code_text, point_text)

    g_run.click(on_gradient, [g_code, point], [g_status, hessian, jacobians], api_visibility="private",
                concurrency_limit=concurrency, concurrency_id=concurrency_id)
    gr.api(api.gradient, api_name="gradient", concurrency_limit=concurrency, concurrency_id=concurrency_id)


def differentiate(api: PlaygroundAPI, code_text: str, n, low, high, count, show: float) -> Iterator[tuple]:
    """The Differentiate button: first the last run's results and errors go, then this run's come."""
    yield RUNNING_ORDERS, None, "", None, {}, ""
    yield from progress.follow(run_derivatives(api, code_text, n, low, high, count),
                               lambda response: (*render_orders(response), response, pick_jaxpr(response, show)), 6)


def gradient_and_hessian(api: PlaygroundAPI, code_text: str, point_text: str) -> Iterator[tuple]:
    """The Gradient and Hessian button, the same way."""
    yield RUNNING_GRADIENT, None, ""
    yield from progress.follow(api.gradient(code_text, point_text), render_gradient, 3)


def run_derivatives(api: PlaygroundAPI, code_text: str, n, low, high, count) -> Iterator[dict]:
    """The form's values, each box checked by its label (an empty one is None), then /derivatives' updates."""
    problem = validation.first_problem(*(validation.entered_number(label, value) for label, value in (
        (ORDER_LABEL, n), (X_MIN_LABEL, low), (X_MAX_LABEL, high), (POINTS_LABEL, count))))
    if problem:
        yield problem
        return
    yield from api.derivatives(code_text, n, low, high, count)
