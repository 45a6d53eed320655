"""The training runs in the device owner: each on a thread of its own, streaming its updates to the server.

The Train tab runs no user code: the loop (loop.py) is ours, on hyperparameters the server has checked. It runs
in the owner because the owner holds the device; it takes its turns with the jobs' sessions there (turns.py).
Datasets stay loaded between runs. ``warm_up`` compiles the default configuration (the Train tab's) when the
owner starts, where its dataset is here: the first Start then loads what is compiled (owner/compile_cache.py keeps
it on disk for the next owners too). Each run's updates say whether its programs were compiled before
(``compile_cache``: "new", "kept", or None without a cache; compiled_configs.py), and its last one how many XLA
compiles it made (``xla_compiles``). The server's messages (owner/serve.py passes them on): ``{"train":
TrainOrder, "run": n}`` (mnist/config.py; ``race`` names one side of the race, race.py) and ``{"stop": run}``. To
the server: ``{"run", "kind": "update", ...}`` per metric update, then ``{"run", "kind": "done", ...}`` or
``{"run", "kind": "error", "message"}``.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path

import jax
import numpy as np

from playground.mnist import fetch, params_file
from playground.mnist.catalogue import DATASETS, Dataset, DataUnavailable
from playground.mnist.config import TrainConfig, TrainOrder
from playground.mnist.load import load
from playground.mnist.places import DataPlaces
from playground.owner import compile_cache
from playground.owner.training import compiled_configs, race, test_report
from playground.owner.training.loop import train
from playground.owner.training.prepare import compile_ahead
from playground.owner.turns import DeviceTurns


class TrainingRuns:
    def __init__(self, send: Callable[[dict], None], turns: DeviceTurns, data: DataPlaces | None,
                 cache_folder: str | None = None) -> None:
        """``data``: where the datasets are (None: training is off); ``cache_folder``: JAX's compilation cache where
        the owner keeps one (None: none)."""
        self._send = send
        self._data = data
        self._turns = turns
        self._stops: dict[int, threading.Event] = {}
        self._datasets: dict[str, Dataset] = {}
        self._loading = threading.Lock()
        self._compiled = compiled_configs.CompiledConfigs(cache_folder)
        self._warm = threading.Event()  # clear while the warm-up compiles
        self._warm.set()

    def warm_up(self) -> None:
        """Compile the default configuration on a thread of its own, beside the jobs; runs wait for it (a run of
        the default would compile the same programs a second time beside it)."""
        if self._data is None:
            return
        self._warm.clear()
        threading.Thread(target=self._warm_up, args=(self._data,), name="training-warm-up", daemon=True).start()

    def start(self, run: int, order: TrainOrder) -> None:
        self._stops[run] = threading.Event()
        threading.Thread(target=self._run, args=(run, order), name=f"training-{run}", daemon=True).start()

    def stop(self, run: int) -> None:
        stop = self._stops.get(run)
        if stop is not None:
            stop.set()

    def _run(self, run: int, order: TrainOrder) -> None:
        stop = self._stops[run]
        try:
            self._train(run, order, stop.is_set)
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

    def _warm_up(self, data: DataPlaces) -> None:
        try:
            config = TrainConfig()
            spec = DATASETS[config.dataset]
            if spec.files and fetch.locate(spec, data) is None:  # the owner downloads nothing: the server does
                print(f"training warm-up: {spec.title} is not here yet; the first run of it will compile",
                      file=sys.stderr)
                return
            dataset = self._dataset(config.dataset, data)
            device = jax.devices()[0]
            # No turn of the device: compile_ahead runs and places nothing there, and JAX compiles a job's programs
            # beside it (on a TPU v5e, a job's compile took 0.22 s beside a 14-s compile, 0.08 s alone).
            with jax.default_device(device), compile_cache.kept():
                compile_ahead(config, dataset, device)
            self._compiled.add(compiled_configs.key(config, len(dataset.train_labels), len(dataset.test_labels),
                                                    [device]))
        except Exception:  # said in the server's log; runs compile what they need
            traceback.print_exc()
        finally:
            self._warm.set()

    def _train(self, run: int, order: TrainOrder, should_stop: Callable[[], bool]) -> None:
        config = order.config
        if self._data is None:
            raise ValueError("this owner was started without training")
        dataset = self._dataset(config.dataset, self._data)
        self._warm.wait()
        if config.data_parallel:  # every local device, on a mesh (the server gave this run all the slots)
            device, devices, pinned = None, jax.local_devices(), contextlib.nullcontext()
        else:
            device = _device_of(order)
            devices, pinned = [device], jax.default_device(device)
        key = compiled_configs.key(config, len(dataset.train_labels), len(dataset.test_labels), devices)
        known = self._compiled.known(key)
        about = {"dataset": dataset.name, "source": dataset.source, "data_note": dataset.note,
                 "test_split": dataset.test_split, "class_names": list(dataset.class_names),
                 "compile_cache": None if known is None else "kept" if known else "new"}
        self._turns.run_started(should_stop)
        try:
            with pinned, compile_cache.kept():
                updates = train(config, dataset, should_stop, device=device, pause=self._turns.between_chunks)
                self._stream(run, order, updates, dataset, about, key)
        finally:
            self._turns.run_ended()

    def _stream(self, run: int, order: TrainOrder, updates, dataset: Dataset, about: dict, key: str) -> None:
        compiled = False
        for update in updates:
            if not compiled and update["phase"] != "compiling":  # the loop compiles before its first step
                self._compiled.add(key)
                compiled = True
            if not update["done"]:
                self._send({"run": run, "kind": "update", **update, **about})
                continue
            saved = Path(order.run_dir) / "params.npz"
            params_file.save_params(saved, update.pop("params"))
            predictions = np.asarray(update.pop("test_predictions"))
            # The run's thread is its own: its compiles are this run's.
            self._send({"run": run, "kind": "done", **update, **about, "params_file": str(saved),
                        "xla_compiles": compile_cache.compiles_here(),
                        **test_report.summarise_test_set(dataset.test_images, dataset.test_labels, predictions)})

    def _dataset(self, name: str, data: DataPlaces) -> Dataset:
        with self._loading:
            if name not in self._datasets:
                self._datasets[name] = load(name, data)
            return self._datasets[name]


def _device_of(order: TrainOrder) -> jax.Device:
    """Where a run trains: one side of the race (``race``: "cpu" or "device"), else slot i's device i."""
    if order.race is not None:
        pair = race.devices()
        if pair is None:
            raise ValueError("this host has no device to race its CPU against")
        return pair[0] if order.race == "cpu" else pair[1]
    devices = jax.devices()
    return devices[order.slot % len(devices)]
