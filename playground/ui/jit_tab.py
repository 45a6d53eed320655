"""jit tab: the classic benchmark x + x*x + x*x*x, NumPy vs eager JAX vs jitted JAX, why jit wins (fusion), and
where it loses (dispatch overhead on small inputs)."""

from __future__ import annotations

import gradio as gr

from playground import plots
from playground.api import PlaygroundAPI
from playground.errors import error_dict
from playground.gallery import JIT_BENCHMARK_CODE
from playground.jobs import MAX_REPEATS
from playground.ui import jit_views, progress
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
            sizes = gr.Textbox(", ".join(map(str, api.default_matrix_sizes())), label="Sizes n (n × n inputs)",
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
            yield render(error_dict("invalid_input", str(exc)))
            return
        yield from progress.follow(api.jit_speed(code_text, size_list, int(runs)), render, 4)

    run.click(on_run, [code, sizes, repeats], [status, chart, table, why], api_visibility="private",
              concurrency_limit=concurrency, concurrency_id=concurrency_id)
    gr.api(api.jit_speed, api_name="jit_speed", concurrency_limit=concurrency, concurrency_id=concurrency_id)


def render(response: dict) -> tuple:
    if not response.get("ok"):
        return error_markdown(response["error"]), None, "", ""
    sizes = response["sizes"]
    series = {"NumPy": response["numpy_s"], "eager JAX": response["eager_s"], "jit": response["jit_s"]}
    notes = [f"✅ Measured on **{md.text(response['device'])}**. {jit_views.agreement_line(response)}"]
    notes += [f"- {note}" for note in [progress.cache_note(response)] if note]
    notes += [f"- Size {s['size']} skipped: {md.text(s['reason'])}" for s in response.get("skipped", [])]
    chart = plots.timings_figure("NumPy vs eager JAX vs jit", "elements (n × n)", [n * n for n in sizes], series)
    compile_row = " · ".join(f"n={n}: {seconds(c)}" for n, c in zip(sizes, response["compile_s"], strict=True))
    baseline = "NumPy" if any(response["numpy_s"]) else "eager JAX"
    table = times_table("n", sizes, series, baseline=baseline) + f"\n\n**Compile time (once per shape):** {compile_row}"
    why = jit_views.why_markdown(response)
    return "\n".join(notes), chart, table, why
