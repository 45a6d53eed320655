"""One function, many devices: meshes, shardings, ``jax.shard_map``, and the collectives XLA adds. Runs in a worker.

A *mesh* lays devices out in a named grid: ``(2, 4)`` with axes ``('data',
'model')`` is 2 rows of 4. A ``PartitionSpec`` says, per array dimension, which
mesh axes split it; ``P('data', 'model')`` cuts an (8, 4) array into (4, 1)
blocks, one per device. On 8 devices, ``shard`` of ``x * 2`` on
``jnp.arange(32.).reshape(8, 4)`` with that spec says in ``placement`` that
device 0 holds rows 0-3 of column 0 and device 1 rows 0-3 of column 1::

    [{'device': 0, 'index': [[0, 4], [0, 1]]}, {'device': 1, 'index': [[0, 4], [1, 2]]}, ...]

``jax.jit`` with those shardings compiles ONE program for every device; where a
device needs data that another holds, XLA inserts a *collective* (an
``all-reduce`` when a contracted dimension is split, ...), which we find in the
compiled HLO. ``jax.shard_map`` is the manual spelling: the function sees one
device's block and calls the collectives itself (``lax.psum``,
``lax.all_gather``). ``jax.pmap`` is the legacy spelling of the same idea.

Meshes here use ``AxisType.Auto``: the compiler propagates shardings through the
user's code. ``jax.make_mesh``'s default, ``Explicit``, makes shardings part of
each array's type, and then plain ``a @ b`` with its contracted dimension split
raises "Contracting dimensions are sharded ... specify out_sharding", so code
written for one device would not run unchanged.
"""

from __future__ import annotations

import ast
import contextlib
import math
import re
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from playground import numerics, program_size, staging, user_errors, usercode
from playground.errors import UserCodeError, cap_text
from playground.sandbox.limits import Limits

COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")
RTOL, ATOL = 1e-5, 1e-6
MAX_SPEC_CHARS = 2000
MAX_TEXT_CHARS = 20_000
MAX_HLO_LINES, MAX_HLO_LINE_CHARS = 20, 300
_METADATA = re.compile(r",? metadata=\{[^}]*\}")
_SPEC_EXAMPLES = "('data', None) for one argument, or (('data', None), (None,)) for two"


def devices() -> dict:
    """The devices JAX sees: ``{"ok", "platform", "devices": [{"id", "kind"}], "count"}``."""
    try:
        found = jax.devices()
    except Exception as exc:
        return user_errors.error_result(exc)
    return {"ok": True, "platform": jax.default_backend(),
            "devices": [{"id": d.id, "kind": d.device_kind} for d in found], "count": len(found)}


def shard(code: str, args: str, mesh_shape: list[int], axis_names: list[str], in_specs: str, out_specs: str) -> dict:
    """Run the user's function under ``jax.jit`` with NamedShardings on a mesh, and compare with one device.

    ``in_specs``: a Python literal (read by ``ast.literal_eval``, never ``eval``)
    with one spec per argument, ``(('data', 'model'), (None,))``, or one spec for
    one argument, ``('data', 'model')``. A spec has one entry per leading
    dimension: None (not split), an axis name, or a tuple of names (split over
    several axes). When every entry of the literal is a tuple and there are as
    many as arguments, each is one argument's spec. ``out_specs`` likewise for
    the outputs; one spec covers every output.

    Success: ``{"ok", "function", "n_devices", "mesh": {"shape", "axis_names",
    "devices"}, "placement", "shapes", "result", "out_placement",
    "matches_unsharded", "max_abs_diff", "collectives", "hlo_collective_lines",
    "stdout"}``; ``placement`` lists, per argument, ``{"device", "index":
    [[start, stop] per dimension]}`` for each shard in device order.
    """
    stdout = usercode.CappedText(MAX_TEXT_CHARS)
    try:
        with contextlib.redirect_stdout(stdout):
            mesh = make_mesh(mesh_shape, axis_names)
            in_literal, out_literal = parse_specs(in_specs, "in_specs"), parse_specs(out_specs, "out_specs")
            program = usercode.load(code)
            arguments = as_arrays(usercode.evaluate_args(args, program.namespace))
            in_entries = match_specs(in_literal, len(arguments), "in_specs", "argument")
            for i, (arg, entries) in enumerate(zip(arguments, in_entries, strict=True)):
                check_spec(entries, arg.shape, mesh, f"in_specs for argument {i}", "the argument")
            in_shardings = tuple(NamedSharding(mesh, P(*entries)) for entries in in_entries)
            out_shardings = output_shardings(out_literal, jax.eval_shape(program.function, *arguments), mesh)
            report = _run_sharded(program.function, arguments, in_shardings, out_shardings)
    except Exception as exc:
        return staging.explained_error(exc, code)
    return {"ok": True, "function": program.name, "n_devices": mesh.size, "mesh": mesh_json(mesh), **report,
            "stdout": stdout.getvalue()}


