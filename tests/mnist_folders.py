"""MNIST_DIR-style folders for tests, made from the real MNIST test digits in ../shared (never copied into the repo).

The 60,000 training digits are not available here, so a folder's "training" files
hold the first ``n_train`` test digits and its "test" files the last ``n_test``.
Without the shared folder, learnable synthetic digits stand in (class k lights up
row band k), so plumbing tests still run; tests that need real digits skip,
saying why (``NO_REAL_DIGITS``).

``PLAYGROUND_TEST_MNIST`` names another folder holding the real
``t10k-*-ubyte.gz`` files; set it to a path that does not exist (``/nowhere``)
to run the suite as a fresh clone without ../shared would.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from playground.mnist.catalogue import DATASETS
from playground.mnist.idx import read_idx, write_idx

SHARED_MNIST = Path(os.environ.get("PLAYGROUND_TEST_MNIST")
                    or Path(__file__).resolve().parents[2] / "shared" / "data" / "mnist")
REAL_DIGITS = (SHARED_MNIST / "t10k-images-idx3-ubyte.gz").is_file()
NO_REAL_DIGITS = f"the real MNIST test set is not at {SHARED_MNIST}"


def real_digits() -> tuple[np.ndarray, np.ndarray]:
    return (read_idx(SHARED_MNIST / "t10k-images-idx3-ubyte.gz", 3, (28, 28)),
            read_idx(SHARED_MNIST / "t10k-labels-idx1-ubyte.gz", 1))


def synthetic_digits(count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, count).astype(np.uint8)
    images = rng.integers(0, 60, (count, 28, 28)).astype(np.uint8)
    for i, label in enumerate(labels):
        images[i, 2 + 2 * label:4 + 2 * label, 4:24] = 255
    return images, labels


def make_mnist_dir(folder: Path, n_train: int, n_test: int, real: bool = REAL_DIGITS) -> Path:
    """Write the four files (images gzipped, labels raw: both spellings occur) into ``folder``."""
    images, labels = real_digits() if real else synthetic_digits(n_train + n_test)
    assert n_train + n_test <= len(labels)
    folder.mkdir(parents=True, exist_ok=True)
    for prefix, part in (("train", slice(0, n_train)), ("t10k", slice(len(labels) - n_test, len(labels)))):
        write_idx(folder / f"{prefix}-images-idx3-ubyte.gz", images[part])
        write_idx(folder / f"{prefix}-labels-idx1-ubyte", labels[part])
    return folder


def make_test_set_dir(folder: Path, count: int, real: bool = REAL_DIGITS) -> Path:
    """Only the two test files, of ``count`` digits: a classroom's folder, which load.py splits to train and test."""
    images, labels = real_digits() if real else synthetic_digits(count)
    folder.mkdir(parents=True, exist_ok=True)
    write_idx(folder / "t10k-images-idx3-ubyte.gz", images[:count])
    write_idx(folder / "t10k-labels-idx1-ubyte", labels[:count])
    return folder


def write_dataset(folder: Path, gz: bool = True, n_train: int = 6, n_test: int = 3, label_max: int = 9) -> Path:
    """Small self-made MNIST-shaped IDX files under their usual names (``.gz`` or decompressed)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    sizes = {"train": n_train, "test": n_test}
    for role, filename in DATASETS["mnist"].files.items():
        split, kind = role.split("_")
        shape = (sizes[split], 28, 28) if kind == "images" else (sizes[split],)
        array = rng.integers(0, 256, shape) if kind == "images" else np.arange(shape[0]) % (label_max + 1)
        write_idx(folder / (filename if gz else filename.removesuffix(".gz")), array)
    return folder


def offline_env(cache: Path) -> dict[str, str]:
    """Nothing cached in ``cache``, every mirror a closed port: what a classroom without internet looks like."""
    return {"PLAYGROUND_CACHE": str(cache), "PLAYGROUND_MIRRORS_MNIST": unreachable_mirror(),
            "PLAYGROUND_MIRRORS_FASHION_MNIST": unreachable_mirror()}


def held_out_digits(n_train: int, n_test: int) -> tuple[np.ndarray, np.ndarray]:
    """The test digits of ``make_mnist_dir(folder, n_train, n_test)``, exactly as the folder has them."""
    images, labels = real_digits() if REAL_DIGITS else synthetic_digits(n_train + n_test)
    return images[-n_test:], labels[-n_test:]


def unreachable_mirror() -> str:
    """A mirror URL nobody answers at (a port just closed): a classroom without internet."""
    from tests.conftest import free_port  # here, not above: benchmarks import this module without pytest

    return f"http://127.0.0.1:{free_port()}/"


def start_training_server(tmp_path_factory, n_train: int, n_test: int, test_set_only: bool = False, **env: str):
    """``python app.py`` with an MNIST_DIR of ``n_train`` + ``n_test`` digits (``test_set_only``: all of them in the
    test files, which the app splits 80/20), an empty cache, Fashion-MNIST offline (and ``env``, e.g. the sandbox
    mode)."""
    from tests.conftest import start_server

    folder = (make_test_set_dir(tmp_path_factory.mktemp("mnist"), n_train + n_test) if test_set_only else
              make_mnist_dir(tmp_path_factory.mktemp("mnist"), n_train, n_test))
    return start_server(tmp_path_factory.mktemp("server"), PLAYGROUND_WORKERS="1", MNIST_DIR=str(folder),
                        PLAYGROUND_CACHE=str(tmp_path_factory.mktemp("cache")),
                        PLAYGROUND_MIRRORS_FASHION_MNIST=unreachable_mirror(), **env)
