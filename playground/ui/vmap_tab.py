"""vmap tab: write a function for one example, batch it, and compare a Python loop, vmap and jit(vmap)."""

from __future__ import annotations

from collections.abc import Iterator

import gradio as gr

from playground.api import PlaygroundAPI
from playground.errors import error_dict
from playground.gallery import VMAP_PRESETS
from playground.ui import progress
from playground.ui.timing_views import parse_sizes
from playground.ui.vmap_views import RUNNING, render

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

    def on_run(code_text: str, args_text: str, in_text: str, out_text: str, sizes_text: str) -> Iterator[tuple]:
        yield from compare(api, code_text, args_text, in_text, out_text, sizes_text)

    run.click(on_run, [code, args, in_axes, out_axes, sizes], [status, jaxpr, batched, chart, table],
              api_visibility="private", concurrency_limit=concurrency, concurrency_id=concurrency_id)
    gr.api(api.vmap, api_name="vmap", concurrency_limit=concurrency, concurrency_id=concurrency_id)


def compare(api: PlaygroundAPI, code_text: str, args_text: str, in_text: str, out_text: str,
            sizes_text: str | None) -> Iterator[tuple]:
    """The Compare button: first the last run's results and errors go, then its place in line, then this run's."""
    yield RUNNING, "", "", None, ""
    yield from progress.follow(run_vmap(api, code_text, args_text, in_text, out_text, sizes_text), render, 5)


def run_vmap(api: PlaygroundAPI, code_text: str, args_text: str, in_text: str, out_text: str,
             sizes_text: str | None) -> Iterator[dict]:
    """The form's values, the batch sizes parsed (naming the box), then /vmap's updates."""
    try:
        batch_sizes = parse_sizes(sizes_text or "", "batch sizes")
    except ValueError as exc:
        yield error_dict("invalid_input", str(exc))
        return
    yield from api.vmap(code_text, args_text, in_text, batch_sizes, out_text)
