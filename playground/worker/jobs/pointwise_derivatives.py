"""Derivatives point by point, without jit, for functions whose Python control flow reads the input's value.

``jit`` and ``vmap`` trace a function on stand-ins that have a shape and a dtype
but no value, so ``if x < 3:`` cannot pick a branch under them. ``grad`` alone
runs the function on the real number: Python picks the branch and JAX
differentiates the path taken (JAX's "Control flow and logical operators with
JIT" page, "Python control flow + autodiff"). Point by point, every grid point
is its own eager call, op by op in Python (one call gives all orders, see
all_orders): much slower than one compiled call for the whole grid, so it runs
against a deadline.

The points are visited coarse to fine, so that wherever the deadline stops the
loop, the points done are spread over the whole range:

>>> spread_order(9)
[0, 8, 4, 2, 6, 1, 3, 5, 7]

Runs inside a worker.
"""

from __future__ import annotations

import collections
import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from playground.errors import MAX_MESSAGE_CHARS, UserCodeError, cap_text
from playground.worker.jobs import derivative_references as references
from playground.worker.jobs import inspect as staging
from playground.worker.lessons import user_errors

# What tracing raises when the function needs its input's value: a branch, an int, a mask's size.
NEEDS_VALUES = (jax.errors.ConcretizationTypeError, jax.errors.NonConcreteBooleanIndexError)
_MAX_LINE_CHARS = 120


@dataclass(frozen=True)
class PointByPoint:
    """What the loop got done before the deadline."""

    indices: np.ndarray  # the grid points evaluated, in increasing order
    values: np.ndarray  # (orders + 1, points done): f, f′, ... at those points
    references: np.ndarray  # (orders, points done): each order's finite difference of the order below
    seconds: float  # the loop's wall-clock time, the first point's kernel compilations included


class OutOfTime(Exception):
    """An eager call ended past its deadline."""


def untraced_at(exc: BaseException, code: str, function: Callable) -> dict:
    """Where tracing needed the input's value (derivative_notes.untraced writes it in words): the line and its
    source (None and "" where no line of the user's is named), the first parameter (None if it has no plain one)
    and the exception's name."""
    line = user_errors.user_line(exc)
    lines = code.splitlines()
    source = lines[line - 1].strip()[:_MAX_LINE_CHARS] if line and line <= len(lines) else ""
    return {"line": line if source else None, "source": source, "parameter": _first_parameter(function),
            "exception": type(exc).__name__}


def explained_failure(exc: BaseException, code: str, why_without_jit: str | None) -> dict:
    """The error explained; one that came without jit, after jit could not trace, says that first."""
    result = staging.explained_error(exc, code)
    if why_without_jit is not None:
        error = result["error"]
        error["message"] = cap_text(f"Without jit too: {why_without_jit} That failed: {error['message']}",
                                    MAX_MESSAGE_CHARS)
    return result


def spread_order(n: int) -> list[int]:
    """0 .. n−1, ends first, then the midpoints of the gaps, level by level: every prefix spans the range."""
    order = [0, n - 1] if n > 1 else [0]
    gaps = collections.deque([(0, n - 1)])
    while gaps:
        low, high = gaps.popleft()
        if high - low >= 2:
            middle = (low + high) // 2
            order.append(middle)
            gaps.extend(((low, middle), (middle, high)))
    return order


def evaluate(function: Callable, order: int, xs: np.ndarray, deadline: float) -> PointByPoint:
    """f and its derivatives up to ``order`` ≥ 1 (nested ``grad``) at each x, eagerly, until ``deadline``.

    With each point come the finite differences that check it: orders 0 to
    order − 1 at x ± h (derivative_references.central_points). A point is
    kept only whole; the loop does not start one it expects (from the one
    before) to end past ``deadline``, and drops one that does. If not even the
    first point finishes in time, that is a ``timeout`` error.
    """
    at_x, below = all_orders(function, order), all_orders(function, order - 1)
    started = time.perf_counter()
    done: dict[int, tuple[list[float], list[float]]] = {}
    last_s = 0.0
    for index in spread_order(len(xs)):
        begun = time.perf_counter()
        if done and begun + last_s > deadline:
            break
        try:
            done[index] = _one_point(at_x, below, float(xs[index]), deadline)
        except OutOfTime:
            if not done:
                raise UserCodeError("timeout", f"Point by point without jit, even the first grid point did not "
                                    f"finish in the {deadline - started:.1f} s there was for all of them (orders 0 "
                                    f"to {order}, with their finite-difference checks). Ask for a lower "
                                    "order.") from None
            break
        last_s = time.perf_counter() - begun
    indices = np.array(sorted(done))
    return PointByPoint(
        indices=indices,
        values=np.array([done[i][0] for i in indices]).T,
        references=np.array([done[i][1] for i in indices]).T.reshape(order, len(indices)),
        seconds=time.perf_counter() - started,
    )


def all_orders(function: Callable, order: int) -> Callable:
    """x -> (f(x), f′(x), ..., f⁽ᵒʳᵈᵉʳ⁾(x)) in one call: ``grad`` nested ``order`` times, as in grad(grad(f)),

    each level handing the value it differentiated out as ``has_aux``, so the
    lower orders come for free instead of from calls of their own.

    >>> [float(v) for v in all_orders(jnp.sin, 2)(0.5)] == [float(jnp.sin(0.5)), float(jnp.cos(0.5)),
    ...                                                      -float(jnp.sin(0.5))]
    True
    """
    def nested(k: int) -> Callable:
        if k == 0:
            return lambda x: (function(x), ())
        inner = nested(k - 1)

        def value_and_lower(x):
            value, lower = inner(x)
            return value, (*lower, value)
        return jax.grad(value_and_lower, has_aux=True)
    top = nested(order)

    def every_order(x):
        value, lower = top(x)
        return (*lower, value)
    return every_order


def values_and_slopes(function: Callable, deadline: float) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """points -> (f, f′) at each, one eager call a point (jumps.py bisects with it); OutOfTime past ``deadline``."""
    both = all_orders(function, 1)

    def evaluate(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        values = np.array([_at(both, float(x), deadline) for x in points]).reshape(len(points), 2)
        return values[:, 0], values[:, 1]
    return evaluate


def _one_point(at_x: Callable, below: Callable, x: float, deadline: float) -> tuple[list[float], list[float]]:
    """(each order at x, each order's finite difference of the order below), all in float64."""
    above_x, below_x = references.central_points(np.float64(x))
    values = _at(at_x, x, deadline)
    upper, lower = _at(below, above_x, deadline), _at(below, below_x, deadline)
    return values, [(u - v) / (above_x - below_x) for u, v in zip(upper, lower, strict=True)]


def _at(orders: Callable, x: float, deadline: float) -> list[float]:
    values = [float(np.asarray(v, np.float64)) for v in orders(jnp.asarray(x, jnp.float64))]
    if time.perf_counter() > deadline:
        raise OutOfTime
    return values


def _first_parameter(function: Callable) -> str | None:
    """The name of the function's first parameter (``x``), or None if it has no plain one."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return None
    plain = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return parameters[0].name[:100] if parameters and parameters[0].kind in plain else None
