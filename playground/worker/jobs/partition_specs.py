"""The in_specs and out_specs a visitor types, read without running them, and matched to arguments and outputs.

A spec is written the way JAX spells it, ``P('data', None)`` or
``PartitionSpec('data', None)``, or as a plain tuple of its entries,
``('data', None)``. Several specs, one per argument, go in a tuple:
``(P('data', None), P(None, 'model'))``. The text comes from anonymous
visitors, so it is parsed with ``ast`` and only this literal structure is
accepted: calls of ``P``/``PartitionSpec``, tuples and lists, axis names in
quotes, and None. Nothing is evaluated.

>>> parse_specs("(P('data', None), ('model',))", "in_specs")
(P('data', None), ('model',))
>>> match_specs(parse_specs("P('data', None)", "in_specs"), 1, "in_specs", "argument")
[('data', None)]
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from playground.errors import UserCodeError

MAX_SPEC_CHARS = 2000
SPEC_CALLS = ("P", "PartitionSpec", "jax.sharding.PartitionSpec", "sharding.PartitionSpec")
EXAMPLES = "P('data', None) for one argument, or (P('data', None), P(None, 'model')) for two"
_MAX_DEPTH = 4  # a tuple of specs, a spec, a tuple of axis names, a name


@dataclass(frozen=True)
class Spec:
    """One ``P(...)`` as written: its entries, not yet checked."""

    entries: tuple

    def __repr__(self) -> str:
        return f"P({', '.join(map(repr, self.entries))})"


def parse_specs(text: object, name: str) -> Spec | tuple:
    """The specs as typed: one ``Spec`` for ``P(...)``, else a tuple (of entries, or of specs)."""
    if not isinstance(text, str) or len(text) > MAX_SPEC_CHARS:
        raise UserCodeError("invalid_input", f"{name} must be a short text such as {EXAMPLES}.")
    if not text.strip():
        raise UserCodeError("invalid_input", f"{name} is empty: give a PartitionSpec such as {EXAMPLES}.")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise UserCodeError("invalid_input", f"{name} must be written like {EXAMPLES}; {text!r} is not "
                            "Python that reads as specs.") from None
    value = _read(tree.body, name, 0)
    if not isinstance(value, (Spec, tuple)):
        raise UserCodeError("invalid_input", f"{name} must be a PartitionSpec or a tuple of them, such as "
                            f"{EXAMPLES}; got {value!r}. Write P('data') or ('data',), with the comma, for one "
                            "entry.")
    return value


def _read(node: ast.AST, name: str, depth: int) -> object:
    if depth > _MAX_DEPTH:
        raise UserCodeError("invalid_input", f"{name} is nested too deeply: a tuple of specs, each a P(...) of "
                            "axis names, None, or tuples of axis names.")
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, str)):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_read(item, name, depth + 1) for item in node.elts)
    if isinstance(node, ast.Call) and _dotted(node.func) in SPEC_CALLS and not node.keywords:
        return Spec(tuple(_read(item, name, depth + 1) for item in node.args))
    shown = ast.unparse(node)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    raise UserCodeError("invalid_input", f"{name} may hold only P(...) or PartitionSpec(...), tuples, axis names "
                        f"in quotes and None; `{shown}` is none of these.")


def _dotted(node: ast.AST) -> str | None:
    """``jax.sharding.PartitionSpec`` for that chain of names, None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def match_specs(value: Spec | tuple, count: int, name: str, what: str, broadcast: bool = False) -> list[tuple]:
    """One tuple of entries per argument (or output), checked; ``what`` is "argument" or "output".

    ``P(...)`` is always one spec. A tuple holding a ``P(...)``, or only tuples,
    lists one spec per item; any other tuple is the entries of one spec. With
    ``broadcast`` (outputs), one spec applies to every output.

    >>> match_specs(parse_specs("(P('data'), P())", "in_specs"), 1, "in_specs", "argument")
    Traceback (most recent call last):
    ...
    playground.errors.UserCodeError: in_specs has 2 specs for 1 argument: give one spec per argument, such as \
P('data', None) for one argument, or (P('data', None), P(None, 'model')) for two.
    """
    if isinstance(value, Spec):
        specs = [value.entries]
    elif value and (any(isinstance(v, Spec) for v in value) or all(isinstance(v, tuple) for v in value)):
        specs = [_one_spec(item, name, i) for i, item in enumerate(value)]
    else:
        specs = [value] if value or count else []  # () is one replicated spec, or none for no arguments
    if len(specs) == 1 and broadcast:
        specs *= count
    if len(specs) != count:
        raise UserCodeError("invalid_input", f"{name} has {_counted(len(specs), 'spec')} for "
                            f"{_counted(count, what)}: give one spec per {what}, such as {EXAMPLES}.")
    return [normalise_entries(spec, f"{name} for {what} {i}") for i, spec in enumerate(specs)]


def _one_spec(item: object, name: str, position: int) -> tuple:
    if isinstance(item, Spec):
        return item.entries
    if isinstance(item, tuple):
        return item
    raise UserCodeError("invalid_input", f"{name}: item {position} ({item!r}) is not a spec; in a tuple of specs "
                        "write each as P(...) or as a tuple of its entries.")


def _counted(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def normalise_entries(spec: tuple, where: str) -> tuple:
    """Entries as ``PartitionSpec`` takes them: None, an axis name, or a tuple of two or more names."""
    entries = []
    for entry in spec:
        if entry is None or isinstance(entry, str):
            entries.append(entry)
        elif isinstance(entry, tuple) and all(isinstance(a, str) for a in entry):
            entries.append(None if not entry else entry[0] if len(entry) == 1 else entry)
        else:
            raise UserCodeError("invalid_input", f"{where}: each entry is None, an axis name or a tuple of axis "
                                f"names; {entry!r} is none of these.")
    return tuple(entries)