def _run_sharded(f: Callable, arguments: tuple, in_shardings: tuple, out_shardings: Any) -> dict:
    reference = jax.jit(f)(*arguments)  # uncommitted arguments: the default device alone
    placed = tuple(jax.device_put(a, s) for a, s in zip(arguments, in_shardings, strict=True))
    compiled = jax.jit(f, in_shardings=in_shardings, out_shardings=out_shardings).lower(*placed).compile()
    value = jax.block_until_ready(compiled(*placed))
    same, diff = numerics.tree_difference(value, reference, RTOL, ATOL)
    names, lines = collectives_in(compiled.as_text())
    return {"placement": [placement(a) for a in placed], "shapes": [list(a.shape) for a in arguments],
            "result": cap_text(staging.describe(value), MAX_TEXT_CHARS),
            "out_placement": placement(jax.tree.leaves(value)[0]),
            "matches_unsharded": same, "max_abs_diff": diff, "collectives": names, "hlo_collective_lines": lines}


def make_mesh(mesh_shape: Any, axis_names: Any) -> Mesh:
    """``jax.make_mesh`` after checks that say what is wrong; Auto axes (see the module docstring)."""
    if len(mesh_shape) != len(axis_names):
        raise UserCodeError("invalid_input", f"mesh_shape has {len(mesh_shape)} sizes but axis_names has "
                            f"{len(axis_names)} names: give one name per mesh axis.")
    twice = sorted({a for a in axis_names if list(axis_names).count(a) > 1})
    if twice:
        raise UserCodeError("invalid_input", f"Duplicate axis names {twice}: each mesh axis needs its own name.")
    need, have = math.prod(mesh_shape), len(jax.devices())
    if need > have:
        raise UserCodeError("invalid_input", f"mesh_shape {list(mesh_shape)} asks for too many devices: the mesh "
                            f"needs {need} devices, this host has {have}.")
    return jax.make_mesh(tuple(mesh_shape), tuple(axis_names), axis_types=(AxisType.Auto,) * len(mesh_shape))


def parse_specs(text: Any, name: str) -> tuple:
    """The specs as typed, read by ``ast.literal_eval``: a tuple (or list), not yet matched to arguments."""
    if not isinstance(text, str) or len(text) > MAX_SPEC_CHARS:
        raise UserCodeError("invalid_input", f"{name} must be a short text such as {_SPEC_EXAMPLES}.")
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise UserCodeError("invalid_input", f"{name} must be a Python literal such as {_SPEC_EXAMPLES}; "
                            f"{text!r} is not a literal.") from None
    if not isinstance(value, (tuple, list)):
        raise UserCodeError("invalid_input", f"{name} must be a tuple of spec entries or of specs, such as "
                            f"{_SPEC_EXAMPLES}; got {value!r}. Write ('data',), with the comma, for one entry.")
    return tuple(value)


def match_specs(value: tuple, count: int, name: str, what: str, broadcast: bool = False) -> list[tuple]:
    """One tuple of spec entries per argument (or output) from the literal; see ``shard``'s docstring.

    With ``broadcast``, a single spec given for several outputs applies to each.
    """
    per_item = all(isinstance(v, (tuple, list)) for v in value)
    if per_item and len(value) == count:
        specs = [tuple(v) for v in value]
    elif count == 1 or (broadcast and (not per_item or not value)):
        specs = [value] * count
    else:
        raise UserCodeError("invalid_input", f"{name} has {len(value)} specs but there are {count} {what}s: give one "
                            f"spec per {what}, such as {_SPEC_EXAMPLES}.")
    return [normalise_entries(spec, f"{name} for {what} {i}") for i, spec in enumerate(specs)]


def normalise_entries(spec: tuple, where: str) -> tuple:
    """Entries as ``PartitionSpec`` takes them: None, an axis name, or a tuple of two or more names."""
    entries = []
    for entry in spec:
        if entry is None or isinstance(entry, str):
            entries.append(entry)
        elif isinstance(entry, (tuple, list)) and all(isinstance(a, str) for a in entry):
            entries.append(None if not entry else entry[0] if len(entry) == 1 else tuple(entry))
        else:
            raise UserCodeError("invalid_input", f"{where}: each entry is None, an axis name or a tuple of axis "
                                f"names; {entry!r} is none of these.")
    return tuple(entries)


