"""A run's data, made sure of before it trains: its files fetched (downloading with progress), or the offline
digits where its dataset can be had neither here nor from the network (training/service.py's first step)."""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Generator

from playground.messages import piece
from playground.mnist import fetch
from playground.mnist.catalogue import DATASETS, DataUnavailable
from playground.mnist.places import DataPlaces

POLL_S = 0.2
OFFLINE_DATASET = "digits"  # what a run trains on when its dataset cannot be had here (it ships with scikit-learn)


class DataFetcher:
    def __init__(self, places: DataPlaces) -> None:
        self._places = places
        self._locks = {name: threading.Lock() for name in DATASETS}  # one download of a dataset at a time

    def listed(self) -> list[dict]:
        """Each dataset and where it would come from now: "MNIST_DIR", "cache", offline, or None (download)."""
        available = fetch.availability(self._places)
        return [{"name": name, "title": spec.title, "available": available.get(name)}
                for name, spec in DATASETS.items()]

    def fetched(self, name: str, stop: threading.Event, base: dict) -> Generator[dict, None, str | None]:
        """Make sure the files are here, yielding the download's progress: the dataset to train on, or None when
        ``stop`` was set meanwhile. Where a download fails (offline) and nothing of the dataset is here, the run
        trains on the offline digits instead, and ``base`` says why in ``data_fallback``: a classroom without a
        connection gets a run from Start rather than an error."""
        spec = DATASETS[name]
        if not spec.files:  # the offline digits ship with scikit-learn
            return name
        progress: dict = {}
        outcome: dict = {}

        def report(filename: str, done: int, total: int | None) -> None:
            progress.update(file=filename, bytes=done, total=total)

        def fetch_files() -> None:
            try:
                with self._locks[name]:
                    outcome["source"] = fetch.fetch(spec, self._places, report)[1]
            except Exception as exc:  # handed to the generator below
                outcome["error"] = exc

        worker = threading.Thread(target=fetch_files, name=f"fetch-{name}", daemon=True)
        worker.start()
        while worker.is_alive():
            worker.join(POLL_S)
            if stop.is_set():
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
