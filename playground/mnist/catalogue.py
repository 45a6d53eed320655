"""The datasets the Train tab offers: what each one is, its files and their checksums, where it is published.

No I/O and no JAX: the server and the device owner both read this table.

    >>> DATASETS["mnist"].files["test_labels"], DATASETS["mnist"].folder_variable
    ('t10k-labels-idx1-ubyte.gz', 'MNIST_DIR')
    >>> DATASETS["fashion_mnist"].class_names[-1]
    'Ankle boot'

"digits" (scikit-learn's 8×8 digits, offline) has no files: it ships with scikit-learn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

ROLES = ("train_images", "train_labels", "test_images", "test_labels")
TEST_ROLES = ("test_images", "test_labels")
IDX_SHAPES = {"images": (3, (28, 28)), "labels": (1, None)}  # role suffix -> (ndim, trailing shape) for read_idx
DIGITS_TRAIN = 1437  # of 1,797: the same 80/20 split every time (permutation from default_rng(0))
# Where only a test set is here (MNIST's 10,000 t10k digits, as a classroom may have): 80 % to train on, the rest to
# test on, the same split every time (a seeded permutation: MNIST's test file holds its two writer groups one after
# the other, so a cut without shuffling would test on one group only).
TEST_SET_TRAIN_SHARE = 0.8


class DataUnavailable(RuntimeError):
    """The dataset cannot be had right now; the message says where it looked and what to do.

    Where a page shows it (offline in a classroom), ``said`` and ``fix`` are
    the short version as catalogue pieces, written in the reader's language,
    and ``details`` the rest (the folders looked in, each mirror's failure),
    which the page folds away; ``str()`` is all of it, for a terminal.
    """

    def __init__(self, message: str, *, said: list | None = None, fix: list | None = None,
                 details: str = "") -> None:
        super().__init__(message)
        self.said, self.fix, self.details = said, fix, details


@dataclass(frozen=True)
class DatasetSpec:
    """What a dataset is and where its files come from (no I/O)."""

    name: str
    title: str
    class_names: tuple[str, ...]
    files: Mapping[str, str]  # role -> canonical filename
    sha256: Mapping[str, str]  # filename -> hex digest
    mirrors: tuple[str, ...]  # base URLs ending in "/"
    folder_variable: str | None  # the setting naming a user's folder of the files (read by server/config.py)


@dataclass(frozen=True, eq=False)
class ArrayData:
    """Four arrays to train on: images ``(n, 28, 28)`` uint8, labels ``(n,)`` integers 0-9."""

    train_images: np.ndarray
    train_labels: np.ndarray
    test_images: np.ndarray
    test_labels: np.ndarray


@dataclass(frozen=True, eq=False, kw_only=True)
class Dataset(ArrayData):
    """A loaded dataset: the four arrays, its name and title, its class names, where it came from, and a note for
    the page where the arrays are not the dataset's own split (a catalogue piece, or None); ``test_split``: they are
    parts of its test set alone."""

    name: str
    title: str
    class_names: tuple[str, ...]
    source: str
    note: list | None = None
    test_split: bool = False


def role_shape(role: str) -> tuple[int, tuple[int, ...] | None]:
    """``(ndim, trailing shape)`` of a role's IDX file: images are ``(n, 28, 28)``, labels ``(n,)``."""
    return IDX_SHAPES[role.split("_")[1]]


def _files() -> dict[str, str]:
    """The canonical names: train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-…"""
    return {role: f"{'t10k' if role.startswith('test') else 'train'}-{role.split('_')[1]}-"
                  f"idx{3 if role.endswith('images') else 1}-ubyte.gz" for role in ROLES}


DATASETS: dict[str, DatasetSpec] = {
    "mnist": DatasetSpec(
        "mnist", "MNIST", tuple(str(d) for d in range(10)), _files(),
        dict(zip(_files().values(), (
            "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
            "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
            "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
            "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6"), strict=True)),
        ("https://ossci-datasets.s3.amazonaws.com/mnist/", "https://storage.googleapis.com/cvdf-datasets/mnist/",
         "https://yann.lecun.com/exdb/mnist/"),
        "MNIST_DIR"),
    "fashion_mnist": DatasetSpec(
        "fashion_mnist", "Fashion-MNIST",
        ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"),
        _files(), dict(zip(_files().values(), (
            "3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84",
            "a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845",
            "346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073",
            "67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5"), strict=True)),
        # the S3 website endpoint speaks plain HTTP only; the checksum is what makes that safe
        ("http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
         "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"),
        "FASHION_MNIST_DIR"),
    "digits": DatasetSpec(
        "digits", "scikit-learn digits (8×8, offline)", tuple(str(d) for d in range(10)), {}, {}, (), None),
}
