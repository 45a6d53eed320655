"""The server's training service: fetch the data, wait for a slot, stream the run, keep the result.

Runs in the Gradio server process and never imports JAX: the training itself
happens in the device owner (playground/owner/training/), which holds the
device and takes turns on it with the jobs that measure (one slot per device).
Each browser session (or gradio_client) has at most one run at a time and keeps
its latest result (results.py), so ``/predict`` answers with the model that
session trained last.
"""

from __future__ import annotations

import dataclasses
import itertools
import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from playground.messages import piece, render
from playground.messages import render as render_piece
from playground.mnist import fetch
from playground.mnist.catalogue import DATASETS, DataUnavailable
from playground.mnist.config import TrainConfig
from playground.mnist.places import DataPlaces
from playground.server.device_owner.handle import DeviceOwner
from playground.server.device_owner.sessions import OwnerLost
from playground.server.device_owner.training_stream import TrainingStream
from playground.server.training import race_stream
from playground.server.training.data_fetch import DataFetcher
from playground.server.training.results import NoTrainedModel, RunResult, SessionResults
from playground.server.training.run_record import MeasuredRates, RunRecord
from playground.server.training.slots import SlotQueue

__all__ = ["NoTrainedModel", "TrainingFailed", "TrainingService"]
POLL_S = 0.1
START_WAIT_S = 300.0  # an owner starting again opens its device anew: seconds, well within this


class TrainingFailed(RuntimeError):
    """The run could not finish: the owner reported an error, or ended."""


@dataclass
class _Run:
    stop: threading.Event = field(default_factory=threading.Event)
    reason: list = field(default_factory=lambda: piece("train.stopped"))  # why it stopped, as a catalogue piece


