"""Derivatives of any order, and which way round to build a Jacobian. Runs inside a worker.

``jax.grad(f)`` is itself a function, so it composes: ``grad(grad(f))`` is f''.
Each ``grad`` differentiates the program the previous one produced, so the
program grows with the order; ``eqn_counts`` shows how fast:

>>> derivatives(PRESETS["tanh"], 3, -2.0, 2.0, 5)["eqn_counts"]
[1, 5, 15, 34]

Every order is checked against a reference: a closed form when the code is one
of the PRESETS, otherwise a central finite difference of the order below. The
job runs in float64 (``jax.enable_x64``, scoped to the job), so an agreement
near 1e-10 means something: in float32 the best central difference is only
good to about ε^(2/3) ≈ 2e-5 of the function's scale, and worse at each order.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from numpy.polynomial import Polynomial

from playground import program_size, staging, timing, usercode
from playground.errors import UserCodeError, cap_text
from playground.gallery import DERIVATIVE_PRESETS
from playground.sandbox.limits import Limits

MAX_DIMENSION = 200  # the Hessian has n² entries, and all of them go back as JSON
MAX_JAXPR_CHARS = 200_000
FD_STEP = float(np.finfo(np.float64).eps) ** (1 / 3)  # ≈ 6.1e-6, see finite_difference
EXPLANATION = ("Forward mode (jacfwd) costs one pass per input and reverse mode (jacrev) one pass per output, "
               "so jacrev wins for wide Jacobians (few outputs, many inputs) and jacfwd for tall ones "
               "(many outputs, few inputs).")


def _tanh_derivative(n: int, x: np.ndarray) -> np.ndarray:
    """tanh⁽ⁿ⁾(x) = Pₙ(tanh x), with P₀(t) = t and Pₙ₊₁ = Pₙ'(t)·(1 − t²), since tanh' = 1 − tanh²."""
    p = Polynomial([0, 1])
    for _ in range(n):
        p = p.deriv() * Polynomial([1, 0, -1])
    return p(np.tanh(x))


def _sin_derivative(n: int, x: np.ndarray) -> np.ndarray:
    """sin⁽ⁿ⁾(x) = sin(x + nπ/2), written as the cycle sin, cos, −sin, −cos so that no rounding of nπ/2 creeps in."""
    return (np.sin(x), np.cos(x), -np.sin(x), -np.cos(x))[n % 4]


def _softplus_derivative(n: int, x: np.ndarray) -> np.ndarray:
    """For n ≥ 1: softplus' = σ (the sigmoid) and σ' = σ(1 − σ), so softplus⁽ⁿ⁾ = Pₙ(σ),

    with P₁(s) = s and Pₙ₊₁ = Pₙ'(s)·s(1 − s).
    """
    p = Polynomial([0, 1])
    for _ in range(n - 1):
        p = p.deriv() * Polynomial([0, 1, -1])
    return p(0.5 * (1.0 + np.tanh(x / 2)))  # σ(x) without overflow in exp(-x)


def _polynomial_derivative(coefficients: list[float]) -> Callable[[int, np.ndarray], np.ndarray]:
    """Exact: numpy differentiates the coefficients (lowest degree first)."""
    return lambda n, x: Polynomial(coefficients).deriv(n)(x)


PRESETS = DERIVATIVE_PRESETS  # display name -> code; the UI offers the same ones
_CLOSED_FORMS = {  # a preset's code -> its nth derivative for n >= 1
    PRESETS[name].strip(): form for name, form in {
        "tanh": _tanh_derivative,
        "x + x² + x³ (JAX's introduction)": _polynomial_derivative([0, 1, 1, 1]),
        "sin": _sin_derivative,
        "polynomial": _polynomial_derivative([0, 2, 0, -3, 0, 1]),
        "softplus": _softplus_derivative,
    }.items()
}


def derivatives(code: str, order: int, x_min: float, x_max: float, points: int) -> dict:
    """f, f', ..., f⁽ᵒʳᵈᵉʳ⁾ of the user's f: R -> R on an even grid, each checked against a reference.

    The kth derivative is ``grad`` applied k times, evaluated on the grid as
    ``jit(vmap(grad^k f))``. Result keys: ``function``, ``dtype`` ("float64"),
    ``xs``, ``orders`` (one ``{"n", "ys", "max_error", "reference"}`` per k =
    0..order; k = 0 is f itself, with no reference), ``eqn_counts`` (see
    program_size.count_equations), ``hlo_op_counts`` (see program_size.count_hlo_instructions),
    ``jaxprs`` (``make_jaxpr(grad^k f)`` at a scalar) and ``notes``.

    ``reference`` is "closed form" when ``code`` (stripped) is one of the
    PRESETS, else "finite differences" (see finite_difference). ``max_error``
    is the largest absolute difference from it over the grid points where both
    are finite; a note counts any point left out. Values that are not finite
    (inf, nan) are sent as None, since JSON has no spelling for them.
    """
    closed_form = _CLOSED_FORMS.get(code.strip())
    xs = np.linspace(x_min, x_max, points)
    with jax.enable_x64(True), contextlib.redirect_stdout(usercode.CappedText(0)):  # prints repeat per trace
        try:
            program = usercode.load(code)
            dtype = _require_real_scalar(jax.eval_shape(program.function, jax.ShapeDtypeStruct((), jnp.float64)),
                                         f"`{program.name}` must map a scalar to a scalar (R -> R)")
            ladder = [program.function]
            for _ in range(order):
                ladder.append(jax.grad(ladder[-1]))
            jaxprs = [jax.make_jaxpr(g)(xs[0]) for g in ladder]
            compiled = [jax.jit(jax.vmap(g)).lower(xs).compile() for g in ladder]
            values = [np.asarray(c(xs), dtype=np.float64) for c in compiled]
            references = [None] + [closed_form(k, xs) if closed_form else finite_difference(compiled[k - 1], xs)
                                   for k in range(1, order + 1)]
        except Exception as exc:
            return staging.explained_error(exc, code)
    orders, notes = [], []
    if dtype != np.float64:
        notes.append(f"`{program.name}` returns {dtype.name}, not float64: its values, and so the errors, carry "
                     f"{dtype.name} rounding.")
    for k, (ys, reference) in enumerate(zip(values, references, strict=True)):
        max_error = None if reference is None else _max_error(k, ys, reference, notes)
        label = None if reference is None else "closed form" if closed_form else "finite differences"
        orders.append({"n": k, "ys": _floats(ys), "max_error": max_error, "reference": label})
    return {
        "ok": True,
        "function": program.name,
        "dtype": "float64",
        "xs": xs.tolist(),
        "orders": orders,
        "eqn_counts": [program_size.count_equations(j.jaxpr) for j in jaxprs],
        "hlo_op_counts": [program_size.count_hlo_instructions(c.as_text()) for c in compiled],
        "jaxprs": [cap_text(str(j), MAX_JAXPR_CHARS) for j in jaxprs],
        "notes": notes,
    }


def finite_difference(derivative: Callable, xs: np.ndarray) -> np.ndarray:
    """(g(x + h) − g(x − h)) / 2h for the order-below derivative g, on the whole grid.

    h = ε^(1/3)·max(1, |x|) ≈ 6e-6·max(1, |x|) balances the two errors of a
    central difference in float64: truncation, about h²/6·|g'''|, and
    rounding, about ε·|g|/h; the error is then near ε^(2/3) ≈ 4e-11 of the
    function's scale. Dividing by (x + h) − (x − h) rather than 2h uses the
    step actually taken after rounding.
    """
    step = FD_STEP * np.maximum(1.0, np.abs(xs))
    above, below = xs + step, xs - step
    return (np.asarray(derivative(above), np.float64) - np.asarray(derivative(below), np.float64)) / (above - below)


def gradient_and_hessian(code: str, point: str) -> dict:
    """The gradient and Hessian of the user's f: Rⁿ -> R at a point, plus jacfwd vs jacrev timings.

    ``point`` is a Python expression for a 1-D array, evaluated in the
    program's namespace (its first element, if it gives a tuple). The Hessian
    is ``jacfwd(jacrev(f))``: reverse mode for the gradient (one output),
    forward mode over it (n outputs, n inputs: either way costs n passes, and
    forward-over-reverse is the cheaper constant). All in float64.

    Result keys: ``function``, ``point``, ``value``, ``gradient``, ``hessian``,
    ``jacobians`` ({"wide", "tall"}, see compare_jacobian_modes) and
    ``explanation``.
    """
    with jax.enable_x64(True), contextlib.redirect_stdout(usercode.CappedText(0)):
        try:
            program = usercode.load(code)
            x = _point(usercode.evaluate_args(point, program.namespace)[0])
            _require_real_scalar(jax.eval_shape(program.function, x),
                                 f"`{program.name}` must map a vector to a scalar (Rⁿ -> R), like jnp.sum(x**2)")
            f = program.function
            value, gradient, hessian = jax.jit(lambda v: (f(v), jax.grad(f)(v), jax.jacfwd(jax.jacrev(f))(v)))(x)
        except Exception as exc:
            return staging.explained_error(exc, code)
        jacobians = compare_jacobian_modes(jax.random.key(0))
    return {
        "ok": True,
        "function": program.name,
        "point": _floats(x),
        "value": _floats(value),
        "gradient": _floats(gradient),
        "hessian": _floats(hessian),
        "jacobians": jacobians,
        "explanation": EXPLANATION,
    }


def compare_jacobian_modes(key: jax.Array, repeats: int = 7) -> dict:
    """Time jit(jacfwd) against jit(jacrev) on x -> tanh(W @ x), for a wide and a tall W.

    wide: R¹⁰⁰⁰ -> R⁴ (a 4 × 1000 Jacobian); tall: R⁴ -> R¹⁰⁰⁰ (1000 × 4).
    Each entry: ``{"shape": [m, n], "jacfwd_s", "jacrev_s", "faster"}``, the
    times being the median of ``repeats`` runs after a compiling warm-up.
    """
    wide_key, tall_key = jax.random.split(key)
    return {"wide": _time_modes(wide_key, 4, 1000, repeats), "tall": _time_modes(tall_key, 1000, 4, repeats)}


def _time_modes(key: jax.Array, outputs: int, inputs: int, repeats: int) -> dict:
    weights = jax.random.normal(key, (outputs, inputs), dtype=jnp.float64) / np.sqrt(inputs)
    x = jnp.linspace(-1.0, 1.0, inputs)

    def layer(w, v):
        return jnp.tanh(w @ v)

    times = {}
    for mode in (jax.jacfwd, jax.jacrev):
        jitted = jax.jit(mode(layer, argnums=1))
        times[f"{mode.__name__}_s"] = timing.measure(lambda f=jitted: f(weights, x), min_total_s=0, min_runs=repeats,
                                                     max_runs=repeats).median_s
    faster = "jacfwd" if times["jacfwd_s"] < times["jacrev_s"] else "jacrev"
    return {"shape": [outputs, inputs], **times, "faster": faster}


def _max_error(k: int, ys: np.ndarray, reference: np.ndarray, notes: list[str]) -> float | None:
    usable = np.isfinite(ys) & np.isfinite(reference)
    if not usable.all():
        notes.append(f"Order {k}: {int((~usable).sum())} of {ys.size} grid points left out of max_error "
                     f"(the reference is not finite at {int((~np.isfinite(reference)).sum())}, "
                     f"the derivative at {int((~np.isfinite(ys)).sum())}).")
    return float(np.max(np.abs(ys[usable] - reference[usable]))) if usable.any() else None


def _require_real_scalar(out, requirement: str) -> np.dtype:
    """The dtype of ``out`` (from eval_shape); invalid_input unless it is one real floating-point scalar."""
    leaves, treedef = jax.tree.flatten(out)
    if treedef.num_leaves != 1 or treedef.num_nodes != 1:
        raise UserCodeError("invalid_input", f"{requirement}; it returned a {type(out).__name__} "
                                             f"of {len(leaves)} arrays.")
    (leaf,) = leaves
    shape, dtype = tuple(leaf.shape), np.dtype(leaf.dtype)
    if shape != () or not np.issubdtype(dtype, np.floating):
        raise UserCodeError("invalid_input", f"{requirement}; it returned {staging.short_dtype(dtype)}{list(shape)}"
                                             f" (shape {shape}), and grad needs one real floating-point number.")
    return dtype


def _point(value) -> jax.Array:
    try:
        array = np.asarray(value)
    except Exception:  # ragged lists and other things numpy cannot make one array of
        array = np.asarray(None)
    if array.dtype == bool or not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise UserCodeError("invalid_input", f"The point must be an array of real numbers, got {type(value).__name__}.")
    if array.ndim != 1 or not 1 <= array.size <= MAX_DIMENSION:
        raise UserCodeError("invalid_input", f"The point must be a 1-D array of 1 to {MAX_DIMENSION} numbers, "
                                             f"got shape {array.shape}.")
    return jnp.asarray(array, dtype=jnp.float64)


def _floats(array):
    """A float, or nested lists of floats, with every non-finite value as None."""
    values = np.asarray(array, dtype=np.float64)
    objects = values.astype(object)
    objects[~np.isfinite(values)] = None
    return objects.tolist() if values.ndim else objects.item()


def derivatives_job(limits: Limits, code: str, order: int, x_min: float, x_max: float, points: int) -> dict:
    """The registry's "derivatives" job."""
    return derivatives(code, order, x_min, x_max, points)


def gradient_job(limits: Limits, code: str, point: str) -> dict:
    """The registry's "gradient" job."""
    return gradient_and_hessian(code, point)
