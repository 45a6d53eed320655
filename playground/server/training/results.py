"""The server's record of each session's latest run: its folder, weights and metrics CSV, and ``/predict``.

A session (a browser tab, or a gradio_client) keeps only its latest result; a
new run replaces it and removes the old run's folder, and past ``max_sessions``
the oldest session's result goes too, so a busy classroom server's disk stays
bounded. Runs in the Gradio server process: NumPy, never JAX.
"""

from __future__ import annotations

import csv
import shutil
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from playground.mnist.params_file import Params, load_params
from playground.mnist.preprocess import model_input
from playground.server.training.inference import probabilities
from playground.server.training.loss_series import LossSeries

METRIC_COLUMNS = ("step", "epoch", "elapsed_s", "loss", "test_accuracy", "epoch_accuracy", "train_accuracy",
                  "epoch_train_accuracy", "samples_per_s", "seconds_per_epoch")


class NoTrainedModel(LookupError):
    """``predict`` before this session has trained a model."""


@dataclass
class RunResult:
    folder: Path
    params_file: Path | None  # None when the worker was killed before it saved them
    metrics_file: Path
    losses_file: Path
    class_names: list[str]
    params: Params | None = None  # loaded from params_file at the first predict


class SessionResults:
    """Each session's latest :class:`RunResult`, at most ``max_sessions`` of them (the oldest go first)."""

    def __init__(self, max_sessions: int) -> None:
        self._max_sessions = max_sessions
        self._lock = threading.Lock()
        self._results: OrderedDict[str, RunResult] = OrderedDict()

    def keep(self, session: str | None, folder: Path, params_file: Path | None, rows: list[dict],
             class_names: list[str] | None, losses: LossSeries | None = None) -> RunResult | None:
        """Write ``rows`` (one dict of ``METRIC_COLUMNS`` per update) as the run's CSV, and its steps' ``losses`` as
        another (``LossSeries.write_csv``: bounded, whatever the run's length); make it the session's result. With
        no session (a race's CPU side: the device's model is the session's) nothing is kept: the folder goes now."""
        if session is None:
            shutil.rmtree(folder, ignore_errors=True)
            return None
        metrics_file, losses_file = folder / "metrics.csv", folder / "losses.csv"
        (losses or LossSeries(2)).write_csv(losses_file)
        with open(metrics_file, "w", newline="") as stream:
            writer = csv.DictWriter(stream, fieldnames=METRIC_COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
        result = RunResult(folder, params_file, metrics_file, losses_file, list(class_names or map(str, range(10))))
        with self._lock:
            old = self._results.pop(session, None)
            self._results[session] = result
            evicted = [old] if old else []
            while len(self._results) > self._max_sessions:
                evicted.append(self._results.popitem(last=False)[1])
        for each in evicted:
            shutil.rmtree(each.folder, ignore_errors=True)
        return result

    def predict(self, session: str, image: np.ndarray) -> dict:
        """Class probabilities of ``image`` (ink bright on dark, any size) under this session's latest model."""
        with self._lock:
            result = self._results.get(session)
        if result is None or result.params_file is None:
            raise NoTrainedModel("No trained model in this session yet: train one first (press Start).")
        if result.params is None:
            result.params = load_params(result.params_file)
        frame = model_input(image)
        chances = probabilities(result.params, frame)
        return {"probabilities": chances.tolist(), "predicted": int(np.argmax(chances)),
                "class_names": result.class_names, "input": frame.round(3).tolist()}
