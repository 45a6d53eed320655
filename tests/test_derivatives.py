"""playground.worker.jobs.derivatives: nth derivatives, Hessians, Jacobian modes, checked against references."""

from __future__ import annotations

import json
import re

import gradio as gr
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads
from numpy.polynomial import hermite

from playground.server.api import PlaygroundAPI, final
from playground.server.config import Settings
from playground.server.pools.reply import validated
from playground.server.ui import derivatives_tab
from playground.server.ui.derivatives_views import pick_jaxpr, render_gradient, render_orders
from playground.server.ui.markdown import verdict
from playground.worker.functions import usercode
from playground.worker.jobs import derivatives as d
from playground.worker.jobs import hessians
from playground.worker.measurement import program_size
from tests.conftest import OnePool
from tests.tab_context import tab_context

OK, WARNING = (verdict("ok"), verdict("warning"))  # the labels that replaced emoji
WARNING_DE = verdict("warning", "de")
RUNNING_ORDERS = verdict("busy") + " Differentiating…"  # the code has no Python if or while to warn of
NO_JAXPR = ("# No jaxpr: the function was evaluated point by point without jit, and its Python control flow may "
            "take another path at each point, so there is no one program to show.")

TANH, SIN, POLYNOMIAL = d.PRESETS["tanh"], d.PRESETS["sin"], d.PRESETS["polynomial"]
HESSIAN_CODE = "def f(x):\n    return jnp.sum(x**3) + x[0]*x[1]\n"
HESSIAN_POINT = "jnp.array([1.0, 2.0, 3.0])"


@pytest.fixture(autouse=True)
def x64_stays_off():
    """The module turns on float64 for its own job only; other test files must not inherit it."""
    before = jax.config.jax_enable_x64
    yield
    after = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", before)
    assert after == before, "jax_enable_x64 leaked out of playground.worker.jobs.derivatives"


@pytest.fixture(scope="module")
def hessian_result():
    return hessians.gradient_and_hessian(HESSIAN_CODE, HESSIAN_POINT)


def _tanh_closed(n, x):
    """Written out by hand from tanh' = 1 − tanh²; P₅(0) = 16 = 5!·(2/15), the x⁵ Taylor coefficient."""
    t = np.tanh(x)
    return [t, 1 - t**2, -2*t + 2*t**3, -2 + 8*t**2 - 6*t**4, 16*t - 40*t**3 + 24*t**5,
            16 - 136*t**2 + 240*t**4 - 120*t**6][n]


def _sin_closed(n, x):
    return [np.sin(x), np.cos(x), -np.sin(x), -np.cos(x), np.sin(x), np.cos(x)][n]


def _polynomial_closed(n, x):  # x⁵ − 3x³ + 2x
    return [x**5 - 3*x**3 + 2*x, 5*x**4 - 9*x**2 + 2, 20*x**3 - 18*x, 60*x**2 - 18, 120*x,
            120 + 0*x][n]


def _gaussian_closed(n, x):
    """dⁿ/dxⁿ exp(−x²) = (−1)ⁿ Hₙ(x) exp(−x²), Hₙ the physicists' Hermite polynomial."""
    return (-1) ** n * hermite.hermval(x, [0] * n + [1]) * np.exp(-x * x)


def _ys(order):
    return np.array([np.nan if v is None else v for v in order["ys"]])


@pytest.mark.parametrize(("code", "closed", "x_min", "x_max"), [
    (TANH, _tanh_closed, -3.0, 3.0),
    (SIN, _sin_closed, -7.0, 7.0),
    (POLYNOMIAL, _polynomial_closed, -2.5, 2.5),
    ("def f(x):\n    return jnp.exp(-x*x)\n", _gaussian_closed, -3.0, 3.0),
])
def test_every_order_matches_a_closed_form_written_here(code, closed, x_min, x_max):
    out = d.derivatives(code, 5, x_min, x_max, 101)
    assert out["ok"], out
    assert out["dtype"] == "float64"
    xs = np.linspace(x_min, x_max, 101)
    np.testing.assert_array_equal(out["xs"], xs)
    assert [o["n"] for o in out["orders"]] == list(range(6))
    for order in out["orders"]:
        expected = closed(order["n"], xs)
        scale = max(1.0, np.max(np.abs(expected)))
        assert np.max(np.abs(_ys(order) - expected)) < 1e-10 * scale, order["n"]


