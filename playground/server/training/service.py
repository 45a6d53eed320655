"""The server's training loop: a request, the owner's stream of the run, its result kept.

    train(config, session)     request: one run per session (``_session_run``), its data fetched
      -> _session_run          (data_fetch.py), a place in the line for the device's slots (slots.py)
      -> _train_on             the order to the device owner (owner/training/runs.py trains it: loop.py)
      -> _follow               its messages as they come, Stop and the time limit enforced (stopping.py)
      -> _done                 its result kept for ``/predict`` (results.py), its rate for the next
                               estimate (run_record.py); a race runs two at once (race_stream.py)

Runs in the Gradio server process and never imports JAX: the device owner holds the device and takes turns on
it with the jobs that measure (one slot per device).
"""

from __future__ import annotations

import dataclasses
import itertools
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from playground.messages import piece, render
from playground.mnist.config import TrainConfig, TrainOrder
from playground.mnist.places import DataPlaces
from playground.mnist.updates import blank
from playground.server.device_owner.handle import DeviceOwner
from playground.server.device_owner.sessions import OwnerLost
from playground.server.training import race_stream
from playground.server.training.data_fetch import DataFetcher
from playground.server.training.results import NoTrainedModel, SessionResults
from playground.server.training.run_record import MeasuredRates, RunRecord
from playground.server.training.slots import SlotQueue
from playground.server.training.stopping import Graces, RunStop, abandon, failure, lost_run, said, stopped, watched

__all__ = ["NoTrainedModel", "TrainingService"]
START_WAIT_S = 300.0  # an owner starting again opens its device anew: seconds, well within this


