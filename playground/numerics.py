"""Comparing results: two pytrees of arrays, leaf by leaf, with a tolerance, the largest difference and where.

The one comparison every tab uses (vmap against a loop, sharded against
unsharded, jit against eager, JAX against NumPy). It works a block of rows at
a time, so comparing two 10⁴ × 10⁴ arrays needs no temporaries of their size.

>>> compare({"w": np.ones(3)}, {"w": np.array([1.0, 1.0, 1.5])}).where
"leaf ['w']"
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

_BLOCK_ELEMENTS = 1 << 20


@dataclass(frozen=True)
class Comparison:
    equal: bool  # allclose at every leaf (NaN equal to NaN, equal infinities equal)
    largest: float | None  # the largest absolute difference, None when not comparable or not finite
    where: str | None = None  # the first leaf that differs: "the result" or "leaf ['w']"
    reason: str | None = None  # why they are not comparable (structure, shape, dtype), or how they differ
    differing: int = 0  # elements outside the tolerance, at that leaf
    elements: int = 0  # elements of that leaf


def compare(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-6, same_dtype: bool = False) -> Comparison:
    """``a`` against ``b``: equal within ``rtol``/``atol`` leaf by leaf, and by how much they differ."""
    (left, left_tree), (right, right_tree) = (jax.tree_util.tree_flatten_with_path(t) for t in (a, b))
    if left_tree != right_tree:
        return Comparison(False, None, reason=f"different structures: {left_tree} vs {right_tree}")
    equal, largest, first = True, 0.0, None
    for (path, x), (_, y) in zip(left, right, strict=True):
        where = f"leaf {jax.tree_util.keystr(path)}" if path else "the result"
        x, y = as_numbers(x), as_numbers(y)
        if x.shape != y.shape or (same_dtype and x.dtype != y.dtype):
            return Comparison(False, None, where, f"{x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}")
        close, gap = _leaf(x, y, rtol, atol)
        largest = max(largest, gap) if np.isfinite(gap) and largest is not None else None
        if close < x.size and first is None:
            first = Comparison(False, None, where, None, x.size - close, x.size)
        equal = equal and close == x.size
    if first is not None:
        return Comparison(False, largest, first.where, f"{first.differing} of {first.elements} elements differ",
                          first.differing, first.elements)
    return Comparison(equal, largest)


def tree_difference(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-6) -> tuple[bool, float | None]:
    """(allclose leaf by leaf, largest absolute difference); the difference is None when not comparable."""
    result = compare(a, b, rtol, atol)
    return result.equal, result.largest


def as_numbers(leaf: Any) -> np.ndarray:
    """A leaf as a NumPy array canonicalised as JAX would (a Python int is int32), PRNG keys as their key data."""
    dtype = getattr(leaf, "dtype", None)
    if dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key):
        leaf = jax.random.key_data(leaf)
    return np.asarray(jax.numpy.asarray(leaf)) if not isinstance(leaf, np.ndarray) else leaf


def _leaf(x: np.ndarray, y: np.ndarray, rtol: float, atol: float) -> tuple[int, float]:
    """(elements within the tolerance, largest absolute difference), a block of rows at a time."""
    wide = np.complex128 if np.iscomplexobj(x) or np.iscomplexobj(y) else np.float64
    flat_x, flat_y = x.reshape(-1), y.reshape(-1)
    close, largest = 0, 0.0
    for start in range(0, max(flat_x.size, 1), _BLOCK_ELEMENTS):
        u = flat_x[start:start + _BLOCK_ELEMENTS].astype(wide)
        v = flat_y[start:start + _BLOCK_ELEMENTS].astype(wide)
        within = np.isclose(u, v, rtol=rtol, atol=atol, equal_nan=True)
        close += int(within.sum())
        same = (u == v) | (np.isnan(u) & np.isnan(v))  # equal infinities and NaN in both: no difference
        with np.errstate(invalid="ignore"):
            gap = np.where(same, 0.0, np.abs(u - v))
        if gap.size:
            largest = float(np.max([largest, np.max(gap)]))  # np.max keeps NaN: then not finite
    return close, largest