def check_spec(entries: tuple, shape: tuple, mesh: Mesh, where: str, what: str) -> None:
    """The spec fits the array: known axes, each used once, no more entries than dimensions, even splits."""
    if len(entries) > len(shape):
        raise UserCodeError("invalid_input", f"{where} has {len(entries)} entries but {what} has {len(shape)} "
                            f"dimension(s) (shape {tuple(shape)}): a spec has at most one entry per dimension.")
    used: list[str] = []
    for dim, entry in enumerate(entries):
        axes = () if entry is None else (entry,) if isinstance(entry, str) else entry
        for axis in axes:
            if axis not in mesh.shape:
                raise UserCodeError("invalid_input", f"{where} names axis {axis!r}, which is not in the mesh; the "
                                    f"mesh's axes are {', '.join(map(repr, mesh.axis_names))}.")
            if axis in used:
                raise UserCodeError("invalid_input", f"{where} uses mesh axis {axis!r} twice: an axis can split only "
                                    "one dimension of an array.")
            used.append(axis)
        split = math.prod(mesh.shape[a] for a in axes)
        if shape[dim] % split:
            sizes = " x ".join(str(mesh.shape[a]) for a in axes)
            named = " x ".join(map(repr, axes))
            raise UserCodeError("invalid_input", f"{where}: dimension {dim} of {what} has size {shape[dim]}, which "
                                f"is not divisible by {split}, the size of mesh axis {named}"
                                f"{f' ({sizes})' if len(axes) > 1 else ''} that splits it.")


def output_shardings(literal: tuple, out_shape: Any, mesh: Mesh) -> Any:
    """out_shardings for ``jax.jit``: one per output of a tuple/list output, else one for the whole output."""
    outputs = list(out_shape) if isinstance(out_shape, (tuple, list)) else [out_shape]
    if not jax.tree.leaves(out_shape):
        raise UserCodeError("invalid_input", "The function returns no arrays, so there is nothing to shard.")
    several = isinstance(out_shape, (tuple, list))
    specs = match_specs(literal, len(outputs), "out_specs", "output", broadcast=True)
    for i, (output, entries) in enumerate(zip(outputs, specs, strict=True)):
        for leaf in jax.tree.leaves(output):
            check_spec(entries, leaf.shape, mesh, f"out_specs for output {i}" if several else "out_specs", "the output")
    shardings = [NamedSharding(mesh, P(*entries)) for entries in specs]
    if not several:
        return shardings[0]
    return type(out_shape)(*shardings) if hasattr(out_shape, "_fields") else type(out_shape)(shardings)


def as_arrays(arguments: tuple) -> tuple:
    arrays = []
    for i, arg in enumerate(arguments):
        try:
            arrays.append(jnp.asarray(arg))
        except (TypeError, ValueError):
            raise UserCodeError("invalid_input", f"Argument {i} is a {type(arg).__name__}: shard places arrays, "
                                "so give each argument as an array (one spec each).") from None
    return tuple(arrays)


def placement(array: jax.Array) -> list[dict]:
    """Which block of ``array`` each device holds: ``[{"device": id, "index": [[start, stop], ...]}]`` by device id."""
    shards = sorted(array.addressable_shards, key=lambda s: s.device.id)
    return [{"device": s.device.id, "index": [list(cut.indices(size)[:2]) for cut, size in zip(s.index, array.shape,
                                                                                                 strict=True)]}
            for s in shards]


def mesh_json(mesh: Mesh) -> dict:
    ids = np.vectorize(lambda d: d.id, otypes=[int])(mesh.devices)
    return {"shape": list(mesh.devices.shape), "axis_names": list(mesh.axis_names), "devices": ids.tolist()}


def collectives_in(hlo_text: str) -> tuple[list[str], list[str]]:
    """The collective ops in compiled HLO (async ``-start``/``-done`` pairs count as their op) and their lines.

    Lines lose their ``metadata={...}`` and are capped at ``MAX_HLO_LINES`` of ``MAX_HLO_LINE_CHARS``.
    """
    found: set[str] = set()
    lines: list[str] = []
    for line in hlo_text.splitlines():
        op = (program_size.hlo_opcode(line) or "").removesuffix("-start").removesuffix("-done")
        if op in COLLECTIVES:
            found.add(op)
            if len(lines) < MAX_HLO_LINES:
                lines.append(_METADATA.sub("", line.strip())[:MAX_HLO_LINE_CHARS])
    return sorted(found), lines


# The demos run exactly the source they show: each is exec'd with jax, jnp, P, AxisType and x in scope.


def shard_job(limits: Limits, code: str, args: str, mesh_shape: list[int], axis_names: list[str], in_specs: str,
              out_specs: str) -> dict:
    """The registry's "shard" job."""
    return shard(code, args, mesh_shape, axis_names, in_specs, out_specs)