class TrainingService:
    def __init__(self, owner: DeviceOwner, data: DataPlaces, runs: str, slots: int = 1,
                 max_run_s: float = 900.0, stop_grace_s: float = 2.0, finish_grace_s: float = 120.0,
                 max_sessions: int = 64) -> None:
        """``owner`` trains on the datasets ``data`` says where to find (Settings.data); ``runs``: the folder the
        runs' weights go into (the owner may write there).
        ``stop_grace_s``: how long a run has after a Stop to end its chunk and say it is finishing;
        ``finish_grace_s``: how long it then has for the final measurement and the weights (seconds on a wide
        model, and more on a loaded machine). A run that misses either is taken for a hung device: its owner is
        killed and started again, and its weights are lost."""
        self._owner = owner
        self._places = data
        self._queue = SlotQueue(slots)
        self.max_run_s = max_run_s
        self.stop_grace_s = stop_grace_s
        self.finish_grace_s = finish_grace_s
        self._root = Path(runs)
        self._lock = threading.Lock()
        self._runs: dict[str, _Run] = {}
        self._results = SessionResults(max_sessions)
        self._rates = MeasuredRates()
        self._data = DataFetcher(data)
        self._numbers = itertools.count(1)

    # -- the public operations ------------------------------------------------

    def train(self, config: TrainConfig, session: str) -> Iterator[dict]:
        """Stream one run's updates (see api.train); the last one has ``done: True``."""
        return self._session_run(config, session, config.data_parallel,  # a data-parallel run uses every device
                                 lambda slot, config, run, base, started: self._train_on(slot, config, session, run,
                                                                                         base, RunRecord(started)))

    def race(self, config: TrainConfig, session: str) -> Iterator[dict]:
        """Stream a race (see api.race, race_stream.py): ``config`` on the host's CPU and on the device at once. The
        device's model becomes the session's (for ``/predict``)."""
        names = self.race_sides()
        if names is None:
            raise ValueError(render([piece("race.unavailable")]))

        def both(slot: int, config: TrainConfig, run: _Run, base: dict, started: float) -> Iterator[dict]:
            cpu = RunRecord(started, remember=False)  # its rate is no estimate of the device's
            return race_stream.follow({"cpu": self._train_on(slot, config, None, run, base, cpu, "cpu"),
                                "device": self._train_on(slot, config, session, run, base, RunRecord(started),
                                                         "device")}, names, run.stop, started)
        return self._session_run(config, session, True, both)  # the device's every slot: it races alone

    def race_sides(self) -> dict | None:
        """``{"cpu", "device"}``, the names of the two devices a race pits against each other; None where the owner
        has no device besides the host's CPU."""
        return self._owner.hello.get("race")

    def _session_run(self, config: TrainConfig, session: str, all_slots: bool, body) -> Iterator[dict]:
        """What every run of a session goes through: one at a time per session, the data fetched, a place in the
        line for the device's slots (``all_slots``: every one), then ``body(slot, config, run, base, started)``'s
        stream (``started``: when the request came, time.monotonic())."""
        run = _Run()
        with self._lock:
            if session in self._runs:
                raise ValueError("This session is already training; press Stop first.")
            self._runs[session] = run
        base = {"phase": "data", "step": 0, "epoch": 0.0, "epochs": config.epochs, "loss": None,
                "test_accuracy": None, "epoch_accuracy": None, "train_accuracy": None,
                "epoch_train_accuracy": None, "samples_per_s": None, "seconds_per_epoch": None, "elapsed_s": 0.0,
                "losses": [], "first_loss_step": None, "epoch_ends": [],
                "device": None, "devices": None, "dataset": config.dataset, "n_train": None, "n_test": None,
                "data_fallback": None, "compile_cache": None, "done": False}
        started = time.monotonic()
        try:
            dataset = yield from self._data.fetched(config.dataset, run.stop, base)
            if dataset is None:  # the download goes on into the cache; this run ends now
                yield _stopped(base, piece("train.stopped_fetching"))
                return
            config = dataclasses.replace(config, dataset=dataset)
            ticket = self._queue.join(all_slots=all_slots)
            try:
                while not self._queue.wait(ticket, POLL_S * 5):
                    if run.stop.is_set():
                        yield _stopped(base, piece("train.stopped_before_start"), elapsed_s=time.monotonic() - started)
                        return
                    yield {**base, "phase": "queued", "queue_position": self._queue.position(ticket),
                           "elapsed_s": time.monotonic() - started}
                yield from body(ticket.slot, config, run, base, started)
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

    def measured(self) -> list[dict]:
        """The samples/s of the last run of each dataset, model and batch size here: what the next run's expected
        time is reckoned from (run_record.expected_seconds)."""
        return self._rates.listed()

    def datasets(self) -> list[dict]:
        """Each dataset and where it would come from now: "MNIST_DIR", "cache", offline, or None (download)."""
        available = fetch.availability(self._places)
        return [{"name": name, "title": spec.title, "available": available.get(name)}
                for name, spec in DATASETS.items()]

    def close(self) -> None:
        shutil.rmtree(self._root, ignore_errors=True)

    # -- the steps of a run ---------------------------------------------------

    def _train_on(self, slot: int, config: TrainConfig, session: str | None, run: _Run, base: dict,
                  record: RunRecord, side: str | None = None) -> Iterator[dict]:
        """One run in the owner, on slot ``slot``'s device or on one ``side`` of a race, followed to its end; its
        result kept as ``session``'s (None: not kept, see _keep)."""
        if not self._owner.alive():  # starting again after a job or a run ended it
            yield {**base, "phase": "starting"}
            self._owner.wait_ready(START_WAIT_S)
        folder = self._root / f"run-{next(self._numbers)}"
        folder.mkdir()
        latest = {**base, "phase": "starting"}
        stream: TrainingStream | None = None
        try:
            order = {"config": config.to_dict(), "run_dir": str(folder), "slot": slot, "data": self._places.to_dict()}
            stream = self._owner.train(order if side is None else {**order, "race": side})
            yield from self._follow(stream, config, session, run, folder, record, latest, base)
        except OwnerLost as lost:
            if lost.piece[0] == "device.restarting":  # asked of an owner between two lives
                raise TrainingFailed(render_piece([lost.piece])) from None
            # the owner ended under the run (a job's program hung or crashed it, or the run did)
            why = lost.piece[1].get("why") or f"killed ({lost.kind})"
            raise TrainingFailed(render_piece([piece("device.run_lost", why=why)])) from None
        finally:
            if stream is not None:
                stream.close()

    def _follow(self, stream: TrainingStream, config: TrainConfig, session: str | None, run: _Run, folder: Path,
                record: RunRecord, latest: dict, base: dict) -> Iterator[dict]:
        finished = False
        try:
            deadline = time.monotonic() + self.max_run_s
            give_up_at = None  # set by a stop: when a run that has not sent "done" is taken for hung
            finishing = False  # the run's steps are over; only the final measurement is left
            while True:
                if give_up_at is None and (run.stop.is_set() or time.monotonic() > deadline):
                    if not run.stop.is_set():
                        run.reason = piece("train.stopped_time_limit", limit=float(self.max_run_s))
                    stream.stop()
                    give_up_at = time.monotonic() + (self.finish_grace_s if finishing else self.stop_grace_s)
                if give_up_at is not None and time.monotonic() > give_up_at:
                    stream.abandon()  # it did not stop in time: a hung device, whose owner starts again
                    finished = True
                    self._keep(session, folder, None, record, latest.get("class_names"))
                    # its losses were sent with the update they came in
                    yield _stopped({**latest, "losses": [], "first_loss_step": None, "epoch_ends": [],
                                    **record.target()}, piece("train.worker_restarted"))
                    return
                message = stream.receive(POLL_S)
                if message is None:
                    continue
                kind = message.pop("kind", None)
                message.pop("run", None)
                if kind == "error":
                    finished = True
                    if message.get("invalid_input"):
                        raise ValueError(message.get("message"))
                    if isinstance(message.get("unavailable"), dict):
                        raise DataUnavailable(message.get("message", ""), **message["unavailable"])
                    raise TrainingFailed(message.get("message", "the training run failed"))
                latest = {**base, **message}
                if latest["phase"] == "finishing":
                    finishing = True
                    record.add_steps(latest, time.monotonic())
                    if give_up_at is not None:  # it stopped in time; the measurement and the weights get their own
                        give_up_at = time.monotonic() + self.finish_grace_s
                    yield latest
                    continue
                record.add(latest, time.monotonic(), done=kind == "done")
                if kind == "done":
                    finished = True
                    yield self._done(latest, config, session, run, folder, record)
                    return
                yield latest
        finally:
            if not finished:  # the client went away mid-run: stop it before the slot is reused
                self._abandon(stream)

    def _done(self, latest: dict, config: TrainConfig, session: str | None, run: _Run, folder: Path,
              record: RunRecord) -> dict:
        """A run's last update, once it sent "done": its result kept, its rate remembered, its files named."""
        result = self._keep(session, folder, Path(latest["params_file"]), record, latest.get("class_names"))
        if record.samples_per_s() and record.remember:
            self._rates.record(config, latest["dataset"], record.samples_per_s(), latest["n_train"], latest["device"])
        stopped = bool(latest.get("stopped"))
        files = {} if result is None else {"params_file": str(result.params_file),
                                           "metrics_file": str(result.metrics_file),
                                           "losses_file": str(result.losses_file)}
        return {**{key: value for key, value in latest.items() if key != "params_file"},
                "phase": "stopped" if stopped else "finished",
                **_said(run.reason if stopped else piece("train.finished")), **record.target(),
                "median_samples_per_s": record.samples_per_s(), **files}

    def _keep(self, session: str | None, folder: Path, params_file: Path | None, record: RunRecord,
              class_names: list | None) -> RunResult | None:
        """The run's result as ``session``'s latest; with no session (a race's CPU side: the device's model is the
        session's) nothing is kept and the run's folder goes now."""
        if session is None:
            shutil.rmtree(folder, ignore_errors=True)
            return None
        return self._results.keep(session, folder, params_file, record.rows, class_names, record.losses)

    def _abandon(self, stream: TrainingStream) -> None:
        try:
            stream.stop()
            deadline = time.monotonic() + self.stop_grace_s + self.finish_grace_s
            while time.monotonic() < deadline:
                message = stream.receive(POLL_S)
                if message and message.get("kind") in ("done", "error"):
                    return
        except OwnerLost:
            return
        stream.abandon()


def _stopped(update: dict, words: list, **more: object) -> dict:
    """The last update of a run that Stop (or a limit) ended before the worker finished it."""
    return {**update, "phase": "stopped", "done": True, "stopped": True, **_said(words), **more}


def _said(words: list) -> dict:
    """``message`` in English (the API's) and ``message_words``, the catalogue piece the UI writes in its reader's."""
    return {"message": render([words]), "message_words": words}
