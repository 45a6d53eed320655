"""What one MNIST training run is: the dataset, the MLP's layer sizes, the optimiser and its settings.

This module imports neither JAX nor NumPy: the web server validates a request
with ``TrainConfig.from_dict`` before any worker (or accelerator) is involved.

    >>> config = TrainConfig.from_dict({"optimizer": "adam", "layers": "784, 128, 10"})
    >>> config.layers, config.learning_rate, config.batch_size
    ((784, 128, 10), 0.001, 128)
    >>> try:
    ...     TrainConfig.from_dict({"batch_size": 0})
    ... except ValueError as refused:  # validation.Refused: its words name the field, for a page to label
    ...     print(refused)
    `batch_size` must be a whole number from 1 to 4096, got 0.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields

from playground.validation import Refused, as_whole, field, invalid

DATASET_NAMES = ("mnist", "fashion_mnist", "digits")
OPTIMIZERS = ("sgd", "momentum", "adam")
# Each optimizer's best rate for the default MLP and batch 128, training on 8,000 real MNIST digits and testing on
# 2,000 others, seeds 0-2, 8 epochs: sgd 0.3 -> 96.3-96.8% (0.1 -> 94.9-95.4%, 1.0 lurches in epoch 1);
# momentum 0.03 -> 96.2-96.4% (0.01 -> 94.6-95.3%; momentum 0.9 makes each step ~10x larger, hence sgd's
# rate / 10); adam 0.001 -> 96.7-97.1% (3e-4 -> 95.9-96.2%, 3e-3 no better and noisier).
DEFAULT_LEARNING_RATES = {"sgd": 0.3, "momentum": 0.03, "adam": 0.001}

IMAGE_PIXELS = 28 * 28
N_CLASSES = 10
MAX_LAYERS = 8
MAX_WIDTH = 4096
MAX_BATCH = 4096
# A TPU or GPU trains an epoch of MNIST in a fraction of a second: a few hundred epochs make a run long enough to
# watch there. On a CPU (seconds an epoch) the page says the expected time before Start, and the server's time
# limit per run ends a run that would take too long.
MAX_EPOCHS = 500
MAX_SEED = 2**31 - 1
MAX_LEARNING_RATE = 10.0


@dataclass(frozen=True)
class TrainConfig:
    """One training run; constructing it checks every field (ValueError names the field and what is allowed)."""

    dataset: str = "mnist"
    layers: tuple[int, ...] = (IMAGE_PIXELS, 512, 256, N_CLASSES)
    optimizer: str = "sgd"
    # None means the optimiser's own default (DEFAULT_LEARNING_RATES), so TrainConfig(optimizer="adam") gets
    # Adam's 0.001 rather than SGD's rate; after construction it is always a float.
    learning_rate: float | None = None
    batch_size: int = 128
    epochs: int = 5
    seed: int = 0
    # Split each batch over every local device (worker_loop.Placement); the worker checks that the batch divides.
    data_parallel: bool = False

    def __post_init__(self) -> None:
        # Normalise first (JSON's 128.0, a list of layers) so equality and hashing see one spelling.
        object.__setattr__(self, "dataset", _choice("dataset", self.dataset, DATASET_NAMES))
        object.__setattr__(self, "optimizer", _choice("optimizer", self.optimizer, OPTIMIZERS))
        object.__setattr__(self, "layers", _layers(self.layers))
        if self.learning_rate is None:
            object.__setattr__(self, "learning_rate", DEFAULT_LEARNING_RATES[self.optimizer])
        object.__setattr__(self, "learning_rate", _learning_rate(self.learning_rate))
        object.__setattr__(self, "batch_size", _whole("batch_size", self.batch_size, 1, MAX_BATCH))
        object.__setattr__(self, "epochs", _whole("epochs", self.epochs, 1, MAX_EPOCHS))
        object.__setattr__(self, "seed", _whole("seed", self.seed, 0, MAX_SEED))
        _flag("data_parallel", self.data_parallel)

    @classmethod
    def from_dict(cls, values: Mapping[str, object] | None) -> TrainConfig:
        """A config from JSON-like ``values``; missing keys take defaults, unknown keys are an error.

        The learning rate's default (also for ``None``, JSON's null) depends on the optimiser:
        ``{"optimizer": "adam"}`` gets 0.001.
        """
        if values is not None and not isinstance(values, Mapping):
            raise ValueError(f"the training settings must be a mapping of names to values, got {values!r}")
        values = dict(values or {})
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(values) - set(known), key=str)
        if unknown:
            raise ValueError(f"unknown setting `{unknown[0]}`; the settings are {', '.join(known)}")
        return cls(**values)


@dataclass(frozen=True)
class TrainOrder:
    """A run as the server orders it from the device owner: it crosses the process boundary as itself, its config
    with it (ipc/protocol.py; owner/training/runs.py receives it)."""

    config: TrainConfig
    run_dir: str  # where the owner writes the run's weights
    slot: int = 0  # the server's slot for it: slot i trains on device i
    race: str | None = None  # one side of a race, "cpu" or "device" (owner/training/race.py)

    def __post_init__(self) -> None:
        if not isinstance(self.config, TrainConfig) or self.race not in (None, "cpu", "device"):
            raise ValueError(f"not a training order: {self!r}")


def _refused(key: str, **params: object) -> Refused:
    """The ValueError a field's check raises: catalogue message ``key`` (field_texts.py), which a page writes in its
    reader's language with the field named by its label."""
    return Refused(invalid(key, **params))


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    if value not in allowed or not isinstance(value, str):
        raise _refused("invalid.choice", field=field(name), allowed=", ".join(allowed), value=repr(value))
    return value


