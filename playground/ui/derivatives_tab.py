"""Derivatives tab: nth-order derivatives of f: R -> R, their checks and program growth; gradient and Hessian."""

from __future__ import annotations

import gradio as gr

from playground import plots
from playground.api import PlaygroundAPI
from playground.gallery import DERIVATIVE_PRESETS, GRADIENT_EXAMPLE
from playground.jobs import MAX_ORDER, MAX_POINTS
from playground.ui import markdown as md
from playground.ui.inspect_views import error_markdown

_FIRST = next(iter(DERIVATIVE_PRESETS))
FORWARD_REVERSE = ("**Forward or reverse?** `jacfwd` pushes one tangent per *input* through the function, `jacrev` "
                   "pulls one cotangent per *output* back: for a wide Jacobian (few outputs, many inputs) reverse "
                   "mode wins, for a tall one (many outputs, few inputs) forward mode does.")


def build(api: PlaygroundAPI, concurrency: int, concurrency_id: str) -> None:
    gr.Markdown("### f: ℝ → ℝ, differentiated again and again\nEach order is `grad` of the one before, evaluated "
                "over the grid with `vmap`, in float64, and checked against a reference.")
    with gr.Row():
        with gr.Column(scale=3):
            preset = gr.Dropdown(list(DERIVATIVE_PRESETS), value=_FIRST, label="Preset", elem_id="deriv-preset")
            code = gr.Code(DERIVATIVE_PRESETS[_FIRST], language="python", lines=6, label="f (scalar in, scalar out)",
                           elem_id="deriv-code")
        with gr.Column(scale=2):
            order = gr.Slider(1, MAX_ORDER, value=4, step=1, label="Highest order n", elem_id="deriv-order")
            with gr.Row():
                x_min = gr.Number(-3.0, label="x from", elem_id="deriv-xmin")
                x_max = gr.Number(3.0, label="x to", elem_id="deriv-xmax")
            points = gr.Slider(10, MAX_POINTS, value=200, step=10, label="Grid points")
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

    def on_run(code_text: str, n: float, low: float, high: float, count: float, show: float):
        response = api.derivatives(code_text, int(n), float(low), float(high), int(count))
        return (*render_orders(response), response, pick_jaxpr(response, show))

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

    def on_gradient(code_text: str, point_text: str):
        return render_gradient(api.gradient(code_text, point_text))

    g_run.click(on_gradient, [g_code, point], [g_status, hessian, jacobians], api_visibility="private",
                concurrency_limit=concurrency, concurrency_id=concurrency_id)
    gr.api(api.gradient, api_name="gradient", concurrency_limit=concurrency, concurrency_id=concurrency_id)


def render_orders(response: dict) -> tuple:
    if not response.get("ok"):
        return error_markdown(response["error"]), None, "", None
    rows = "\n".join(
        f"| {plots.order_label(o['n'])} | {o.get('reference') or '—'} | {_error_text(o.get('max_error'))} | "
        f"{eqns} | {ops} |"
        for o, eqns, ops in zip(response["orders"], response["eqn_counts"], response["hlo_op_counts"], strict=True)
    )
    table = ("| order | checked against | max error | jaxpr equations | HLO instructions |\n|---|---|---|---|---|\n"
             + rows)
    status = (f"✅ {md.code(response['function'])}: {len(response['orders']) - 1} derivatives on "
              f"{len(response['xs'])} points, in {md.text(response.get('dtype', 'float64'))}.")
    return (status, plots.derivatives_figure(response["xs"], response["orders"]), table,
            plots.growth_figure(response["eqn_counts"], response["hlo_op_counts"]))


def _value_text(value: float | None) -> str:
    """A number, or what JSON could not carry: the API sends inf and nan as null."""
    return "inf or nan" if value is None else f"{value:.6g}"


def _error_text(error: float | None) -> str:
    return "—" if error is None else f"{error:.2e}"


def pick_jaxpr(response: dict, order: float) -> str:
    jaxprs = (response or {}).get("jaxprs") or []
    n = int(order)
    if not jaxprs:
        return ""
    if n >= len(jaxprs):
        return f"(orders up to {len(jaxprs) - 1} were computed)"
    return f"# {plots.order_label(n)}: grad applied {n} times\n{jaxprs[n]}"


def render_gradient(response: dict) -> tuple:
    if not response.get("ok"):
        return error_markdown(response["error"]), None, ""
    gradient = ", ".join(_value_text(g) for g in response["gradient"])
    status = f"✅ f = {_value_text(response['value'])}; ∇f = [{gradient}]"
    rows = "\n".join(
        f"| {name} | {j['shape'][0]} × {j['shape'][1]} | {j['jacfwd_s'] * 1e3:.3f} ms | {j['jacrev_s'] * 1e3:.3f} ms |"
        for name, j in response["jacobians"].items()
    )
    table = ("| Jacobian | shape (outputs × inputs) | jacfwd | jacrev |\n|---|---|---|---|\n" + rows + "\n\n"
             + (md.text(response["explanation"]) if response.get("explanation") else FORWARD_REVERSE))
    return status, plots.hessian_figure(response["hessian"]), table
