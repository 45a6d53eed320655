"""MNIST_DIR-style folders for tests, made from the real MNIST test digits in ../shared (never copied into the repo).

The 60,000 training digits are not available here, so a folder's "training" files
hold the first ``n_train`` test digits and its "test" files the last ``n_test``.
Without the shared folder, learnable synthetic digits stand in (class k lights up
row band k), so plumbing tests still run; accuracy tests skip instead.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from playground.mnist.idx import read_idx, write_idx

SHARED_MNIST = Path(__file__).resolve().parents[2] / "shared" / "data" / "mnist"
REAL_DIGITS = (SHARED_MNIST / "t10k-images-idx3-ubyte.gz").exists()
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
