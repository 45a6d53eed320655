"""Values as the result views show them: each array's type as a jaxpr spells it, then its numbers.

A typed PRNG key (``jax.random.key``) is shown as JAX types it; its key data,
the bits ``jax.random.key_data`` gives, follows on the next line:

>>> print(describe({"k": jax.random.key(0), "x": jnp.arange(3.0)}))
['k']: key<fry>[]
  key data (jax.random.key_data): u32[2] [0 0]
['x']: f32[3] [0. 1. 2.]

What has no numbers to show is shown as its type and shape alone:

>>> describe(jax.ShapeDtypeStruct((2, 3), jnp.bfloat16))
'bf16[2, 3] (a ShapeDtypeStruct: a shape and a dtype, no values)'
"""

from __future__ import annotations

import jax
import numpy as np

KEY_DATA = "key data (jax.random.key_data)"
NOT_RUN = ("An argument is a jax.ShapeDtypeStruct, a shape and a dtype without values: the function was traced, "
           "lowered and compiled for it but not run, so the result shows the output's shapes and dtypes only, and "
           "the behavioural purity checks were skipped.")
_NO_VALUES = " (a ShapeDtypeStruct: a shape and a dtype, no values)"
_NOT_NUMBERS = "OSU"  # NumPy kinds that are not numbers: Python objects, bytes, str


def describe(tree) -> str:
    """A short text for a pytree of arrays: each leaf as ``f32[4] [0. 3. 14. 39.]``, after its key path."""
    leaves = jax.tree_util.tree_flatten_with_path(tree)[0]
    if len(leaves) == 1 and not leaves[0][0]:
        return describe_leaf(leaves[0][1])
    if not leaves:
        return f"{short_repr(tree)} (no arrays)"
    lines = []
    for path, leaf in leaves:
        prefix = f"{jax.tree_util.keystr(path)}: "
        lines.append(prefix + describe_leaf(leaf, len(prefix)))
    return "\n".join(lines)


def describe_leaf(leaf, indent: int = 0) -> str:
    """One leaf: its type, then its numbers, rows lined up after ``indent`` characters that precede it."""
    if isinstance(leaf, jax.ShapeDtypeStruct):
        return type_text(leaf.dtype, leaf.shape) + _NO_VALUES
    if is_key(leaf):
        head = f"  {KEY_DATA}: "
        return f"{type_text(leaf.dtype, leaf.shape)}\n{head}{describe_leaf(jax.random.key_data(leaf), len(head))}"
    try:
        array = np.asarray(leaf)
    except Exception:  # a dtype NumPy has no spelling for
        array = None
    if array is None or array.dtype == jax.dtypes.float0 or array.dtype.kind in _NOT_NUMBERS:
        return _type_alone(leaf)
    head = f"{type_text(array.dtype, array.shape)} "
    with np.printoptions(threshold=20, edgeitems=3, precision=6, linewidth=100):
        numbers = np.array2string(array, prefix=" " * (indent + len(head))) if array.ndim else str(array)
    return head + numbers


def type_text(dtype, shape) -> str:
    """``f32[2, 3]``: the short dtype and the shape."""
    return f"{short_dtype(dtype)}{[int(d) for d in shape]}"


def short_dtype(dtype) -> str:
    """JAX's short dtype names, as in jaxprs: float32 -> f32, int8 -> i8, bool -> bool, key<fry> -> key<fry>."""
    name = dtype_name(dtype)
    if name == "float0":  # the dtype of integers' tangents: a jaxpr spells it out too
        return name
    for long, short in (("bfloat", "bf"), ("complex", "c"), ("float", "f"), ("uint", "u"), ("int", "i")):
        if name.startswith(long):
            return short + name[len(long):]
    return name


def dtype_name(dtype) -> str:
    """NumPy's name for a dtype (float32, bfloat16), JAX's for its own: key<fry>, float0.

    >>> dtype_name(jax.random.key(0).dtype), dtype_name(jax.dtypes.float0), dtype_name(jnp.bfloat16)
    ('key<fry>', 'float0', 'bfloat16')
    """
    if dtype == jax.dtypes.float0:
        return "float0"
    if jax.dtypes.issubdtype(dtype, jax.dtypes.extended):
        return str(dtype)
    return np.dtype(dtype).name


def any_shape_dtype_struct(tree) -> bool:
    """True when a leaf is a ``jax.ShapeDtypeStruct``: a compiled program has nothing to run on."""
    return any(isinstance(leaf, jax.ShapeDtypeStruct) for leaf in jax.tree.leaves(tree))


def is_key(value) -> bool:
    """A typed PRNG key array (``jax.random.key``); a legacy ``jax.random.PRNGKey`` is a plain uint32 array."""
    return isinstance(value, jax.Array) and jax.dtypes.issubdtype(value.dtype, jax.dtypes.prng_key)


def _type_alone(leaf) -> str:
    """The type and shape, for a leaf without numbers to show (float0, a string); the Python type for the rest."""
    dtype, shape = getattr(leaf, "dtype", None), getattr(leaf, "shape", None)
    return type(leaf).__name__ if dtype is None or shape is None else type_text(dtype, shape)


def short_repr(value, limit: int = 200) -> str:
    """``repr`` cut to ``limit`` characters; a ``__repr__`` that raises (user code may) gives the type's name."""
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= limit else text[: limit - 1] + "…"
