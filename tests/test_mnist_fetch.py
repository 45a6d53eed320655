"""The catalogue, and where a dataset's files are found: the user's folder, then the cache (checksummed)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pooch
import pytest

from playground.mnist import fetch
from playground.mnist.catalogue import DATASETS, DataUnavailable
from playground.mnist.idx import write_idx
from playground.mnist.places import DataPlaces
from playground.server.config import Settings, data_places
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


def test_the_places_name_a_folder_and_mirrors_per_dataset(tmp_path):
    places = DataPlaces(tmp_path, {"mnist": tmp_path / "mine"}, {"mnist": ("http://lab.local/mnist/",)})
    assert places.folder(MNIST) == tmp_path / "mine" and places.folder(DATASETS["fashion_mnist"]) is None
    assert places.mirrors_for(MNIST) == ("http://lab.local/mnist/",)
    assert places.mirrors_for(DATASETS["fashion_mnist"]) == DATASETS["fashion_mnist"].mirrors
    assert places.read_from() == [str(tmp_path / "mine"), str(tmp_path)]
    assert DataPlaces.from_dict(json.loads(json.dumps(places.to_dict()))) == places  # as the device owner gets it


def test_the_datasets_places_default_to_the_cache_below_home(tmp_path):
    assert data_places({}) == DataPlaces(Path.home() / ".cache" / "jax-playground") == Settings().data
    assert data_places({"HOME": str(tmp_path)}).cache == tmp_path / ".cache" / "jax-playground"
    assert Settings.from_env({"HOME": str(tmp_path)}).data == data_places({"HOME": str(tmp_path)})


def test_the_datasets_places_from_env(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    places = data_places({"PLAYGROUND_CACHE": "cache", "MNIST_DIR": "~/mnist", "FASHION_MNIST_DIR": "",
                          "PLAYGROUND_MIRRORS_MNIST": " http://lab.local/mnist/ , http://backup.local/m,",
                          "PLAYGROUND_MIRRORS_FASHION_MNIST": " , "})
    assert places.cache == tmp_path / "cache"  # absolute: the device owner reads it from a folder of its own
    assert places.folders == {"mnist": Path.home() / "mnist"}  # an empty variable is unset
    assert places.mirrors == {"mnist": ("http://lab.local/mnist/", "http://backup.local/m/")}


@pytest.mark.parametrize("gz", [True, False], ids=["gz", "decompressed"])
def test_the_users_folder_beats_the_cache(tmp_path, cached_mnist, gz):
    folder = write_dataset(tmp_path / "mine", gz=gz)
    env = {"PLAYGROUND_CACHE": str(tmp_path / "cache"), "MNIST_DIR": str(folder)}
    paths, source = fetch.locate(DATASETS["mnist"], data_places(env))
    assert source == f"MNIST_DIR {folder}"
    assert all(path.parent == folder for path in paths.values())
    assert paths["test_images"].name == "t10k-images-idx3-ubyte" + (".gz" if gz else "")
    assert fetch.locate(DATASETS["mnist"], data_places({"PLAYGROUND_CACHE": str(tmp_path / "cache")}))[1] == \
        f"cache {cached_mnist}"


def test_an_incomplete_folder_is_an_error_naming_what_is_missing(tmp_path, cached_mnist):
    folder = write_dataset(tmp_path / "mine")
    (folder / "train-labels-idx1-ubyte.gz").unlink()
    places = data_places({"PLAYGROUND_CACHE": str(tmp_path / "cache"), "MNIST_DIR": str(folder)})
    with pytest.raises(DataUnavailable) as info:
        fetch.locate(DATASETS["mnist"], places)  # even though the cache has everything: the user named a folder
    assert f"MNIST_DIR {folder}" in str(info.value)
    assert "train-labels-idx1-ubyte.gz (or train-labels-idx1-ubyte) is missing" in str(info.value)


@pytest.mark.parametrize("gz", [True, False], ids=["gz", "decompressed"])
def test_a_folder_with_the_test_set_alone_gives_its_two_files(tmp_path, gz):
    folder = write_dataset(tmp_path / "class", gz=gz)
    remove(folder, "train_images", "train_labels")
    paths, source = fetch.locate(MNIST, data_places({"MNIST_DIR": str(folder)}))
    assert set(paths) == {"test_images", "test_labels"} and source == f"MNIST_DIR {folder}"
    assert fetch.availability(data_places({"MNIST_DIR": str(folder)}))["mnist"] == "MNIST_DIR, test set only"
    remove(folder, "test_labels")
    with pytest.raises(DataUnavailable) as info:  # half a test set is no test set: every missing file is named
        fetch.locate(MNIST, data_places({"MNIST_DIR": str(folder)}))
    assert "t10k-labels-idx1-ubyte.gz (or t10k-labels-idx1-ubyte) is missing" in str(info.value)
    assert "train-images-idx3-ubyte.gz (or train-images-idx3-ubyte) is missing" in str(info.value)
    assert fetch.availability(data_places({"MNIST_DIR": str(folder)}))["mnist"] is None


def remove(folder: Path, *roles: str) -> None:
    """The files of ``roles`` gone from ``folder``, whichever spelling (``.gz`` or not) it has."""
    for role in roles:
        in_folder = fetch.in_folder(folder, MNIST.files[role])
        assert in_folder is not None
        in_folder.unlink()


def test_a_cache_with_the_test_set_alone_gives_it_where_the_rest_cannot_be_downloaded(tmp_path, cached_mnist):
    remove(cached_mnist, "train_images", "train_labels")
    places = data_places(offline_env(tmp_path / "cache"))
    assert fetch.locate(DATASETS["mnist"], places) is None  # online, the rest would be downloaded first
    assert fetch.availability(places)["mnist"] == "cache, test set only"
    paths, source = fetch.fetch(DATASETS["mnist"], places)
    assert paths == {role: cached_mnist / MNIST.files[role] for role in ("test_images", "test_labels")}
    assert source.startswith(f"cache {cached_mnist} (downloading the training set failed: ")
    remove(cached_mnist, "test_images")
    with pytest.raises(DataUnavailable, match="downloading it failed"):
        fetch.fetch(DATASETS["mnist"], places)


def test_a_broken_file_in_the_folder_is_named(tmp_path):
    folder = write_dataset(tmp_path / "mine")
    write_idx(folder / "t10k-images-idx3-ubyte.gz", np.zeros((3, 8, 8)))
    with pytest.raises(DataUnavailable, match="t10k-images-idx3-ubyte.gz: items are 8×8, expected 28×28"):
        fetch.locate(MNIST, data_places({"MNIST_DIR": str(folder)}))
    with pytest.raises(DataUnavailable, match="not a folder"):
        fetch.locate(MNIST, data_places({"MNIST_DIR": str(tmp_path / "nowhere")}))


def test_a_cached_file_with_a_wrong_checksum_is_deleted(tmp_path):
    cached = write_dataset(tmp_path / "cache" / "mnist")  # real MNIST checksums: none of these match
    assert fetch.locate(MNIST, data_places({"PLAYGROUND_CACHE": str(tmp_path / "cache")})) is None
    assert list(cached.iterdir()) == []


def test_availability(tmp_path, monkeypatch):
    env = {"PLAYGROUND_CACHE": str(tmp_path / "cache")}
    where = fetch.availability(data_places(env))
    assert where == {"mnist": None, "fashion_mnist": None, "digits": "offline (scikit-learn)"}
    write_dataset(tmp_path / "cache" / "mnist")
    assert fetch.availability(data_places(env))["mnist"] == "cache"
    folder = write_dataset(tmp_path / "mine", gz=False)
    where = fetch.availability(data_places({**env, "FASHION_MNIST_DIR": str(folder)}))
    assert where["fashion_mnist"] == "FASHION_MNIST_DIR"
    (folder / "t10k-labels-idx1-ubyte").unlink()
    where = fetch.availability(data_places({**env, "MNIST_DIR": str(folder)}))
    assert where["mnist"] is None  # load will say what is missing
    monkeypatch.setattr(fetch.importlib.util, "find_spec", lambda name: None)
    assert fetch.availability(data_places(env))["digits"] is None
