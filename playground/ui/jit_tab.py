"""jit tab: the classic benchmark x + x*x + x*x*x, NumPy vs eager JAX vs jitted JAX, and why jit wins (fusion)."""

from __future__ import annotations

import gradio as gr

from playground import plots
from playground.api import PlaygroundAPI
from playground.errors import error_dict
from playground.gallery import JIT_BENCHMARK_CODE
from playground.jobs import DEFAULT_MATRIX_SIZES, MAX_REPEATS
from playground.ui import markdown as md
from playground.ui.inspect_views import error_markdown
from playground.ui.timing_views import parse_sizes, seconds, times_table


def build(api: PlaygroundAPI, concurrency: int, concurrency_id: str) -> None:
    gr.Markdown("### What does `jit` buy?\nThe same function on an n × n float32 input: NumPy, JAX op by op "
                "(eager), and JAX compiled with `jit` (compile time shown apart). Medians of repeated runs, after a "
                "warm-up, each waiting for the device (`block_until_ready`).")
    with gr.Row():
        with gr.Column(scale=3):
            code = gr.Code(JIT_BENCHMARK_CODE, language="python", lines=5,
                           label="Your function (one array in, one out)", elem_id="jit-code")
        with gr.Column(scale=2):
            sizes = gr.Textbox(", ".join(map(str, DEFAULT_MATRIX_SIZES)), label="Sizes n (n × n inputs)",
                               elem_id="jit-sizes")
            repeats = gr.Slider(1, MAX_REPEATS, value=5, step=1, label="At least this many timed runs per size")
            run = gr.Button("Measure", variant="primary", elem_id="jit-run")
    status = gr.Markdown(elem_id="jit-status")
    with gr.Row():
        chart = gr.Plot(label="Time per call", elem_id="jit-plot")
        table = gr.Markdown(elem_id="jit-table")
    why = gr.Markdown(elem_id="jit-why")

    def on_run(code_text: str, sizes_text: str, runs: float):
        try:
            size_list = parse_sizes(sizes_text, "sizes")
        except ValueError as exc:
            response = error_dict("invalid_input", str(exc))
        else:
            response = api.jit_speed(code_text, size_list, int(runs))
        return render(response)

    run.click(on_run, [code, sizes, repeats], [status, chart, table, why], api_visibility="private",
              concurrency_limit=concurrency, concurrency_id=concurrency_id)
    gr.api(api.jit_speed, api_name="jit_speed", concurrency_limit=concurrency, concurrency_id=concurrency_id)


def render(response: dict) -> tuple:
    if not response.get("ok"):
        return error_markdown(response["error"]), None, "", ""
    sizes = response["sizes"]
    series = {"NumPy": response["numpy_s"], "eager JAX": response["eager_s"], "jit": response["jit_s"]}
    notes = [f"✅ Measured on **{md.text(response['device'])}**; NumPy, eager JAX and jit agree on the results."]
    notes += [f"- Size {s['size']} skipped: {md.text(s['reason'])}" for s in response.get("skipped", [])]
    if response.get("numpy_unavailable"):
        notes.append(f"- No NumPy column: {md.text(response['numpy_unavailable'])}")
    chart = plots.timings_figure("NumPy vs eager JAX vs jit", "elements (n × n)", [n * n for n in sizes], series)
    compile_row = " · ".join(f"n={n}: {seconds(c)}" for n, c in zip(sizes, response["compile_s"], strict=True))
    baseline = "NumPy" if not response.get("numpy_unavailable") else "eager JAX"
    table = times_table("n", sizes, series, baseline=baseline) + f"\n\n**Compile time (once per shape):** {compile_row}"
    why = (f"**Why jit is faster:** the jaxpr has **{response['jaxpr_ops']}** operations; eager JAX runs each as its "
           f"own kernel, writing a whole array to memory every time. After `jit`, XLA fuses them into "
           f"**{response['fused_kernels']}** kernel(s) that read the input once and write the output once.")
    return "\n".join(notes), chart, table, why
