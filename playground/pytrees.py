"""Inputs and outputs as pytrees: the structure, and each leaf's key path, shape and dtype.

>>> describe_tree(({"w": jnp.ones((2, 3))}, [jnp.zeros(3)]))["leaves"][0]
{'key_path': "[0]['w']", 'shape': [2, 3], 'dtype': 'float32'}
"""

from __future__ import annotations

import jax
import numpy as np


def describe_tree(tree) -> dict:
    """The treedef as JAX prints it, and one entry per leaf (arrays, scalars or ShapeDtypeStructs)."""
    return {"treedef": str(jax.tree_util.tree_structure(tree)), "leaves": _leaves(tree)}


def describe_inputs(arguments: tuple, static_argnums: tuple[int, ...]) -> dict:
    """The traced arguments as jit sees them (a tuple); paths keep each argument's own position."""
    traced = tuple(a for i, a in enumerate(arguments) if i not in static_argnums)
    return {
        "treedef": str(jax.tree_util.tree_structure(traced)),
        "leaves": [leaf for i, a in enumerate(arguments) if i not in static_argnums for leaf in _leaves(a, f"[{i}]")],
        "static": [{"position": i, "value": _short_repr(arguments[i])} for i in sorted(static_argnums)],
    }


def _leaves(tree, prefix: str = "") -> list[dict]:
    return [
        {"key_path": prefix + jax.tree_util.keystr(path), "shape": [int(d) for d in np.shape(leaf)],
         "dtype": _dtype(leaf)}
        for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]
    ]


def _dtype(leaf) -> str:
    dtype = getattr(leaf, "dtype", None)
    if dtype is None:  # a Python scalar: JAX gives it its default (weak) type
        dtype = jax.dtypes.canonicalize_dtype(np.result_type(leaf))
    return np.dtype(dtype).name


def _short_repr(value, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
