"""Where datasets come from: the user's folder, then the cache, then mirrors; digits offline; the CLI."""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from playground.mnist import data
from playground.mnist.download import sha256_of
from playground.mnist.idx import write_idx
from tests.conftest import ROOT
from tests.mnist_folders import SHARED_MNIST

MNIST = data.DATASETS["mnist"]


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/"


def write_dataset(folder: Path, gz: bool = True, n_train: int = 6, n_test: int = 3, label_max: int = 9) -> Path:
    """Small self-made MNIST-shaped IDX files under their usual names (``.gz`` or decompressed)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    sizes = {"train": n_train, "test": n_test}
    for role, filename in MNIST.files.items():
        split, kind = role.split("_")
        shape = (sizes[split], 28, 28) if kind == "images" else (sizes[split],)
        array = rng.integers(0, 256, shape) if kind == "images" else np.arange(shape[0]) % (label_max + 1)
        write_idx(folder / (filename if gz else filename.removesuffix(".gz")), array)
    return folder


@pytest.fixture
def offline_env(tmp_path) -> dict[str, str]:
    """Nothing cached, every mirror a closed port: what a classroom without internet looks like."""
    return {"PLAYGROUND_CACHE": str(tmp_path / "cache"), "PLAYGROUND_MIRRORS_MNIST": closed_port_url(),
            "PLAYGROUND_MIRRORS_FASHION_MNIST": closed_port_url()}


@pytest.fixture
def cached_mnist(tmp_path, monkeypatch) -> Path:
    """Self-made files in the cache, with the spec's checksums patched to match them."""
    cached = write_dataset(tmp_path / "cache" / "mnist")
    checksums = {name: sha256_of(cached / name) for name in MNIST.files.values()}
    monkeypatch.setitem(data.DATASETS, "mnist", dataclasses.replace(MNIST, sha256=checksums))
    return cached


def test_the_specs():
    assert list(data.DATASETS) == ["mnist", "fashion_mnist", "digits"]
    assert MNIST.files["train_images"] == "train-images-idx3-ubyte.gz"
    assert MNIST.files["test_labels"] == "t10k-labels-idx1-ubyte.gz"
    for spec in data.DATASETS.values():
        assert len(spec.class_names) == 10
        assert set(spec.sha256) == set(spec.files.values())
        assert all(base.endswith("/") for base in spec.mirrors)
    assert data.DATASETS["fashion_mnist"].class_names[-1] == "Ankle boot"
    assert data.DATASETS["fashion_mnist"].mirrors[0].startswith("http://")  # that S3 website speaks HTTP only
    if SHARED_MNIST.is_dir():  # the published checksums agree with the real files
        for filename in ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"):
            assert MNIST.sha256[filename] == sha256_of(SHARED_MNIST / filename)


def test_cache_dir_and_mirror_overrides(tmp_path):
    assert data.cache_dir({"PLAYGROUND_CACHE": str(tmp_path)}) == tmp_path
    assert data.cache_dir({}) == Path.home() / ".cache" / "jax-playground"
    assert data.mirrors_for(MNIST, {}) == MNIST.mirrors
    env = {"PLAYGROUND_MIRRORS_MNIST": " http://lab.local/mnist/ , http://backup.local/m,"}
    assert data.mirrors_for(MNIST, env) == ("http://lab.local/mnist/", "http://backup.local/m/")
    assert data.mirrors_for(data.DATASETS["fashion_mnist"], env) == data.DATASETS["fashion_mnist"].mirrors


@pytest.mark.parametrize("gz", [True, False], ids=["gz", "decompressed"])
def test_the_users_folder_beats_the_cache(tmp_path, cached_mnist, gz):
    folder = write_dataset(tmp_path / "mine", gz=gz)
    env = {"PLAYGROUND_CACHE": str(tmp_path / "cache"), "MNIST_DIR": str(folder)}
    paths, source = data.locate(data.DATASETS["mnist"], env)
    assert source == f"MNIST_DIR {folder}"
    assert all(path.parent == folder for path in paths.values())
    assert paths["test_images"].name == "t10k-images-idx3-ubyte" + (".gz" if gz else "")
    assert data.locate(data.DATASETS["mnist"], {"PLAYGROUND_CACHE": str(tmp_path / "cache")})[1] == \
        f"cache {cached_mnist}"


def test_an_incomplete_folder_is_an_error_naming_what_is_missing(tmp_path, cached_mnist):
    folder = write_dataset(tmp_path / "mine")
    (folder / "train-labels-idx1-ubyte.gz").unlink()
    env = {"PLAYGROUND_CACHE": str(tmp_path / "cache"), "MNIST_DIR": str(folder)}
    with pytest.raises(data.DataUnavailable) as info:
        data.locate(data.DATASETS["mnist"], env)  # even though the cache has everything: the user named a folder
    assert f"MNIST_DIR {folder}" in str(info.value)
    assert "train-labels-idx1-ubyte.gz (or train-labels-idx1-ubyte) is missing" in str(info.value)


def test_a_broken_file_in_the_folder_is_named(tmp_path):
    folder = write_dataset(tmp_path / "mine")
    write_idx(folder / "t10k-images-idx3-ubyte.gz", np.zeros((3, 8, 8)))
    with pytest.raises(data.DataUnavailable, match="t10k-images-idx3-ubyte.gz: items are 8×8, expected 28×28"):
        data.locate(MNIST, {"MNIST_DIR": str(folder)})
    with pytest.raises(data.DataUnavailable, match="not a folder"):
        data.locate(MNIST, {"MNIST_DIR": str(tmp_path / "nowhere")})


