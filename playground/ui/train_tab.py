"""Train tab: the classic MNIST MLP (784-512-256-10, as in the German blog post "Need for Speed: JAX") trained
live on this host's accelerator, curves drawing as it learns."""

from __future__ import annotations

import html
import time
from collections.abc import Iterator

import gradio as gr
import numpy as np

from playground import training_plots as figures
from playground.api import PlaygroundAPI
from playground.mnist.config import DEFAULT_LEARNING_RATES, OPTIMIZERS, TrainConfig
from playground.ui.inspect_views import error_markdown
from playground.ui.train_sketch import sketch_to_ink
from playground.ui.train_views import (
    Curves,
    dataset_choices,
    device_banner,
    result_figures,
    status_markdown,
    train_config,
)

REDRAW_EVERY_S = 0.3  # at most this often; updates arrive every ~0.2 s, so the curves refresh within 0.5 s
PREVIEW_SCALE = 10  # the 28 × 28 input, shown with big square pixels
_DEFAULTS = TrainConfig()


def build(api: PlaygroundAPI, demo: gr.Blocks, concurrency: int, concurrency_id: str) -> None:
    gr.Markdown(
        "### Train the MNIST MLP live\nThe classic JAX example: a multilayer perceptron (ReLU hidden layers, "
        "log-softmax output) whose parameters are a list of `(W, b)` pairs, `predict` written for one image and "
        "batched with `vmap`, and a jitted update that runs many SGD steps per call. It trains on this server's "
        "accelerator in a worker process; the curves redraw as it learns.")
    device = gr.HTML(device_banner(None), elem_id="train-device")
    with gr.Row():
        with gr.Column(scale=1, min_width=280):
            dataset = gr.Dropdown(dataset_choices(_datasets(api)), value=_DEFAULTS.dataset, label="Dataset",
                                  elem_id="train-dataset")
            layers = gr.Textbox(", ".join(map(str, _DEFAULTS.layers)), label="Layer sizes (784 in, 10 out)",
                                elem_id="train-layers")
            optimizer = gr.Radio(list(OPTIMIZERS), value=_DEFAULTS.optimizer, label="Optimizer (optax)",
                                 elem_id="train-optimizer")
            learning_rate = gr.Number(_DEFAULTS.learning_rate, label="Learning rate", elem_id="train-lr")
            with gr.Row():
                batch_size = gr.Number(_DEFAULTS.batch_size, label="Batch size", precision=0, elem_id="train-batch")
                epochs = gr.Number(_DEFAULTS.epochs, label="Epochs", precision=0, elem_id="train-epochs")
                seed = gr.Number(_DEFAULTS.seed, label="Seed", precision=0, elem_id="train-seed")
            data_parallel = gr.Checkbox(
                _DEFAULTS.data_parallel, label="Data-parallel over all devices", elem_id="train-data-parallel",
                info="The batch is split across every local device, the parameters are replicated, and XLA "
                     "all-reduces the gradients. Needs a batch size that divides by the device count.")
            with gr.Row():
                start = gr.Button("Start", variant="primary", elem_id="train-start")
                stop = gr.Button("Stop", variant="stop", elem_id="train-stop")
            status = gr.Markdown(elem_id="train-status")
        with gr.Column(scale=2):
            loss_plot = gr.Plot(figures.loss_figure([], []), label="Training loss", elem_id="train-loss")
            with gr.Row():
                accuracy_plot = gr.Plot(figures.accuracy_figure([], []), label="Test accuracy",
                                        elem_id="train-accuracy")
                throughput_plot = gr.Plot(figures.throughput_figure([], []), label="Throughput",
                                          elem_id="train-throughput")
    with gr.Row():
        grid_plot = gr.Plot(label="Test digits (wrong ones in red)", elem_id="train-grid")
        confusion_plot = gr.Plot(label="Confusion matrix", elem_id="train-confusion")
    with gr.Row():
        params_file = gr.File(label="Trained parameters (.npz: w0, b0, w1, b1, …)", elem_id="train-params")
        metrics_file = gr.File(label="Metrics (CSV)", elem_id="train-metrics")
    gr.Markdown("#### Draw a digit\nDraw with the mouse; it is prepared the way MNIST digits were (cropped, "
                "scaled to fit 20 × 20, centred by its centre of mass in 28 × 28) and classified by the model "
                "you trained.")
    with gr.Row():
        sketch = gr.Sketchpad(type="numpy", image_mode="RGBA", canvas_size=(280, 280), layers=False,
                              brush=gr.Brush(default_size=18, colors=["#000000"], color_mode="fixed"),
                              label="Draw here", elem_id="train-sketch")
        seen = gr.Image(label="What the model sees (28 × 28)", interactive=False, height=280,
                        elem_id="train-seen")
        probabilities = gr.Plot(figures.probability_figure(None, []), label="Class probabilities",
                                elem_id="train-probabilities")

    def on_optimizer(name: str) -> float:
        return DEFAULT_LEARNING_RATES[name]

    def on_start(dataset_name, layer_text, optimizer_name, rate, batch, epoch_count, seed_value, split_batches,
                 request: gr.Request) -> Iterator[tuple]:
        config = train_config(dataset_name, layer_text, optimizer_name, rate, batch, epoch_count, seed_value,
                              split_batches)
        curves = Curves()
        drawn = 0.0
        for update in api.train(config, request.session_hash):
            if not update["ok"]:
                yield (gr.skip(), error_markdown(update["error"]), *[gr.skip()] * 7)
                return
            curves.add(update)
            if not update["done"] and time.monotonic() - drawn < REDRAW_EVERY_S:
                continue
            drawn = time.monotonic()
            banner = device_banner(update.get("device"), status_markdown(update) if not update.get("device") else "")
            if update["done"]:
                grid, confusion = result_figures(update)
                yield (banner, status_markdown(update), *curves.figures(), grid, confusion,
                       update.get("params_file"), update.get("metrics_file"))
            else:
                yield (banner, status_markdown(update), *curves.figures(), *[gr.skip()] * 4)

    def on_stop(request: gr.Request) -> None:
        api.stop_training(request.session_hash)

    def on_draw(value, request: gr.Request):
        ink = sketch_to_ink(value)
        if ink is None:
            return None, figures.probability_figure(None, [])
        response = api.predict(ink, request.session_hash)
        if not response["ok"]:  # most often: drawing before training, which is no error of the app's
            gr.Warning(html.escape(response["error"]["message"]))  # Gradio's toasts render HTML
            return None, figures.probability_figure(None, [])
        frame = (np.asarray(response["input"]) * 255).astype(np.uint8)
        chart = figures.probability_figure(response["probabilities"], response["class_names"])
        return frame.repeat(PREVIEW_SCALE, 0).repeat(PREVIEW_SCALE, 1), chart

    optimizer.change(on_optimizer, optimizer, learning_rate, api_visibility="private", queue=False)
    busy = start.click(lambda: (gr.update(interactive=False), gr.update(interactive=True)), None, [start, stop],
                       api_visibility="private", queue=False)
    busy.then(on_start, [dataset, layers, optimizer, learning_rate, batch_size, epochs, seed, data_parallel],
              [device, status, loss_plot, accuracy_plot, throughput_plot, grid_plot, confusion_plot, params_file,
               metrics_file], api_visibility="private", concurrency_limit=concurrency,
              concurrency_id=concurrency_id).then(lambda: gr.update(interactive=True), None, start,
                                                  api_visibility="private", queue=False)
    stop.click(on_stop, None, None, api_visibility="private", queue=False)
    sketch.change(on_draw, sketch, [seen, probabilities], api_visibility="private", trigger_mode="always_last",
                  concurrency_limit=None)

    def train(config: dict | None = None, request: gr.Request = None) -> Iterator[dict]:
        """Train the MLP, streaming metric updates; see the README for the config keys."""
        yield from api.train(config, request.session_hash)

    def stop_training(request: gr.Request = None) -> dict:
        """Stop this session's training run; it keeps its curves and parameters."""
        return api.stop_training(request.session_hash)

    def predict(image: list[list[float]], request: gr.Request = None) -> dict:
        """Class probabilities of a grayscale digit (ink bright on dark) under this session's trained model."""
        return api.predict(image, request.session_hash)

    gr.api(train, api_name="train", concurrency_limit=concurrency, concurrency_id=concurrency_id)
    gr.api(stop_training, api_name="stop_training", queue=False)
    gr.api(predict, api_name="predict", concurrency_limit=None)
    gr.api(api.datasets, api_name="datasets", queue=False)
    demo.load(lambda: (device_banner(None, _planned_device(api)), gr.update(choices=dataset_choices(_datasets(api)))),
              None, [device, dataset], api_visibility="private", queue=False)


def _datasets(api: PlaygroundAPI) -> list[dict]:
    response = api.datasets()
    return response["datasets"] if response.get("ok") else []


def _planned_device(api: PlaygroundAPI) -> str:
    """What a sandbox worker sees ("cpu:0 cpu"); the training worker runs on the same host."""
    about = api.about()
    devices = about.get("devices") or []
    if not devices:
        return "Device: known once training starts"
    platform, _, kind = devices[0].partition(" ")
    more = f" ({len(devices)} devices)" if len(devices) > 1 else ""
    return f"Will train on {platform.split(':')[0].upper()} · {kind}{more}"
