"""What the Train tab shows for a stream of training updates: curves, status, device, results."""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass, field

import numpy as np

from playground import messages
from playground.mnist.config import TrainConfig
from playground.server.training.loss_series import LossSeries
from playground.server.training.run_record import TARGET_ACCURACY, expected_seconds
from playground.server.ui import markdown as md
from playground.server.ui.error_views import field_problem
from playground.server.ui.field_labels import TRAIN_LABELS
from playground.server.ui.figures import result_plots
from playground.server.ui.figures import training_plots as figures
from playground.validation import Refused


@dataclass
class Curves:
    """The history of one run, as the plots need it."""

    steps: list[int] = field(default_factory=list)
    losses: list[float] = field(default_factory=list)
    epoch_points: list[tuple[float, float]] = field(default_factory=list)
    estimates: list[tuple[float, float]] = field(default_factory=list)
    train_epoch_points: list[tuple[float, float]] = field(default_factory=list)
    train_estimates: list[tuple[float, float]] = field(default_factory=list)
    elapsed: list[float] = field(default_factory=list)
    throughput: list[float] = field(default_factory=list)
    # Every step's loss, in buckets the figure draws as they are (at most MAX_POINTS once merged for the figure)
    per_step: LossSeries = field(default_factory=lambda: LossSeries(2 * figures.MAX_POINTS))

    def add(self, update: dict) -> None:
        if update.get("losses") and update.get("first_loss_step") is not None:  # "finishing" may bring the last
            self.per_step.add(update["first_loss_step"], update["losses"])
        for end in update.get("epoch_ends") or []:  # "finishing" may bring the last chunk's
            self.epoch_points.append((end["epoch"], end["epoch_accuracy"]))
            self.train_epoch_points.append((end["epoch"], end["epoch_train_accuracy"]))
        if update.get("phase") not in ("training", "finished", "stopped") or not update.get("step"):
            return
        if update.get("loss") is not None and (not self.steps or update["step"] > self.steps[-1]):
            self.steps.append(update["step"])
            self.losses.append(update["loss"])
        if not update.get("epoch_ends") and not update.get("done"):
            _add_estimate(update, "test_accuracy", self.estimates)
            _add_estimate(update, "train_accuracy", self.train_estimates)
        if update.get("samples_per_s"):
            self.elapsed.append(update["elapsed_s"])
            self.throughput.append(update["samples_per_s"])
        for name in ("steps", "losses", "elapsed", "throughput"):
            values = getattr(self, name)
            if len(values) > figures.MAX_POINTS:  # bounded memory for long runs; a redraw stays cheap
                del values[1::2]  # halve the resolution of the whole history, keeping its shape

    def figures(self, language: str = "en") -> tuple:
        """The loss, accuracy and throughput figures so far (before a run: each saying to press Start)."""
        return (figures.loss_figure(self.steps, self.losses, language, self.per_step.buckets(figures.MAX_POINTS)),
                figures.accuracy_figure(self.epoch_points, self.estimates, self.train_epoch_points,
                                        self.train_estimates, language),
                figures.throughput_figure(self.elapsed, self.throughput, language))


def _add_estimate(update: dict, key: str, estimates: list) -> None:
    """A new quick estimate (an update repeats the latest until the next)."""
    if update.get(key) is not None and (not estimates or estimates[-1][1] != update[key]):
        estimates.append((update["epoch"], update[key]))


def train_config(dataset: str, layers: str, optimizer: str, learning_rate: float | None, batch_size: float | None,
                 epochs: float | None, seed: float | None, data_parallel: bool) -> dict:
    """The form's values as ``/train``'s config: the API, not the form, checks them (TrainConfig.from_dict)."""
    return {"dataset": dataset, "layers": layers, "optimizer": optimizer, "learning_rate": learning_rate,
            "batch_size": batch_size, "epochs": epochs, "seed": seed, "data_parallel": data_parallel}


_OWN_TAGS = re.compile(r"</?(?:span|progress)\b[^>]*>")