@pytest.mark.parametrize("name", list(d.PRESETS))
def test_presets_agree_with_their_closed_forms(name):
    out = d.derivatives(d.PRESETS[name], 5, -4.0, 4.0, 200)
    assert out["ok"], out
    assert out["orders"][0]["max_error"] is None and out["orders"][0]["reference"] is None
    for order in out["orders"][1:]:
        assert order["reference"] == "closed form"
        scale = max(1.0, np.max(np.abs(_ys(order))))
        assert 0.0 <= order["max_error"] < 1e-10 * scale, (name, order["n"], order["max_error"])
    assert out["notes"] == []


def test_preset_code_is_recognised_up_to_surrounding_whitespace():
    out = d.derivatives("\n\n" + TANH.strip() + "   \n", 1, -1.0, 1.0, 5)
    assert out["orders"][1]["reference"] == "closed form"


def test_presets_are_small_functions_of_x():
    assert {"tanh", "sin", "polynomial", "softplus", "x + x² + x³ (JAX's introduction)"} <= set(d.PRESETS)
    assert d.PRESETS["tanh"] == "def f(x):\n    return jnp.tanh(x)\n"
    assert "x + x*x + x*x*x" in d.PRESETS["x + x² + x³ (JAX's introduction)"]


def test_finite_differences_check_a_function_that_is_not_a_preset():
    out = d.derivatives("def f(x):\n    return jnp.exp(-x*x)\n", 4, -3.0, 3.0, 300)
    assert out["ok"], out
    for order in out["orders"][1:]:
        assert order["reference"] == "finite differences"
        assert order["max_error"] < 1e-7, (order["n"], order["max_error"])


def test_finite_differences_catch_a_wrong_derivative_rule():
    """A custom_jvp that claims d/dx sin = 2 cos: the reference must disagree, by about max|cos| = 1."""
    code = ("@jax.custom_jvp\ndef f(x):\n    return jnp.sin(x)\n\n"
            "@f.defjvp\ndef f_jvp(primals, tangents):\n"
            "    (x,), (t,) = primals, tangents\n    return jnp.sin(x), 2 * jnp.cos(x) * t\n")
    out = d.derivatives(code, 1, -3.0, 3.0, 61)
    assert out["ok"], out
    assert 0.9 < out["orders"][1]["max_error"] < 1.1


def test_jaxprs_are_those_of_nested_grad_at_a_float64_scalar():
    out = d.derivatives(TANH, 3, -1.0, 1.0, 5)
    g = jnp.tanh
    with jax.enable_x64(True):
        for k in range(4):
            assert out["jaxprs"][k] == str(jax.make_jaxpr(g)(np.float64(0.0)))
            g = jax.grad(g)
    assert "f64[]" in out["jaxprs"][0]


def test_eqn_counts_grow_with_the_order_for_tanh_and_hlo_counts_are_positive():
    out = d.derivatives(TANH, 5, -1.0, 1.0, 8)
    counts = out["eqn_counts"]
    assert len(counts) == 6 and counts[0] == 1  # tanh itself is one equation
    assert all(b > a for a, b in zip(counts, counts[1:], strict=False)), counts
    assert counts[5] > 4 * counts[2]  # each grad differentiates a bigger program than the last
    hlo = out["hlo_op_counts"]
    assert len(hlo) == 6 and all(isinstance(n, int) and n > 0 for n in hlo), hlo


