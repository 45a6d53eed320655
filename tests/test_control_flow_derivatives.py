"""Derivatives of functions with Python control flow on their input: JAX's docs' examples, point by point.

JAX's "Control flow and logical operators with JIT" page shows ``grad`` of a
function with a Python ``if`` on its input working, since ``grad`` alone runs
on real numbers. ``jit(vmap(grad f))`` cannot trace it; the Derivatives tab then
evaluates nested ``grad`` at each point without jit. Every result here is
compared with plain ``jax.grad`` run point by point in the test.
"""

from __future__ import annotations

from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from playground import replies
from playground.ipc.limits import Limits
from playground.jobs import REGISTRY
from playground.server.api import PlaygroundAPI, final
from playground.server.config import Settings
from playground.server.pools import WorkerPool
from playground.worker.functions import usercode
from playground.worker.jobs import derivatives as d
from playground.worker.jobs import hessians
from playground.worker.jobs import pointwise_derivatives as pointwise
from tests.conftest import HANDLERS

DOCS_IF = "def f(x):\n    if x < 3:\n        return 3. * x ** 2\n    else:\n        return -4 * x\n"
DOUBLING_WHILE = "def f(x):\n    while x < 10:\n        x = 2 * x\n    return jnp.sin(x) * x\n"
HALVING_WHILE = "def f(x):\n    n = 0\n    while x > 1:\n        x = x / 2\n        n += 1\n    return jnp.sin(x) * n\n"
# The budget of a loop that must reach every point of its grid (a fraction of a second for a handful): far beyond
# what they take on a loaded machine. (The default, 6 s, is the share of a job's wall clock.)
BUDGET_S = 60.0
# The docs' f, 20 ms slower per call whatever the machine: 2000 points (three calls each) then take at least two
# minutes, longer than any budget here, so the loop can only end by its budget.
SLOW_DOCS_IF = DOCS_IF.replace("def f(x):\n", "import time\ndef f(x):\n    time.sleep(0.02)\n")
TWO_VARIABLES = ("def f(x):\n    if x[0] > x[1]:\n        return jnp.sum(x ** 3) * x[0]\n"
                 "    return x[0] * x[1] ** 2 + jnp.sin(x[2])\n")


def plain_grads(code: str, order: int, xs) -> np.ndarray:
    """f, grad f, ... at each x, with jax.grad called here on each point, in float64."""
    with jax.enable_x64(True):
        ladder = [usercode.load(code).function]
        for _ in range(order):
            ladder.append(jax.grad(ladder[-1]))
        return np.array([[float(g(jnp.float64(x))) for x in xs] for g in ladder])


def ys(out: dict) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in o["ys"]] for o in out["orders"]])


def test_the_docs_if_example_gives_grad_12_at_2_and_minus_4_at_4():
    out = d.derivatives(DOCS_IF, 1, 2.0, 4.0, 2, budget_s=BUDGET_S)
    assert out["ok"], out
    assert out["xs"] == [2.0, 4.0]
    assert out["orders"][1]["ys"] == [12.0, -4.0]  # the docs print 12.0 and -4.0
    assert out["orders"][0]["ys"] == [12.0, -16.0]


@pytest.mark.parametrize(("code", "order", "x_min", "x_max", "points"), [
    (DOCS_IF, 3, -2.0, 5.5, 12),  # no grid point within h of the jump at 3
    (DOUBLING_WHILE, 2, 0.7, 9.0, 9),
    (HALVING_WHILE, 2, 0.5, 9.0, 8),
])
def test_every_point_equals_plain_grad_and_is_checked_by_finite_differences(code, order, x_min, x_max, points):
    out = d.derivatives(code, order, x_min, x_max, points, budget_s=BUDGET_S)
    assert out["ok"], out
    assert replies.check(REGISTRY["derivatives"].reply, out) is out
    run = out["point_by_point"]
    assert run["points"] == run["grid_points"] == points
    xs = np.linspace(x_min, x_max, points)
    np.testing.assert_array_equal(out["xs"], xs)
    np.testing.assert_allclose(ys(out), plain_grads(code, order, xs), rtol=1e-13, atol=1e-13)
    for o, values in zip(out["orders"][1:], ys(out)[1:], strict=True):
        assert o["reference"] == "finite differences"
        assert o["max_error"] < 1e-8 * max(1.0, np.max(np.abs(values))), (o["n"], o["max_error"])
    assert out["eqn_counts"] == out["hlo_op_counts"] == out["jaxprs"] == []


