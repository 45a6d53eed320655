"""Train tab: the classic MNIST MLP (784-512-256-10, as in the German blog post "Need for Speed: JAX") trained
live on this host's accelerator, curves drawing as it learns."""

from __future__ import annotations

import html
import time
from collections.abc import Iterator

import gradio as gr
import numpy as np

from playground import messages
from playground.mnist import config
from playground.mnist.config import DEFAULT_LEARNING_RATES, OPTIMIZERS, TrainConfig
from playground.server.api import PlaygroundAPI
from playground.server.links.fields import Choice, Flag, Number, TabSchema, Text
from playground.server.ui import language, race_view, share_links
from playground.server.ui.error_views import error_markdown
from playground.server.ui.field_labels import TRAIN_LABELS
from playground.server.ui.figures import training_plots as figures
from playground.server.ui.layout import SIDE_BY_SIDE_MIN_PX
from playground.server.ui.link_notes import link_notes
from playground.server.ui.tabs import Tab, TabContext
from playground.server.ui.train_sketch import sketch_to_ink
from playground.server.ui.train_views import (
    Curves,
    dataset_choices,
    device_banner,
    expected_time,
    result_figures,
    status_markdown,
    train_config,
)
from playground.server.ui.translations import t

TAB = Tab("pg.tab.train", "train", 70)

STATUS_EVERY_S = 0.3  # the status line at most this often; updates arrive every ~0.2 s
# The three curves at most this often: each redraw is plotly's work in the visitor's browser, and a weak phone
# or a loaded machine that cannot keep up with redraws would leave the page, Stop too, unanswered meanwhile.
CURVES_EVERY_S = 1.0
PREVIEW_SCALE = 10  # the 28 × 28 input, shown with big square pixels
_DEFAULTS = TrainConfig()
# What a Train link holds (the settings; a link never starts a run), and what a class link can hide.
HIDEABLE = {"dataset": "Dataset", "layers": "Layer sizes", "optimizer": "Optimizer", "learning_rate": "Learning rate",
            "batch_size": "Batch size", "epochs": "Epochs", "seed": "Seed", "data_parallel": "Data-parallel"}
LINK = TabSchema({
    "dataset": Choice(config.DATASET_NAMES), "layers": Text(200), "optimizer": Choice(OPTIMIZERS),
    "learning_rate": Number(0, config.MAX_LEARNING_RATE), "batch_size": Number(1, config.MAX_BATCH, whole=True),
    "epochs": Number(1, config.MAX_EPOCHS, whole=True), "seed": Number(0, config.MAX_SEED, whole=True),
    "data_parallel": Flag()}, tuple(HIDEABLE))


def _range(low: float, high: float) -> str:
    """A field's limits, shown under it (the server checks the same ones: mnist/config.py)."""
    return t("pg.train.range", low=low, high=high)


def build(context: TabContext) -> share_links.Sharing:
    api, demo = context.api, context.demo
    gr.Markdown(t("pg.train.intro"))
    device = gr.HTML(device_banner(None), elem_id="train-device")
    notes = link_notes("train")
    with gr.Row():
        with gr.Column(scale=1, min_width=SIDE_BY_SIDE_MIN_PX):
            fields = _settings(api)
            estimate = gr.Markdown(elem_id="train-estimate")
            with gr.Row():
                start = gr.Button(t("pg.train.start"), variant="primary", elem_id="train-start")
                stop = gr.Button(t("pg.train.stop"), variant="stop", elem_id="train-stop", interactive=False)
            status = gr.Markdown(t("pg.hint.train"), elem_id="train-status")
            links = share_links.link_panel("train", share_links.copy_button("train"), HIDEABLE)
        with gr.Column(scale=2):
            curves = _curves()
    results = _results()
    race_view.build(context, fields, start, stop)
    probabilities = _drawing(api)

    def on_start(dataset_name, layer_text, optimizer_name, rate, batch, epoch_count, seed_value, split_batches,
                 request: gr.Request) -> Iterator[tuple]:
        config = train_config(dataset_name, layer_text, optimizer_name, rate, batch, epoch_count, seed_value,
                              split_batches)
        yield from stream_run(api, config, request.session_hash, language.of(request))

    def on_stop(request: gr.Request) -> None:
        api.stop_training(request.session_hash)

    def on_settings(dataset_name, layer_text, optimizer_name, rate, batch, epoch_count, seed_value, split_batches,
                    request: gr.Request) -> str:
        form = train_config(dataset_name, layer_text, optimizer_name, rate, batch, epoch_count, seed_value,
                            split_batches)
        return _expected(api, form, language.of(request))

    # .input, not .change: a link that sets the optimiser keeps its own learning rate.
    fields["optimizer"].input(DEFAULT_LEARNING_RATES.__getitem__, fields["optimizer"], fields["learning_rate"],
                              queue=False)
    busy = start.click(lambda: (gr.update(interactive=False), gr.update(interactive=True)), None, [start, stop],
                       queue=False)
    busy.then(on_start, list(fields.values()), [device, status, *curves, *results], **context.line("training")).then(
        lambda: (gr.update(interactive=True), gr.update(interactive=False)), None, [start, stop], queue=False
    ).then(on_settings, list(fields.values()), estimate, queue=False)
    stop.click(on_stop, None, None, queue=False)
    # The expected time follows what sets the rate and the length: the data, the model, the batch, the epochs.
    for name in ("dataset", "layers", "batch_size", "epochs", "data_parallel"):
        fields[name].change(on_settings, list(fields.values()), estimate, queue=False)

    def on_load(request: gr.Request) -> tuple:
        """Before any run: the device it will train on, where each dataset comes from, and the empty plots saying
        what to do, in the reader's language."""
        lang = language.of(request)
        return (_planned_banner(api, lang), gr.update(choices=dataset_choices(_datasets(api), lang)),
                *Curves().figures(lang), figures.probability_figure(None, [], lang))

    demo.load(on_load, None, [device, fields["dataset"], *curves, probabilities], queue=False)
    demo.load(on_settings, list(fields.values()), estimate, queue=False)
    # A training link shows its settings and waits for Start: nothing is clicked.
    return share_links.Sharing("train", LINK, fields, links, notes,
                               hideable={name: [fields[name]] for name in HIDEABLE})


