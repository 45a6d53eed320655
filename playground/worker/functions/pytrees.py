"""Inputs and outputs as pytrees: the structure, and each leaf's key path, shape and dtype as jit sees them.

>>> describe_tree(({"w": jnp.ones((2, 3))}, [jnp.zeros(3)]))["leaves"][0]
{'key_path': "[0]['w']", 'shape': [2, 3], 'dtype': 'float32'}

A typed PRNG key with values (an argument, not ``out_info``) carries its key data too:

>>> describe_tree({"k": jax.random.key(0)})["leaves"]
[{'key_path': "['k']", 'shape': [], 'dtype': 'key<fry>', 'key_data': 'u32[2] [0 0]'}]
"""

from __future__ import annotations

import jax

from playground.errors import cap_text
from playground.worker.functions.values import describe_leaf, dtype_name, is_key, short_repr

MAX_KEY_DATA_CHARS = 2000


def describe_tree(tree) -> dict:
    """The treedef as JAX prints it, and one entry per leaf (arrays, keys, scalars or ShapeDtypeStructs)."""
    return {"treedef": str(jax.tree_util.tree_structure(tree)), "leaves": _leaves(tree)}


def describe_inputs(arguments: tuple, static_argnums: tuple[int, ...]) -> dict:
    """The traced arguments as jit sees them (a tuple); paths keep each argument's own position."""
    traced = tuple(a for i, a in enumerate(arguments) if i not in static_argnums)
    return {
        "treedef": str(jax.tree_util.tree_structure(traced)),
        "leaves": [leaf for i, a in enumerate(arguments) if i not in static_argnums for leaf in _leaves(a, f"[{i}]")],
        "static": [{"position": i, "value": short_repr(arguments[i])} for i in sorted(static_argnums)],
    }


def _leaves(tree, prefix: str = "") -> list[dict]:
    return [{"key_path": prefix + jax.tree_util.keystr(path), **_shape_and_dtype(leaf), **_key_data(leaf)}
            for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]]


def _key_data(leaf) -> dict:
    if not is_key(leaf):
        return {}
    return {"key_data": cap_text(describe_leaf(jax.random.key_data(leaf)), MAX_KEY_DATA_CHARS)}


def _shape_and_dtype(leaf) -> dict:
    """As jit sees the leaf (``jax.typeof``): a Python float is float32, a NumPy float64 array float32 without x64."""
    try:
        aval = jax.typeof(leaf)
    except TypeError:  # not a JAX type (jit would have refused it as an argument): its Python type
        return {"shape": [], "dtype": type(leaf).__name__}
    return {"shape": [int(d) for d in aval.shape], "dtype": dtype_name(aval.dtype)}
