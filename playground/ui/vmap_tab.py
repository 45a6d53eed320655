"""vmap tab: write a function for one example, batch it, and compare a Python loop, vmap and jit(vmap)."""

from __future__ import annotations

import gradio as gr

from playground import plots
from playground.api import PlaygroundAPI
from playground.errors import error_dict
from playground.gallery import VMAP_PRESETS
from playground.ui import markdown as md
from playground.ui.inspect_views import error_markdown
from playground.ui.timing_views import parse_sizes, times_table

_FIRST = next(iter(VMAP_PRESETS))


def build(api: PlaygroundAPI, concurrency: int, concurrency_id: str) -> None:
    gr.Markdown("### Write it for one example, batch it with `jax.vmap`\nThe batch is built from your one example "
                "(stacked along `in_axes`, each copy slightly different); the three ways must agree before any "
                "time is shown.")
    first = VMAP_PRESETS[_FIRST]
    with gr.Row():
        with gr.Column(scale=3):
            preset = gr.Dropdown(list(VMAP_PRESETS), value=_FIRST, label="Preset", elem_id="vmap-preset")
            code = gr.Code(first.code, language="python", lines=10, label="Your function, for ONE example",
                           elem_id="vmap-code")
        with gr.Column(scale=2):
            args = gr.Textbox(first.args, label="One example's arguments", elem_id="vmap-args")
            with gr.Row():
                in_axes = gr.Textbox(first.in_axes, label="in_axes", elem_id="vmap-in-axes")
                out_axes = gr.Textbox("0", label="out_axes", elem_id="vmap-out-axes")
            sizes = gr.Textbox("1, 10, 100, 1000", label="Batch sizes", elem_id="vmap-sizes")
            run = gr.Button("Compare", variant="primary", elem_id="vmap-run")
    status = gr.Markdown(elem_id="vmap-status")
    with gr.Row():
        jaxpr = gr.Code(label="jaxpr for one example", language=None, interactive=False, elem_id="vmap-jaxpr")
        batched = gr.Code(label="jaxpr after vmap (the batch dimension appears)", language=None, interactive=False,
                          elem_id="vmap-batched")
    with gr.Row():
        chart = gr.Plot(label="Time per batch", elem_id="vmap-plot")
        table = gr.Markdown(elem_id="vmap-table")

    preset.change(lambda name: (VMAP_PRESETS[name].code, VMAP_PRESETS[name].args, VMAP_PRESETS[name].in_axes),
                  preset, [code, args, in_axes], api_visibility="private")

    def on_run(code_text: str, args_text: str, in_text: str, out_text: str, sizes_text: str):
        try:
            batch_sizes = parse_sizes(sizes_text, "batch sizes")
        except ValueError as exc:
            response = error_dict("invalid_input", str(exc))
        else:
            response = api.vmap(code_text, args_text, in_text, batch_sizes, out_text)
        return render(response)

    run.click(on_run, [code, args, in_axes, out_axes, sizes], [status, jaxpr, batched, chart, table],
              api_visibility="private", concurrency_limit=concurrency, concurrency_id=concurrency_id)
    gr.api(api.vmap, api_name="vmap", concurrency_limit=concurrency, concurrency_id=concurrency_id)


def render(response: dict) -> tuple:
    if not response.get("ok"):
        return error_markdown(response["error"]), "", "", None, ""
    jaxprs = response.get("jaxpr", ""), response.get("batched_jaxpr", "")
    if not response.get("equal"):
        difference = response.get("max_abs_diff")
        by = f"largest difference {difference:.3g}" if difference is not None else "by values that are not finite"
        status = (f"❌ The three ways disagree ({by}), so no time is shown: a function batched with vmap must "
                  "compute each example independently.")
        return status, *jaxprs, None, ""
    series = {"Python loop": response["loop_s"], "vmap": response["vmap_s"], "jit(vmap)": response["jit_vmap_s"]}
    status = f"✅ Python loop, vmap and jit(vmap) agree for {md.code(response['function'])} at every batch size."
    chart = plots.timings_figure("Python loop vs vmap vs jit(vmap)", "batch size", response["batch_sizes"], series)
    return status, *jaxprs, chart, times_table("batch size", response["batch_sizes"], series, baseline="Python loop")