def test_eqn_counts_never_shrink_for_the_other_presets():
    for name in ("sin", "polynomial", "softplus"):
        counts = d.derivatives(d.PRESETS[name], 4, -1.0, 1.0, 4)["eqn_counts"]
        assert all(b >= a for a, b in zip(counts, counts[1:], strict=False)), (name, counts)


def test_count_equations_looks_inside_sub_jaxprs():
    inner = jax.jit(lambda x: jnp.sin(x) * 2.0)
    jaxpr = jax.make_jaxpr(lambda x: inner(x) + 1.0)(1.0).jaxpr
    assert len(jaxpr.eqns) == 2  # the jit call and the add
    assert program_size.count_equations(jaxpr) == 4  # ... plus sin and mul inside the call
    cond = jax.make_jaxpr(lambda x: jax.lax.cond(x > 0, jnp.sin, jnp.cos, x))(1.0).jaxpr
    assert program_size.count_equations(cond) == len(cond.eqns) + 2  # one equation in each branch


def test_count_hlo_instructions_skips_parameters_and_reads_tuple_shapes():
    text = """HloModule m, entry_computation_layout={(f64[3]{0})->(f64[3]{0}, f64[3]{0})}

%fused (param_0: f64[3]) -> f64[3] {
  %param_0 = f64[3]{0} parameter(0)
  ROOT %tanh.0 = f64[3]{0} tanh(%param_0), metadata={op_name="x = y"}
}

ENTRY %main (x: f64[3]) -> (f64[3], f64[3]) {
  %x = f64[3]{0} parameter(0)
  %fusion = f64[3]{0} fusion(%x), kind=kLoop, calls=%fused
  ROOT %tuple = (f64[3]{0}, f64[3]{0}) tuple(%fusion, %x)
}
"""
    assert program_size.count_hlo_instructions(text) == 3  # tanh, fusion, tuple


def test_non_finite_values_are_left_out_and_said_so():
    out = d.derivatives("def f(x):\n    return jnp.log(x)\n", 2, -1.0, 1.0, 5)
    assert out["ok"], out
    assert out["orders"][0]["ys"][:3] == [None, None, None]  # log of -1, -0.5 and 0
    assert out["orders"][1]["max_error"] < 1e-8  # from the two points where x > 0
    assert out["notes"] == ["Grid points left out of max_error, where a value is not finite: order 1, 3 of 5 (the "
                            "reference is not finite at 3, the derivative at 1) and order 2, 1 of 5 (the reference is "
                            "not finite at 0, the derivative at 1)."]  # one warning for both orders
    json.dumps(out, allow_nan=False)


def test_orders_that_leave_out_the_same_points_are_said_together_in_the_pages_language():
    out = d.derivatives("def f(x):\n    return 1 / x\n", 3, -3.0, 3.0, 7)  # x = 0 is a grid point
    assert out["left_out"] == [{"n": n, "points": 1, "reference": 0, "derivative": 1} for n in (1, 2, 3)]
    assert out["notes"] == ["Grid points left out of max_error, where a value is not finite: orders 1, 2 and 3, 1 "
                            "of 7 each (the reference is not finite at 0, the derivative at 1)."]
    checks = render_orders(out, "de")[2]
    assert checks.count(WARNING_DE) == 1 and "Ordnungen 1, 2 und 3, je 1 von 7 (die Referenz ist an 0" in checks


@pytest.mark.parametrize(("code", "shown"), [
    ("def f(x):\n    return jnp.stack([x, x, x])\n", "(3,)"),
    ("def f(x):\n    return x, 2 * x\n", "tuple"),
    ("def f(x):\n    return x > 0\n", "bool"),
])
def test_a_function_that_is_not_r_to_r_is_invalid_input(code, shown):
    out = d.derivatives(code, 2, -1.0, 1.0, 10)
    assert out["ok"] is False
    assert out["error"]["kind"] == "invalid_input"
    assert "scalar to a scalar" in out["error"]["message"] and shown in out["error"]["message"]


