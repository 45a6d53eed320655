"""The server's training service: fetch the data, wait for a worker, stream the run, keep the result.

Runs in the Gradio server process and never imports JAX: the training itself
happens in a training worker process (server_worker_handle.py, one per
accelerator). Each browser session (or gradio_client) has at most one run at a
time and keeps its latest result (server_results.py), so ``/predict`` answers
with the model that session trained last.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import shutil
import tempfile
import threading
import time
from collections.abc import Generator, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from playground.messages import piece, render
from playground.mnist import fetch
from playground.mnist.catalogue import DATASETS, DataUnavailable
from playground.mnist.config import TrainConfig
from playground.server.training.results import METRIC_COLUMNS, NoTrainedModel, SessionResults
from playground.server.training.slots import SlotQueue
from playground.server.training.worker_handle import TrainingWorkerHandle, WorkerDied

__all__ = ["NoTrainedModel", "TrainingFailed", "TrainingService"]
POLL_S = 0.1
OFFLINE_DATASET = "digits"  # what a run trains on when its dataset cannot be had here (it ships with scikit-learn)


class TrainingFailed(RuntimeError):
    """The run could not finish: the worker reported an error or died."""


@dataclass
class _Run:
    stop: threading.Event = field(default_factory=threading.Event)
    reason: list = field(default_factory=lambda: piece("train.stopped"))  # why it stopped, as a catalogue piece


class TrainingService:
    def __init__(self, env: Mapping[str, str], slots: int = 1, max_run_s: float = 900.0,
                 stop_grace_s: float = 2.0, finish_grace_s: float = 120.0, max_sessions: int = 64) -> None:
        """``stop_grace_s``: how long a worker has after a Stop to end its chunk and say it is finishing;
        ``finish_grace_s``: how long it then has for the final measurement and the weights (seconds on a wide
        model, and more on a loaded machine). A worker that misses either is killed, and its weights are lost."""
        self._env = dict(env)
        self._queue = SlotQueue(slots)
        self._workers = [TrainingWorkerHandle(self._env, slot) for slot in range(slots)]
        self.max_run_s = max_run_s
        self.stop_grace_s = stop_grace_s
        self.finish_grace_s = finish_grace_s
        self._root = Path(tempfile.mkdtemp(prefix="jax-playground-runs-"))
        self._lock = threading.Lock()
        self._runs: dict[str, _Run] = {}
        self._results = SessionResults(max_sessions)
        self._fetch_locks = {name: threading.Lock() for name in DATASETS}
        self._numbers = itertools.count(1)

    # -- the public operations ------------------------------------------------

    def train(self, config: TrainConfig, session: str) -> Iterator[dict]:
        """Stream one run's updates (see api.train); the last one has ``done: True``."""
        run = _Run()
        with self._lock:
            if session in self._runs:
                raise ValueError("This session is already training; press Stop first.")
            self._runs[session] = run
        base = {"phase": "data", "step": 0, "epoch": 0.0, "epochs": config.epochs, "loss": None,
                "test_accuracy": None, "epoch_accuracy": None, "train_accuracy": None,
                "epoch_train_accuracy": None, "samples_per_s": None, "elapsed_s": 0.0,
                "device": None, "devices": None, "dataset": config.dataset, "n_train": None, "n_test": None,
                "data_fallback": None, "done": False}
        started = time.monotonic()
        try:
            dataset = yield from self._fetch(config.dataset, run, base)
            if dataset is None:
                return
            config = dataclasses.replace(config, dataset=dataset)
            ticket = self._queue.join(all_slots=config.data_parallel)  # a data-parallel run uses every device
            try:
                while not self._queue.wait(ticket, POLL_S * 5):
                    if run.stop.is_set():
                        yield _stopped(base, piece("train.stopped_before_start"), elapsed_s=time.monotonic() - started)
                        return
                    yield {**base, "phase": "queued", "queue_position": self._queue.position(ticket),
                           "elapsed_s": time.monotonic() - started}
                yield from self._train_on(self._workers[ticket.slot], config, session, run, base)
            finally:
                self._queue.leave(ticket)
        finally:
            with self._lock:
                self._runs.pop(session, None)

    def stop(self, session: str) -> bool:
        """Ask this session's run to stop; False when it has none."""
        with self._lock:
            run = self._runs.get(session)
        if run is None:
            return False
        run.stop.set()
        return True

    def predict(self, session: str, image: np.ndarray) -> dict:
        """Class probabilities of ``image`` (ink bright on dark, any size) under this session's latest model."""
        return self._results.predict(session, image)

    def status(self) -> dict:
        """Training slots (one per accelerator), runs in progress and runs waiting."""
        return self._queue.counts()

    def datasets(self) -> list[dict]:
        """Each dataset and where it would come from now: "MNIST_DIR", "cache", offline, or None (download)."""
        available = fetch.availability(self._env)
        return [{"name": name, "title": spec.title, "available": available.get(name)}
                for name, spec in DATASETS.items()]

    def close(self) -> None:
        for worker in self._workers:
            worker.kill()
        shutil.rmtree(self._root, ignore_errors=True)

    # -- the steps of a run ---------------------------------------------------

    def _fetch(self, name: str, run: _Run, base: dict) -> Generator[dict, None, str | None]:
        """Make sure the files are here (downloading with progress): the dataset to train on, or None when Stop ended
        the run meanwhile. Where a download fails (offline) and nothing of the dataset is here, the run trains on
        the offline digits instead, and ``base`` says why in ``data_fallback``: a classroom without a connection
        gets a run from Start rather than an error."""
        spec = DATASETS[name]
        if not spec.files:  # the offline digits ship with scikit-learn
            return name
        progress: dict = {}
        outcome: dict = {}

        def report(filename: str, done: int, total: int | None) -> None:
            progress.update(file=filename, bytes=done, total=total)

        def fetch_files() -> None:
            try:
                with self._fetch_locks[name]:
                    outcome["source"] = fetch.fetch(spec, self._env, report)[1]
            except Exception as exc:  # handed to the generator below
                outcome["error"] = exc

        worker = threading.Thread(target=fetch_files, name=f"fetch-{name}", daemon=True)
        worker.start()
        while worker.is_alive():
            worker.join(POLL_S * 2)
            if run.stop.is_set():  # the download goes on into the cache; this run ends now
                yield _stopped(base, piece("train.stopped_fetching"))
                return None
            if progress:
                yield {**base, "phase": "data", "download": dict(progress)}
        error = outcome.get("error")
        if isinstance(error, DataUnavailable) and error.said and importlib.util.find_spec("sklearn"):
            base.update(dataset=OFFLINE_DATASET, data_fallback=piece(
                "data.fell_back", dataset=spec.title, folder=spec.folder_variable))
            return OFFLINE_DATASET
        if error is not None:
            raise error
        return name

    def _train_on(self, worker: TrainingWorkerHandle, config: TrainConfig, session: str, run: _Run,
                  base: dict) -> Iterator[dict]:
        if worker.ensure_started():
            yield {**base, "phase": "starting"}
        folder = self._root / f"run-{next(self._numbers)}"
        folder.mkdir()
        rows: list[dict] = []
        latest = {**base, "phase": "starting"}
        finished = False
        try:
            worker.send({"kind": "train", "config": config.to_dict(), "run_dir": str(folder)})
            deadline = time.monotonic() + self.max_run_s
            kill_at = None  # set by a stop: when a worker that has not sent "done" is killed
            finishing = False  # the worker's steps are over; only the final measurement is left
            while True:
                if kill_at is None and (run.stop.is_set() or time.monotonic() > deadline):
                    if not run.stop.is_set():
                        run.reason = piece("train.stopped_time_limit", limit=f"{self.max_run_s:g}")
                    worker.send({"kind": "stop"})
                    kill_at = time.monotonic() + (self.finish_grace_s if finishing else self.stop_grace_s)
                if kill_at is not None and time.monotonic() > kill_at:
                    worker.kill()  # it did not stop in time: a fresh one serves the next run
                    finished = True
                    self._results.keep(session, folder, None, rows, latest.get("class_names"))
                    yield _stopped(latest, piece("train.worker_restarted"))
                    return
                message = worker.receive(POLL_S)
                if message is None:
                    continue
                kind = message.pop("kind", None)
                if kind == "error":
                    finished = True
                    if message.get("invalid_input"):
                        raise ValueError(message.get("message"))
                    raise TrainingFailed(message.get("message", "the training worker failed"))
                latest = {**base, **message}
                if latest["phase"] == "finishing":
                    finishing = True
                    if kill_at is not None:  # it stopped in time; the measurement and the weights get their own
                        kill_at = time.monotonic() + self.finish_grace_s
                    yield latest
                    continue
                rows.append({column: latest.get(column) for column in METRIC_COLUMNS})
                if kind == "done":
                    finished = True
                    result = self._results.keep(session, folder, Path(message["params_file"]), rows,
                                                message.get("class_names"))
                    stopped = bool(message.get("stopped"))
                    yield {**latest, "phase": "stopped" if stopped else "finished",
                           **_said(run.reason if stopped else piece("train.finished")),
                           "params_file": str(result.params_file), "metrics_file": str(result.metrics_file)}
                    return
                yield latest
        except WorkerDied as exc:
            finished = True
            worker.kill()
            raise TrainingFailed(str(exc)) from None
        finally:
            if not finished:  # the client went away mid-run: stop the worker before the slot is reused
                self._abandon(worker)

    def _abandon(self, worker: TrainingWorkerHandle) -> None:
        try:
            worker.send({"kind": "stop"})
            deadline = time.monotonic() + self.stop_grace_s
            while time.monotonic() < deadline:
                message = worker.receive(POLL_S)
                if message and message.get("kind") in ("done", "error"):
                    return
        except WorkerDied:
            pass
        worker.kill()


def _stopped(update: dict, words: list, **more: object) -> dict:
    """The last update of a run that Stop (or a limit) ended before the worker finished it."""
    return {**update, "phase": "stopped", "done": True, "stopped": True, **_said(words), **more}


def _said(words: list) -> dict:
    """``message`` in English (the API's) and ``message_words``, the catalogue piece the UI writes in its reader's."""
    return {"message": render([words]), "message_words": words}
