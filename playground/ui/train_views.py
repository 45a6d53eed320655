"""What the Train tab shows for a stream of training updates: curves, status, device, results."""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import numpy as np

from playground import training_plots as figures

_PLATFORM_ICONS = {"GPU": "🟩", "TPU": "🟦", "CPU": "⬜"}


@dataclass
class Curves:
    """The history of one run, as the plots need it."""

    steps: list[int] = field(default_factory=list)
    losses: list[float] = field(default_factory=list)
    epoch_points: list[tuple[float, float]] = field(default_factory=list)
    estimates: list[tuple[float, float]] = field(default_factory=list)
    elapsed: list[float] = field(default_factory=list)
    throughput: list[float] = field(default_factory=list)

    def add(self, update: dict) -> None:
        if update.get("phase") not in ("training", "finished", "stopped") or not update.get("step"):
            return
        if update.get("loss") is not None and (not self.steps or update["step"] > self.steps[-1]):
            self.steps.append(update["step"])
            self.losses.append(update["loss"])
        if update.get("epoch_accuracy") is not None:
            self.epoch_points.append((update["epoch"], update["epoch_accuracy"]))
        elif update.get("test_accuracy") is not None and not update.get("done"):
            if not self.estimates or self.estimates[-1][1] != update["test_accuracy"]:
                self.estimates.append((update["epoch"], update["test_accuracy"]))
        if update.get("samples_per_s"):
            self.elapsed.append(update["elapsed_s"])
            self.throughput.append(update["samples_per_s"])
        for name in ("steps", "losses", "elapsed", "throughput"):
            values = getattr(self, name)
            if len(values) > figures.MAX_POINTS:  # bounded memory for long runs; a redraw stays cheap
                del values[1::2]  # halve the resolution of the whole history, keeping its shape

    def figures(self) -> tuple:
        return (figures.loss_figure(self.steps, self.losses),
                figures.accuracy_figure(self.epoch_points, self.estimates),
                figures.throughput_figure(self.elapsed, self.throughput))


def train_config(dataset: str, layers: str, optimizer: str, learning_rate: float | None, batch_size: float | None,
                 epochs: float | None, seed: float | None, data_parallel: bool) -> dict:
    """The form's values as ``/train``'s config: the API, not the form, checks them (TrainConfig.from_dict)."""
    return {"dataset": dataset, "layers": layers, "optimizer": optimizer, "learning_rate": learning_rate,
            "batch_size": batch_size, "epochs": epochs, "seed": seed, "data_parallel": data_parallel}


def device_banner(device: str | None, waiting: str = "") -> str:
    """The device, big: "🟩 Training on GPU · NVIDIA H200"."""
    if not device:
        return f"<div class='train-device'>{html.escape(waiting or 'Device: not started yet')}</div>"
    platform = device.split(" · ")[0]
    icon = _PLATFORM_ICONS.get(platform, "⬜")
    return f"<div class='train-device'>{icon} Training on <b>{html.escape(device)}</b></div>"


def status_markdown(update: dict) -> str:
    """One line on where the run is, with a progress bar for downloads and epochs."""
    phase = update.get("phase")
    if phase == "data":
        download = update.get("download") or {}
        total, done = download.get("total"), download.get("bytes", 0)
        if total:
            return (f"⬇️ Downloading `{download['file']}`: {done / 1e6:.1f} of {total / 1e6:.1f} MB "
                    f"<progress value='{done}' max='{total}'></progress>")
        return f"⬇️ Fetching the {update.get('dataset')} files…"
    if phase == "queued":
        place = update.get("queue_position", 1)
        return (f"⏳ Waiting for the accelerator, which is training someone else's model: you are **#{place}** in "
                "line. Your run starts by itself; Stop leaves the line.")
    if phase == "starting":
        return "🚀 Starting the training worker (loads JAX and the data once)…"
    if phase == "compiling":
        return "⚙️ Compiling the training step…"
    summary = _summary(update)
    if phase == "training":
        epochs, epoch = update.get("epochs") or 1, update.get("epoch") or 0.0
        return (f"🏃 Training: {summary} <progress value='{epoch:.3f}' max='{epochs}'></progress>")
    icon = "⏹️" if update.get("stopped") else "✅"
    return f"{icon} **{update.get('message', 'Finished')}.** {summary}"


def _summary(update: dict) -> str:
    parts = [f"epoch {update.get('epoch', 0):.2f} of {update.get('epochs')}", f"step {update.get('step', 0):,}"]
    if update.get("loss") is not None:
        parts.append(f"loss {update['loss']:.4f}")
    if update.get("test_accuracy") is not None:
        parts.append(f"test accuracy **{100 * update['test_accuracy']:.2f} %**")
    if update.get("samples_per_s"):
        parts.append(f"{update['samples_per_s']:,.0f} samples/s")
    parts.append(f"{update.get('elapsed_s', 0):.1f} s")
    if update.get("n_train"):
        parts.append(f"{update['n_train']:,} training / {update['n_test']:,} test images")
    return " · ".join(parts)


def result_figures(update: dict) -> tuple:
    """The test-digit grid and the confusion matrix of a finished (or stopped) run."""
    names = update.get("class_names") or [str(n) for n in range(10)]
    samples = update.get("samples")
    if not samples or update.get("confusion") is None:
        return None, None
    grid = figures.digit_grid_figure(np.asarray(samples["images"], dtype=np.uint8), samples["labels"],
                                     samples["predictions"], names)
    return grid, figures.confusion_figure(np.asarray(update["confusion"]), names)


def dataset_choices(datasets: list[dict]) -> list[tuple[str, str]]:
    """Dropdown entries saying where each dataset would come from: ready offline or a download."""
    where = {"MNIST_DIR": "from MNIST_DIR", "FASHION_MNIST_DIR": "from FASHION_MNIST_DIR", "cache": "cached",
             "offline (scikit-learn)": "ready"}
    choices = []
    for each in datasets:
        note = where.get(each["available"], each["available"]) if each["available"] else "downloads first"
        choices.append((f"{each['title']} ({note})", each["name"]))
    return choices
