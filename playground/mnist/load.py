"""A dataset as arrays: its IDX files (found or fetched by fetch.py) read and checked, or scikit-learn's digits.

Three datasets, all as 28×28 uint8 images with labels 0–9::

    >>> from pathlib import Path
    >>> load("digits", DataPlaces(Path("unused"))).source  # doctest: +ELLIPSIS
    'scikit-learn ... (8×8 digits, rescaled to 28×28)'

and, online (the first time, 11 MB go into the cache), ``load("mnist",
settings.data).train_images.shape`` is ``(60000, 28, 28)``; from a folder holding only the test
set, ``(8000, 28, 28)``: 8,000 of its 10,000 images, the other 2,000 to test on.

The device owner loads here (the server has fetched the files already); no JAX.
"""

from __future__ import annotations

import numpy as np

from playground import messages
from playground.mnist import download
from playground.mnist.catalogue import (
    DATASETS,
    DIGITS_TRAIN,
    TEST_SET_TRAIN_SHARE,
    Dataset,
    DatasetSpec,
    DataUnavailable,
    role_shape,
)
from playground.mnist.fetch import fetch
from playground.mnist.idx import IdxError, read_idx
from playground.mnist.places import DataPlaces


def load(name: str, places: DataPlaces, progress: download.Progress | None = None) -> Dataset:
    """The dataset called ``name``, fetched if needed; raises :class:`DataUnavailable` when it cannot be had."""
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; choose one of {', '.join(DATASETS)}")
    spec = DATASETS[name]
    if not spec.files:
        return _load_digits(spec)
    paths, source = fetch(spec, places, progress)
    try:
        arrays = {role: read_idx(path, *role_shape(role)) for role, path in paths.items()}
    except IdxError as exc:
        raise DataUnavailable(f"{spec.title} from {source}: {exc}") from None
    for split in ("train", "test") if "train_images" in arrays else ("test",):
        images, labels = arrays[f"{split}_images"], arrays[f"{split}_labels"]
        label_file = paths[f"{split}_labels"].name
        if len(images) != len(labels):
            raise DataUnavailable(f"{spec.title} from {source}: {label_file} has {len(labels):,} labels but "
                                  f"{paths[f'{split}_images'].name} has {len(images):,} images.")
        if labels.size and int(labels.max()) >= len(spec.class_names):
            raise DataUnavailable(f"{spec.title} from {source}: {label_file} holds label {int(labels.max())}, "
                                  f"expected 0–{len(spec.class_names) - 1}.")
    if "train_images" not in arrays:
        return _split_test_set(spec, arrays["test_images"], arrays["test_labels"], source)
    return Dataset(**arrays, name=spec.name, title=spec.title, class_names=spec.class_names, source=source)


def _split_test_set(spec: DatasetSpec, images: np.ndarray, labels: np.ndarray, source: str) -> Dataset:
    """Only the test set is here: train on TEST_SET_TRAIN_SHARE of it, test on the rest (a fixed seeded split)."""
    n_train = round(len(images) * TEST_SET_TRAIN_SHARE)
    if n_train == 0 or n_train == len(images):
        raise DataUnavailable(f"{spec.title} from {source}: its test set holds {len(images)} images, too few to "
                              f"split into a part to train on and a part to test on.")
    order = np.random.default_rng(0).permutation(len(images))
    train, test = order[:n_train], order[n_train:]
    # Counts as floats: a piece writes a float as its reader's language writes numbers (8.000 in German).
    note = messages.piece("data.test_split", dataset=spec.title, total=float(len(images)), n_train=float(n_train),
                          n_test=float(len(test)))
    return Dataset(images[train], labels[train], images[test], labels[test], name=spec.name, title=spec.title,
                   class_names=spec.class_names, note=note, test_split=True,
                   source=f"{source}: its test set alone, split {n_train:,} to train / {len(test):,} to test")


def _load_digits(spec: DatasetSpec) -> Dataset:
    """scikit-learn's 1,797 8×8 digits (values 0–16), each framed like MNIST, split 1,437 / 360 with a fixed seed."""
    try:
        import sklearn  # heavy (scipy): imported only when someone asks for these digits
        from sklearn.datasets import load_digits
    except ImportError:
        raise DataUnavailable("the offline “digits” dataset needs scikit-learn: `pip install scikit-learn` "
                              "(or `make run`, which installs requirements.txt).") from None
    from playground.mnist.preprocess import to_mnist_frame

    bunch = load_digits()
    images = np.stack([to_mnist_frame(image) for image in bunch.images])
    labels = bunch.target.astype(np.uint8)
    order = np.random.default_rng(0).permutation(len(images))
    train, test = order[:DIGITS_TRAIN], order[DIGITS_TRAIN:]
    return Dataset(images[train], labels[train], images[test], labels[test], name=spec.name, title=spec.title,
                   class_names=spec.class_names,
                   source=f"scikit-learn {sklearn.__version__} (8×8 digits, rescaled to 28×28)")
