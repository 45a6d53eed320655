"""The Parallel tab's text fields read into the shard API's arguments; a field that cannot be read names itself.

>>> shard_arguments("def f(x): return x", "jnp.ones(8)", "2, 4", "'data', model", "P('data')", "P()")["axis_names"]
['data', 'model']
>>> mesh_sizes("2, four")
Traceback (most recent call last):
...
playground.validation.Refused: `mesh_shape` must be whole numbers separated by commas, such as 2, 4; 'four' is not one.

Each refusal names the argument as the API does; the tab's page names it by its field's label, in its reader's
language (field_labels.py).
"""

from __future__ import annotations

from playground import messages
from playground.validation import Refused, field, invalid

_REQUIRED = ("code", "args", "in_specs", "out_specs")  # the text fields that may not be empty, in the form's order


def shard_arguments(code: str, args: str, mesh: str, names: str, in_specs: str, out_specs: str) -> dict:
    """Keyword arguments for ``PlaygroundAPI.shard``; Refused names the first field that is empty or wrong."""
    texts = {"code": code or "", "args": args or "", "in_specs": in_specs or "", "out_specs": out_specs or ""}
    for name in _REQUIRED:
        if not texts[name].strip():
            raise _empty(name)
    shape, axis_names = mesh_sizes(mesh or ""), mesh_axis_names(names or "")
    if len(shape) != len(axis_names):
        raise Refused(invalid("invalid.mesh_mismatch", mesh=field("mesh_shape"), sizes=len(shape),
                              axes=field("axis_names"), names=len(axis_names)))
    return {**texts, "mesh_shape": shape, "axis_names": axis_names}


def mesh_sizes(text: str) -> list[int]:
    """'2, 4' -> [2, 4]: whole numbers of at least 1."""
    parts = text.replace(",", " ").split()
    if not parts:
        raise _empty("mesh_shape")
    for part in parts:
        if not (part.isascii() and part.isdigit()):
            raise Refused(invalid("invalid.mesh_size", field=field("mesh_shape"), part=repr(part)))
        if int(part) < 1:
            raise Refused(invalid("invalid.mesh_too_small", field=field("mesh_shape"), part=repr(part)))
    return [int(part) for part in parts]


def mesh_axis_names(text: str) -> list[str]:
    """"data, model" (quotes welcome) -> ['data', 'model']."""
    names = [name.strip("'\"") for name in text.replace(",", " ").split()]
    if not names:
        raise _empty("axis_names")
    for name in names:
        if not name.isidentifier():
            raise Refused(invalid("invalid.axis_name", field=field("axis_names"), name=repr(name)))
    return names


def _empty(name: str) -> Refused:
    """The field for argument ``name`` is empty: what to write there."""
    return Refused(invalid("invalid.empty_field", field=field(name), hint=messages.piece(f"hint.{name}")))