def test_a_float32_result_is_noted_and_its_rounding_is_not_taken_for_a_break():
    out = d.derivatives("def f(x):\n    return jnp.sin(x).astype(jnp.float32)\n", 2, -3.0, 3.0, 200)
    assert out["ok"], out
    assert [note for note in out["notes"] if "float32" in note] == out["notes"]
    assert out["breaks"] == {"checks": [], "jumps": [], "jumps_found": 0}
    assert d.derivatives(SIN, 1, -1.0, 1.0, 5)["notes"] == []


def test_limits_are_accepted():
    out = d.derivatives("def f(x):\n    return x * x\n", 8, -1.0, 1.0, 2)
    assert out["ok"], out
    assert len(out["orders"]) == 9 and len(out["xs"]) == 2
    assert out["orders"][2]["ys"] == [2.0, 2.0] and out["orders"][3]["ys"] == [0.0, 0.0]


def test_user_errors_come_back_as_error_dicts():
    assert d.derivatives("def f(x):\n    return x +\n", 1, -1.0, 1.0, 5)["error"]["kind"] == "syntax"
    out = d.derivatives("def f(x):\n    return undefined_name * x\n", 1, -1.0, 1.0, 5)
    assert out["error"]["kind"] == "user_exception" and out["error"]["line"] == 2


def test_gradient_and_hessian_match_the_analytic_ones(hessian_result):
    out = hessian_result
    assert out["ok"], out
    assert out["function"] == "f" and out["point"] == [1.0, 2.0, 3.0]
    assert out["value"] == 1 + 8 + 27 + 2
    np.testing.assert_allclose(out["gradient"], [3 * 1 + 2, 3 * 4 + 1, 3 * 9], rtol=1e-14)
    np.testing.assert_allclose(out["hessian"], [[6, 1, 0], [1, 12, 0], [0, 0, 18]], rtol=1e-14)