def test_a_cached_file_with_a_wrong_checksum_is_deleted(tmp_path):
    cached = write_dataset(tmp_path / "cache" / "mnist")  # real MNIST checksums: none of these match
    assert data.locate(MNIST, {"PLAYGROUND_CACHE": str(tmp_path / "cache")}) is None
    assert list(cached.iterdir()) == []


def test_offline_with_nothing_cached_says_what_to_do(offline_env):
    with pytest.raises(data.DataUnavailable) as info:
        data.load("mnist", offline_env)
    message = str(info.value)
    assert message.startswith("MNIST is not available offline: it is not in MNIST_DIR (not set) or the cache (")
    assert "connection refused" in message and "make data" in message and "“digits”" in message
    assert "MNIST_DIR" in message
    with pytest.raises(data.DataUnavailable, match="FASHION_MNIST_DIR"):
        data.load("fashion_mnist", offline_env)


def test_load_from_a_folder_checks_counts_and_labels(tmp_path):
    good = data.load("mnist", {"MNIST_DIR": str(write_dataset(tmp_path / "good", gz=False))})
    assert good.train_images.shape == (6, 28, 28) and good.test_labels.tolist() == [0, 1, 2]
    assert good.train_images.dtype == good.train_labels.dtype == np.uint8
    assert good.class_names == tuple("0123456789") and good.source.startswith("MNIST_DIR ")

    mismatched = write_dataset(tmp_path / "mismatched")
    write_idx(mismatched / "train-labels-idx1-ubyte.gz", np.zeros(5))
    with pytest.raises(data.DataUnavailable, match="train-labels-idx1-ubyte.gz has 5 labels but "
                                                   "train-images-idx3-ubyte.gz has 6 images"):
        data.load("mnist", {"MNIST_DIR": str(mismatched)})

    out_of_range = write_dataset(tmp_path / "labels", n_test=12, label_max=11)
    with pytest.raises(data.DataUnavailable, match="t10k-labels-idx1-ubyte.gz holds label 11, expected 0–9"):
        data.load("mnist", {"MNIST_DIR": str(out_of_range)})


def test_unknown_names_list_the_choices():
    with pytest.raises(ValueError, match="unknown dataset 'cifar'; choose one of mnist, fashion_mnist, digits"):
        data.load("cifar", {})


def test_digits_offline_split_and_frames():
    digits = data.load("digits", {})
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


def test_availability(tmp_path, monkeypatch):
    env = {"PLAYGROUND_CACHE": str(tmp_path / "cache")}
    assert data.availability(env) == {"mnist": None, "fashion_mnist": None, "digits": "offline (scikit-learn)"}
    write_dataset(tmp_path / "cache" / "mnist")
    assert data.availability(env)["mnist"] == "cache"
    folder = write_dataset(tmp_path / "mine", gz=False)
    assert data.availability({**env, "FASHION_MNIST_DIR": str(folder)})["fashion_mnist"] == "FASHION_MNIST_DIR"
    (folder / "t10k-labels-idx1-ubyte").unlink()
    assert data.availability({**env, "MNIST_DIR": str(folder)})["mnist"] is None  # load will say what is missing
    monkeypatch.setattr(data.importlib.util, "find_spec", lambda name: None)
    assert data.availability(env)["digits"] is None


@pytest.mark.skipif(not SHARED_MNIST.is_dir(), reason=f"the shared MNIST test set is not at {SHARED_MNIST}")
def test_load_the_real_test_set_from_a_folder(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    for filename in MNIST.files.values():  # only t10k is available here: it stands in for train too
        (folder / filename).symlink_to(SHARED_MNIST / filename.replace("train-", "t10k-"))
    mnist = data.load("mnist", {"MNIST_DIR": str(folder)})
    assert mnist.test_images.shape == (10000, 28, 28) and mnist.test_labels[:3].tolist() == [7, 2, 1]


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("MNIST_DIR", "FASHION_MNIST_DIR", "PLAYGROUND_"))}
    return subprocess.run([sys.executable, "-m", "playground.mnist.data", *args], cwd=ROOT, env={**clean, **env},
                          capture_output=True, text=True, timeout=60)


def test_cli_reports_where_the_data_is(tmp_path):
    folder = write_dataset(tmp_path / "mine")
    done = run_cli("mnist", env={"MNIST_DIR": str(folder), "PLAYGROUND_CACHE": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"mnist: MNIST_DIR {folder}\n"


def test_cli_fails_with_the_message_and_exit_code_1(offline_env):
    done = run_cli("fashion_mnist", env=offline_env)
    assert done.returncode == 1
    assert "fashion_mnist: Fashion-MNIST is not available offline" in done.stderr and "make data" in done.stderr
    assert run_cli("cifar", env=offline_env).returncode == 2


def test_the_data_layer_imports_neither_jax_nor_scikit_learn():
    probe = ("import sys, playground.mnist.data, playground.mnist.download, playground.mnist.preprocess\n"
             "playground.mnist.data.availability({})\n"
             "print(sorted(m for m in ('jax', 'jaxlib', 'sklearn', 'scipy') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
