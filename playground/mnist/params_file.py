"""The trained MLP's weights on disk: the device owner saves them, the server loads them for ``/predict``.

An ``.npz`` file with arrays ``w0, b0, w1, b1, ...``, where ``w_i`` has shape
``(n_in, n_out)`` and ``b_i`` shape ``(n_out,)``; both sides check that they
form a 784 -> ... -> 10 MLP::

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "mlp.npz")
    >>> save_params(path, [(np.zeros((784, 512)), np.zeros(512)), (np.zeros((512, 10)), np.zeros(10))])
    >>> [w.shape for w, b in load_params(path)]
    [(784, 512), (512, 10)]

NumPy only, no JAX.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from playground.mnist.config import IMAGE_PIXELS, N_CLASSES

MAX_LAYERS = 8  # weight matrices a file may hold: a bound on what is read (the app's runs have at most 7)
Params = list[tuple[np.ndarray, np.ndarray]]


def check_params(params: Sequence[tuple[np.ndarray, np.ndarray]], source: str = "params") -> Params:
    """``params`` as float NumPy arrays, after checking they form a 784 -> ... -> 10 MLP; else ValueError."""
    if not 1 <= len(params) <= MAX_LAYERS:
        raise ValueError(f"{source}: expected 1 to {MAX_LAYERS} layers, got {len(params)}")
    checked, n_in = [], IMAGE_PIXELS
    for i, layer in enumerate(params):
        if len(layer) != 2:
            raise ValueError(f"{source}: layer {i} must be a (weights, bias) pair")
        w, b = np.asarray(layer[0]), np.asarray(layer[1])
        for name, array in ((f"w{i}", w), (f"b{i}", b)):
            if not np.issubdtype(array.dtype, np.floating):
                raise ValueError(f"{source}: {name} must hold floats, got dtype {array.dtype}")
            if not np.all(np.isfinite(array)):
                raise ValueError(f"{source}: {name} contains NaN or infinite values")
        if w.ndim != 2 or w.shape[0] != n_in:
            raise ValueError(f"{source}: w{i} must have shape ({n_in}, n_out) to follow "
                             f"{'the 28x28 input' if i == 0 else f'w{i - 1}'}, got {w.shape}")
        if b.shape != (w.shape[1],):
            raise ValueError(f"{source}: b{i} must have shape ({w.shape[1]},) to match w{i}, got {b.shape}")
        checked.append((w, b))
        n_in = w.shape[1]
    if n_in != N_CLASSES:
        raise ValueError(f"{source}: the last layer must have {N_CLASSES} outputs (one per digit), got {n_in}")
    return checked


def load_params(path: str | Path) -> Params:
    """The ``[(w0, b0), (w1, b1), ...]`` stored at ``path`` by :func:`save_params`, checked; else ValueError."""
    path = Path(path)
    try:
        data = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise
    except (ValueError, EOFError, OSError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path.name}: not a readable .npz file of weights ({exc})") from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise ValueError(f"{path.name}: expected an .npz archive of arrays w0, b0, w1, b1, ..., got a single array")
    with data:
        names = set(data.files)
        n_layers = max(1, sum(1 for name in names if name.startswith("w")))
        expected = {f"{kind}{i}" for i in range(n_layers) for kind in "wb"}
        if names != expected:
            raise ValueError(f"{path.name}: expected arrays named w0, b0, w1, b1, ... (one pair per layer); "
                             f"missing {sorted(expected - names)}, unexpected {sorted(names - expected)}")
        try:
            params = [(data[f"w{i}"], data[f"b{i}"]) for i in range(n_layers)]
        except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as exc:  # pickles, damaged members
            raise ValueError(f"{path.name}: cannot read the arrays ({exc})") from None
    return check_params(params, path.name)


def save_params(path: str | Path, params: Sequence[tuple[np.ndarray, np.ndarray]]) -> None:
    """Write ``params`` to ``path`` as ``w0, b0, w1, b1, ...``, atomically: readers see the old file or the new one."""
    path = Path(path)
    params = check_params([(np.asarray(w), np.asarray(b)) for w, b in params], path.name)
    arrays = {}
    for i, (w, b) in enumerate(params):
        arrays[f"w{i}"], arrays[f"b{i}"] = w, b
    # Same folder, so os.replace is a rename on one filesystem; a file object, so savez adds no second ".npz".
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as f:
            np.savez(f, **arrays)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