def _settings(api: PlaygroundAPI) -> dict[str, gr.components.Component]:
    """The run's settings, by the names of TrainConfig's fields (a link's fields too), each with its limits."""
    choices = dataset_choices(_datasets(api))  # none where this server trains nothing
    dataset = gr.Dropdown(choices, value=_DEFAULTS.dataset if choices else None, label=t("pg.train.dataset"),
                          elem_id="train-dataset")
    layers = gr.Textbox(", ".join(map(str, _DEFAULTS.layers)), label=t("pg.train.layers"),
                        info=t("pg.train.layers_info", count=config.MAX_LAYERS, width=config.MAX_WIDTH),
                        elem_id="train-layers")
    optimizer = gr.Radio(list(OPTIMIZERS), value=_DEFAULTS.optimizer, label=t("pg.train.optimizer"),
                         elem_id="train-optimizer")
    learning_rate = gr.Number(_DEFAULTS.learning_rate, label=t("pg.train.learning_rate"), elem_id="train-lr",
                              info=_range(0, config.MAX_LEARNING_RATE))
    with gr.Row():
        batch_size = gr.Number(_DEFAULTS.batch_size, label=t("pg.train.batch_size"), precision=0,
                               info=_range(1, config.MAX_BATCH),
                               elem_id="train-batch")
        epochs = gr.Number(_DEFAULTS.epochs, label=t("pg.train.epochs"), precision=0, elem_id="train-epochs",
                           info=_range(1, config.MAX_EPOCHS))
        seed = gr.Number(_DEFAULTS.seed, label=t("pg.train.seed"), precision=0, elem_id="train-seed",
                         info=_range(0, config.MAX_SEED))
    data_parallel = gr.Checkbox(_DEFAULTS.data_parallel, label=t("pg.train.data_parallel"),
                                elem_id="train-data-parallel", info=t("pg.train.data_parallel_info"))
    return {"dataset": dataset, "layers": layers, "optimizer": optimizer, "learning_rate": learning_rate,
            "batch_size": batch_size, "epochs": epochs, "seed": seed, "data_parallel": data_parallel}


def _curves() -> tuple[gr.Plot, gr.Plot, gr.Plot]:
    """Loss, accuracy and throughput, drawn as the run goes."""
    loss_plot = gr.Plot(figures.loss_figure([], []), label=t("pg.train.loss"), elem_id="train-loss")
    with gr.Row():
        accuracy_plot = gr.Plot(figures.accuracy_figure([], []), label=t("pg.train.accuracy"),
                                elem_id="train-accuracy", min_width=SIDE_BY_SIDE_MIN_PX)
        throughput_plot = gr.Plot(figures.throughput_figure([], []), label=t("pg.train.throughput"),
                                  elem_id="train-throughput", min_width=SIDE_BY_SIDE_MIN_PX)
    return loss_plot, accuracy_plot, throughput_plot


def _results() -> tuple[gr.Plot, gr.Plot, gr.File, gr.File]:
    """What a finished run leaves: test digits with their predictions, the confusion matrix, and its files."""
    with gr.Row():
        grid_plot = gr.Plot(label=t("pg.train.grid"), elem_id="train-grid", min_width=SIDE_BY_SIDE_MIN_PX)
        confusion_plot = gr.Plot(label=t("pg.train.confusion"), elem_id="train-confusion",
                                 min_width=SIDE_BY_SIDE_MIN_PX)
    with gr.Row():
        params_file = gr.File(label=t("pg.train.params"), elem_id="train-params", min_width=SIDE_BY_SIDE_MIN_PX)
        metrics_file = gr.File(label=t("pg.train.metrics"), elem_id="train-metrics", min_width=SIDE_BY_SIDE_MIN_PX)
    return grid_plot, confusion_plot, params_file, metrics_file


