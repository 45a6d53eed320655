"""vmap's ``in_axes`` and ``out_axes`` as the user types them: parsed safely, checked against the arguments.

``parse_axes`` reads a Python literal with ``ast.literal_eval`` (never ``eval``):
ints, None, and tuples/lists and dicts of them. ``conform_in_axes`` checks it
against the example's pytree and returns what ``jax.vmap`` wants.

>>> parse_axes("({'w': None, 'b': 0}, 0)", "in_axes")
({'w': None, 'b': 0}, 0)
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from playground.errors import UserCodeError, cap_text


def parse_axes(text: str, name: str) -> Any:
    """``in_axes``/``out_axes`` as typed: a Python literal, read by ``ast.literal_eval`` (never ``eval``).

    Allowed: ints, None, tuples/lists and dicts of them (dicts for dict arguments). Empty means 0, vmap's default.
    """
    try:
        value = ast.literal_eval(text.strip() or "0")
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise UserCodeError("invalid_input", f"{name} must be a literal such as 0, None, (None, 0, 0) or "
                            f"{{'w': 0, 'b': None}}; {text!r} is not one.") from None
    _check_literal(value, name)
    return value


def _check_literal(value: Any, name: str, depth: int = 0) -> None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return
    if isinstance(value, (list, tuple)):
        children = list(value)
    elif isinstance(value, dict) and all(isinstance(k, str) for k in value):
        children = list(value.values())
    else:
        raise UserCodeError("invalid_input", f"{name} may hold only ints, None, tuples/lists and dicts with "
                            f"string keys; {value!r} is none of these.")
    if depth > 32:
        raise UserCodeError("invalid_input", f"{name} is nested too deeply.")
    for child in children:
        _check_literal(child, name, depth + 1)


def axes_json(spec: Any) -> Any:
    """The parsed axes as JSON: tuples become lists."""
    return json.loads(json.dumps(spec))


def conform_in_axes(spec: Any, example: tuple) -> Any:
    """Check ``in_axes`` against the arguments; return it as ``jax.vmap`` wants it (an int, or a tuple)."""
    if isinstance(spec, dict):
        raise UserCodeError("invalid_input", "At the top level in_axes is an int or a tuple with one entry per "
                            f"argument; for one dict argument write ({spec!r},).")
    if isinstance(spec, (list, tuple)) and len(spec) != len(example):
        raise UserCodeError("invalid_input", f"in_axes has {len(spec)} entries but the arguments are "
                            f"{len(example)} value(s): give one entry per argument.")
    if not jax.tree.leaves(spec):
        raise UserCodeError("invalid_input", "in_axes maps nothing: at least one argument needs an axis, not None.")
    in_axes = conform(tuple(spec) if isinstance(spec, list) else spec, example)
    check_leaves(example, in_axes, "in_axes", "the arguments")
    return in_axes


def conform(spec: Any, tree: Any) -> Any:
    """Lists and tuples of axes take the container type of the value they describe (jax matches by node type)."""
    if isinstance(spec, (list, tuple)):
        fits = isinstance(tree, (list, tuple)) and len(tree) == len(spec)
        items = [conform(s, t) for s, t in zip(spec, tree if fits else [None] * len(spec), strict=True)]
        if fits and isinstance(tree, list):
            return items
        return type(tree)(*items) if fits and hasattr(tree, "_fields") else tuple(items)
    if isinstance(spec, dict):
        return {k: conform(v, tree.get(k) if isinstance(tree, dict) else None) for k, v in spec.items()}
    return spec


def check_leaves(tree: Any, axes: Any, name: str, what: str) -> None:
    """Every mapped leaf is an array whose batched version has the axis asked for."""
    def check(leaf, axis):
        ndim = len(getattr(leaf, "shape", np.shape(leaf)))
        if not -ndim - 1 <= axis <= ndim:
            raise UserCodeError("invalid_input", f"{name} asks for axis {axis} of a value of shape "
                                f"{tuple(np.shape(leaf))}: batched, it has {ndim + 1} axes.")
        return leaf
    try:
        map_mapped(check, tree, axes)
    except (ValueError, TypeError) as exc:
        raise UserCodeError("invalid_input", f"{name} {axes_json(axes)!r} does not match the structure of {what}: "
                            f"{cap_text(str(exc), 500)}") from None


def map_mapped(fn: Callable, tree: Any, axes: Any) -> Any:
    """``fn(leaf, axis)`` on each leaf that ``axes`` (a pytree prefix of ``tree``) maps; None-mapped parts unchanged."""
    def part(axis, subtree):
        return subtree if axis is None else jax.tree.map(lambda leaf: fn(leaf, axis), subtree)
    return jax.tree.map(part, axes, tree, is_leaf=lambda node: node is None)
