"""Write for one example, batch with ``jax.vmap``: checked against a Python loop, then timed. Runs inside a worker.

>>> from tests.owner_doubles import local_device
>>> out = compare("def f(x):\\n    return x + x*x + x*x*x", "jnp.ones(3)", "0", "0", [8, 1000], local_device())
>>> out["equal"], out["batch_sizes"], len(out["jit_vmap_s"]), out["device"]
(True, [8, 1000], 2, 'cpu')
>>> print(out["batched_jaxpr"])  # f's jaxpr, every array with a batch axis in front
{ lambda ; a:f32[8,3]. let
    b:f32[8,3] = mul a a ...

The user's code runs here, in the worker; the three ways run on the device, in
the device owner (worker/jobs/device.py), where the worker sends what it lowered
with ``jax.export``: the per-example function as one program, called on each
example in a Python loop (``loop``); ``jax.vmap(f, in_axes, out_axes)`` run as
eager JAX runs it, one program per equation of its jaxpr dispatched in turn
(``vmap``, eager_plan.py); and ``jax.jit`` of it, one program (``jit_vmap``).

A batch of ``B`` is made from the one example in the owner (owner/batches.py):
every leaf that ``in_axes`` maps is stacked ``B`` times along its axis, floating
ones varied (example ``i`` is ``leaf * (1 + 0.01 * (i % 100))``), so the check
compares different inputs; integer and bool leaves are repeated. Example 0 is
the user's own; None-mapped arguments are shared as they are.

Per size, all three are compared BEFORE any timing, within the rounding of one
example's jaxpr on the device's platform (``numerics.compare_within_rounding``
with ``rounding.rounding_budget``: a batched product sums in another order, and
on an accelerator may round its operands otherwise), and a mismatch returns
``equal: False`` with no times at all. Times are medians of repeats after a
warm-up, each waiting with ``block_until_ready``. The loop's cost is capped:
its checking pass stops after ``LOOP_PASS_LIMIT_S`` (the examples done are
checked against the same slice of the vmap result) and then gets null; its
repeats run within ``LOOP_BUDGET_S``.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from playground import messages
from playground.errors import UserCodeError, cap_text
from playground.ipc.limits import Limits
from playground.worker.functions import call_signature, source_map, usercode, values
from playground.worker.jobs import eager_plan, inspect, rounding, vmap_axes
from playground.worker.jobs.device import Device, Program, keyed, spec_of, wire_leaves

MAX_BATCH_BYTES = 256 * 2**20  # batched inputs plus outputs, per batch size
MAX_TEXT_CHARS = 200_000
LOOP_PASS_LIMIT_S = 2.0
LOOP_BUDGET_S = 12.0
REPEATS, LOOP_REPEATS = 5, 3
_MAX_REPEATS = 201
SHOWN_BATCH = 8  # the batch the batched jaxpr is printed for where every size asked for is 1
FILL_S = 0.05  # vmap and jit_vmap repeat until their calls add up to this
ARGS_LABEL = "One example's arguments"  # the vmap tab's name for ``args``


def compare(code: str, args: str, in_axes: str, out_axes: str, batch_sizes: list[int], device: Device,
            early: Callable[[dict], None] | None = None) -> dict:
    """The user writes f for ONE example; we batch it with jax.vmap and compare with a Python loop, on ``device``.

    Success: ``{"ok", "function", "device", "in_axes", "out_axes", "jaxpr", "batched_jaxpr",
    "batch_sizes", "loop_s", "vmap_s", "jit_vmap_s", "equal", "max_abs_diff",
    "checked_examples", "stdout", "pending_sizes"}``. ``checked_examples`` has, for each size
    compared (in order, up to the first that disagrees), how many examples the
    Python loop finished and so were compared: fewer than the size where the
    loop hit its time limit. Failure: ``{"ok": False, "error": {...}}`` (kind
    ``invalid_input`` for bad axes or sizes, or empty ``args``). With ``early``, after each batch size but
    the last, the reply so far (the sizes measured, ``pending_sizes`` the rest) goes ahead of the final one.
    """
    stdout = usercode.CappedText(MAX_TEXT_CHARS)
    try:
        with contextlib.redirect_stdout(stdout):
            in_spec = vmap_axes.parse_axes(in_axes, "in_axes")
            out_spec = vmap_axes.parse_axes(out_axes, "out_axes")
            program = usercode.load(code)
            if not args.strip():
                raise UserCodeError("invalid_input", f"“{ARGS_LABEL}” (`args`) is empty: give the arguments of one "
                                    f"call of `{program.name}`, e.g. jnp.ones(3), or a tuple for several.")
            example = usercode.evaluate_args(args, program.namespace)
            call_signature.check_call(program.function, program.name, example,
                                      f"“{ARGS_LABEL}” (`args`, {len(example)} value{'s' * (len(example) != 1)})")
            if values.any_shape_dtype_struct(example):
                raise UserCodeError("invalid_input", "vmap runs f on a batch of examples: give arrays, not "
                                    "jax.ShapeDtypeStructs (a shape and a dtype, no values).")

            def reply(report: dict) -> dict:
                return {"ok": True, "function": program.name, "device": device.label,
                        "in_axes": vmap_axes.axes_json(in_spec), "out_axes": vmap_axes.axes_json(out_spec),
                        **report, "stdout": stdout.getvalue()}

            so_far = (lambda report: early(reply(report))) if early is not None else None
            report = _run(program.function, example, in_spec, out_spec, list(batch_sizes), device, so_far)
    except Exception as exc:
        return inspect.explained_error(exc, code)  # tracer errors and the lessons, as on every tab
    return reply(report)


def shown_batch(sizes: list[int]) -> int:
    """The batch the batched jaxpr is printed for: the smallest size asked for above 1, so that the page shows
    one of the reader's own sizes (a batch of 1 would hide which axis is new); SHOWN_BATCH where all are 1.

    >>> shown_batch([1, 10, 1000]), shown_batch([1])
    (10, 8)
    """
    return min((size for size in sizes if size > 1), default=SHOWN_BATCH)


@dataclass(frozen=True)
class _Ways:
    """What each batch size's three ways are made from: the example's leaves (as sent, and their ids on the device),
    the axis each is batched along, the axes of the output's leaves, f for one example as a program on the device,
    f vmapped, ``flat`` (a function of the example made one of its leaves as sent), and the rounding by which two
    ways may differ."""

    wired: list
    on_device: list[int]
    leaf_axes: list[int | None]
    output_axes: list[int | None]
    one: Program
    vmapped: Callable
    flat: Callable[[Callable], Callable]
    budget: float


def _run(f: Callable, example: tuple, in_spec: Any, out_spec: Any, sizes: list[int], device: Device,
         so_far: Callable[[dict], None] | None = None) -> dict:
    ways, jaxprs = _prepare(f, example, in_spec, out_spec, sizes, device)
    times: dict[str, list] = {"loop_s": [], "vmap_s": [], "jit_vmap_s": []}
    equal, worst, loop_spent, checked = True, 0.0, 0.0, []
    for index, size in enumerate(sizes):
        batch = device.batch(ways.on_device, ways.leaf_axes, size)
        specs = _batch_specs(ways.wired, ways.leaf_axes, size)
        calls = {"vmap_s": eager_plan.plan(device, ways.flat(ways.vmapped), specs, batch),
                 "jit_vmap_s": device.export(ways.flat(ways.vmapped), *specs).call(batch)}

        def loop(limit_s: float, b: list[int] = batch, n: int = size) -> dict:
            return {"loop": {"program": ways.one.id, "batch": b, "in_axes": ways.leaf_axes,
                             "out_axes": ways.output_axes, "count": n, "limit_s": limit_s}}
        limit = min(LOOP_PASS_LIMIT_S, max(LOOP_BUDGET_S - loop_spent, 0.2))
        started = time.perf_counter()
        looped, done = device.run(loop(limit))
        pass_s = time.perf_counter() - started
        loop_spent += pass_s
        checked.append(done)
        for call in calls.values():  # the jitted program compiles on its first run here: the timing excludes it
            batched, _ = device.run(call)
            found = device.compare(batched, looped, rounding=ways.budget, first=(ways.output_axes, done))
            device.free(batched)
            equal = equal and found["equal"]
            worst = None if found["largest"] is None or worst is None else max(worst, found["largest"])
        device.free(looped)
        if not equal:
            break
        loop_s = None
        if done == size and loop_spent + LOOP_REPEATS * pass_s <= LOOP_BUDGET_S:  # the check pass was its warm-up
            loop_s = device.time(loop(math.inf), min_runs=LOOP_REPEATS, min_total_s=0.0, warmup=0).median_s
            loop_spent += LOOP_REPEATS * loop_s
        times["loop_s"].append(loop_s)
        for key, call in calls.items():
            # Calls of a few microseconds are noisy (thread wake-ups): keep going until FILL_S has passed.
            times[key].append(device.time(call, min_runs=REPEATS, min_total_s=FILL_S, max_runs=_MAX_REPEATS).median_s)
        device.free(batch)
        if so_far is not None and index + 1 < len(sizes):  # the table grows by a row while the rest is measured
            so_far({**jaxprs, "batch_sizes": sizes[:index + 1], **{key: list(row) for key, row in times.items()},
                    "equal": True, "max_abs_diff": worst, "checked_examples": list(checked),
                    "pending_sizes": sizes[index + 1:]})
    return {
        **jaxprs,
        "batch_sizes": sizes,
        **(times if equal else {key: [] for key in times}),  # no time is ever shown for a wrong result
        "equal": equal,
        "max_abs_diff": worst,
        "checked_examples": checked,
        "pending_sizes": [],
    }


def _prepare(f: Callable, example: tuple, in_spec: Any, out_spec: Any, sizes: list[int],
             device: Device) -> tuple[_Ways, dict]:
    """f's axes fitted to its example and output, every size's memory checked, f for one example exported and the
    example put on the device; and the jaxprs the page shows (f's, and f vmapped over ``shown_batch``'s batch)."""
    in_axes = vmap_axes.conform_in_axes(in_spec, example)
    one_output = jax.eval_shape(f, *example)
    out_axes = vmap_axes.conform(out_spec, one_output)
    vmap_axes.check_leaves(one_output, out_axes, "out_axes", messages.piece("axes.the_output"))
    vmapped = jax.vmap(f, in_axes=in_axes, out_axes=out_axes)
    for size in sizes:
        _check_memory(vmapped, example, in_axes, size)
    leaves, tree = jax.tree.flatten(example)
    leaf_axes = [None if a is None else a % (np.ndim(leaf) + 1) for leaf, a in zip(leaves, _flat_axes(in_axes, example),
                                                                                     strict=True)]
    output_axes = [None if a is None else a % (len(o.shape) + 1) for o, a in
                   zip(jax.tree.leaves(one_output), _flat_axes(out_axes, one_output), strict=True)]
    wired, impls = wire_leaves(leaves)

    def flat(function: Callable) -> Callable:
        return keyed(lambda *args: function(*jax.tree.unflatten(tree, args)), impls)

    # vmap and the loop do the same arithmetic in other orders (a batched dot sums its terms differently):
    # they agree when they differ by no more than the rounding of the reductions in one example's jaxpr.
    budget = rounding.rounding_budget(jax.make_jaxpr(f)(*example), device.platform).relative
    jaxprs = {"jaxpr": _jaxpr_text(jax.make_jaxpr(f)(*example)),
              "batched_jaxpr": _jaxpr_text(jax.make_jaxpr(vmapped)(*jax.tree.unflatten(
                  tree, _batch_specs(leaves, leaf_axes, shown_batch(sizes)))))}
    one = device.export(flat(f), *map(spec_of, wired))
    return _Ways(wired, device.put(wired), leaf_axes, output_axes, one, vmapped, flat, budget), jaxprs


def _flat_axes(axes: Any, tree: Any) -> list[int | None]:
    """The axis of each leaf of ``tree`` (in ``jax.tree.leaves`` order) that ``axes``, a prefix of it, gives it."""
    found: list[int | None] = []

    def part(axis, subtree):
        found.extend([axis] * len(jax.tree.leaves(subtree)))
        return subtree
    jax.tree.map(part, axes, tree, is_leaf=lambda node: node is None)
    return found


def _batch_specs(leaves: list, axes: list[int | None], size: int) -> list[jax.ShapeDtypeStruct]:
    """The batch's leaves as shapes and dtypes: each mapped leaf with ``size`` inserted at its axis (a Python number
    or NumPy array first made a JAX array, as vmap makes it)."""
    arrays = [x if isinstance(x, jax.Array | jax.ShapeDtypeStruct) else jnp.asarray(x) for x in leaves]
    return [spec_of(x) if a is None else jax.ShapeDtypeStruct((*x.shape[:a], size, *x.shape[a:]), x.dtype)
            for x, a in zip(arrays, axes, strict=True)]


def _check_memory(vmapped: Callable, example: tuple, in_axes: Any, size: int) -> None:
    """Refuse, before allocating, a batch whose inputs and outputs would not fit the worker's memory."""
    sizes = []

    def shape(leaf, axis):
        leaf = jnp.asarray(leaf)
        dims = list(leaf.shape)
        dims.insert(axis % (leaf.ndim + 1), size)
        sizes.append(leaf.size * size * leaf.dtype.itemsize)
        return jax.ShapeDtypeStruct(tuple(dims), leaf.dtype)
    shapes = vmap_axes.map_mapped(shape, example, in_axes)
    try:
        out = jax.eval_shape(vmapped, *shapes)
    except ValueError as exc:
        if "out_axes" in str(exc):
            raise UserCodeError("invalid_input", f"out_axes does not fit the output of f: {exc}") from None
        raise
    nbytes = sum(sizes) + sum(s.size * s.dtype.itemsize for s in jax.tree.leaves(out))
    if nbytes > MAX_BATCH_BYTES:
        raise UserCodeError("invalid_input", f"A batch of {size:,} needs about {nbytes / 2**20:,.0f} MiB for its "
                            f"inputs and outputs; the limit is {MAX_BATCH_BYTES // 2**20} MiB. Use a smaller size.")


def _jaxpr_text(closed_jaxpr) -> str:
    return cap_text(source_map.jaxpr_with_lines(closed_jaxpr)[0], MAX_TEXT_CHARS)


def vmap_job(limits: Limits, code: str, args: str, in_axes: str, batch_sizes: list[int], out_axes: str,
             device: Device, early: Callable[[dict], None] | None = None) -> dict:
    """The registry's "vmap" job: the sizes measured so far go ahead, one reply per size."""
    return compare(code, args, in_axes, out_axes, batch_sizes, device, early)
