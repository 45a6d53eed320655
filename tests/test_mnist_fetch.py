"""The catalogue, and where a dataset's files are found: the user's folder, then the cache (checksummed)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pooch
import pytest

from playground.mnist import fetch
from playground.mnist.catalogue import DATASETS, DataUnavailable
from playground.mnist.idx import write_idx
from tests.mnist_folders import NO_REAL_DIGITS, REAL_DIGITS, SHARED_MNIST, offline_env, write_dataset

MNIST = DATASETS["mnist"]


@pytest.fixture
def cached_mnist(tmp_path, monkeypatch) -> Path:
    """Self-made files in the cache, with the spec's checksums patched to match them."""
    cached = write_dataset(tmp_path / "cache" / "mnist")
    checksums = {name: pooch.file_hash(str(cached / name)) for name in MNIST.files.values()}
    monkeypatch.setitem(DATASETS, "mnist", dataclasses.replace(MNIST, sha256=checksums))
    return cached


def test_the_specs():
    assert list(DATASETS) == ["mnist", "fashion_mnist", "digits"]
    assert MNIST.files["train_images"] == "train-images-idx3-ubyte.gz"
    assert MNIST.files["test_labels"] == "t10k-labels-idx1-ubyte.gz"
    for spec in DATASETS.values():
        assert len(spec.class_names) == 10
        assert set(spec.sha256) == set(spec.files.values())
        assert all(base.endswith("/") for base in spec.mirrors)
    assert DATASETS["fashion_mnist"].class_names[-1] == "Ankle boot"
    assert DATASETS["fashion_mnist"].mirrors[0].startswith("http://")  # that S3 website speaks HTTP only


@pytest.mark.skipif(not REAL_DIGITS, reason=NO_REAL_DIGITS)
def test_the_published_checksums_agree_with_the_real_files():
    for filename in ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"):
        assert MNIST.sha256[filename] == pooch.file_hash(str(SHARED_MNIST / filename))


def test_cache_dir_and_mirror_overrides(tmp_path):
    assert fetch.cache_dir({"PLAYGROUND_CACHE": str(tmp_path)}) == tmp_path
    assert fetch.cache_dir({}) == Path.home() / ".cache" / "jax-playground"
    assert fetch.mirrors_for(MNIST, {}) == MNIST.mirrors
    env = {"PLAYGROUND_MIRRORS_MNIST": " http://lab.local/mnist/ , http://backup.local/m,"}
    assert fetch.mirrors_for(MNIST, env) == ("http://lab.local/mnist/", "http://backup.local/m/")
    assert fetch.mirrors_for(DATASETS["fashion_mnist"], env) == DATASETS["fashion_mnist"].mirrors


@pytest.mark.parametrize("gz", [True, False], ids=["gz", "decompressed"])
def test_the_users_folder_beats_the_cache(tmp_path, cached_mnist, gz):
    folder = write_dataset(tmp_path / "mine", gz=gz)
    env = {"PLAYGROUND_CACHE": str(tmp_path / "cache"), "MNIST_DIR": str(folder)}
    paths, source = fetch.locate(DATASETS["mnist"], env)
    assert source == f"MNIST_DIR {folder}"
    assert all(path.parent == folder for path in paths.values())
    assert paths["test_images"].name == "t10k-images-idx3-ubyte" + (".gz" if gz else "")
    assert fetch.locate(DATASETS["mnist"], {"PLAYGROUND_CACHE": str(tmp_path / "cache")})[1] == \
        f"cache {cached_mnist}"


def test_an_incomplete_folder_is_an_error_naming_what_is_missing(tmp_path, cached_mnist):
    folder = write_dataset(tmp_path / "mine")
    (folder / "train-labels-idx1-ubyte.gz").unlink()
    env = {"PLAYGROUND_CACHE": str(tmp_path / "cache"), "MNIST_DIR": str(folder)}
    with pytest.raises(DataUnavailable) as info:
        fetch.locate(DATASETS["mnist"], env)  # even though the cache has everything: the user named a folder
    assert f"MNIST_DIR {folder}" in str(info.value)
    assert "train-labels-idx1-ubyte.gz (or train-labels-idx1-ubyte) is missing" in str(info.value)


