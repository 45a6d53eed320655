"""A batch of ``size`` examples made from one, on the device: the vmap tab's batches.

Every leaf with an axis is stacked ``size`` times along it; floating leaves are
varied (example ``i`` is ``leaf * (1 + 0.01 * (i % 100))``, below 2x so ``exp``
cannot overflow), so that the check compares different inputs; integer and bool
leaves are repeated. Example 0 is the user's own. Leaves without an axis are
shared as they are. The floats are varied on the host with NumPy and sent to the
device once (made with jnp, each of the small operations would compile anew for
every batch size).

>>> [leaf.tolist() for leaf in batch([np.float32([1.0, 2.0]), np.int32(7)], [0, None], 3)]
[[[1.0, 2.0], [1.0099999904632568, 2.0199999809265137], [1.0199999809265137, 2.0399999618530273]], 7]
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import numpy as np


def batch(example: Sequence[object], axes: Sequence[int | None], size: int) -> list[jax.Array]:
    """The example's leaves as a batch of ``size`` (see above), each mapped leaf's new axis at ``axes[i]``."""
    if len(axes) != len(example):
        raise ValueError(f"{len(example)} leaves and {len(axes)} axes")
    return [jax.device_put(np.asarray(leaf)) if axis is None else jax.device_put(_variants(np.asarray(leaf), axis,
                                                                                             size))
            for leaf, axis in zip(example, axes, strict=True)]


def _variants(leaf: np.ndarray, axis: int, size: int) -> np.ndarray:
    if not -leaf.ndim - 1 <= axis <= leaf.ndim:
        raise ValueError(f"axis {axis} is out of range for a leaf of {leaf.ndim} dimensions")
    if np.issubdtype(leaf.dtype, np.inexact) or leaf.dtype.name == "bfloat16":
        scale = 1 + 0.01 * (np.arange(size) % 100).astype(np.float32)
        stacked = (leaf[None] * scale.reshape((size,) + (1,) * leaf.ndim)).astype(leaf.dtype)
    else:
        stacked = np.broadcast_to(leaf[None], (size, *leaf.shape))
    return np.ascontiguousarray(np.moveaxis(stacked, 0, axis))