def _drawing(api: PlaygroundAPI) -> gr.Plot:
    """A digit drawn by hand, what the model saw of it and its class probabilities (the plot, returned)."""
    gr.Markdown(t("pg.train.draw_intro"), elem_id="train-draw-intro")
    with gr.Row():
        sketch = gr.Sketchpad(type="numpy", image_mode="RGBA", canvas_size=(280, 280), layers=False,
                              brush=gr.Brush(default_size=18, colors=["#000000"], color_mode="fixed"),
                              label=t("pg.train.sketch"), elem_id="train-sketch", min_width=SIDE_BY_SIDE_MIN_PX,
                              elem_classes="pg-brush-first")  # the brush is chosen on load (sketch_tool.py)
        seen = gr.Image(label=t("pg.train.seen"), interactive=False, height=280, elem_id="train-seen",
                        min_width=SIDE_BY_SIDE_MIN_PX)
        probabilities = gr.Plot(figures.probability_figure(None, []), label=t("pg.train.probabilities"),
                                elem_id="train-probabilities", min_width=SIDE_BY_SIDE_MIN_PX)

    def on_draw(value, request: gr.Request):
        lang = language.of(request)
        ink = sketch_to_ink(value)
        if ink is None:
            return None, figures.probability_figure(None, [], lang)
        response = api.predict(ink, request.session_hash)
        if not response["ok"]:  # most often: drawing before training, which is no error of the app's
            gr.Warning(html.escape(response["error"]["message"]))  # Gradio's toasts render HTML
            return None, figures.probability_figure(None, [], lang)
        frame = (np.asarray(response["input"]) * 255).astype(np.uint8)
        chart = figures.probability_figure(response["probabilities"], response["class_names"], lang)
        return frame.repeat(PREVIEW_SCALE, 0).repeat(PREVIEW_SCALE, 1), chart

    sketch.change(on_draw, sketch, [seen, probabilities], trigger_mode="always_last", concurrency_limit=None)
    return probabilities


def stream_run(api: PlaygroundAPI, train_settings: dict, session: str, lang: str) -> Iterator[tuple]:
    """A run's updates as the tab's outputs (device, status, three curves, four results): the status at most every
    ``STATUS_EVERY_S``, the curves at most every ``CURVES_EVERY_S``, both at each new phase and at the end."""
    curves = Curves()
    drawn, curves_drawn, drawn_phase = 0.0, 0.0, None
    for update in api.train(train_settings, session):
        if not update["ok"]:
            yield (gr.skip(), error_markdown(update["error"], lang, labels=TRAIN_LABELS), *[gr.skip()] * 7)
            return
        curves.add(update)
        # A new phase is always shown: "finishing" is the only word between Stop and the final numbers.
        new = update["done"] or update["phase"] != drawn_phase
        if not new and time.monotonic() - drawn < STATUS_EVERY_S:
            continue
        drawn, drawn_phase = time.monotonic(), update["phase"]
        status = status_markdown(update, lang)
        banner = device_banner(update.get("device"), status if not update.get("device") else "", lang)
        figures = [gr.skip()] * 3
        if new or drawn - curves_drawn >= CURVES_EVERY_S:
            figures, curves_drawn = curves.figures(lang), drawn
        if update["done"]:
            grid, confusion = result_figures(update, lang)
            yield (banner, status, *figures, grid, confusion, update.get("params_file"), update.get("metrics_file"))
        else:
            yield (banner, status, *figures, *[gr.skip()] * 4)


def _datasets(api: PlaygroundAPI) -> list[dict]:
    response = api.datasets()
    return response["datasets"] if response.get("ok") else []


def _expected(api: PlaygroundAPI, form: dict, lang: str) -> str:
    """The line under the settings: the run's expected time, from the rates this server measured."""
    response = api.datasets()
    if not response.get("ok"):
        return ""
    return expected_time(form, response["measured"], response["max_run_s"], lang)


def _planned_banner(api: PlaygroundAPI, lang: str) -> str:
    """The device banner before a run: what the device owner holds, as About lists it ("cpu:0 cpu"), where
    training runs, in ``lang``."""
    devices = api.about().get("devices") or []
    if not devices:
        return device_banner(None, messages.say("train.device_unknown", lang), lang)
    platform, _, kind = devices[0].partition(" ")
    device = f"{platform.split(':')[0].upper()} · {kind}"
    key, more = ("train.will_train_many", {"count": len(devices)}) if len(devices) > 1 else ("train.will_train", {})
    return device_banner(None, messages.say(key, lang, device=device, **more), lang)
