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

from playground.errors import UserCodeError, cap_text
from playground.ipc.limits import Limits
from playground.measure import numerics
from playground.worker.functions import usercode, values
from playground.worker.jobs import inspect, rounding
from playground.worker.jobs.partition_specs import match_specs, parse_specs
from playground.worker.lessons import user_errors
from playground.worker.measurement import program_size

COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")
RTOL, ATOL = 1e-5, 1e-6  # parallel_demos' data-parallel step; shard's verdict allows rounding instead
MAX_TEXT_CHARS = 20_000
MAX_HLO_LINES, MAX_HLO_LINE_CHARS = 20, 300
_METADATA = re.compile(r",? metadata=\{[^}]*\}")


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

    ``in_specs``: one spec per argument, written as JAX does,
    ``(P('data', 'model'), P(None))``, or as tuples, ``(('data', 'model'),
    (None,))``; one argument takes one spec, ``P('data', 'model')``. A spec has
    one entry per leading dimension: None (not split), an axis name, or a tuple
    of names (split over several axes). ``out_specs`` likewise for the outputs;
    one spec covers every output. The text is parsed, never run
    (``partition_specs``).

    The sharded result is compared with the one-device result within the
    rounding that computing the same sums in another order explains
    (``numerics.compare_within_rounding``, with the terms counted in the
    function's jaxpr by ``rounding.rounding_budget`` and the size of the
    numbers from ``rounding.input_sensitivity``).

    Success: ``{"ok", "function", "n_devices", "mesh": {"shape", "axis_names",
    "devices"}, "placement", "shapes", "result", "out_placement",
    "matches_unsharded", "max_abs_diff", "tolerance", "rounding": {"terms",
    "relative", "scale", "inputs_moved"}, "mismatch", "collectives",
    "hlo_collective_lines", "stdout"}``; ``placement`` lists, per argument,
    ``{"device", "index": [[start, stop] per dimension]}`` for each shard in
    device order. ``max_abs_diff``, ``tolerance`` and ``rounding.scale`` are
    those of the output that decided the verdict (the only one, for a single
    array); ``tolerance = 4 * hypot(relative, eps) * scale``, and
    ``inputs_moved`` says whether the scale includes how far the result moves
    with its inputs (``rounding.input_sensitivity``); ``mismatch`` says what
    differs, or is None.
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
        return inspect.explained_error(exc, code)
    return {"ok": True, "function": program.name, "n_devices": mesh.size, "mesh": mesh_json(mesh), **report,
            "stdout": stdout.getvalue()}


def _run_sharded(f: Callable, arguments: tuple, in_shardings: tuple, out_shardings: Any) -> dict:
    traced = jax.jit(f).trace(*arguments)
    reference = traced.lower().compile()(*arguments)  # uncommitted arguments: the default device alone
    placed = tuple(jax.device_put(a, s) for a, s in zip(arguments, in_shardings, strict=True))
    compiled = jax.jit(f, in_shardings=in_shardings, out_shardings=out_shardings).lower(*placed).compile()
    value = jax.block_until_ready(compiled(*placed))
    budget = rounding.rounding_budget(traced.jaxpr, jax.default_backend())
    moved = rounding.input_sensitivity(f, arguments)
    verdict = numerics.compare_within_rounding(value, reference, budget.relative, moved)
    names, lines = collectives_in(compiled.as_text())
    return {"placement": [placement(a) for a in placed], "shapes": [list(a.shape) for a in arguments],
            "result": cap_text(values.describe(value), MAX_TEXT_CHARS),
            "out_placement": placement(jax.tree.leaves(value)[0]),
            "matches_unsharded": verdict.equal, "max_abs_diff": verdict.largest,
            "tolerance": _finite(verdict.tolerance),
            "rounding": {"terms": budget.terms, "relative": budget.relative, "scale": _finite(verdict.scale),
                         "inputs_moved": moved is not None},
            "mismatch": _mismatch(verdict),
            "collectives": names, "hlo_collective_lines": lines}


def _finite(number: float | None) -> float | None:
    return number if number is not None and math.isfinite(number) else None


def _mismatch(verdict: numerics.Comparison) -> str | None:
    """What differs, in words: "3 of 32 elements differ by more than the tolerance (the result)"."""
    if verdict.equal:
        return None
    return cap_text(f"{verdict.reason or 'the results differ'} ({verdict.where or 'the whole result'})", 2000)


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
    ndim = len(array.shape)  # a PRNG key's shard index also covers its key data's trailing dimensions
    return [{"device": s.device.id,
             "index": [list(cut.indices(size)[:2]) for cut, size in zip(s.index[:ndim], array.shape, strict=True)]}
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



def shard_job(limits: Limits, code: str, args: str, mesh_shape: list[int], axis_names: list[str], in_specs: str,
              out_specs: str) -> dict:
    """The registry's "shard" job."""
    return shard(code, args, mesh_shape, axis_names, in_specs, out_specs)
