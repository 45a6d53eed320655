"""Write for one example, batch with ``jax.vmap``: checked against a Python loop, then timed. Runs inside a worker.

>>> out = compare("def f(x):\\n    return x + x*x + x*x*x", "jnp.ones(3)", "0", "0", [8, 1000])
>>> out["equal"], out["batch_sizes"], len(out["jit_vmap_s"])
(True, [8, 1000], 2)
>>> print(out["batched_jaxpr"])  # f's jaxpr, every array with a batch axis in front
{ lambda ; a:f32[8,3]. let
    b:f32[8,3] = mul a a ...

A batch of ``B`` is made from the one example: every leaf that ``in_axes`` maps
is stacked ``B`` times along its axis, floating ones varied (example ``i`` is
``leaf * (1 + 0.01 * (i % 100))``, below 2x so ``exp`` cannot overflow), so the
check compares different inputs; integer, bool and key leaves are repeated.
Example 0 is the user's own; None-mapped arguments are shared as they are.

Per size: ``loop`` calls ``f`` eagerly on each example (taking it out of the
batch included, as in ``[f(x) for x in xs]``) and stacks the outputs along
``out_axes`` with ``jnp.stack`` in chunks of 128 (one stack of 10,000 arrays
makes XLA compile a 10,000-operand concatenate: over a minute); ``vmap`` is
``jax.vmap(f, in_axes, out_axes)``, eager; ``jit_vmap`` is its ``jax.jit``,
compiled before timing. All three are compared BEFORE any timing, within the
rounding of one example's jaxpr (``numerics.compare_within_rounding`` with
``rounding.rounding_budget``: a batched product sums in another order, and on
an accelerator may round its operands otherwise), and a mismatch returns
``equal: False`` with no times at all. Times are medians of repeats after a warm-up, each waiting with
``block_until_ready``. The loop's cost is capped: its checking pass stops after
``LOOP_PASS_LIMIT_S`` (the examples done are checked against the same slice of
the vmap result) and then gets null; its repeats run within ``LOOP_BUDGET_S``.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from playground.errors import UserCodeError, cap_text
from playground.sandbox.limits import Limits
from playground.worker import about as runtime
from playground.worker import (
    call_signature,
    inspect,
    numerics,
    rounding,
    source_map,
    timing,
    usercode,
    values,
    vmap_axes,
)

MAX_BATCH_BYTES = 256 * 2**20  # batched inputs plus outputs, per batch size
MAX_TEXT_CHARS = 200_000
LOOP_PASS_LIMIT_S = 2.0
LOOP_BUDGET_S = 12.0
REPEATS, LOOP_REPEATS = 5, 3
_CHUNK = 128
_MAX_REPEATS = 201
SHOWN_BATCH = 8  # the batch the batched jaxpr is printed for where every size asked for is 1
FILL_S = 0.05  # vmap and jit_vmap repeat until their calls add up to this
ARGS_LABEL = "One example's arguments"  # the vmap tab's name for ``args``

def compare(code: str, args: str, in_axes: str, out_axes: str, batch_sizes: list[int],
            early: Callable[[dict], None] | None = None) -> dict:
    """The user writes f for ONE example; we batch it with jax.vmap and compare with a Python loop.

    Success: ``{"ok", "function", "in_axes", "out_axes", "jaxpr", "batched_jaxpr",
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
                return {"ok": True, "function": program.name, "device": runtime.device_label(),
                        "in_axes": vmap_axes.axes_json(in_spec), "out_axes": vmap_axes.axes_json(out_spec),
                        **report, "stdout": stdout.getvalue()}

            so_far = (lambda report: early(reply(report))) if early is not None else None
            report = _run(program.function, example, in_spec, out_spec, list(batch_sizes), so_far)
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


def _run(f: Callable, example: tuple, in_spec: Any, out_spec: Any, sizes: list[int],
         so_far: Callable[[dict], None] | None = None) -> dict:
    in_axes = vmap_axes.conform_in_axes(in_spec, example)
    one_output = jax.eval_shape(f, *example)
    out_axes = vmap_axes.conform(out_spec, one_output)
    vmap_axes.check_leaves(one_output, out_axes, "out_axes", "the output of f")
    vmapped = jax.vmap(f, in_axes=in_axes, out_axes=out_axes)
    jitted = jax.jit(vmapped)
    for size in sizes:
        _check_memory(vmapped, example, in_axes, size)
    times: dict[str, list] = {"loop_s": [], "vmap_s": [], "jit_vmap_s": []}
    equal, worst, loop_spent, checked = True, 0.0, 0.0, []
    # vmap and the loop do the same arithmetic in other orders (a batched dot sums its terms differently):
    # they agree when they differ by no more than the rounding of the reductions in one example's jaxpr.
    budget = rounding.rounding_budget(jax.make_jaxpr(f)(*example)).relative
    jaxprs = {"jaxpr": _jaxpr_text(jax.make_jaxpr(f)(*example)),
              "batched_jaxpr": _jaxpr_text(jax.make_jaxpr(vmapped)(*make_batch(example, in_axes,
                                                                               shown_batch(sizes))))}
    for index, size in enumerate(sizes):
        batch = make_batch(example, in_axes, size)

        def loop(deadline: float = math.inf, b: tuple = batch, n: int = size) -> tuple[Any, int]:
            return python_loop(f, b, in_axes, out_axes, n, deadline)
        started = time.perf_counter()
        looped, done = loop(started + min(LOOP_PASS_LIMIT_S, max(LOOP_BUDGET_S - loop_spent, 0.2)))
        pass_s = time.perf_counter() - started
        loop_spent += pass_s
        checked.append(done)
        for other in (vmapped(*batch), jitted(*batch)):  # jitted(...) compiles here: the timing below excludes it
            found = numerics.compare_within_rounding(_first(other, out_axes, done), looped, budget)
            same, diff = found.equal, found.largest
            equal, worst = equal and same, None if diff is None or worst is None else max(worst, diff)
        if not equal:
            break
        loop_s = None
        if done == size and loop_spent + LOOP_REPEATS * pass_s <= LOOP_BUDGET_S:  # the check pass was its warm-up
            loop_s = timing.measure(lambda lp=loop: lp()[0], min_runs=LOOP_REPEATS, min_total_s=0.0,
                                    warmup=0).median_s
            loop_spent += LOOP_REPEATS * loop_s
        times["loop_s"].append(loop_s)
        for key, batched in (("vmap_s", vmapped), ("jit_vmap_s", jitted)):
            # Calls of a few microseconds are noisy (thread wake-ups): keep going until FILL_S has passed.
            times[key].append(timing.measure(lambda g=batched, b=batch: g(*b), min_runs=REPEATS, min_total_s=FILL_S,
                                             max_runs=_MAX_REPEATS).median_s)
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


def make_batch(example: tuple, in_axes: Any, size: int) -> tuple:
    """``size`` variants of the example, stacked along each mapped leaf's axis (see the module docstring).

    Floating leaves are varied on the host with NumPy and sent to the device once: done with jnp, each of the
    five small operations compiled anew for every batch size in a fresh worker (1.3 s of the default preset's 5).
    """
    def variants(leaf, axis):
        leaf = jnp.asarray(leaf)
        if jnp.issubdtype(leaf.dtype, jnp.inexact):
            scale = 1 + 0.01 * (np.arange(size) % 100).astype(np.float32)
            stacked = (np.asarray(leaf)[None] * scale.reshape((size,) + (1,) * leaf.ndim)).astype(leaf.dtype)
            return jnp.asarray(np.moveaxis(stacked, 0, axis))
        return jnp.moveaxis(jnp.broadcast_to(leaf[None], (size,) + leaf.shape), 0, axis)  # ints, bools, keys
    return vmap_axes.map_mapped(variants, example, in_axes)


def python_loop(f: Callable, batch: tuple, in_axes: Any, out_axes: Any, size: int,
                deadline: float = math.inf) -> tuple[Any, int]:
    """Eager ``f`` on each example in turn, outputs stacked along ``out_axes``: (stacked, examples done).

    Stops early, after at least one example, once ``time.perf_counter()`` passes ``deadline``.
    """
    outputs = []
    for i in range(size):
        if i and time.perf_counter() > deadline:
            break
        one = vmap_axes.map_mapped(lambda leaf, axis, i=i: lax.dynamic_index_in_dim(leaf, i, axis % leaf.ndim, False),
                          batch, in_axes)
        outputs.append(f(*one))

    def stack(axis, *parts):
        return parts[0] if axis is None else jax.tree.map(lambda *leaves: _stack(leaves, axis), *parts)
    return jax.tree.map(stack, out_axes, *outputs, is_leaf=lambda node: node is None), len(outputs)


def _stack(leaves: tuple, axis: int) -> jax.Array:
    if len(leaves) <= _CHUNK:
        return jnp.stack(leaves, axis)
    parts = [jnp.stack(leaves[i:i + _CHUNK], axis) for i in range(0, len(leaves), _CHUNK)]
    while len(parts) > _CHUNK:
        parts = [jnp.concatenate(parts[i:i + _CHUNK], axis) for i in range(0, len(parts), _CHUNK)]
    return jnp.concatenate(parts, axis)


def _first(tree: Any, out_axes: Any, count: int) -> Any:
    """The first ``count`` examples of a batched output."""
    def first(leaf, axis):
        return lax.slice_in_dim(leaf, 0, count, axis=axis % leaf.ndim)

    return vmap_axes.map_mapped(first, tree, out_axes)


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
             early: Callable[[dict], None] | None = None) -> dict:
    """The registry's "vmap" job: the sizes measured so far go ahead, one reply per size."""
    return compare(code, args, in_axes, out_axes, batch_sizes, early)
