"""Comparing results: two pytrees of arrays, leaf by leaf, with a tolerance, the largest difference and where.

The one comparison every tab uses (vmap against a loop, sharded against
unsharded, jit against eager, JAX against NumPy). It works a block of rows at
a time, so comparing two 10⁴ × 10⁴ arrays needs no temporaries of their size.

>>> compare({"w": np.ones(3)}, {"w": np.array([1.0, 1.0, 1.5])}).where
"leaf ['w']"

``compare_within_rounding`` asks instead whether two results of the same
computation, done in different orders, differ by no more than rounding can
explain: 1 + 2**-23 is float32's next number after 1, 1.001 is not.

>>> reference = np.float32([1.0, -2.0, 4.0])
>>> compare_within_rounding(reference * np.float32(1 + 2**-23), reference).equal
True
>>> compare_within_rounding(reference * np.float32(1.001), reference).reason
'3 of 3 elements differ by more than the tolerance'
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

_BLOCK_ELEMENTS = 1 << 20
ROUNDING_SPREAD = 4.0  # standard deviations of rounding noise a tolerance allows


@dataclass(frozen=True)
class Comparison:
    equal: bool  # allclose at every leaf (NaN equal to NaN, equal infinities equal)
    largest: float | None  # the largest absolute difference, None when not comparable or not finite
    where: str | None = None  # the first leaf that differs (within rounding: the deciding leaf): "leaf ['w']"
    reason: str | None = None  # why they are not comparable (structure, shape, dtype), or how they differ
    differing: int = 0  # elements outside the tolerance, at that leaf
    elements: int = 0  # elements of that leaf
    tolerance: float | None = None  # compare_within_rounding: the largest difference allowed at that leaf
    scale: float | None = None  # and the size of the numbers that tolerance was scaled by


def compare(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-6, same_dtype: bool = False) -> Comparison:
    """``a`` against ``b``: equal within ``rtol``/``atol`` leaf by leaf, and by how much they differ."""
    leaves = _paired_leaves(a, b, same_dtype)
    if isinstance(leaves, Comparison):
        return leaves
    equal, largest, first = True, 0.0, None
    for where, x, y in leaves:
        close, gap = _leaf(x, y, rtol, atol)
        largest = max(largest, gap) if np.isfinite(gap) and largest is not None else None
        if close < x.size and first is None:
            first = Comparison(False, None, where, None, x.size - close, x.size)
        equal = equal and close == x.size
    if first is not None:
        return Comparison(False, largest, first.where, f"{first.differing} of {first.elements} elements differ",
                          first.differing, first.elements)
    return Comparison(equal, largest)


def compare_within_rounding(value: Any, reference: Any, program_rounding: float = 0.0,
                            sensitivity: Any = None) -> Comparison:
    """``value`` against ``reference``, the same computation done in another order: equal up to rounding?

    Each leaf may differ by ``rounding_tolerance(dtype, program_rounding, scale)``
    (integer and boolean leaves not at all), where ``scale`` is the leaf's
    largest finite magnitude plus, given ``sensitivity`` (a pytree like
    ``reference``: how far each result moves when the inputs move by their own
    size, ``rounding.input_sensitivity``), that leaf's largest movement.
    ``largest``, ``tolerance``, ``scale`` and ``where`` describe one leaf, the
    one whose largest difference comes closest to (or goes furthest past) its
    tolerance; ``reason`` says how many of its elements are out of it.
    """
    leaves = _paired_leaves(value, reference, same_dtype=False)
    if isinstance(leaves, Comparison):
        return leaves
    moved = jax.tree.leaves(sensitivity) if sensitivity is not None else []
    worst, worst_ratio, equal = Comparison(True, 0.0, tolerance=0.0, scale=0.0), -1.0, True
    for i, (where, x, y) in enumerate(leaves):
        inexact = jax.dtypes.issubdtype(y.dtype, jnp.inexact)
        scale = _largest_finite(y) + (_largest_finite(as_numbers(moved[i])) if inexact and len(moved) == len(leaves)
                                      else 0.0)
        tolerance = rounding_tolerance(y.dtype, program_rounding, scale)
        close, gap = _leaf(x, y, 0.0, tolerance)
        ratio = gap / tolerance if tolerance and np.isfinite(gap) else 0.0 if gap == 0 else math.inf
        equal = equal and close == x.size
        if ratio > worst_ratio:
            outside = x.size - close
            reason = f"{outside} of {x.size} elements differ by more than the tolerance" if outside else None
            worst = Comparison(not outside, gap if np.isfinite(gap) else None, where, reason, outside, x.size,
                               tolerance, scale)
            worst_ratio = ratio
    return dataclasses.replace(worst, equal=equal)


def rounding_tolerance(dtype: Any, program_rounding: float, scale: float) -> float:
    """The largest difference rounding explains: ``4 * hypot(program_rounding, eps) * scale + tiny``.

    ``eps`` is the dtype's machine epsilon (the result's own rounding),
    ``program_rounding`` the relative rounding of the operations before it
    (``rounding.rounding_budget``: sqrt(terms) * eps for a sum of that many
    terms), ``scale`` the size of the numbers involved (see
    ``compare_within_rounding``), and ``tiny`` the dtype's smallest normal
    number (for results flushed to zero). Rounding errors of two summation
    orders behave like independent random signs, so they spread with
    sqrt(terms) * eps * (size of the partial sums), not with the worst case
    terms * eps (N. J. Higham and T. Mary, "A New Approach to Probabilistic
    Rounding Error Analysis", SIAM J. Sci. Comput., 2019); 4 standard
    deviations keep honest reorderings inside. Exact dtypes get 0.

    >>> rounding_tolerance(np.float32, 0.0, 8.0)  # 4 * 2**-23 * 8
    3.814697265625e-06
    """
    if not jax.dtypes.issubdtype(dtype, jnp.inexact):
        return 0.0
    info = jnp.finfo(dtype)
    return ROUNDING_SPREAD * math.hypot(program_rounding, float(info.eps)) * scale + float(info.smallest_normal)


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


def _paired_leaves(a: Any, b: Any, same_dtype: bool) -> list[tuple[str, np.ndarray, np.ndarray]] | Comparison:
    """(where, a's leaf, b's leaf) for each leaf, or the Comparison that says why they cannot be compared."""
    (left, left_tree), (right, right_tree) = (jax.tree_util.tree_flatten_with_path(t) for t in (a, b))
    if left_tree != right_tree:
        return Comparison(False, None, reason=f"different structures: {left_tree} vs {right_tree}")
    pairs = []
    for (path, x), (_, y) in zip(left, right, strict=True):
        where = f"leaf {jax.tree_util.keystr(path)}" if path else "the result"
        x, y = as_numbers(x), as_numbers(y)
        if x.shape != y.shape or (same_dtype and x.dtype != y.dtype):
            return Comparison(False, None, where, f"{x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}")
        pairs.append((where, x, y))
    return pairs


def _largest_finite(x: np.ndarray) -> float:
    """The largest finite magnitude in ``x`` (0.0 if none), a block at a time."""
    flat, largest = x.reshape(-1), 0.0
    for start in range(0, flat.size, _BLOCK_ELEMENTS):
        block = np.abs(flat[start:start + _BLOCK_ELEMENTS].astype(_wide(x)))
        finite = block[np.isfinite(block)]
        if finite.size:
            largest = max(largest, float(finite.max()))
    return largest


def _wide(*arrays: np.ndarray) -> type:
    return np.complex128 if any(np.iscomplexobj(a) for a in arrays) else np.float64


def _leaf(x: np.ndarray, y: np.ndarray, rtol: float, atol: float) -> tuple[int, float]:
    """(elements within the tolerance, largest absolute difference), a block of rows at a time."""
    wide = _wide(x, y)
    flat_x, flat_y = x.reshape(-1), y.reshape(-1)
    close, largest = 0, 0.0
    for start in range(0, max(flat_x.size, 1), _BLOCK_ELEMENTS):
        u = flat_x[start:start + _BLOCK_ELEMENTS].astype(wide)
        v = flat_y[start:start + _BLOCK_ELEMENTS].astype(wide)
        same = (u == v) | (np.isnan(u) & np.isnan(v))  # equal infinities and NaN in both: no difference
        with np.errstate(invalid="ignore"):
            gap = np.abs(u - v)
            # np.isclose(u, v, rtol, atol, equal_nan=True), with the difference it needs computed once
            close += int((same | ((gap <= atol + rtol * np.abs(v)) & np.isfinite(v))).sum())
            gap[same] = 0.0
        if gap.size:
            largest = float(np.max([largest, np.max(gap)]))  # np.max keeps NaN: then not finite
    return close, largest
