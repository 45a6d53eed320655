"""The Parallel tab's text fields read into the shard API's arguments; a field that cannot be read names itself.

>>> shard_arguments("def f(x): return x", "jnp.ones(8)", "2, 4", "'data', model", "P('data')", "P()")["axis_names"]
['data', 'model']
>>> mesh_sizes("2, four")
Traceback (most recent call last):
...
ValueError: Mesh shape must be whole numbers separated by commas, such as 2, 4; 'four' is not one.
"""

from __future__ import annotations

# Each text field by its label on the page, and what to write in it when it is empty.
_REQUIRED = (
    ("code", "Your function", "define a function, such as def f(x, w): return x @ w."),
    ("args", "Arguments", "give the function's arguments, such as (jnp.ones((8, 4)), jnp.ones((4, 4)))."),
    ("in_specs", "in_specs", "give one PartitionSpec per argument, such as (P('data', None), P(None, 'model'))."),
    ("out_specs", "out_specs", "give the output's PartitionSpec, such as P('data', None)."),
)


def shard_arguments(code: str, args: str, mesh: str, names: str, in_specs: str, out_specs: str) -> dict:
    """Keyword arguments for ``PlaygroundAPI.shard``; a ValueError names the first field that is empty or wrong."""
    texts = {"code": code or "", "args": args or "", "in_specs": in_specs or "", "out_specs": out_specs or ""}
    for key, label, hint in _REQUIRED:
        if not texts[key].strip():
            raise ValueError(f"The {label} field is empty: {hint}")
    shape, axis_names = mesh_sizes(mesh or ""), mesh_axis_names(names or "")
    if len(shape) != len(axis_names):
        raise ValueError(f"Mesh shape has {len(shape)} size(s) but Axis names has {len(axis_names)} name(s): give "
                         "one name per mesh axis.")
    return {**texts, "mesh_shape": shape, "axis_names": axis_names}


def mesh_sizes(text: str) -> list[int]:
    """'2, 4' -> [2, 4]: whole numbers of at least 1."""
    parts = text.replace(",", " ").split()
    if not parts:
        raise ValueError("The Mesh shape field is empty: give one size per mesh axis, such as 2, 4.")
    for part in parts:
        if not (part.isascii() and part.isdigit()):
            raise ValueError(f"Mesh shape must be whole numbers separated by commas, such as 2, 4; {part!r} is "
                             "not one.")
        if int(part) < 1:
            raise ValueError(f"Mesh shape sizes must be at least 1; {part!r} is not.")
    return [int(part) for part in parts]


def mesh_axis_names(text: str) -> list[str]:
    """"data, model" (quotes welcome) -> ['data', 'model']."""
    names = [name.strip("'\"") for name in text.replace(",", " ").split()]
    if not names:
        raise ValueError("The Axis names field is empty: give one name per mesh axis, such as data, model.")
    for name in names:
        if not name.isidentifier():
            raise ValueError(f"Axis names must be names like data or model, separated by commas; {name!r} is not "
                             "one.")
    return names
