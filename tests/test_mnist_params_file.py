"""Weights on disk: save and load round-trip exactly and atomically; malformed or hostile files are clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from playground.mnist import params_file


def random_params(sizes=(784, 64, 32, 10), seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [(rng.normal(0, 1 / np.sqrt(n_in), (n_in, n_out)).astype(dtype), rng.normal(0, 0.1, n_out).astype(dtype))
            for n_in, n_out in zip(sizes[:-1], sizes[1:], strict=True)]


def test_save_load_round_trip_is_exact(tmp_path):
    params = random_params()
    path = tmp_path / "mlp.npz"
    params_file.save_params(path, params)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mlp.npz"]  # no temp file left, no "mlp.npz.npz"
    with np.load(path) as data:
        assert sorted(data.files) == ["b0", "b1", "b2", "w0", "w1", "w2"]
    loaded = params_file.load_params(path)
    assert len(loaded) == 3
    for (w, b), (lw, lb) in zip(params, loaded, strict=True):
        np.testing.assert_array_equal(w, lw)
        np.testing.assert_array_equal(b, lb)
        assert lw.dtype == np.float32


def test_save_replaces_an_existing_file(tmp_path):
    path = tmp_path / "mlp.npz"
    params_file.save_params(path, random_params(seed=0))
    params_file.save_params(path, random_params(sizes=(784, 10), seed=1))
    assert len(params_file.load_params(path)) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["mlp.npz"]


def test_save_refuses_bad_params_and_leaves_no_file(tmp_path):
    with pytest.raises(ValueError, match="10 outputs"):
        params_file.save_params(tmp_path / "mlp.npz", random_params(sizes=(784, 32, 9)))
    assert list(tmp_path.iterdir()) == []


def _write(path, **arrays):
    np.savez(path, **arrays)
    return path


@pytest.mark.parametrize("arrays, message", [
    ({"w0": np.zeros((784, 10), np.float32)}, r"missing \['b0'\]"),
    ({"w0": np.zeros((784, 10), np.float32), "b0": np.zeros(10, np.float32), "extra": np.zeros(1)}, "unexpected"),
    ({"w0": np.zeros((784, 32), np.float32), "b0": np.zeros(32, np.float32),
      "w1": np.zeros((16, 10), np.float32), "b1": np.zeros(10, np.float32)}, r"w1 must have shape \(32, n_out\)"),
    ({"w0": np.zeros((100, 10), np.float32), "b0": np.zeros(10, np.float32)}, r"w0 must have shape \(784, n_out\)"),
    ({"w0": np.zeros((784, 10), np.float32), "b0": np.zeros(9, np.float32)}, r"b0 must have shape \(10,\)"),
    ({"w0": np.zeros((784, 32), np.float32), "b0": np.zeros(32, np.float32)}, "10 outputs"),
    ({"w0": np.zeros((784, 10), np.int32), "b0": np.zeros(10, np.float32)}, "floats"),
    ({"w0": np.full((784, 10), np.nan, np.float32), "b0": np.zeros(10, np.float32)}, "NaN"),
    ({"w0": np.zeros(784, np.float32), "b0": np.zeros(10, np.float32)}, "w0 must have shape"),
])
def test_load_rejects_malformed_weights(tmp_path, arrays, message):
    path = _write(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValueError, match=message) as excinfo:
        params_file.load_params(path)
    assert "bad.npz" in str(excinfo.value)


def test_load_rejects_too_many_layers(tmp_path):
    sizes = (784,) + (16,) * 8 + (10,)
    arrays = {}
    for i, (w, b) in enumerate(random_params(sizes=sizes)):
        arrays[f"w{i}"], arrays[f"b{i}"] = w, b
    with pytest.raises(ValueError, match="1 to 8 layers, got 9"):
        params_file.load_params(_write(tmp_path / "deep.npz", **arrays))


def test_load_refuses_pickles_and_non_archives(tmp_path):
    pickled = _write(tmp_path / "pickled.npz", w0=np.array([object()], dtype=object), b0=np.zeros(10))
    with pytest.raises(ValueError, match="cannot read"):
        params_file.load_params(pickled)
    single = tmp_path / "single.npy"
    np.save(single, np.zeros((784, 10)))
    with pytest.raises(ValueError, match="single array"):
        params_file.load_params(single)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"PK\x03\x04 not really a zip file")
    with pytest.raises(ValueError, match="junk.npz"):
        params_file.load_params(junk)
    with pytest.raises(FileNotFoundError):
        params_file.load_params(tmp_path / "missing.npz")