def device_banner(device: str | None, waiting: str = "", language: str = "en") -> str:
    """The device, big: "Training on GPU · NVIDIA H200", its platform as a coloured label (no emoji font needed)."""
    if not device:
        # ``waiting`` is a status line: its labels and progress bar become plain text here, all else escaped.
        text = _inline_html(_OWN_TAGS.sub("", waiting) or messages.say("train.no_device", language))
        return f"<div class='train-device'>{text}</div>"
    platform = device.split(" · ")[0]
    label = f"<span class='pg-verdict pg-platform-{html.escape(platform.lower())}'>{html.escape(platform)}</span>"
    return (f"<div class='train-device'>{label} "
            f"{messages.say('train.on_device', language, device=html.escape(device))}</div>")


def _inline_html(markdown: str) -> str:
    """A status line's Markdown as HTML: escaped, then its **bold** and `code` as tags (the banner is HTML).

    >>> _inline_html("you are **#1** in line for `mnist` <b>")
    'you are <strong>#1</strong> in line for <code>mnist</code> &lt;b&gt;'
    """
    text = html.escape(markdown, quote=False)
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", text)


def status_markdown(update: dict, language: str = "en") -> str:
    """One line on where the run is, with a progress bar for downloads and epochs, in ``language``; below it, what
    the run trains on where that is not the dataset asked for, or not its own split."""
    notes = [messages.render([update[key]], language) for key in ("data_fallback", "data_note") if update.get(key)]
    return "\n\n".join([_status_line(update, language), *notes])


def _status_line(update: dict, language: str) -> str:
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    busy = md.verdict("busy", language)
    phase = update.get("phase")
    if phase == "data":
        download = update.get("download") or {}
        total, done = download.get("total"), download.get("bytes", 0)
        if total:
            words = say("train.downloading", file=download["file"], done=messages.number(done / 1e6, language, 1),
                        total=messages.number(total / 1e6, language, 1))
            return f"{busy} {words} <progress value='{done}' max='{total}'></progress>"
        return f"{busy} {say('train.fetching', dataset=update.get('dataset'))}"
    if phase == "queued":
        return f"{busy} {say('train.queued', place=update.get('queue_position', 1))}"
    if phase == "starting":
        return f"{busy} {say('train.starting')}"
    if phase == "compiling":  # compiled before and kept (owner/compile_cache.py), the first time, or no cache
        kept = {"kept": "train.compiling_kept", "new": "train.compiling_first"}
        return f"{busy} {say(kept.get(update.get('compile_cache'), 'train.compiling'))}"
    summary = _summary(update, language)
    if phase == "training":
        epochs, epoch = update.get("epochs") or 1, update.get("epoch") or 0.0
        bar = f"<progress value='{round(epoch, 3)}' max='{epochs}'></progress>"
        return f"{busy} {say('train.training', summary=summary)} {bar}"
    stopped = update.get("stopped")
    if phase == "finishing":
        return f"{busy} {say('train.stopping' if stopped else 'train.finishing', summary=summary)}"
    label = md.verdict("stopped" if stopped else "ok", language)
    said = _message(update, language)
    if stopped and said == say("train.stopped"):  # the label says it already
        return f"{label} {summary}"
    return f"{label} **{said}.** {summary}"


def _message(update: dict, language: str) -> str:
    """The run's last word: from its catalogue piece in ``language``, else the English ``message`` it came with."""
    words = update.get("message_words")
    if words:
        try:
            return messages.render([words], language).rstrip(".")
        except (KeyError, IndexError, TypeError, ValueError):
            pass
    return html.escape(str(update.get("message", "Finished"))).rstrip(".")


def _summary(update: dict, language: str = "en") -> str:
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    def number(value: float, decimals: int = 0) -> str:  # as the reader's language writes it: 51.426 in German
        return messages.number(value, language, decimals)

    parts = [say("train.epoch", epoch=number(update.get("epoch", 0), 2), epochs=update.get("epochs")),
             say("train.step", step=number(update.get("step", 0)))]
    if update.get("loss") is not None:
        parts.append(say("train.loss", loss=number(update["loss"], 4)))
    if update.get("test_accuracy") is not None:
        parts.append(say("train.accuracy", accuracy=number(100 * update["test_accuracy"], 2)))
    if update.get("train_accuracy") is not None:
        parts.append(say("train.train_accuracy", accuracy=number(100 * update["train_accuracy"], 2)))
    if update.get("samples_per_s"):
        parts.append(say("train.rate", rate=number(update["samples_per_s"])))
    if update.get("seconds_per_epoch"):
        parts.append(say("train.epoch_time", seconds=seconds(update["seconds_per_epoch"], language)))
    parts.append(say("train.elapsed", elapsed=number(update.get("elapsed_s", 0), 1)))
    if update.get("done") and "time_to_target_s" in update:
        target = number(100 * update["target_accuracy"])
        reached = update["time_to_target_s"]
        parts.append((say("train.target_missed", target=target) if reached is None else
                      say("train.target_reached", target=target, seconds=number(reached, 1)))
                     + (say("train.target_test_set") if update["target_accuracy"] < TARGET_ACCURACY else ""))
    if update.get("n_train"):
        parts.append(say("train.images", n_train=number(update["n_train"]), n_test=number(update["n_test"])))
    return " · ".join(parts)


