"""The Gradio UI: one module per tab, the only package that imports gradio."""

from __future__ import annotations

import gradio as gr

from playground.api import PlaygroundAPI
from playground.config import Settings
from playground.ui import (
    about_tab,
    compiler_tab,
    derivatives_tab,
    inspect_tab,
    jit_tab,
    parallel_tab,
    train_tab,
    vmap_tab,
)

SANDBOX_QUEUE = "sandbox"  # every event that runs user code in the sandbox pool shares one concurrency limit
PARALLEL_QUEUE = "parallel"  # the Parallel tab has its own pool of several-device workers
ACCELERATOR_QUEUE = "accelerator"  # the jit and vmap tabs, where the host's GPU or TPU has a pool of its own
# Training runs wait inside the training service, which tells each one its place in line and lets Stop
# leave it; Gradio's own limit for them is just the queue's size.
TRAINING_QUEUE = "training"
# Messages (JAX's errors are long lines) wrap instead of scrolling out of sight.
CSS = ", ".join(f"#{panel} pre, #{panel} code" for panel in (
    "inspect-status", "compiler-passes-status", "compiler-graph-status",
    "shard-details", "parallel-collectives", "parallel-data-parallel", "parallel-pmap",
    "train-status",
)) + " { white-space: pre-wrap; word-break: break-word; }" + (
    " .train-device { font-size: 1.4em; padding: 0.4em 0.8em; border-radius: 8px;"
    " background: var(--block-background-fill); border: 1px solid var(--border-color-primary); }")


def build_app(api: PlaygroundAPI, settings: Settings) -> gr.Blocks:
    # Files handed out for download (IR texts, trained parameters, metrics) are Gradio's copies: gone after an
    # hour, and all of them when the server stops.
    with gr.Blocks(title="JAX Playground", delete_cache=(3600, 3600)) as demo:
        gr.Markdown(
            "# JAX Playground\nWrite a small pure function and see what JAX makes of it. "
            "Your code runs in a locked-down sandbox process, never in this server."
        )
        # Jobs wait in their pool's line (playground/job_line.py), which tells each its place and its wait, and
        # answers identical ones from the cache: Gradio lets them all in, up to the line's size and as many more.
        # The jit and vmap comparisons run where the accelerator is (worker_pools.py): its own workers, if any.
        at_once = settings.requests_at_once
        device_queue = ACCELERATOR_QUEUE if api.accelerator else SANDBOX_QUEUE
        with gr.Tabs():
            with gr.Tab("Inspect", id="inspect"):
                inspect_tab.build(api, demo, at_once, SANDBOX_QUEUE)
            with gr.Tab("Compiler", id="compiler"):
                compiler_tab.build(api, at_once, SANDBOX_QUEUE)
            with gr.Tab("Derivatives", id="derivatives"):
                derivatives_tab.build(api, at_once, SANDBOX_QUEUE)
            with gr.Tab("vmap", id="vmap"):
                vmap_tab.build(api, at_once, device_queue)
            with gr.Tab("jit", id="jit"):
                jit_tab.build(api, at_once, device_queue)
            with gr.Tab("Parallel", id="parallel"):
                parallel_tab.build(api, at_once, PARALLEL_QUEUE, settings.cpu_devices)
            with gr.Tab("Train", id="train"):
                train_tab.build(api, demo, settings.queue_size, TRAINING_QUEUE)
            with gr.Tab("About", id="about"):
                about_tab.build(api, demo)
    return demo
