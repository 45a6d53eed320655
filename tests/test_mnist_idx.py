"""IDX files: round trips through write_idx/read_idx, every malformed file names itself, and the real t10k files."""

from __future__ import annotations

import gzip
import struct
from pathlib import Path

import numpy as np
import pytest

from playground.mnist.idx import IdxError, parse_idx, read_idx, write_idx
from tests.mnist_folders import NO_REAL_DIGITS, REAL_DIGITS, SHARED_MNIST


@pytest.fixture
def images() -> np.ndarray:
    return np.random.default_rng(0).integers(0, 256, size=(5, 28, 28), dtype=np.uint8)


@pytest.mark.parametrize("name", ["images.idx3.gz", "images.idx3"])
def test_round_trip_gzip_and_raw(tmp_path, images, name):
    path = tmp_path / name
    write_idx(path, images)
    assert (path.read_bytes()[:2] == b"\x1f\x8b") == name.endswith(".gz")
    back = read_idx(path, ndim=3, trailing_shape=(28, 28))
    assert back.dtype == np.uint8 and back.shape == (5, 28, 28)
    np.testing.assert_array_equal(back, images)


def test_compress_overrides_the_suffix(tmp_path, images):
    write_idx(tmp_path / "raw-but-named.gz", images, compress=False)
    write_idx(tmp_path / "gz-but-named.idx", images, compress=True)
    for path in tmp_path.iterdir():
        np.testing.assert_array_equal(read_idx(path), images)


def test_labels_round_trip_and_header_layout(tmp_path):
    labels = np.arange(10, dtype=np.uint8)
    write_idx(tmp_path / "labels", labels)
    raw = (tmp_path / "labels").read_bytes()
    assert raw[:8] == bytes.fromhex("00000801") + struct.pack(">I", 10)  # the magic MNIST's labels carry
    np.testing.assert_array_equal(read_idx(tmp_path / "labels", ndim=1), labels)


def _raises_naming(path: Path, match: str, **kwargs) -> str:
    with pytest.raises(IdxError, match=match) as info:
        read_idx(path, **kwargs)
    assert path.name in str(info.value)
    return str(info.value)


def test_truncated_data(tmp_path, images):
    write_idx(tmp_path / "cut", images)
    raw = (tmp_path / "cut").read_bytes()
    (tmp_path / "cut").write_bytes(raw[:-100])
    message = _raises_naming(tmp_path / "cut", "truncated", ndim=3)
    assert "3,820 bytes of data" in message and "3,920" in message


def test_longer_than_the_header_says(tmp_path, images):
    write_idx(tmp_path / "long", images)
    (tmp_path / "long").write_bytes((tmp_path / "long").read_bytes() + b"\0")
    _raises_naming(tmp_path / "long", "longer than its header says")


def test_truncated_header(tmp_path):
    (tmp_path / "head").write_bytes(bytes.fromhex("00000803") + struct.pack(">I", 5))  # 3 dims announced, 1 given
    _raises_naming(tmp_path / "head", "truncated inside its header")
    (tmp_path / "tiny").write_bytes(b"\0\0")
    _raises_naming(tmp_path / "tiny", "too short")


def test_empty_and_missing_files(tmp_path):
    (tmp_path / "empty").write_bytes(b"")
    _raises_naming(tmp_path / "empty", "too short")
    _raises_naming(tmp_path / "absent.gz", "cannot read it")


def test_wrong_magic(tmp_path):
    (tmp_path / "page.html").write_bytes(b"<html><body>Moved</body></html>")  # what a captive portal serves
    _raises_naming(tmp_path / "page.html", "magic number 0x3c68746d")
    (tmp_path / "floats").write_bytes(bytes.fromhex("00000d01") + struct.pack(">I", 1) + b"\0\0\0\0")
    _raises_naming(tmp_path / "floats", "not an IDX file of unsigned bytes")


def test_wrong_number_of_dimensions(tmp_path, images):
    write_idx(tmp_path / "labels.gz", np.zeros(7, np.uint8))
    message = _raises_naming(tmp_path / "labels.gz", "has 1 dimension", ndim=3)
    assert "is it the images file?" in message
    write_idx(tmp_path / "images.gz", images)
    _raises_naming(tmp_path / "images.gz", "has 3 dimension", ndim=1)


def test_trailing_shape_mismatch(tmp_path):
    write_idx(tmp_path / "small.gz", np.zeros((3, 8, 8), np.uint8))
    _raises_naming(tmp_path / "small.gz", "items are 8×8, expected 28×28", ndim=3, trailing_shape=(28, 28))


def test_broken_gzip(tmp_path, images):
    write_idx(tmp_path / "cut.gz", images)
    raw = (tmp_path / "cut.gz").read_bytes()
    (tmp_path / "cut.gz").write_bytes(raw[: len(raw) // 2])  # an interrupted download of a gzip stream
    _raises_naming(tmp_path / "cut.gz", "cannot read it")
    (tmp_path / "junk.gz").write_bytes(b"\x1f\x8b" + b"not deflate at all" * 10)
    _raises_naming(tmp_path / "junk.gz", "cannot read it")


def test_a_header_whose_size_overflows_int64_is_an_idx_error():
    # 4 dimensions of 65,536: the product is 2**64, which np.prod's int64 wraps to 0 = the data present
    raw = bytes.fromhex("00000804") + struct.pack(">4I", *(65536,) * 4)
    with pytest.raises(IdxError, match="hostile.idx: truncated"):
        parse_idx(raw, "hostile.idx")


def test_parse_idx_labels_errors_with_the_given_name():
    with pytest.raises(IdxError, match="^what-the-user-called-it: "):
        parse_idx(b"nope", "what-the-user-called-it")


@pytest.mark.skipif(not REAL_DIGITS, reason=NO_REAL_DIGITS)
def test_the_real_t10k_files():
    images = read_idx(SHARED_MNIST / "t10k-images-idx3-ubyte.gz", ndim=3, trailing_shape=(28, 28))
    labels = read_idx(SHARED_MNIST / "t10k-labels-idx1-ubyte.gz", ndim=1)
    assert images.shape == (10000, 28, 28) and images.dtype == np.uint8
    assert labels.shape == (10000,) and set(np.unique(labels)) == set(range(10))
    assert images.max() == 255 and images.min() == 0
    assert labels[:10].tolist() == [7, 2, 1, 0, 4, 1, 4, 9, 5, 9]  # the well-known first ten test labels
    raw = gzip.decompress((SHARED_MNIST / "t10k-labels-idx1-ubyte.gz").read_bytes())
    np.testing.assert_array_equal(parse_idx(raw, "labels", ndim=1), labels)