class TrainingService:
    def __init__(self, owner: DeviceOwner, data: DataPlaces, runs: str, slots: int = 1,
                 max_run_s: float = 900.0, stop_grace_s: float = 2.0, finish_grace_s: float = 120.0,
                 max_sessions: int = 64) -> None:
        """``owner`` trains on the datasets ``data`` says where to find (Settings.data); ``runs``: the folder the
        runs' weights go into (the owner may write there); the three limits: stopping.py's ``Graces``."""
        self._owner = owner
        self._queue = SlotQueue(slots)
        self.graces = Graces(max_run_s, stop_grace_s, finish_grace_s)
        self._root = Path(runs)
        self._lock = threading.Lock()
        self._runs: dict[str, RunStop] = {}
        self._results = SessionResults(max_sessions)
        self._rates = MeasuredRates()
        self._data = DataFetcher(data)
        self._numbers = itertools.count(1)

    def train(self, config: TrainConfig, session: str) -> Iterator[dict]:
        """Stream one run's updates (see api.train); the last one has ``done: True``."""
        return self._session_run(config, session, config.data_parallel,  # a data-parallel run uses every device
                                 lambda slot, config, run, base, started: self._train_on(
                                     config, slot, None, session, run, base, RunRecord(started)))

    def race(self, config: TrainConfig, session: str) -> Iterator[dict]:
        """Stream a race (see api.race, race_stream.py): ``config`` on the host's CPU and on the device at once. The
        device's model becomes the session's (for ``/predict``)."""
        names = self.race_sides()
        if names is None:
            raise ValueError(render([piece("race.unavailable")]))

        def both(slot: int, config: TrainConfig, run: RunStop, base: dict, started: float) -> Iterator[dict]:
            cpu = RunRecord(started, remember=False)  # its rate is no estimate of the device's
            return race_stream.follow(
                {"cpu": self._train_on(config, slot, "cpu", None, run, base, cpu),
                 "device": self._train_on(config, slot, "device", session, run, base, RunRecord(started))},
                names, run.stop, started)
        return self._session_run(config, session, True, both)  # the device's every slot: it races alone

    def stop(self, session: str) -> bool:
        """Ask this session's run to stop; False when it has none."""
        with self._lock:
            run = self._runs.get(session)
        if run is not None:
            run.stop.set()
        return run is not None

    def _session_run(self, config: TrainConfig, session: str, all_slots: bool, body) -> Iterator[dict]:
        """What every run of a session goes through: one at a time per session, the data fetched, a place in the
        line for the device's slots (``all_slots``: every one), then ``body(slot, config, run, base, started)``'s
        stream (``started``: when the request came, time.monotonic())."""
        run = RunStop()
        with self._lock:
            if session in self._runs:
                raise ValueError("This session is already training; press Stop first.")
            self._runs[session] = run
        base = blank("data", config.epochs, dataset=config.dataset, data_fallback=None, compile_cache=None)
        started = time.monotonic()
        try:
            dataset = yield from self._data.fetched(config.dataset, run.stop, base)
            if dataset is None:  # the download goes on into the cache; this run ends now
                yield stopped(base, piece("train.stopped_fetching"))
                return
            ticket = self._queue.join(all_slots=all_slots)
            try:
                if (yield from self._queue.waited(ticket, run.stop, base, started)):
                    yield from body(ticket.slot, dataclasses.replace(config, dataset=dataset), run, base, started)
                else:
                    yield stopped(base, piece("train.stopped_before_start"), elapsed_s=time.monotonic() - started)
            finally:
                self._queue.leave(ticket)
        finally:
            with self._lock:
                self._runs.pop(session, None)

    def _train_on(self, config: TrainConfig, slot: int, side: str | None, session: str | None, run: RunStop,
                  base: dict, record: RunRecord) -> Iterator[dict]:
        """One run in the owner, on slot ``slot``'s device or on one ``side`` of a race, followed to its end; its
        result kept as ``session``'s (None: not kept, results.py)."""
        if not self._owner.alive():  # starting again after a job or a run ended it
            yield {**base, "phase": "starting"}
            self._owner.wait_ready(START_WAIT_S)
        folder = self._root / f"run-{next(self._numbers)}"
        folder.mkdir()
        stream = None
        try:
            stream = self._owner.train(TrainOrder(config, str(folder), slot, side))
            yield from self._follow(stream, config, session, run, folder, record, base)
        except OwnerLost as lost:
            raise lost_run(lost) from None
        finally:
            if stream is not None:
                stream.close()

    def _follow(self, stream, config: TrainConfig, session: str | None, run: RunStop, folder: Path,
                record: RunRecord, base: dict) -> Iterator[dict]:
        latest, finished = {**base, "phase": "starting"}, False
        try:
            for message in watched(stream, run, self.graces):
                kind = message.pop("kind", None)
                message.pop("run", None)
                if kind in ("hung", "error"):
                    finished = True
                    if kind == "error":
                        raise failure(message)
                    self._results.keep(session, folder, None, record.rows, latest.get("class_names"), record.losses)
                    # its losses were sent with the update they came in
                    yield stopped({**latest, "losses": [], "first_loss_step": None, "epoch_ends": [],
                                    **record.target()}, piece("train.worker_restarted"))
                    return
                latest = {**base, **message}
                if latest["phase"] == "finishing":
                    record.add_steps(latest, time.monotonic())
                else:
                    record.add(latest, time.monotonic(), done=kind == "done")
                finished = kind == "done"
                yield self._done(latest, config, session, run, folder, record) if finished else latest
        finally:
            if not finished:  # the client went away mid-run: stop it before the slot is reused
                abandon(stream, self.graces)

    def _done(self, latest: dict, config: TrainConfig, session: str | None, run: RunStop, folder: Path,
              record: RunRecord) -> dict:
        """A run's last update, once it sent "done": its result kept, its rate remembered, its files named."""
        result = self._results.keep(session, folder, Path(latest["params_file"]), record.rows,
                                    latest.get("class_names"), record.losses)
        if record.samples_per_s() and record.remember:
            self._rates.record(config, latest["dataset"], record.samples_per_s(), latest["n_train"], latest["device"])
        ended_early = bool(latest.get("stopped"))
        files = {} if result is None else {"params_file": str(result.params_file),
                                           "metrics_file": str(result.metrics_file),
                                           "losses_file": str(result.losses_file)}
        return {**{key: value for key, value in latest.items() if key != "params_file"},
                "phase": "stopped" if ended_early else "finished",
                **said(run.reason if ended_early else piece("train.finished")), **record.target(),
                "median_samples_per_s": record.samples_per_s(), **files}

    # -- what the API asks besides runs: the kept models (results.py), the line (slots.py), the rates ---------

    def predict(self, session: str, image: np.ndarray) -> dict:
        return self._results.predict(session, image)

    def status(self) -> dict:
        return self._queue.counts()

    def measured(self) -> list[dict]:
        return self._rates.listed()

    def datasets(self) -> list[dict]:
        return self._data.listed()

    def race_sides(self) -> dict | None:
        """The names of a race's two devices, ``{"cpu", "device"}``; None where the owner has only the host's CPU."""
        return self._owner.hello.get("race")

    def close(self) -> None:
        shutil.rmtree(self._root, ignore_errors=True)

