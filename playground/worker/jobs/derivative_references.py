"""What each derivative is checked against: a closed form for the presets, else a central finite difference.

The closed forms are written with NumPy, independently of JAX:

>>> closed_form("def f(x):\\n    return jnp.sin(x)\\n")(1, np.array([0.0]))
array([1.])
>>> closed_form("def f(x):\\n    return jnp.cos(x)\\n") is None
True

A finite difference checks the kth derivative against the (k-1)th, whatever
the function: see finite_difference.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.polynomial import Polynomial

from playground.gallery import DERIVATIVE_PRESETS

FD_STEP = float(np.finfo(np.float64).eps) ** (1 / 3)  # ≈ 6.1e-6, see finite_difference
CLOSED_FORM, FINITE_DIFFERENCES = "closed form", "finite differences"  # the reply's names for them

ClosedForm = Callable[[int, np.ndarray], np.ndarray]  # (n, xs) -> the nth derivative at xs, for n >= 1


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


def _polynomial_derivative(coefficients: list[float]) -> ClosedForm:
    """Exact: numpy differentiates the coefficients (lowest degree first)."""
    return lambda n, x: Polynomial(coefficients).deriv(n)(x)


_CLOSED_FORMS = {  # a preset's code -> its nth derivative for n >= 1
    DERIVATIVE_PRESETS[name].strip(): form for name, form in {
        "tanh": _tanh_derivative,
        "x + x² + x³ (JAX's introduction)": _polynomial_derivative([0, 1, 1, 1]),
        "sin": _sin_derivative,
        "polynomial": _polynomial_derivative([0, 2, 0, -3, 0, 1]),
        "softplus": _softplus_derivative,
    }.items()
}


def closed_form(code: str) -> ClosedForm | None:
    """The closed form of the preset whose code this is (up to surrounding whitespace), else None."""
    return _CLOSED_FORMS.get(code.strip())


def central_points(xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x + h and x − h for each x, with h = ε^(1/3)·max(1, |x|) (see finite_difference)."""
    step = FD_STEP * np.maximum(1.0, np.abs(xs))
    return xs + step, xs - step


def finite_difference(derivative: Callable, xs: np.ndarray) -> np.ndarray:
    """(g(x + h) − g(x − h)) / 2h for the order-below derivative g, on the whole grid.

    h = ε^(1/3)·max(1, |x|) ≈ 6e-6·max(1, |x|) balances the two errors of a
    central difference in float64: truncation, about h²/6·|g'''|, and
    rounding, about ε·|g|/h; the error is then near ε^(2/3) ≈ 4e-11 of the
    function's scale. Dividing by (x + h) − (x − h) rather than 2h uses the
    step actually taken after rounding.

    >>> float(finite_difference(np.exp, np.array([0.0]))[0])  # exp'(0) = 1
    1.0000000000...
    """
    above, below = central_points(xs)
    return (np.asarray(derivative(above), np.float64) - np.asarray(derivative(below), np.float64)) / (above - below)


def max_error(ys: np.ndarray, reference: np.ndarray) -> float | None:
    """The largest |ys − reference| over the points where both are finite (None where there are none)."""
    usable = np.isfinite(ys) & np.isfinite(reference)
    return float(np.max(np.abs(ys[usable] - reference[usable]))) if usable.any() else None


def left_out(ys: np.ndarray, reference: np.ndarray) -> dict | None:
    """How many points max_error leaves out, ``{"points", "reference", "derivative"}`` (where each is not finite);
    None where it leaves out none."""
    usable = np.isfinite(ys) & np.isfinite(reference)
    if usable.all():
        return None
    return {"points": int((~usable).sum()), "reference": int((~np.isfinite(reference)).sum()),
            "derivative": int((~np.isfinite(ys)).sum())}


# Beyond this share of a derivative's scale, a finite difference disagrees for a reason other than rounding (near
# ε^(2/3) ≈ 4e-11 of it, finite_difference says): the function breaks between x − h and x + h.
UNSMOOTH_SHARE = 1e-4
# A function that rounds to a coarser dtype leaves its difference about ε/h of its scale (0.02 in float32): beyond
# this many times that, too.
ROUNDINGS = 100


def unsmooth(xs: np.ndarray, ys: np.ndarray, reference: np.ndarray, dtype: np.dtype) -> tuple[float, float] | None:
    """Where a finite-difference check disagrees far beyond rounding, (x, by how much) at its worst: the function
    jumps or kinks there (autodiff gives the slope of the piece x is on, a difference across the break measures the
    break); None where it agrees, as far as rounding in f's ``dtype`` lets it.

    >>> xs = np.linspace(2.0, 4.0, 5)  # JAX's example: 3x² below 3, −4x from 3 on (a jump of 39 at x = 3)
    >>> step = lambda x: np.where(x < 3, 3 * x ** 2, -4 * x)
    >>> x, off = unsmooth(xs, np.where(xs < 3, 6 * xs, -4.0), finite_difference(step, xs), np.dtype(np.float64))
    >>> x, f"{off:.2g}"
    (3.0, '1.1e+06')
    """
    usable = np.isfinite(ys) & np.isfinite(reference)
    if not usable.any():
        return None
    errors = np.where(usable, np.abs(ys - reference), 0.0)
    worst = int(np.argmax(errors))
    scale = max(1.0, float(np.max(np.abs(ys[usable]))))
    share = max(UNSMOOTH_SHARE, ROUNDINGS * float(np.finfo(dtype).eps) / FD_STEP)
    if errors[worst] <= share * scale:
        return None
    return float(xs[worst]), float(errors[worst])
