"""Which block of each operand every program instance of a ``pallas_call`` reads or writes: the Pallas job's grid.

A ``pallas_call`` runs its kernel once per point of its grid; each operand's
``BlockSpec`` maps a grid point to the block of that operand the instance sees
(``index_map``), in units of the block's shape. This module reads those maps
from the traced call and evaluates them at every grid point (all at once: the
map batched over the points and jitted), so that a picture can show which block
each instance touches, and marks what goes wrong before it runs:

- a block wholly outside its array (the map points past the end);
- a block of an output that no instance writes (its values are then whatever the
  buffer held);
- a block of an output written again after other blocks were (a revisit that is
  not the accumulator pattern of a reduction axis, where the same block comes
  back on consecutive steps): the later write replaces the earlier one, and on
  a grid axis marked parallel two cores may write it at once;
- a block shape a TPU refuses: its last two dimensions must be divisible by
  (8, 128) (16 or 32 rows for 16- and 8-bit types) or equal the array's.

The grid mapping is a JAX internal (``pallas_call``'s ``grid_mapping``
parameter): where this JAX lays it out otherwise, ``read_calls`` raises
``GridUnreadable`` and the tab runs the kernel without the picture.

>>> import jax, jax.numpy as jnp
>>> from jax.experimental import pallas as pl
>>> def kernel(x_ref, o_ref):
...     o_ref[...] = x_ref[...] * 2
>>> def f(x):
...     return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
...                           in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
...                           out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)))(x)
>>> [call] = read_calls(jax.make_jaxpr(f)(jnp.ones((16, 128))))
>>> call["grid"], [(o["role"], o["block_shape"], o["blocks"]) for o in call["operands"]]
([2], [('input', [8, 128], [[0, 0], [1, 0]]), ('output', [8, 128], [[0, 0], [1, 0]])])
>>> call["findings"]
[]
"""

from __future__ import annotations

import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.extend.core import jaxprs_in_params

MAX_POINTS = 4_096  # grid points mapped (a larger grid is mapped for its first MAX_POINTS, and says so)
MAX_CALLS = 8  # pallas_calls mapped per function
SHOWN_MISSED = 16  # an output's blocks never written, listed (all are counted)
LANES = 128
SUBLANES = {4: 8, 2: 16, 1: 32}  # rows of a TPU tile by the element's bytes (8-byte types: as 4)


class GridUnreadable(Exception):
    """This JAX's pallas_call does not carry its grid as this module reads it."""


def pallas_equations(jaxpr) -> list:
    """Every ``pallas_call`` equation in a closed jaxpr, nested ones (under jit, cond, scan, ...) included."""
    found = []

    def walk(inner) -> None:
        for eqn in inner.eqns:
            if eqn.primitive.name == "pallas_call":
                found.append(eqn)
                continue
            for sub in jaxprs_in_params(eqn.params):
                walk(sub)

    walk(jaxpr.jaxpr)
    return found


def read_calls(jaxpr) -> list[dict]:
    """Each pallas_call of ``jaxpr`` (a closed jaxpr), at most MAX_CALLS: its ``name``, ``grid``, ``points`` (how
    many grid points were mapped), ``operands`` (role, shapes, dtype, and for each grid point the block it sees) and
    ``findings`` (what is wrong, as facts: {"kind", "role", "index", ...}); GridUnreadable where this JAX differs."""
    return [_call(eqn) for eqn in pallas_equations(jaxpr)[:MAX_CALLS]]


def _call(eqn) -> dict:
    try:
        mapping = eqn.params["grid_mapping"]
        grid = [int(size) for size in mapping.grid]
        block_mappings = list(mapping.block_mappings)
        inputs, index_operands = mapping.num_inputs, mapping.num_index_operands
    except (KeyError, AttributeError, TypeError) as exc:
        raise GridUnreadable(f"this JAX's pallas_call has no grid mapping as the playground reads it ({exc})") from exc
    if index_operands:
        raise GridUnreadable("its index maps read scalar-prefetched values, known only when it runs")
    total = math.prod(grid)
    points = list(itertools.islice(itertools.product(*(range(size) for size in grid)), MAX_POINTS))
    operands = []
    for number, block_mapping in enumerate(block_mappings):
        role = "input" if number < inputs else "output"
        operands.append(_operand(block_mapping, role, number if role == "input" else number - inputs, points))
    return {"name": str(eqn.params.get("name") or "kernel"), "grid": grid, "points": len(points), "total": total,
            "operands": operands, "findings": _findings(operands, len(points) == total)}


