"""Pytree descriptions for dicts, lists, tuples, NamedTuples and registered dataclasses."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import jax
import jax.numpy as jnp

from playground.worker.functions.pytrees import describe_inputs, describe_tree


class Pair(NamedTuple):
    first: object
    second: object


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Layer:
    w: jax.Array
    b: jax.Array


def test_dicts_lists_and_tuples_get_key_paths():
    tree = ({"w": jnp.ones((2, 3))}, [jnp.zeros(3, jnp.int8)])
    described = describe_tree(tree)
    assert described["treedef"] == str(jax.tree_util.tree_structure(tree))
    assert described["leaves"] == [
        {"key_path": "[0]['w']", "shape": [2, 3], "dtype": "float32"},
        {"key_path": "[1][0]", "shape": [3], "dtype": "int8"},
    ]


def test_namedtuples_and_dataclasses_get_attribute_paths():
    assert [leaf["key_path"] for leaf in describe_tree(Pair(1.0, jnp.ones(2)))["leaves"]] == [".first", ".second"]
    layer = describe_tree(Layer(w=jnp.ones((3, 2)), b=jnp.zeros(2)))
    assert "Layer" in layer["treedef"]
    assert layer["leaves"] == [{"key_path": ".w", "shape": [3, 2], "dtype": "float32"},
                               {"key_path": ".b", "shape": [2], "dtype": "float32"}]


def test_python_scalars_get_jax_default_dtypes():
    leaves = describe_tree((1.0, 2, True))["leaves"]
    assert [leaf["dtype"] for leaf in leaves] == ["float32", "int32", "bool"]
    assert all(leaf["shape"] == [] for leaf in leaves)


def test_shape_dtype_structs_describe_outputs_without_values():
    out = jax.jit(lambda x: {"y": x.sum(), "z": x[:2]}).trace(jnp.ones(4)).out_info
    assert describe_tree(out)["leaves"] == [{"key_path": "['y']", "shape": [], "dtype": "float32"},
                                            {"key_path": "['z']", "shape": [2], "dtype": "float32"}]


def test_static_arguments_are_listed_apart_and_paths_keep_positions():
    described = describe_inputs((3, jnp.ones(2), {"a": jnp.zeros(1)}), (0,))
    assert described["static"] == [{"position": 0, "value": "3"}]
    assert [leaf["key_path"] for leaf in described["leaves"]] == ["[1]", "[2]['a']"]
    assert described["treedef"] == str(jax.tree_util.tree_structure((jnp.ones(2), {"a": 0})))
