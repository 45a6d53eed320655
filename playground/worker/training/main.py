"""The training worker's main: a long-lived process that owns the accelerator and trains when asked.

It is trusted (it runs our code on hyperparameters the server has validated,
never user code), so it is not sandboxed; it is a separate process so that
the web server never imports JAX and a crash here cannot take the server down.
It keeps datasets loaded between runs and reacts to ``stop`` while training.

Started by server_worker_handle.py as ``main(fd, slot)``: ``fd`` is its end of
a socket pair, ``slot`` which accelerator it trains on (a data-parallel run
trains on all of them: the server holds every slot for it). Messages (protocol.py
framing) from the server: ``{"kind": "train", "config", "run_dir"}`` and
``{"kind": "stop"}``. To the server: ``{"kind": "update", ...}`` per metric
update, then ``{"kind": "done", ...}`` or ``{"kind": "error", "message"}``.
"""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import threading
import traceback
from pathlib import Path

import numpy as np

from playground.mnist import params_file
from playground.mnist.catalogue import Dataset
from playground.mnist.config import TrainConfig
from playground.mnist.load import load
from playground.sandbox import child_channel, protocol
from playground.worker.training import results

MAX_MESSAGE_BYTES = 1 << 20


class TrainingWorker:
    """One training job at a time; ``stop`` arrives on a reader thread so it is seen mid-run."""

    def __init__(self, channel: socket.socket, env: dict[str, str], slot: int = 0) -> None:
        self._channel = channel
        self._env = env
        self._slot = slot
        self._jobs: queue.Queue[dict] = queue.Queue()
        self._stop = threading.Event()
        self._send_lock = threading.Lock()
        self._datasets: dict[str, Dataset] = {}

    def serve(self) -> None:
        threading.Thread(target=self._read, name="training-control", daemon=True).start()
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                self._run(job)
            except ValueError as exc:  # the config does not fit the data, e.g. a batch larger than the dataset
                self._send({"kind": "error", "message": str(exc), "invalid_input": True})
            except Exception as exc:  # report it, stay alive for the next run
                traceback.print_exc()
                self._send({"kind": "error", "message": f"{type(exc).__name__}: {exc}"})

    def _read(self) -> None:
        while True:
            try:
                message = protocol.receive(self._channel, MAX_MESSAGE_BYTES)
            except (EOFError, OSError):
                self._jobs.put(None)
                self._stop.set()
                return
            if message.get("kind") == "train":
                self._stop.clear()  # here, in arrival order, so a stop sent right after is never lost
                self._jobs.put(message)
            elif message.get("kind") == "stop":
                self._stop.set()

    def _run(self, job: dict) -> None:
        # Imported here: the server imports this module's neighbours, never JAX.
        import jax

        from playground.worker.training.loop import train

        config = TrainConfig.from_dict(job["config"])
        dataset = self._dataset(config.dataset)
        about = {"dataset": dataset.name, "source": dataset.source, "data_note": dataset.note,
                 "class_names": list(dataset.class_names)}
        if config.data_parallel:  # every local device, on a mesh (the server gave this run all the slots)
            device, pinned = None, contextlib.nullcontext()
        else:
            devices = jax.devices()
            device = devices[self._slot % len(devices)]  # slot i of the service trains on accelerator i
            pinned = jax.default_device(device)
        with pinned:
            self._stream(train(config, dataset, self._stop.is_set, device=device), job, dataset, about)

    def _stream(self, updates, job: dict, dataset: Dataset, about: dict) -> None:
        for update in updates:
            if not update["done"]:
                self._send({"kind": "update", **update, **about})
                continue
            saved = Path(job["run_dir"]) / "params.npz"
            params_file.save_params(saved, update.pop("params"))
            predictions = np.asarray(update.pop("test_predictions"))
            self._send({"kind": "done", **update, **about, "params_file": str(saved),
                        **results.summarise_test_set(dataset.test_images, dataset.test_labels, predictions)})

    def _dataset(self, name: str) -> Dataset:
        if name not in self._datasets:
            self._datasets[name] = load(name, self._env)
        return self._datasets[name]

    def _send(self, message: dict) -> None:
        with self._send_lock:
            protocol.send(self._channel, message)


def main(channel: str, slot: int = 0) -> None:
    """Train for the server at the other end of ``channel`` (child_channel.py: ``fd:N`` or ``tcp:PORT``)."""
    TrainingWorker(child_channel.connect(channel), dict(os.environ), slot).serve()