def _operand(block_mapping, role: str, index: int, points: list[tuple[int, ...]]) -> dict:
    array = block_mapping.array_aval
    dims = [_dimension(dim) for dim in block_mapping.block_shape]
    block_shape = [size for size, _ in dims]
    starts = _evaluate(block_mapping.index_map_jaxpr, points, len(dims))
    blocks = []
    for start in starts:  # in blocks, as the map returns them; an Element dimension's map returns elements
        blocks.append([int(value) if kind != "element" else int(value) // max(size, 1)
                       for value, (size, kind) in zip(start, dims, strict=True)])
    return {"role": role, "index": index, "array_shape": [int(size) for size in array.shape],
            "dtype": str(array.dtype), "block_shape": block_shape, "squeezed": [kind == "squeezed" for _, kind in dims],
            "blocks": blocks}


def _dimension(dim) -> tuple[int, str]:
    """(size, kind) of one entry of a block shape: squeezed (one element, the dimension dropped in the kernel),
    element (the index map gives an element offset) or blocked (Blocked, BoundedSlice: it gives a block number)."""
    if isinstance(dim, pl.Squeezed):
        return 1, "squeezed"
    if isinstance(dim, pl.Element):
        return int(dim.block_size), "element"
    size = getattr(dim, "block_size", None)
    if size is None:
        raise GridUnreadable(f"a block dimension this playground does not know: {dim!r}")
    return int(size), "blocked"


def _evaluate(index_map, points: list[tuple[int, ...]], rank: int) -> list[tuple[int, ...]]:
    """The index map at every grid point, as one jitted, batched call."""
    if not points:
        return []
    columns = jnp.asarray(np.array(points, dtype=np.int32).T)  # one row of grid indices per grid axis

    def at(*ids):
        return jax.core.eval_jaxpr(index_map.jaxpr, index_map.consts, *ids)

    if not points[0]:  # no grid: one program instance, and nothing to batch the map over
        outs = [jnp.reshape(out, (1,)) for out in jax.jit(at)()]
    else:
        outs = jax.jit(jax.vmap(at))(*columns)
    if len(outs) != rank:
        raise GridUnreadable(f"an index map returned {len(outs)} indices for a block of {rank} dimensions")
    values = np.stack([np.asarray(out) for out in outs], axis=1) if outs else np.zeros((len(points), 0), int)
    return [tuple(row) for row in values.tolist()]


def _findings(operands: list[dict], whole: bool) -> list[dict]:
    """What is wrong with each operand's blocks; an output's coverage only where the whole grid was mapped."""
    found = []
    for operand in operands:
        found += _outside(operand) + _tile_rule(operand)
        if operand["role"] == "output" and whole:
            found += _coverage(operand)
    return found


def blocks_along(operand: dict) -> list[int]:
    """How many blocks cover the array along each dimension (the last one may hang over the end)."""
    return [max(1, -(-size // block)) for size, block in zip(operand["array_shape"], operand["block_shape"],
                                                               strict=True)]


def _outside(operand: dict) -> list[dict]:
    extent = blocks_along(operand)
    for point, block in enumerate(operand["blocks"]):
        if any(b < 0 or b >= n for b, n in zip(block, extent, strict=True)):
            return [{"kind": "outside", "role": operand["role"], "index": operand["index"], "point": point,
                     "block": block, "extent": extent}]
    return []


def _tile_rule(operand: dict) -> list[dict]:
    """The TPU's rule for the last two dimensions of a block (a 1-D block: its one dimension, by 128)."""
    shape, block = operand["array_shape"], operand["block_shape"]
    if not shape:
        return []
    rows = SUBLANES.get(np.dtype(operand["dtype"]).itemsize, 8)
    wanted = [(len(shape) - 1, LANES)] + ([(len(shape) - 2, rows)] if len(shape) >= 2 else [])
    for axis, multiple in wanted:
        if operand["squeezed"][axis]:
            continue
        if block[axis] % multiple and block[axis] != shape[axis]:
            return [{"kind": "tile", "role": operand["role"], "index": operand["index"], "block_shape": block,
                     "array_shape": shape, "axis": axis, "multiple": multiple}]
    return []


def _coverage(operand: dict) -> list[dict]:
    """An output's blocks that no grid point writes, and blocks written again after another block was."""
    extent = blocks_along(operand)
    last_seen: dict[tuple[int, ...], int] = {}
    revisited = None
    previous = None
    for point, block in enumerate(map(tuple, operand["blocks"])):
        if block in last_seen and previous != block and revisited is None:
            revisited = {"kind": "revisited", "role": "output", "index": operand["index"], "block": list(block),
                         "first": last_seen[block], "again": point}
        last_seen[block] = point
        previous = block
    found = [revisited] if revisited else []
    inside = sum(all(0 <= b < n for b, n in zip(block, extent, strict=True)) for block in last_seen)
    count = math.prod(extent) - inside
    if count > 0:  # the first few: a scan that ends after at most len(last_seen) + SHOWN_MISSED blocks
        missed = itertools.islice((list(block) for block in itertools.product(*(range(n) for n in extent))
                                   if block not in last_seen), SHOWN_MISSED)
        found.append({"kind": "missed", "role": "output", "index": operand["index"], "blocks": list(missed),
                      "count": count})
    return found
