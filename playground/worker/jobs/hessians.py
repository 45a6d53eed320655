"""The gradient and Hessian of the user's f: Rⁿ -> R at one point, and jacfwd against jacrev. Runs inside a worker.

>>> out = gradient_and_hessian("def f(x):\\n    return jnp.sum(x**3)\\n", "jnp.array([1.0, 2.0])")
>>> out["gradient"], out["hessian"], out["without_jit"]
([3.0, 12.0], [[6.0, 0.0], [0.0, 12.0]], None)
"""

from __future__ import annotations

import contextlib

import jax
import jax.numpy as jnp
import numpy as np

from playground import derivative_notes, messages
from playground.errors import UserCodeError
from playground.validation import field
from playground.worker.functions import call_signature, usercode
from playground.worker.functions.real_scalars import floats, require_real_scalar, shape_of
from playground.worker.jobs import jacobian_modes
from playground.worker.jobs import pointwise_derivatives as pointwise

MAX_DIMENSION = 200  # the Hessian has n² entries, and all of them go back as JSON
_RN_TO_R = "`{}` must map a vector to a scalar (Rⁿ -> R), like jnp.sum(x**2)"


def gradient_and_hessian(code: str, point: str) -> dict:
    """The gradient and Hessian of the user's f: Rⁿ -> R at a point, plus jacfwd vs jacrev timings.

    ``point`` is a Python expression for a 1-D array, evaluated in the
    program's namespace (its first element, if it gives a tuple). The Hessian
    is ``jacfwd(jacrev(f))``: reverse mode for the gradient (one output),
    forward mode over it (n outputs, n inputs: either way costs n passes, and
    forward-over-reverse is the cheaper constant). All in float64, under
    ``jit``; if tracing needs the input's value (a Python ``if`` on it), without.

    Result keys: ``function``, ``point``, ``value``, ``gradient``, ``hessian``,
    ``without_jit`` (None, or the sentence saying why jit was left out), ``without_jit_at`` (None, or its facts:
    pointwise_derivatives.untraced_at),
    ``jacobians`` ({"wide", "tall"}, see jacobian_modes) and ``explanation``.
    """
    with jax.enable_x64(True), contextlib.redirect_stdout(usercode.CappedText(0)):
        without_jit = at = None
        try:
            program = usercode.load(code)
            x = _point(point, program.namespace)
            f = program.function
            call_signature.check_call(f, program.name, (x,), "one vector, the point")

            def value_gradient_hessian(v):
                return f(v), jax.grad(f)(v), jax.jacfwd(jax.jacrev(f))(v)
            try:
                require_real_scalar(jax.eval_shape(f, x), _RN_TO_R.format(program.name))
                value, gradient, hessian = jax.jit(value_gradient_hessian)(x)
            except pointwise.NEEDS_VALUES as exc:
                at = pointwise.untraced_at(exc, code, f)
                without_jit = derivative_notes.untraced(at, "gradient", program.name)
                require_real_scalar(shape_of(f(x)), _RN_TO_R.format(program.name))
                value, gradient, hessian = value_gradient_hessian(x)
        except Exception as exc:
            return pointwise.explained_failure(exc, code, without_jit)
        jacobians = jacobian_modes.compare_jacobian_modes(jax.random.key(0))
    return {
        "ok": True,
        "function": program.name,
        "point": floats(x),
        "value": floats(value),
        "gradient": floats(gradient),
        "hessian": floats(hessian),
        "without_jit": without_jit,
        "without_jit_at": at,
        "jacobians": jacobians,
        "explanation": jacobian_modes.EXPLANATION,
    }


def _point(text: str, namespace: dict) -> jax.Array:
    """The point as typed (``point``), evaluated, as a float64 vector."""
    if not text.strip():
        raise UserCodeError.saying("invalid_input", messages.piece("invalid.point_empty", field=field("point")))
    value = usercode.evaluate_args(text, namespace)[0]
    try:
        array = np.asarray(value)
    except Exception:  # ragged lists and other things numpy cannot make one array of
        array = np.asarray(None)
    if array.dtype == bool or not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise UserCodeError.saying("invalid_input", messages.piece("invalid.point_not_real", field=field("point"),
                                                                   type=type(value).__name__))
    if array.ndim != 1 or not 1 <= array.size <= MAX_DIMENSION:
        raise UserCodeError.saying("invalid_input", messages.piece("invalid.point_shape", field=field("point"),
                                                                   most=str(MAX_DIMENSION), shape=str(array.shape)))
    return jnp.asarray(array, dtype=jnp.float64)
