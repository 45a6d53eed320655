"""Datasets as arrays: counts and labels checked, offline without the files says what to do, digits offline."""

from __future__ import annotations

import numpy as np
import pytest

from playground.mnist.catalogue import DATASETS, DataUnavailable
from playground.mnist.idx import write_idx
from playground.mnist.load import load
from playground.server.config import data_places
from tests.mnist_folders import NO_REAL_DIGITS, REAL_DIGITS, SHARED_MNIST, offline_env, write_dataset


def test_offline_with_nothing_cached_says_what_to_do(tmp_path):
    places = data_places(offline_env(tmp_path / "cache"))
    with pytest.raises(DataUnavailable) as info:
        load("mnist", places)
    message = str(info.value)
    assert message.startswith("MNIST is not on this machine, and downloading it failed (offline?). Pick “digits”")
    assert "Not in MNIST_DIR (not set), nor in the cache " in message
    assert "connection refused" in message and "make data" in message and "“digits”" in message
    assert "MNIST_DIR" in message
    with pytest.raises(DataUnavailable, match="FASHION_MNIST_DIR"):
        load("fashion_mnist", places)


def test_load_from_a_folder_checks_counts_and_labels(tmp_path):
    good = load("mnist", data_places({"MNIST_DIR": str(write_dataset(tmp_path / "good", gz=False))}))
    assert good.train_images.shape == (6, 28, 28) and good.test_labels.tolist() == [0, 1, 2]
    assert good.train_images.dtype == good.train_labels.dtype == np.uint8
    assert good.class_names == tuple("0123456789") and good.source.startswith("MNIST_DIR ")

    mismatched = write_dataset(tmp_path / "mismatched")
    write_idx(mismatched / "train-labels-idx1-ubyte.gz", np.zeros(5))
    with pytest.raises(DataUnavailable, match="train-labels-idx1-ubyte.gz has 5 labels but "
                                              "train-images-idx3-ubyte.gz has 6 images"):
        load("mnist", data_places({"MNIST_DIR": str(mismatched)}))

    out_of_range = write_dataset(tmp_path / "labels", n_test=12, label_max=11)
    with pytest.raises(DataUnavailable, match="t10k-labels-idx1-ubyte.gz holds label 11, expected 0–9"):
        load("mnist", data_places({"MNIST_DIR": str(out_of_range)}))


def test_unknown_names_list_the_choices():
    with pytest.raises(ValueError, match="unknown dataset 'cifar'; choose one of mnist, fashion_mnist, digits"):
        load("cifar", data_places({}))


def test_digits_offline_split_and_frames():
    digits = load("digits", data_places({}))
    assert digits.train_images.shape == (1437, 28, 28) and digits.test_images.shape == (360, 28, 28)
    assert digits.train_labels.shape == (1437,) and digits.test_labels.shape == (360,)
    for array in (digits.train_images, digits.train_labels, digits.test_images, digits.test_labels):
        assert array.dtype == np.uint8
    assert set(np.unique(digits.train_labels)) == set(range(10)) == set(np.unique(digits.test_labels))
    assert digits.train_images.max() == 255
    ink = digits.test_images.astype(float)
    rows = np.arange(28)
    com_y = (ink.sum(axis=2) @ rows) / ink.sum(axis=(1, 2))
    com_x = (ink.sum(axis=1) @ rows) / ink.sum(axis=(1, 2))
    assert abs(np.median(com_y) - 14) < 0.6 and abs(np.median(com_x) - 14) < 0.6  # framed like MNIST
    assert digits.source.startswith("scikit-learn ") and "8×8" in digits.source
    from sklearn.datasets import load_digits

    target = load_digits().target
    order = np.random.default_rng(0).permutation(1797)  # the documented, fixed split
    np.testing.assert_array_equal(digits.test_labels, target[order[1437:]])


@pytest.mark.skipif(not REAL_DIGITS, reason=NO_REAL_DIGITS)
def test_load_the_real_test_set_from_a_folder(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    for filename in DATASETS["mnist"].files.values():  # only t10k is available here: it stands in for train too
        (folder / filename).symlink_to(SHARED_MNIST / filename.replace("train-", "t10k-"))
    mnist = load("mnist", data_places({"MNIST_DIR": str(folder)}))
    assert mnist.test_images.shape == (10000, 28, 28) and mnist.test_labels[:3].tolist() == [7, 2, 1]


def test_a_folder_with_the_test_set_alone_trains_on_a_fixed_split_of_it_and_says_so(tmp_path):
    folder = write_dataset(tmp_path / "class", n_test=10)
    for filename in ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"):
        (folder / filename).unlink()
    split = load("mnist", data_places({"MNIST_DIR": str(folder)}))
    assert split.train_images.shape == (8, 28, 28) and split.test_images.shape == (2, 28, 28)
    order = np.random.default_rng(0).permutation(10)  # the documented, fixed split: the same every time
    labels = np.arange(10) % 10  # write_dataset's labels
    np.testing.assert_array_equal(split.train_labels, labels[order[:8]])
    np.testing.assert_array_equal(split.test_labels, labels[order[8:]])
    assert split.note == ["data.test_split", {"dataset": "MNIST", "total": 10, "n_train": 8, "n_test": 2}]
    assert split.test_split
    assert split.source == f"MNIST_DIR {folder}: its test set alone, split 8 to train / 2 to test"
    assert load("mnist", data_places({"MNIST_DIR": str(folder)})).train_labels.tolist() == split.train_labels.tolist()
    assert load("mnist", data_places({"MNIST_DIR": str(write_dataset(tmp_path / "whole"))})).note is None

    write_idx(folder / "t10k-images-idx3-ubyte.gz", np.zeros((1, 28, 28)))
    write_idx(folder / "t10k-labels-idx1-ubyte.gz", np.zeros(1))
    with pytest.raises(DataUnavailable, match="holds 1 images, too few to split"):
        load("mnist", data_places({"MNIST_DIR": str(folder)}))


@pytest.mark.skipif(not REAL_DIGITS, reason=NO_REAL_DIGITS)
def test_mnists_real_test_set_alone_splits_8000_2000_with_every_digit_and_both_writer_groups_on_each_side(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    for filename in ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"):
        (folder / filename).symlink_to(SHARED_MNIST / filename)
    mnist = load("mnist", data_places({"MNIST_DIR": str(folder)}))
    assert mnist.train_images.shape == (8000, 28, 28) and mnist.test_images.shape == (2000, 28, 28)
    for labels in (mnist.train_labels, mnist.test_labels):
        assert np.bincount(labels, minlength=10).min() > len(labels) * 0.07  # every digit, about its share
    held_out = np.random.default_rng(0).permutation(10000)[8000:]
    # MNIST's test file holds its two writer groups one after the other (the first 5,000, then the rest).
    assert 0.4 < np.mean(held_out < 5000) < 0.6
