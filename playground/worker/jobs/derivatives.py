"""Derivatives of any order of f: R -> R, checked against references. Runs inside a worker.

``jax.grad(f)`` is itself a function, so it composes: ``grad(grad(f))`` is f''.
Each ``grad`` differentiates the program the previous one produced, so the
program grows with the order; ``eqn_counts`` shows how fast:

>>> derivatives(PRESETS["tanh"], 3, -2.0, 2.0, 5)["eqn_counts"]
[1, 5, 15, 34]

Every order is checked against a reference (derivative_references.py): a
closed form when the code is one of the PRESETS, otherwise a central finite
difference of the order below. The jobs run in float64 (``jax.enable_x64``,
scoped to the job), so an agreement near 1e-10 means something: in float32 the
best central difference is only good to about ε^(2/3) ≈ 2e-5 of the function's
scale, and worse at each order.

A function whose Python ``if`` or ``while`` reads its input cannot be traced
by ``jit`` or ``vmap``, but ``grad`` alone differentiates it; such functions
are evaluated point by point without jit (pointwise_derivatives.py):

>>> out = derivatives("def f(x):\\n    if x < 3:\\n        return 3. * x ** 2\\n    return -4 * x\\n", 1, 2.0, 4.0, 2)
>>> out["orders"][1]["ys"], out["point_by_point"]["points"]
([12.0, -4.0], 2)
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from playground import derivative_notes
from playground.errors import cap_text
from playground.gallery import DERIVATIVE_PRESETS
from playground.ipc.limits import Limits
from playground.worker.functions import call_signature, usercode
from playground.worker.functions.real_scalars import floats, require_real_scalar, shape_of
from playground.worker.jobs import derivative_references as references
from playground.worker.jobs import hessians, jumps
from playground.worker.jobs import pointwise_derivatives as pointwise
from playground.worker.measurement import program_size

PRESETS = DERIVATIVE_PRESETS  # display name -> code; the UI offers the same ones
MAX_JAXPR_CHARS = 200_000
POINT_BY_POINT_SHARE = 0.6  # of the job's wall clock; the rest is for tracing, the checks and the reply
JUMP_SEARCH_SHARE = 0.25  # of the point-by-point budget, after it: bisecting between grid points, eagerly
_R_TO_R = "`{}` must map a scalar to a scalar (R -> R)"


def derivatives(code: str, order: int, x_min: float, x_max: float, points: int,
                budget_s: float = Limits().timeout_s * POINT_BY_POINT_SHARE) -> dict:
    """f, f', ..., f⁽ᵒʳᵈᵉʳ⁾ of the user's f: R -> R on an even grid, each checked against a reference.

    The kth derivative is ``grad`` applied k times, evaluated on the grid as
    ``jit(vmap(grad^k f))``. Result keys: ``function``, ``dtype`` ("float64"),
    ``xs``, ``orders`` (one ``{"n", "ys", "max_error", "reference"}`` per k =
    0..order; k = 0 is f itself, with no reference), ``eqn_counts`` (see
    program_size.count_equations), ``hlo_op_counts`` (see program_size.count_hlo_instructions),
    ``jaxprs`` (``make_jaxpr(grad^k f)`` at a scalar), ``notes`` and ``point_by_point``.

    ``reference`` is "closed form" when ``code`` (stripped) is one of the
    PRESETS, else "finite differences". ``max_error`` is the largest absolute
    difference from it over the grid points where both are finite (``left_out``
    counts the others). Values that are not finite (inf, nan) are sent
    as None, since JSON has no spelling for them.

    ``point_by_point`` is None, unless tracing under jit and vmap needed the
    input's value: then every grid point is evaluated on its own, without
    jit, until ``budget_s`` seconds have passed (the clock is read after each
    eager call, so the last may run over), and it is ``{"reason", "points"
    (evaluated), "grid_points", "seconds", "budget_s"}``; ``xs`` holds the
    points evaluated (spread over the range), and ``eqn_counts``,
    ``hlo_op_counts`` and ``jaxprs`` are empty (there is no one program).

    ``left_out`` holds, for each order whose max_error leaves points out,
    ``{"n", "points", "reference", "derivative"}`` (how many, and where the
    reference and the derivative are not finite); ``breaks`` holds where f is
    not smooth: ``checks`` (``{"n", "x", "off"}``
    for each order whose finite-difference check is off far beyond rounding,
    at its worst x) and ``jumps`` (``{"x", "size", "point", "between"}``, the
    first few of the ``jumps_found`` places where f jumps, found between grid
    points too: jumps.py); ``notes`` says the same in English, one warning for
    all the orders it concerns (derivative_notes.py).
    """
    deadline = time.perf_counter() + budget_s
    xs = np.linspace(x_min, x_max, points)
    why = None
    with jax.enable_x64(True), contextlib.redirect_stdout(usercode.CappedText(0)):  # prints repeat per trace
        try:
            program = usercode.load(code)
            call_signature.check_call(program.function, program.name, (xs[0],), "one number, x")
            try:
                return _on_the_grid(program, order, xs, references.closed_form(code), deadline)
            except pointwise.NEEDS_VALUES as exc:
                at = pointwise.untraced_at(exc, code, program.function)
                why = derivative_notes.untraced(at, "derivatives", program.name)
            return _point_by_point(program, order, xs, why, at, deadline, budget_s)
        except Exception as exc:
            return pointwise.explained_failure(exc, code, why)


def _on_the_grid(program: usercode.UserProgram, order: int, xs: np.ndarray, closed_form, deadline: float) -> dict:
    """Every order as one compiled ``jit(vmap(grad^k f))`` call over the grid; the search for jumps calls f and f′
    again until ``deadline``."""
    ladder = [program.function]
    for _ in range(order):
        ladder.append(jax.grad(ladder[-1]))
    dtype = require_real_scalar(jax.eval_shape(program.function, jax.ShapeDtypeStruct((), jnp.float64)),
                                _R_TO_R.format(program.name))
    jaxprs = [jax.make_jaxpr(g)(xs[0]) for g in ladder]
    compiled = [jax.jit(jax.vmap(g)).lower(xs).compile() for g in ladder]
    values = [np.asarray(c(xs), dtype=np.float64) for c in compiled]
    found = _jumps(xs, values[0], values[1], _on_any_points(compiled[0], compiled[1], xs.size, deadline), dtype)
    if closed_form:
        checks = [closed_form(k, xs) for k in range(1, len(ladder))]
    else:
        checks = [references.finite_difference(compiled[k - 1], xs) for k in range(1, len(ladder))]
    return _result(program.name, dtype, xs, values, checks, found,
                   references.CLOSED_FORM if closed_form else references.FINITE_DIFFERENCES,
                   eqn_counts=[program_size.count_equations(j.jaxpr) for j in jaxprs],
                   hlo_op_counts=[program_size.count_hlo_instructions(c.as_text()) for c in compiled],
                   jaxprs=[cap_text(str(j), MAX_JAXPR_CHARS) for j in jaxprs], point_by_point=None)


def _point_by_point(program: usercode.UserProgram, order: int, xs: np.ndarray, why: str, at: dict,
                    deadline: float, budget_s: float) -> dict:
    """Each grid point on its own, eagerly, checked by finite differences computed the same way."""
    dtype = require_real_scalar(shape_of(program.function(jnp.asarray(xs[0], jnp.float64))),
                                _R_TO_R.format(program.name))
    done = pointwise.evaluate(program.function, order, xs, deadline)
    evaluated = xs[done.indices]
    search_deadline = time.perf_counter() + budget_s * JUMP_SEARCH_SHARE
    found = _jumps(evaluated, done.values[0], done.values[1],
                   pointwise.values_and_slopes(program.function, search_deadline), dtype)
    return _result(program.name, dtype, evaluated, list(done.values), list(done.references), found,
                   references.FINITE_DIFFERENCES, eqn_counts=[], hlo_op_counts=[], jaxprs=[],
                   point_by_point={"reason": why, "at": at, "points": int(done.indices.size),
                                   "grid_points": int(xs.size), "seconds": done.seconds, "budget_s": budget_s})


def _jumps(xs: np.ndarray, fs: np.ndarray, slopes: np.ndarray, evaluate: jumps.Evaluate,
           dtype: np.dtype) -> list[jumps.Jump]:
    """Where f jumps, each pinned down by bisection; where ``evaluate`` runs out of time, each said to lie between
    its grid points."""
    try:
        return jumps.find(xs, fs, slopes, evaluate, dtype)
    except pointwise.OutOfTime:
        return jumps.find(xs, fs, slopes, None, dtype)


def _on_any_points(f: Callable, slope: Callable, size: int, deadline: float) -> jumps.Evaluate:
    """f and f′ at up to ``size`` points, through the programs compiled for the grid (padded to its ``size``);
    pointwise.OutOfTime past ``deadline`` (a costly f, called again at each step of the bisection)."""
    def evaluate(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        padded = np.resize(points, size)
        values = (np.asarray(f(padded), np.float64)[:points.size], np.asarray(slope(padded), np.float64)[:points.size])
        if time.perf_counter() > deadline:
            raise pointwise.OutOfTime
        return values
    return evaluate


def _result(name: str, dtype: np.dtype, xs: np.ndarray, values: list, checks: list, found: list[jumps.Jump],
            label: str, **extra) -> dict:
    """The reply: each order's values and its largest difference from its reference, where f is not smooth, and
    notes."""
    notes = []
    if dtype != np.float64:
        notes.append(f"`{name}` returns {dtype.name}, not float64: its values, and so the errors, carry "
                     f"{dtype.name} rounding.")
    orders = [{"n": 0, "ys": floats(values[0]), "max_error": None, "reference": None}]
    off, left_out = [], []
    for k, (ys, reference) in enumerate(zip(values[1:], checks, strict=True), start=1):
        orders.append({"n": k, "ys": floats(ys), "max_error": references.max_error(ys, reference),
                       "reference": label})
        if left := references.left_out(ys, reference):
            left_out.append({"n": k, **left})
        unsmooth = references.unsmooth(xs, np.asarray(ys, np.float64), np.asarray(reference, np.float64), dtype) \
            if label == references.FINITE_DIFFERENCES else None
        if unsmooth:
            off.append({"n": k, "x": unsmooth[0], "off": unsmooth[1]})
    breaks = {"checks": off, "jumps": [_fact(jump) for jump in found[:derivative_notes.MAX_JUMPS_LISTED]],
              "jumps_found": len(found)}
    reply = {"ok": True, "function": name, "dtype": "float64", "xs": xs.tolist(), "orders": orders, **extra,
             "left_out": left_out, "breaks": breaks}
    return {**reply, "notes": notes + derivative_notes.notes(reply)}


def _fact(jump: jumps.Jump) -> dict:
    size = jump.size if np.isfinite(jump.size) else None  # JSON has no inf
    return {"x": jump.x, "size": size, "point": jump.point, "between": list(jump.between) if jump.between else None}


def derivatives_job(limits: Limits, code: str, order: int, x_min: float, x_max: float, points: int) -> dict:
    """The registry's "derivatives" job: point by point, if it comes to that, within a share of its wall clock."""
    return derivatives(code, order, x_min, x_max, points, budget_s=limits.timeout_s * POINT_BY_POINT_SHARE)


def gradient_job(limits: Limits, code: str, point: str) -> dict:
    """The registry's "gradient" job (hessians.py)."""
    return hessians.gradient_and_hessian(code, point)