def test_the_reason_names_the_line_and_the_error():
    reason = d.derivatives(DOCS_IF, 1, 0.0, 1.0, 2, budget_s=BUDGET_S)["point_by_point"]["reason"]
    assert "line 2 (`if x < 3:`)" in reason and "TracerBoolConversionError" in reason
    assert "the value of `x`" in reason and "without jit" in reason
    reason = d.derivatives(DOUBLING_WHILE, 1, 1.0, 2.0, 2, budget_s=BUDGET_S)["point_by_point"]["reason"]
    assert "line 2 (`while x < 10:`)" in reason


def test_a_jump_between_x_minus_h_and_x_plus_h_shows_in_the_max_error():
    """At x = 3 the docs' f jumps from 27 to −12: the finite difference there cannot agree, and says so."""
    out = d.derivatives(DOCS_IF, 1, 2.0, 4.0, 3, budget_s=BUDGET_S)
    assert out["xs"] == [2.0, 3.0, 4.0] and out["orders"][1]["ys"] == [12.0, -4.0, -4.0]
    assert out["orders"][1]["max_error"] > 1e5


def test_a_traceable_function_still_takes_the_jit_path():
    out = d.derivatives("def f(x):\n    return jnp.where(x < 3, 3. * x ** 2, -4 * x)\n", 2, 0.0, 6.0, 7)
    assert out["ok"] and out["point_by_point"] is None and len(out["jaxprs"]) == 3


class TickingClock:
    """A perf_counter that moves on ``tick_s`` at each reading, whatever the real time: the budget then stops the
    loop after the same points on a quiet machine and on a loaded one."""

    def __init__(self, tick_s: float) -> None:
        self.now, self.tick_s = 0.0, tick_s

    def perf_counter(self) -> float:
        self.now += self.tick_s
        return self.now


def test_the_budget_stops_the_loop_with_points_spread_over_the_range(monkeypatch):
    budget = 2.5
    clock = TickingClock(0.02)  # five readings a point: 0.1 s of the budget each, about 25 points
    monkeypatch.setattr(d, "time", SimpleNamespace(perf_counter=clock.perf_counter))
    monkeypatch.setattr(pointwise, "time", SimpleNamespace(perf_counter=clock.perf_counter))
    out = d.derivatives(DOCS_IF, 3, -3.0, 6.0, 2000, budget_s=budget)
    assert out["ok"], out
    run = out["point_by_point"]
    assert 3 <= run["points"] < 2000 and run["grid_points"] == 2000
    # The clock is read after each eager call (one point is three), which cannot be interrupted: the loop stops
    # at the first reading past the budget, so it may overrun by one call.
    assert run["seconds"] <= budget + 1.0
    xs = np.array(out["xs"])
    assert xs[0] == -3.0 and xs[-1] == 6.0 and np.all(np.diff(xs) > 0)
    grid = np.linspace(-3.0, 6.0, 2000)
    first = pointwise.spread_order(2000)[:run["points"]]  # the coarse-to-fine order's first points, no others
    np.testing.assert_array_equal(xs, grid[sorted(first)])
    np.testing.assert_allclose(ys(out), plain_grads(DOCS_IF, 3, xs), rtol=1e-13, atol=1e-13)


def test_no_time_for_even_one_point_is_a_timeout_error():
    out = d.derivatives(DOCS_IF, 2, 0.0, 1.0, 10, budget_s=0.0)
    assert out["ok"] is False and out["error"]["kind"] == "timeout"
    assert "first grid point" in out["error"]["message"]


