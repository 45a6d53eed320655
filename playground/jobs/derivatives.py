"""The Derivatives tab's jobs: f and its derivatives on an interval, and the gradient and Hessian at a point."""

from __future__ import annotations

from playground import replies, validation
from playground.derivative_notes import MAX_JUMPS_LISTED
from playground.jobs import JobKind
from playground.jobs.arguments import MAX_ORDER, MAX_POINTS, code, number, text, whole
from playground.replies import (
    COUNT,
    FLOATS,
    JACOBIAN_TIMING,
    MAYBE_AMOUNT,
    MAYBE_LINE,
    MAYBE_NUMBER,
    NUMBER,
    SECONDS,
    SHORT,
    TEXT,
)
from playground.schema import Either, Flag, ListOf, Name, Null, OneOf, Real, Record, Text, Whole

POSITION = 30


def _interval(arguments: dict) -> dict | None:
    if not arguments["x_min"] < arguments["x_max"]:
        return validation.invalid("invalid.below", low=validation.field("x_min"), low_value=float(arguments["x_min"]),
                                  high=validation.field("x_max"), high_value=float(arguments["x_max"]))
    return None


# Where tracing needed f's input's value (worker/jobs/pointwise_derivatives.untraced_at): the page words it.
UNTRACED = Record({"line": MAYBE_LINE, "source": SHORT, "parameter": Either((Text(100), Null())),
                   "exception": Text(200)})

# The reply's every field, checked in the server before anything uses it (playground/replies.py).
DERIVATIVES = replies.ok(
    function=Name(), dtype=Text(40), xs=ListOf(MAYBE_NUMBER, 10_000),
    orders=ListOf(Record({"n": Whole(0, 64), "ys": ListOf(MAYBE_NUMBER, 10_000), "max_error": MAYBE_AMOUNT,
                          "reference": Either((OneOf(("closed form", "finite differences")), Null()))}), 65),
    eqn_counts=ListOf(COUNT, 65), hlo_op_counts=ListOf(COUNT, 65), jaxprs=ListOf(TEXT, 65),
    left_out=ListOf(Record({"n": Whole(1, 64), "points": COUNT, "reference": COUNT, "derivative": COUNT}), 64),
    breaks=Record({"checks": ListOf(Record({"n": Whole(1, 64), "x": NUMBER, "off": Real(0.0)}), 64),
                   "jumps": ListOf(Record({"x": NUMBER, "size": MAYBE_NUMBER, "point": Flag(),
                                           "between": Either((Null(), ListOf(NUMBER, 2)))}), MAX_JUMPS_LISTED),
                   "jumps_found": COUNT}),
    notes=ListOf(SHORT, 100),
    point_by_point=Either((Null(), Record({"reason": SHORT, "at": UNTRACED, "points": COUNT, "grid_points": COUNT,
                                           "seconds": SECONDS, "budget_s": SECONDS}))),
)

GRADIENT = replies.ok(
    function=Name(), point=FLOATS, value=FLOATS, gradient=FLOATS, hessian=FLOATS, without_jit=Either((SHORT, Null())),
    without_jit_at=Either((UNTRACED, Null())),
    jacobians=Record({"wide": JACOBIAN_TIMING, "tall": JACOBIAN_TIMING}), explanation=TEXT,
)

DOC = """f, f', ..., f^(order) of ``f: R -> R`` on ``points`` values from ``x_min`` to ``x_max``.

Evaluated with ``vmap`` of nested ``grad``, in float64; each order is checked
against closed forms (presets) or finite differences of the order below.
Returns ``{"ok", "function", "dtype", "xs", "orders": [{"n", "ys", "max_error",
"reference"}], "eqn_counts", "hlo_op_counts", "jaxprs", "left_out", "breaks", "notes",
"point_by_point"}``. ``left_out``: ``{"n", "points", "reference", "derivative"}`` for each order
whose max_error leaves out grid points where a value is not finite.
``breaks`` says where f is not smooth: ``checks`` (``{"n", "x", "off"}``, each order whose
finite-difference check is off far beyond rounding, at its worst x) and ``jumps`` (``{"x",
"size", "point", "between"}``: the first few of the ``jumps_found`` places where f jumps,
between grid points too, each pinned down by bisection; ``point``: only f(x) itself is off;
``between``: the grid points around a place there was no time to search); ``notes`` says it in
words.
``point_by_point`` is null, unless Python control flow on x kept ``jit``/``vmap``
from tracing ``f``: then nested ``grad`` ran at each point without jit, within a
share of the time limit, and it says why (``reason``, in words; ``at``: ``{"line", "source", "parameter",
"exception"}``, where tracing needed x's value), how many points and how long."""

KINDS = (
    JobKind("derivatives", "playground.worker.jobs.derivatives:derivatives_job", (
        code("Python source defining ``f(x)`` of one scalar (named ``f``, else the last ``def``)."),
        whole("order", "the highest derivative, from 1 to 8.", 1, MAX_ORDER, 3),
        number("x_min", "the first x.", -3.0), number("x_max", "the last x.", 3.0),
        whole("points", "how many x values, evenly spaced (2 to 2,000).", 2, MAX_POINTS, 200)),
        DERIVATIVES, DOC, together=_interval),
    JobKind("gradient", "playground.worker.jobs.derivatives:gradient_job", (
        code("Python source defining ``f(x)`` of one vector returning a scalar (named ``f``, else the last "
             "``def``)."),
        text("point", 'where to differentiate, as a Python expression, e.g. "jnp.array([1.0, 2.0])".')),
        GRADIENT,
        """Gradient and Hessian (``jacfwd(jacrev(f))``) of ``f: R^n -> R`` at ``point``, and jacfwd vs jacrev timing.

``without_jit`` is null, or why ``jit`` could not trace ``f`` (Python control flow on its input), which
was then differentiated at the point without it; ``without_jit_at`` is null or the facts it says
(``{"line", "source", "parameter", "exception"}``).

Returns ``{"ok", "function", "point", "value", "gradient", "hessian", "without_jit", "without_jit_at", "jacobians"
(jacfwd vs jacrev on a wide and a tall Jacobian), "explanation"}``.""", timed=True),  # it times jacfwd vs jacrev
)
