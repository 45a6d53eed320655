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

from playground import messages
from playground.errors import UserCodeError, cap_text
from playground.validation import field


def _refused(key: str, **params: object) -> UserCodeError:
    """An invalid ``in_axes``/``out_axes``: catalogue message ``key`` (field_texts.py), its field named so that the
    vmap tab writes it as its label, in its reader's language."""
    return UserCodeError.saying("invalid_input", messages.piece(key, **params))


def parse_axes(text: str, name: str) -> Any:
    """``in_axes``/``out_axes`` as typed: a Python literal, read by ``ast.literal_eval`` (never ``eval``).

    Allowed: ints, None, tuples/lists and dicts of them (dicts for dict arguments). Empty means 0, vmap's default.
    """
    try:
        value = ast.literal_eval(text.strip() or "0")
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise _refused("axes.not_literal", field=field(name), text=repr(text)) from None
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
        raise _refused("axes.not_axes", field=field(name), value=cap_text(repr(value), 200))
    if depth > 32:
        raise _refused("axes.too_deep", field=field(name))
    for child in children:
        _check_literal(child, name, depth + 1)


def axes_json(spec: Any) -> Any:
    """The parsed axes as JSON: tuples become lists."""
    return json.loads(json.dumps(spec))


def conform_in_axes(spec: Any, example: tuple) -> Any:
    """Check ``in_axes`` against the arguments; return it as ``jax.vmap`` wants it (an int, or a tuple)."""
    if isinstance(spec, dict):
        raise _refused("axes.top_dict", field=field("in_axes"), fixed=cap_text(f"({spec!r},)", 200))
    if isinstance(spec, (list, tuple)) and len(spec) != len(example):
        raise _refused("axes.count", field=field("in_axes"), entries=len(spec), arguments=len(example))
    if not jax.tree.leaves(spec):
        raise _refused("axes.nothing", field=field("in_axes"))
    in_axes = conform(tuple(spec) if isinstance(spec, list) else spec, example)
    check_leaves(example, in_axes, "in_axes", messages.piece("axes.the_arguments"))
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


def check_leaves(tree: Any, axes: Any, name: str, what: list) -> None:
    """Every mapped leaf is an array whose batched version has the axis asked for."""
    def check(leaf, axis):
        ndim = len(getattr(leaf, "shape", np.shape(leaf)))
        if not -ndim - 1 <= axis <= ndim:
            raise _refused("axes.out_of_range", field=field(name), axis=axis, shape=str(tuple(np.shape(leaf))),
                           axes=ndim + 1)
        return leaf
    try:
        map_mapped(check, tree, axes)
    except (ValueError, TypeError) as exc:
        raise _refused("axes.structure", field=field(name), axes=repr(axes_json(axes)), what=what,
                       detail=cap_text(str(exc), 500)) from None


def map_mapped(fn: Callable, tree: Any, axes: Any) -> Any:
    """``fn(leaf, axis)`` on each leaf that ``axes`` (a pytree prefix of ``tree``) maps; None-mapped parts unchanged."""
    def part(axis, subtree):
        return subtree if axis is None else jax.tree.map(lambda leaf: fn(leaf, axis), subtree)
    return jax.tree.map(part, axes, tree, is_leaf=lambda node: node is None)