def seconds(value: float, language: str = "en") -> str:
    """A duration in seconds with three significant digits or more, as ``language`` writes numbers: an epoch on
    a TPU takes milliseconds, one on a CPU seconds.

    >>> seconds(0.01234), seconds(2.567, "de"), seconds(48.25)
    ('0.0123', '2,57', '48.2')
    """
    decimals = max(1, 2 - math.floor(math.log10(value))) if value > 0 else 1
    return messages.number(value, language, decimals)


def expected_time(form: dict, measured: list[dict], max_run_s: float | None, language: str = "en") -> str:
    """Before Start: how long the run the form describes will train, from the rate this server last measured for
    its dataset, model and batch size, or a plain word that none was measured; where the form is not a valid run,
    what is wrong with which field, as the form names it."""
    try:
        config = TrainConfig.from_dict(form)
    except Refused as exc:
        return field_problem(exc.error["error"], language, TRAIN_LABELS)
    except (ValueError, TypeError):
        return ""
    expected = expected_seconds(config, measured)
    if expected is None:
        return messages.say("train.estimate_unknown", language)
    words = messages.say("train.estimate", language, seconds=messages.number(expected["seconds"], language),
                         epochs=messages.number(config.epochs, language),
                         per_epoch=seconds(expected["seconds_per_epoch"], language),
                         rate=messages.number(expected["samples_per_s"], language), device=expected["device"])
    if max_run_s and expected["seconds"] > max_run_s:
        words += " " + messages.say("train.estimate_over_limit", language, limit=messages.number(max_run_s, language))
    return words


def result_figures(update: dict, language: str = "en") -> tuple:
    """The test-digit grid and the confusion matrix of a finished (or stopped) run, their words in ``language``."""
    names = update.get("class_names") or [str(n) for n in range(10)]
    samples = update.get("samples")
    if not samples or update.get("confusion") is None:
        return None, None
    confusion = np.asarray(update["confusion"])
    mistakes = int(confusion.sum() - np.trace(confusion)), int(confusion.sum())
    grid = result_plots.digit_grid_figure(np.asarray(samples["images"], dtype=np.uint8), samples["labels"],
                                          samples["predictions"], names, test_mistakes=mistakes, language=language)
    return grid, result_plots.confusion_figure(confusion, names, language)


# Where a dataset would come from (TrainingService.datasets' "available"): the catalogue's words for it.
_WHERE = {"MNIST_DIR": ("train.from_folder", "MNIST_DIR"),
          "FASHION_MNIST_DIR": ("train.from_folder", "FASHION_MNIST_DIR"),
          "MNIST_DIR, test set only": ("train.from_folder_test", "MNIST_DIR"),
          "FASHION_MNIST_DIR, test set only": ("train.from_folder_test", "FASHION_MNIST_DIR"),
          "cache": ("train.cached", None), "cache, test set only": ("train.cached_test", None),
          "offline (scikit-learn)": ("train.ready", None), None: ("train.downloads_first", None)}


def dataset_choices(datasets: list[dict], language: str = "en") -> list[tuple[str, str]]:
    """Dropdown entries saying where each dataset would come from (ready offline or a download), in ``language``."""
    choices = []
    for each in datasets:
        key, folder = _WHERE.get(each["available"], (None, None))
        note = messages.say(key, language, folder=folder) if key else each["available"]
        choices.append((f"{each['title']} ({note})", each["name"]))
    return choices