def _flag(name: str, value: object) -> None:
    """Only ``True`` or ``False`` (JSON's true/false): "yes", 1 or "false" would be guesses at what was meant."""
    if type(value) is not bool:
        raise _refused("invalid.flag", field=field(name), value=repr(value))


def _whole(name: str, value: object, low: int, high: int) -> int:
    """``value`` as an int from ``low`` to ``high`` (whole by the app's one rule, ``as_whole``), else ValueError."""
    if value is None:  # a form's field left empty
        raise _refused("invalid.empty_number", field=field(name))
    number = as_whole(value)
    if number is None or not low <= number <= high:
        raise _refused("invalid.whole_number", field=field(name), low=low, high=high, value=repr(value))
    return number


def _learning_rate(value: object) -> float:
    # The range test comes first: it rejects NaN and inf, and never converts a huge int to float.
    if type(value) not in (int, float) or not 0 < value <= MAX_LEARNING_RATE or not math.isfinite(value):
        raise _refused("invalid.above_zero", field=field("learning_rate"), high=f"{MAX_LEARNING_RATE:g}",
                       value=repr(value))
    return float(value)


def _layers(value: object) -> tuple[int, ...]:
    """Layer sizes from a list/tuple of whole numbers or text like ``"784, 512, 256, 10"``."""
    layers = field("layers")
    if isinstance(value, str):
        parts = [p for p in re.split(r"[,\s]+", value.strip()) if p]
        if not all(p.isascii() and p.isdigit() for p in parts):
            raise _refused("invalid.layers_text", field=layers, value=repr(value))
        value = [int(p) for p in parts]
    if not isinstance(value, (list, tuple)) or not 2 <= len(value) <= MAX_LAYERS:
        raise _refused("invalid.layers_count", field=layers, most=MAX_LAYERS, value=repr(value))
    sizes = [as_whole(v) for v in value]
    if not all(s is not None and 1 <= s <= MAX_WIDTH for s in sizes):
        raise _refused("invalid.layer_sizes", field=layers, high=MAX_WIDTH, value=repr(list(value)))
    if sizes[0] != IMAGE_PIXELS:
        raise _refused("invalid.layers_first", field=layers, pixels=IMAGE_PIXELS, value=sizes[0])
    if sizes[-1] != N_CLASSES:
        raise _refused("invalid.layers_last", field=layers, classes=N_CLASSES, value=sizes[-1])
    return tuple(sizes)
