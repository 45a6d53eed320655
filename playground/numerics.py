"""Comparing results: two pytrees of arrays, leaf by leaf, with a tolerance and the largest difference."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np


def tree_difference(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-6) -> tuple[bool, float | None]:
    """(allclose leaf by leaf, largest absolute difference); the difference is None when not comparable."""
    if jax.tree.structure(a) != jax.tree.structure(b):
        return False, None
    equal, worst = True, 0.0
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        x, y = _numbers(x), _numbers(y)
        if x.shape != y.shape:
            return False, None
        equal = equal and bool(np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True))
        same = (x == y) | (np.isnan(x) & np.isnan(y))  # equal infinities and NaN in both: no difference
        with np.errstate(invalid="ignore"):
            gap = np.where(same, 0.0, np.abs(x - y))
        worst = float(np.max([worst, np.max(gap)])) if gap.size else worst  # np.max keeps NaN
    return equal, worst if np.isfinite(worst) else None


def _numbers(leaf: Any) -> np.ndarray:
    dtype = getattr(leaf, "dtype", None)
    if dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key):
        leaf = jax.random.key_data(leaf)
    array = np.asarray(leaf)
    return array.astype(np.complex128 if np.iscomplexobj(array) else np.float64)
