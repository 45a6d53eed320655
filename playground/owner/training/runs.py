"""The training runs in the device owner: each on a thread of its own, streaming its updates to the server.

The Train tab runs no user code: the loop (loop.py) is ours, on hyperparameters the server has checked. It runs
in the owner because the owner holds the device; it takes its turns with the jobs' sessions there (turns.py).
Datasets stay loaded between runs. The server's messages (owner/serve.py passes them on): ``{"train": {"run",
"config", "run_dir", "slot", "data_env"}}`` (and ``"race": "cpu" | "device"`` for one side of the
race, race.py) and ``{"stop": run}``. To the server: ``{"run", "kind": "update",
...}`` per metric update, then ``{"run", "kind": "done", ...}`` or ``{"run", "kind": "error", "message"}``.
"""

from __future__ import annotations

import contextlib
import threading
import traceback
from collections.abc import Callable
from pathlib import Path

import jax
import numpy as np

from playground.mnist import params_file
from playground.mnist.catalogue import Dataset, DataUnavailable
from playground.mnist.config import TrainConfig
from playground.mnist.load import load
from playground.owner.training import race, results
from playground.owner.training.loop import train
from playground.owner.turns import DeviceTurns


class TrainingRuns:
    def __init__(self, send: Callable[[dict], None], turns: DeviceTurns) -> None:
        self._send = send
        self._turns = turns
        self._stops: dict[int, threading.Event] = {}
        self._datasets: dict[str, Dataset] = {}
        self._loading = threading.Lock()

    def start(self, order: dict) -> None:
        run = order["run"]
        self._stops[run] = threading.Event()
        threading.Thread(target=self._run, args=(order,), name=f"training-{run}", daemon=True).start()

    def stop(self, run: int) -> None:
        stop = self._stops.get(run)
        if stop is not None:
            stop.set()

    def _run(self, order: dict) -> None:
        run, stop = order["run"], self._stops[order["run"]]
        try:
            self._train(order, stop.is_set)
        except DataUnavailable as exc:  # said as the server says its own (a dataset the owner could not load)
            self._send({"run": run, "kind": "error", "message": str(exc),
                        "unavailable": {"said": exc.said, "fix": exc.fix, "details": exc.details}})
        except ValueError as exc:  # the config does not fit the data, e.g. a batch larger than the dataset
            self._send({"run": run, "kind": "error", "message": str(exc), "invalid_input": True})
        except Exception as exc:  # report it; the owner serves on
            traceback.print_exc()
            self._send({"run": run, "kind": "error", "message": f"{type(exc).__name__}: {exc}"})
        finally:
            self._stops.pop(run, None)

    def _train(self, order: dict, should_stop: Callable[[], bool]) -> None:
        config = TrainConfig.from_dict(order["config"])
        dataset = self._dataset(config.dataset, order["data_env"])
        about = {"dataset": dataset.name, "source": dataset.source, "data_note": dataset.note,
                 "class_names": list(dataset.class_names)}
        if config.data_parallel:  # every local device, on a mesh (the server gave this run all the slots)
            device, pinned = None, contextlib.nullcontext()
        else:
            device = _device_of(order)
            pinned = jax.default_device(device)
        self._turns.run_started(should_stop)
        try:
            with pinned:
                updates = train(config, dataset, should_stop, device=device, pause=self._turns.between_chunks)
                self._stream(order, updates, dataset, about)
        finally:
            self._turns.run_ended()

    def _stream(self, order: dict, updates, dataset: Dataset, about: dict) -> None:
        run = order["run"]
        for update in updates:
            if not update["done"]:
                self._send({"run": run, "kind": "update", **update, **about})
                continue
            saved = Path(order["run_dir"]) / "params.npz"
            params_file.save_params(saved, update.pop("params"))
            predictions = np.asarray(update.pop("test_predictions"))
            self._send({"run": run, "kind": "done", **update, **about, "params_file": str(saved),
                        **results.summarise_test_set(dataset.test_images, dataset.test_labels, predictions)})

    def _dataset(self, name: str, data_env: dict[str, str]) -> Dataset:
        with self._loading:
            if name not in self._datasets:
                self._datasets[name] = load(name, data_env)
            return self._datasets[name]


def _device_of(order: dict) -> jax.Device:
    """Where a run trains: one side of the race (``"race": "cpu"`` or ``"device"``), else slot i's device i."""
    side = order.get("race")
    if side is not None:
        pair = race.devices()
        if pair is None:
            raise ValueError("this host has no device to race its CPU against")
        return pair[0] if side == "cpu" else pair[1]
    devices = jax.devices()
    return devices[order["slot"] % len(devices)]