@pytest.mark.parametrize("gz", [True, False], ids=["gz", "decompressed"])
def test_a_folder_with_the_test_set_alone_gives_its_two_files(tmp_path, gz):
    folder = write_dataset(tmp_path / "class", gz=gz)
    remove(folder, "train_images", "train_labels")
    paths, source = fetch.locate(MNIST, {"MNIST_DIR": str(folder)})
    assert set(paths) == {"test_images", "test_labels"} and source == f"MNIST_DIR {folder}"
    assert fetch.availability({"MNIST_DIR": str(folder)})["mnist"] == "MNIST_DIR, test set only"
    remove(folder, "test_labels")
    with pytest.raises(DataUnavailable) as info:  # half a test set is no test set: every missing file is named
        fetch.locate(MNIST, {"MNIST_DIR": str(folder)})
    assert "t10k-labels-idx1-ubyte.gz (or t10k-labels-idx1-ubyte) is missing" in str(info.value)
    assert "train-images-idx3-ubyte.gz (or train-images-idx3-ubyte) is missing" in str(info.value)
    assert fetch.availability({"MNIST_DIR": str(folder)})["mnist"] is None


def remove(folder: Path, *roles: str) -> None:
    """The files of ``roles`` gone from ``folder``, whichever spelling (``.gz`` or not) it has."""
    for role in roles:
        in_folder = fetch.in_folder(folder, MNIST.files[role])
        assert in_folder is not None
        in_folder.unlink()


def test_a_cache_with_the_test_set_alone_gives_it_where_the_rest_cannot_be_downloaded(tmp_path, cached_mnist):
    remove(cached_mnist, "train_images", "train_labels")
    env = offline_env(tmp_path / "cache")
    assert fetch.locate(DATASETS["mnist"], env) is None  # online, the rest would be downloaded first
    assert fetch.availability(env)["mnist"] == "cache, test set only"
    paths, source = fetch.fetch(DATASETS["mnist"], env)
    assert paths == {role: cached_mnist / MNIST.files[role] for role in ("test_images", "test_labels")}
    assert source.startswith(f"cache {cached_mnist} (downloading the training set failed: ")
    remove(cached_mnist, "test_images")
    with pytest.raises(DataUnavailable, match="downloading it failed"):
        fetch.fetch(DATASETS["mnist"], env)


def test_a_broken_file_in_the_folder_is_named(tmp_path):
    folder = write_dataset(tmp_path / "mine")
    write_idx(folder / "t10k-images-idx3-ubyte.gz", np.zeros((3, 8, 8)))
    with pytest.raises(DataUnavailable, match="t10k-images-idx3-ubyte.gz: items are 8×8, expected 28×28"):
        fetch.locate(MNIST, {"MNIST_DIR": str(folder)})
    with pytest.raises(DataUnavailable, match="not a folder"):
        fetch.locate(MNIST, {"MNIST_DIR": str(tmp_path / "nowhere")})


def test_a_cached_file_with_a_wrong_checksum_is_deleted(tmp_path):
    cached = write_dataset(tmp_path / "cache" / "mnist")  # real MNIST checksums: none of these match
    assert fetch.locate(MNIST, {"PLAYGROUND_CACHE": str(tmp_path / "cache")}) is None
    assert list(cached.iterdir()) == []


def test_availability(tmp_path, monkeypatch):
    env = {"PLAYGROUND_CACHE": str(tmp_path / "cache")}
    assert fetch.availability(env) == {"mnist": None, "fashion_mnist": None, "digits": "offline (scikit-learn)"}
    write_dataset(tmp_path / "cache" / "mnist")
    assert fetch.availability(env)["mnist"] == "cache"
    folder = write_dataset(tmp_path / "mine", gz=False)
    assert fetch.availability({**env, "FASHION_MNIST_DIR": str(folder)})["fashion_mnist"] == "FASHION_MNIST_DIR"
    (folder / "t10k-labels-idx1-ubyte").unlink()
    assert fetch.availability({**env, "MNIST_DIR": str(folder)})["mnist"] is None  # load will say what is missing
    monkeypatch.setattr(fetch.importlib.util, "find_spec", lambda name: None)
    assert fetch.availability(env)["digits"] is None