def test_what_fails_without_jit_too_says_so():
    out = d.derivatives("def f(x):\n    if x < 0:\n        return float(x) * x\n    return x\n", 1, -1.0, 1.0, 3)
    assert out["ok"] is False and out["error"]["kind"] == "user_exception" and out["error"]["line"] == 3
    assert out["error"]["message"].startswith("Without jit too: `jit(vmap(grad))` could not trace `f`: line 2")
    assert "ConcretizationTypeError" in out["error"]["message"]


@pytest.mark.parametrize("n", [1, 2, 3, 9, 10, 200])
def test_spread_order_visits_each_point_once_ends_first(n):
    order = pointwise.spread_order(n)
    assert sorted(order) == list(range(n))
    assert order[:2] == ([0, n - 1] if n > 1 else [0])


def test_every_level_of_spread_order_halves_the_gaps():
    order = pointwise.spread_order(17)
    for level, step in enumerate((16, 8, 4, 2, 1)):
        assert sorted(order[:2 ** level + 1]) == list(range(0, 17, step))


@pytest.mark.parametrize("point", [[2.0, 1.0, 0.5], [1.0, 2.0, 0.5]], ids=["x0 above x1", "x0 below x1"])
def test_gradient_and_hessian_with_an_if_on_two_variables_equal_plain_jax(point):
    out = hessians.gradient_and_hessian(TWO_VARIABLES, repr(point))
    assert out["ok"], out
    assert replies.check(REGISTRY["gradient"].reply, out) is out
    assert "line 2 (`if x[0] > x[1]:`)" in out["without_jit"]
    with jax.enable_x64(True):
        f = usercode.load(TWO_VARIABLES).function
        x = jnp.array(point, dtype=jnp.float64)
        np.testing.assert_allclose(out["value"], f(x), rtol=1e-14)
        np.testing.assert_allclose(out["gradient"], jax.grad(f)(x), rtol=1e-14, atol=1e-14)
        np.testing.assert_allclose(out["hessian"], jax.hessian(f)(x), rtol=1e-14, atol=1e-14)


# -- through the real API: a real worker pool, its limits, the reply's schema --------------------------


@pytest.fixture(scope="module")
def api():
    # 15 s: the job's share left beside the point-by-point budget (40 %: 6 s) is for tracing, the checks and the
    # reply, a second or so on a loaded machine.
    limits = Limits(timeout_s=15.0)
    pool = WorkerPool(1, limits, HANDLERS)
    pool.start()
    yield PlaygroundAPI(pool=pool, settings=Settings(workers=1, limits=limits))
    pool.close()


@pytest.mark.slow  # a real worker pool
def test_through_the_api_the_loop_stops_in_time_with_a_partial_result(api):
    out = final(api.derivatives(SLOW_DOCS_IF, 4, -3.0, 6.0, 2000))
    assert out["ok"], out  # not killed by the 15 s wall clock
    run = out["point_by_point"]
    assert 1 <= run["points"] < 2000 and run["budget_s"] == pytest.approx(15.0 * d.POINT_BY_POINT_SHARE)
    np.testing.assert_allclose(ys(out), plain_grads(DOCS_IF, 4, out["xs"]), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize(("call", "named"), [
    (lambda api: final(api.gradient(TWO_VARIABLES, "")), "`point` is empty: give the point as a 1-D array"),
    (lambda api: final(api.gradient(TWO_VARIABLES, "   ")), "`point` is empty: give the point as a 1-D array"),
    (lambda api: final(api.vmap("def f(x):\n    return x * 2\n", "", "0")),
     "“One example's arguments” (`args`) is empty"),
    (lambda api: final(api.vmap("def f(x, y):\n    return x * y\n", "jnp.ones(2)", "0")),
     "cannot be called on “One example's arguments” (`args`, 1 value)"),
    (lambda api: final(api.derivatives("def f(x, y):\n    return x\n")), "cannot be called on one number"),
])
@pytest.mark.slow  # a real worker pool
def test_through_the_api_empty_fields_are_named(api, call, named):
    out = call(api)
    assert out["ok"] is False and out["error"]["kind"] == "invalid_input", out
    assert named in out["error"]["message"]