def test_hessian_equals_jax_hessian_and_finite_differences_and_is_symmetric():
    code = "def f(x):\n    return jnp.sum(jnp.sin(x) * x[::-1]) + jnp.prod(x) + jnp.exp(x[0] * x[2])\n"
    point = [0.3, -1.2, 0.7, 2.0]
    out = hessians.gradient_and_hessian(code, repr(point))
    assert out["ok"], out
    hessian = np.array(out["hessian"])
    np.testing.assert_allclose(hessian, hessian.T, rtol=1e-12, atol=1e-12)
    with jax.enable_x64(True):
        f = jax.jit(usercode.load(code).function)
        x = jnp.array(point, dtype=jnp.float64)
        np.testing.assert_allclose(hessian, jax.hessian(f)(x), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(out["gradient"], jax.grad(f)(x), rtol=1e-12, atol=1e-12)
        h = 1e-4  # central differences of central differences: error ~ h² ≈ 1e-8
        eye = np.eye(len(point)) * h
        fd = np.array([[(f(x + a + b) - f(x + a - b) - f(x - a + b) + f(x - a - b)) / (4 * h * h)
                        for b in eye] for a in eye])
    np.testing.assert_allclose(hessian, fd, rtol=1e-6, atol=1e-6)


def test_check_grads_confirms_the_derivatives_behind_the_results():
    """JAX's own checker: forward and reverse mode against finite differences, in float64."""
    with jax.enable_x64(True):
        f = usercode.load(HESSIAN_CODE).function
        check_grads(f, (jnp.array([1.0, 2.0, 3.0]),), order=2, modes=["fwd", "rev"])  # covers jacfwd(jacrev(f))
        third = jax.vmap(jax.grad(jax.grad(jax.grad(jnp.tanh))))
        check_grads(third, (np.linspace(-2.0, 2.0, 5),), order=2, modes=["rev"])  # up to tanh's 5th derivative


def test_jacobian_timings_have_the_right_shapes_and_are_positive(hessian_result):
    jacobians = hessian_result["jacobians"]
    assert jacobians["wide"]["shape"] == [4, 1000] and jacobians["tall"]["shape"] == [1000, 4]
    for entry in jacobians.values():
        assert entry["jacfwd_s"] > 0 and entry["jacrev_s"] > 0
        assert entry["faster"] in ("jacfwd", "jacrev")
    text = hessian_result["explanation"]
    assert "jacfwd" in text and "jacrev" in text and "wide" in text and "tall" in text


@pytest.mark.parametrize(("code", "point"), [
    (HESSIAN_CODE, "3.0"),
    (HESSIAN_CODE, "jnp.ones((2, 2))"),
    (HESSIAN_CODE, "'abc'"),
    (HESSIAN_CODE, "jnp.ones(201)"),
    (HESSIAN_CODE, "1/0"),
    ("def f(x):\n    return x * 2\n", HESSIAN_POINT),
])
def test_gradient_and_hessian_reject_bad_points_and_non_scalar_functions(code, point):
    out = hessians.gradient_and_hessian(code, point)
    assert out["ok"] is False and out["error"]["kind"] == "invalid_input", out


def test_the_jit_paths_say_they_needed_no_fallback(hessian_result):
    assert hessian_result["without_jit"] is None
    assert d.derivatives(SIN, 1, -1.0, 1.0, 5)["point_by_point"] is None


@pytest.mark.parametrize(("code", "point", "words"), [
    (HESSIAN_CODE, "", "`point` is empty"),
    ("def f(x, y):\n    return jnp.sum(x)\n", HESSIAN_POINT, "cannot be called on one vector"),
])
def test_an_empty_point_or_a_function_of_two_arguments_is_named(code, point, words):
    out = hessians.gradient_and_hessian(code, point)
    assert out["ok"] is False and out["error"]["kind"] == "invalid_input", out
    assert words in out["error"]["message"]


@pytest.mark.parametrize(("point", "language", "shown"), [
    ("", "en", "“At the point” is empty: give the point as a 1-D array"),
    ("", "de", "„Am Punkt“ ist leer: Gib den Punkt als 1-D-Array an"),
    ("'a'", "zh", "“求值点” 必须是实数数组，收到的是 str。"),
    ("jnp.ones((2, 2))", "de", "„Am Punkt“ muss ein 1-D-Array mit 1 bis 200 Zahlen sein, nicht eines der Shape "
                               "(2, 2)."),
])
def test_a_point_that_cannot_be_used_is_named_by_its_field_in_the_pages_language(point, language, shown):
    reply = validated(hessians.gradient_and_hessian(HESSIAN_CODE, point), "gradient")  # as the server gets it
    assert "`point`" in reply["error"]["message"]
    assert shown in render_gradient(reply, language)[0]


# -- the tab: its fields named as labelled, checked before the API; results through the views --------------


@pytest.fixture(scope="module")
def sin_reply():
    return d.derivatives(SIN, 2, -1.0, 1.0, 5)


@pytest.mark.parametrize(("values", "label", "how"), [
    ((4, None, 3.0, 200), "x from", "is empty"),
    ((4, -3.0, None, 200), "x to", "is empty"),
    ((4, -3.0, "", 200), "x to", "is empty"),
    ((None, -3.0, 3.0, 200), "Highest order n", "is empty"),
    ((4, -3.0, 3.0, None), "Grid points", "is empty"),
    ((4, "abc", 3.0, 200), "x from", "must be a finite number, got 'abc'"),
    ((4, float("nan"), 3.0, 200), "x from", "must be a finite number"),
])
def test_an_empty_or_non_numeric_box_is_named_and_no_job_runs(values, label, how, sin_reply):
    pool = OnePool(sin_reply)
    out = final(derivatives_tab.run_derivatives(PlaygroundAPI(pool=pool, settings=Settings()), SIN, *values))
    assert out["ok"] is False and out["error"]["kind"] == "invalid_input"
    assert f"“{label}” {how}" in render_orders(out)[0], out
    assert pool.jobs == []


@pytest.mark.parametrize(("language", "said"), [
    ("en", "“x from” (201.5) must be below “x to” (3)."),
    ("de", "„x von“ (201,5) muss kleiner sein als „x bis“ (3)."),  # its numbers as German writes them
    ("zh", "“x 起点”（201.5）必须小于 “x 终点”（3）。"),
])
def test_a_range_the_wrong_way_round_is_named_by_the_pages_labels_in_its_language(language, said, sin_reply):
    pool = OnePool(sin_reply)
    out = final(derivatives_tab.run_derivatives(PlaygroundAPI(pool=pool, settings=Settings()), SIN, 4, 201.5, 3.0,
                                                200))
    assert out["error"]["message"] == "`x_min` (201.5) must be below `x_max` (3)."  # the API names its arguments
    shown = render_orders(out, language)[0]
    assert said in shown and "x_min" not in shown and pool.jobs == []


@pytest.mark.parametrize(("language", "said"), [
    ("de", "„x bis“ ist leer: Gib eine Zahl ein."), ("zh", "“网格点数” 是空的：请输入一个数。")])
def test_an_empty_box_is_named_in_the_pages_language(language, said, sin_reply):
    out = final(derivatives_tab.run_derivatives(PlaygroundAPI(pool=OnePool(sin_reply), settings=Settings()), SIN, 4,
                                                -3.0, None if language == "de" else 3.0,
                                                None if language == "zh" else 200))
    assert said in render_orders(out, language)[0]


def test_a_new_run_first_clears_the_last_one_then_shows_its_own(sin_reply):
    pool = OnePool(sin_reply)
    steps = list(derivatives_tab.differentiate(PlaygroundAPI(pool=pool, settings=Settings()), SIN, 2.0, -1.0, 1.0,
                                               5.0, 1))
    assert steps[0] == (RUNNING_ORDERS, None, "", None, {}, "")  # the previous error or plot is gone at once
    status, curves, table, growth, last, jaxpr = steps[1]
    assert pool.jobs == [{"kind": "derivatives", "code": SIN, "order": 2, "x_min": -1.0, "x_max": 1.0, "points": 5}]
    assert status.startswith(f"{OK} `f`: derivatives up to order 2 on 5 points, in float64.")
    assert final(iter([last])) == {**sin_reply, "cache": last["cache"]}
    assert jaxpr.startswith("# f′: grad applied 1 times")
    assert len(curves.data) == 3 and growth is not None and table.count("\n") == 4


def test_a_point_by_point_reply_is_shown_as_such():
    code = "def f(x):\n    if x < 3:\n        return 3. * x ** 2\n    return -4 * x\n"
    reply = d.derivatives(code, 2, 0.0, 6.0, 50, budget_s=0.5)  # a short budget: a partial result, or none
    if not reply["ok"]:
        assert reply["error"]["kind"] == "timeout"
        reply = d.derivatives(code, 2, 0.0, 6.0, 50, budget_s=30.0)
    status, curves, table, growth = render_orders(reply)
    run = reply["point_by_point"]
    assert f"derivatives up to order 2 on {run['points']} of 50 grid points, point by point without jit" in status
    assert "line 2 (`if x < 3:`)" in status and "TracerBoolConversionError" in status
    assert f"{run['points']} points in {run['seconds']:.1f} s" in status
    assert ("ask for fewer points or a lower order" in status) == (run["points"] < 50)
    assert "point by point" in curves.layout.title.text and growth is None
    assert table.count("| — | — |") == 3  # no program sizes for any order
    assert pick_jaxpr(reply, 1) == NO_JAXPR
    chinese = render_orders(reply, "zh")[0]
    assert ("`jit(vmap(grad))` 无法追踪 `f`：第 2 行（`if x < 3:`）需要 `x` 的值"
            "（`TracerBoolConversionError`）") in chinese
    assert not re.search(r"could not|grid point|stand-ins", chinese), chinese


def test_the_status_says_which_function_was_differentiated_where_it_is_not_f():
    code = "def energy(x):\n    return jnp.sin(x) ** 2\n\nforce = jax.grad(energy)\n"
    reply = d.derivatives(code, 1, -1.0, 1.0, 5)
    status = render_orders(reply, "en", code)[0]
    assert status.startswith(f"{OK} `force`: derivatives up to order 1 on 5 points")
    assert status.endswith("\n\nIt ran `force = jax.grad(energy)`: the last function your code makes with a JAX "
                           "transformation.")
    xs = np.asarray(reply["xs"])
    np.testing.assert_allclose(reply["orders"][0]["ys"], np.sin(2 * xs), rtol=1e-12)  # force = d/dx sin²x


def test_a_function_that_breaks_on_the_grid_is_said_to_be_not_smooth_there_once_for_all_orders():
    reply = d.derivatives("def f(x):\n    return jnp.abs(x)\n", 3, -1.0, 1.0, 51)  # x = 0 is a grid point
    assert [o["max_error"] > 0.5 for o in reply["orders"][1:]] == [True, True, False]  # f‴ = 0 = f″ around 0
    assert [check["n"] for check in reply["breaks"]["checks"]] == [1, 2]
    assert [note[:84] for note in reply["notes"]] == [
        "Orders 1 and 2: the finite-difference checks are off by up to 1.7e+05 at x = 0, far beyond rounding: "[:84]]
    assert "at x = 0, far beyond rounding: the function is not smooth there" in reply["notes"][0]
    status, _, checks, _ = render_orders(reply)
    assert checks.count("not smooth there (a jump or a kink)") == 1
    assert status.endswith(f"{WARNING} `f` is not smooth at x = 0: the warnings under the checks say more.")
    one = d.derivatives("def f(x):\n    return jnp.abs(x)\n", 1, -1.0, 1.0, 51)
    assert one["notes"][0].startswith("Order 1: the finite-difference check is off by 1 at x = 0, far beyond")
    smooth = d.derivatives("def f(x):\n    return jnp.sin(x) * x\n", 3, -2.0, 2.0, 51)
    assert smooth["notes"] == [] and "not smooth" not in render_orders(smooth)[2]


def test_a_gradient_without_jit_says_why_under_the_values():
    reply = hessians.gradient_and_hessian("def f(x):\n    if x[0] > 0:\n        return jnp.sum(x ** 2)\n"
                                          "    return jnp.sum(x)\n", "jnp.array([1.0, 2.0])")
    status, hessian, _ = render_gradient(reply)
    assert status.startswith(f"{OK} f = 5; ∇f = [2, 4]\n\n{WARNING} `jit` could not trace `f`: line 2")
    assert status.endswith(reply["without_jit"])  # the API's sentence is the page's, in English
    assert reply["without_jit_at"] == {"line": 2, "source": "if x[0] > 0:", "parameter": "x",
                                       "exception": "TracerBoolConversionError"}
    assert hessian is not None
    german, _, table = render_gradient(reply, "de")
    assert "`jit` konnte `f` nicht tracen: Zeile 2 (`if x[0] > 0:`) braucht den Wert von `x`" in german
    assert "am Punkt ohne jit ausgewertet" in german and "could not" not in german
    assert "Vorwärts oder rückwärts?" in table and "Forward mode" not in table


def test_both_buttons_stream_so_that_the_first_update_can_clear_the_last_run(sin_reply):
    with gr.Blocks() as demo:
        derivatives_tab.build(tab_context(PlaygroundAPI(pool=OnePool(sin_reply), settings=Settings())))
    handlers = {f.name: f for f in demo.fns.values() if f.name in ("on_run", "on_gradient")}
    assert set(handlers) == {"on_run", "on_gradient"}
    assert all(f.types_generator for f in handlers.values())
