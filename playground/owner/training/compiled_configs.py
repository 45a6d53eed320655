"""Which training configurations were compiled before, on this host: known before a run compiles anything.

JAX's cache can only be asked about a program once it is lowered, by a key made
deep inside its compile; the page must say "compiling (first time for this
shape)" before that. So the owner keeps its own index beside JAX's entries, in
the same folder: an empty file per configuration, named after what its programs
depend on (``key``), made once a run of it has compiled. Its age is refreshed at
each use and the oldest are dropped beyond ``MAX_KEPT`` (JAX bounds its own
entries by size; these are empty).

The index says "compiled before", which is true; whether JAX still holds every
program is JAX's to know: after its size bound evicted some, a run said to be
"loading" compiles them again, and writes them back.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path

import jax
import jaxlib

from playground.mnist.config import TrainConfig

FOLDER = "trained-configurations"
MAX_KEPT = 4096


def key(config: TrainConfig, n_train: int, n_test: int, devices: list[jax.Device]) -> str:
    """What a run's programs depend on: every setting but the seed and the epochs (arguments, not shapes), the
    dataset's sizes, the devices it trains on, and JAX's version.

    >>> a = key(TrainConfig(seed=1, epochs=2), 8000, 2000, jax.devices()[:1])
    >>> a == key(TrainConfig(seed=7, epochs=9), 8000, 2000, jax.devices()[:1]), len(a)
    (True, 64)
    >>> a == key(TrainConfig(batch_size=64), 8000, 2000, jax.devices()[:1])
    False
    """
    settings = {name: value for name, value in dataclasses.asdict(config).items() if name not in ("seed", "epochs")}
    facts = {"config": settings, "n_train": n_train, "n_test": n_test, "jax": jax.__version__,
             "jaxlib": jaxlib.__version__, "devices": [(d.platform, d.device_kind) for d in devices]}
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()


class CompiledConfigs:
    """The index in ``cache_folder`` (JAX's cache folder); None: no cache, nothing is ever known."""

    def __init__(self, cache_folder: str | None) -> None:
        self._folder = Path(cache_folder) / FOLDER if cache_folder else None

    def known(self, key: str) -> bool | None:
        """Whether a run of ``key`` compiled here before (its age refreshed); None where there is no cache."""
        if self._folder is None:
            return None
        try:
            os.utime(self._folder / key)
            return True
        except OSError:
            return False

    def add(self, key: str) -> None:
        """``key`` compiled: remembered (the oldest forgotten beyond MAX_KEPT). A failure to write only means the
        next run of it says "first time" again."""
        if self._folder is None:
            return
        try:
            self._folder.mkdir(exist_ok=True)
            (self._folder / key).touch()
            kept = sorted(self._folder.iterdir(), key=lambda path: path.stat().st_mtime)
            for old in kept[:-MAX_KEPT]:
                old.unlink()
        except OSError:
            pass
