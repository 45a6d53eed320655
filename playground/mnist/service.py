"""Training as the server offers it: fetch the data, wait for a worker, stream the run, keep the result.

Runs in the Gradio server process and never imports JAX: the training itself
happens in a TrainerProcess (one per accelerator). Each browser session (or
gradio_client) has at most one run at a time and keeps its latest result, so
``/predict`` answers with the model that session trained.
"""

from __future__ import annotations

import csv
import itertools
import shutil
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Generator, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from playground.mnist import data, inference, preprocess
from playground.mnist.config import TrainConfig
from playground.mnist.slots import SlotQueue
from playground.mnist.trainer import SLOT_VARIABLE
from playground.mnist.worker_process import TrainerProcess, WorkerDied

METRIC_COLUMNS = ("step", "epoch", "elapsed_s", "loss", "test_accuracy", "epoch_accuracy", "samples_per_s")
POLL_S = 0.1


class TrainingFailed(RuntimeError):
    """The run could not finish: the worker reported an error or died."""


@dataclass
class _Run:
    stop: threading.Event = field(default_factory=threading.Event)
    reason: str = "Stopped"


@dataclass
class _Result:
    folder: Path
    params_file: Path | None
    metrics_file: Path
    class_names: list[str]
    params: list | None = None


class NoTrainedModel(LookupError):
    """``predict`` before this session has trained a model."""


class TrainingService:
    def __init__(self, env: Mapping[str, str], slots: int = 1, max_run_s: float = 900.0,
                 stop_grace_s: float = 2.0, max_sessions: int = 64) -> None:
        self._env = dict(env)
        self._queue = SlotQueue(slots)
        self._workers = [TrainerProcess(self._env, {SLOT_VARIABLE: str(slot)}) for slot in range(slots)]
        self.max_run_s = max_run_s
        self.stop_grace_s = stop_grace_s
        self._max_sessions = max_sessions
        self._root = Path(tempfile.mkdtemp(prefix="jax-playground-runs-"))
        self._lock = threading.Lock()
        self._runs: dict[str, _Run] = {}
        self._results: OrderedDict[str, _Result] = OrderedDict()
        self._fetch_locks = {name: threading.Lock() for name in data.DATASETS}
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
                "test_accuracy": None, "epoch_accuracy": None, "samples_per_s": None, "elapsed_s": 0.0,
                "device": None, "dataset": config.dataset, "n_train": None, "n_test": None, "done": False}
        started = time.monotonic()
        try:
            if not (yield from self._fetch(config.dataset, run, base)):
                return
            ticket = self._queue.join()
            try:
                while not self._queue.wait(ticket, POLL_S * 5):
                    if run.stop.is_set():
                        yield {**base, "phase": "stopped", "done": True, "stopped": True,
                               "elapsed_s": time.monotonic() - started, "message": "Stopped before it started."}
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
        """Class probabilities of ``image`` (ink bright on dark, any size) under this session's model."""
        with self._lock:
            result = self._results.get(session)
        if result is None or result.params_file is None:
            raise NoTrainedModel("No trained model in this session yet: train one first (press Start).")
        if result.params is None:
            result.params = inference.load_params(result.params_file)
        frame = preprocess.model_input(image)
        probabilities = inference.probabilities(result.params, frame)
        return {"probabilities": probabilities.tolist(), "predicted": int(np.argmax(probabilities)),
                "class_names": result.class_names, "input": frame.round(3).tolist()}

    def status(self) -> dict:
        """Training slots (one per accelerator), runs in progress and runs waiting."""
        return self._queue.counts()

    def datasets(self) -> list[dict]:
        """Each dataset and where it would come from now: "MNIST_DIR", "cache", offline, or None (download)."""
        available = data.availability(self._env)
        return [{"name": name, "title": spec.title, "available": available.get(name)}
                for name, spec in data.DATASETS.items()]

    def close(self) -> None:
        for worker in self._workers:
            worker.kill()
        shutil.rmtree(self._root, ignore_errors=True)

    # -- the steps of a run ---------------------------------------------------

    def _fetch(self, name: str, run: _Run, base: dict) -> Generator[dict, None, bool]:
        """Make sure the files are here (downloading with progress); False when Stop ended the run meanwhile."""
        spec = data.DATASETS[name]
        if not spec.files:  # the offline digits ship with scikit-learn
            return True
        progress: dict = {}
        outcome: dict = {}

        def report(filename: str, done: int, total: int | None) -> None:
            progress.update(file=filename, bytes=done, total=total)

        def fetch() -> None:
            try:
                with self._fetch_locks[name]:
                    outcome["source"] = data.fetch(spec, self._env, report)[1]
            except Exception as exc:  # handed to the generator below
                outcome["error"] = exc

        worker = threading.Thread(target=fetch, name=f"fetch-{name}", daemon=True)
        worker.start()
        while worker.is_alive():
            worker.join(POLL_S * 2)
            if run.stop.is_set():  # the download goes on into the cache; this run ends now
                yield {**base, "phase": "stopped", "done": True, "stopped": True,
                       "message": "Stopped while fetching the data"}
                return False
            if progress:
                yield {**base, "phase": "data", "download": dict(progress)}
        if "error" in outcome:
            raise outcome["error"]
        return True

    def _train_on(self, worker: TrainerProcess, config: TrainConfig, session: str, run: _Run,
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
            stop_sent = None
            while True:
                if stop_sent is None and (run.stop.is_set() or time.monotonic() > deadline):
                    if not run.stop.is_set():
                        run.reason = f"Stopped at the time limit of {self.max_run_s:g} s per run"
                    worker.send({"kind": "stop"})
                    stop_sent = time.monotonic()
                if stop_sent is not None and time.monotonic() - stop_sent > self.stop_grace_s:
                    worker.kill()  # it did not stop in time: a fresh one serves the next run
                    finished = True
                    self._keep(session, folder, None, rows, latest.get("class_names"))
                    yield {**latest, "phase": "stopped", "done": True, "stopped": True,
                           "message": "The worker did not stop in time and was restarted; the curves are kept, "
                                      "the parameters are lost."}
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
                rows.append({column: latest.get(column) for column in METRIC_COLUMNS})
                if kind == "done":
                    finished = True
                    result = self._keep(session, folder, Path(message["params_file"]), rows,
                                        message.get("class_names"))
                    stopped = bool(message.get("stopped"))
                    yield {**latest, "phase": "stopped" if stopped else "finished",
                           "message": run.reason if stopped else "Finished",
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

    def _abandon(self, worker: TrainerProcess) -> None:
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

    def _keep(self, session: str, folder: Path, params_file: Path | None, rows: list[dict],
              class_names: list[str] | None) -> _Result:
        metrics_file = folder / "metrics.csv"
        with open(metrics_file, "w", newline="") as stream:
            writer = csv.DictWriter(stream, fieldnames=METRIC_COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
        result = _Result(folder, params_file, metrics_file, list(class_names or map(str, range(10))))
        with self._lock:
            old = self._results.pop(session, None)
            self._results[session] = result
            evicted = [old] if old else []
            while len(self._results) > self._max_sessions:
                evicted.append(self._results.popitem(last=False)[1])
        for each in evicted:
            shutil.rmtree(each.folder, ignore_errors=True)
        return result
