"""What ``grad`` needs of a function's output, one real floating-point number, and how numbers go back as JSON.

>>> floats(np.array([1.0, np.inf, np.nan]))
[1.0, None, None]

Runs inside a worker.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from playground.errors import UserCodeError
from playground.worker.functions.values import short_dtype


def require_real_scalar(out, requirement: str) -> np.dtype:
    """The dtype of ``out`` (shapes and dtypes), invalid_input unless it is one real floating-point scalar."""
    leaves, treedef = jax.tree.flatten(out)
    if treedef.num_leaves != 1 or treedef.num_nodes != 1:
        raise UserCodeError("invalid_input", f"{requirement}; it returned a {type(out).__name__} "
                                             f"of {len(leaves)} arrays.")
    (leaf,) = leaves
    shape, dtype = tuple(leaf.shape), leaf.dtype
    if shape != () or not jnp.issubdtype(dtype, jnp.floating):  # NumPy refuses keys, and bfloat16 is not its floating
        raise UserCodeError("invalid_input", f"{requirement}; it returned {short_dtype(dtype)}{list(shape)}"
                                             f" (shape {shape}), and grad needs one real floating-point number.")
    return np.dtype(dtype)


def shape_of(out):
    """What eval_shape would say of a value the function returned (a Python float is float64 under x64)."""
    def shape(leaf):
        try:
            return jax.ShapeDtypeStruct(np.shape(leaf), jnp.result_type(leaf))
        except TypeError:
            raise UserCodeError("invalid_input", f"The function returned {type(leaf).__name__}, not numbers.") from None
    return jax.tree.map(shape, out)


def floats(array):
    """A float, or nested lists of floats, with every non-finite value as None."""
    values = np.asarray(array, dtype=np.float64)
    objects = values.astype(object)
    objects[~np.isfinite(values)] = None
    return objects.tolist() if values.ndim else objects.item()
