"""Where f jumps, wherever on the range: the finder (jobs/jumps.py) against functions whose jumps we know, and the
Derivatives job's reply and page saying where."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from playground import derivative_notes, replies
from playground.jobs import REGISTRY
from playground.server.ui.derivatives_views import render_orders
from playground.server.ui.markdown import verdict
from playground.worker.jobs import derivatives as d
from playground.worker.jobs import jumps
from tests.test_control_flow_derivatives import TickingClock

BETWEEN = np.linspace(-3.0, 3.0, 200)  # the tab's default grid: no integer is a grid point
ON = np.linspace(-1.0, 1.0, 201)  # every hundredth: 0, ±0.5 and ±1 are grid points


def found(f, slope, xs: np.ndarray, dtype=np.float64) -> list[tuple[float, float, bool]]:
    """(x, size, point) of each jump of f (its slope given), rounded for comparison."""
    def evaluate(points):
        return f(points), slope(points)
    return [(round(j.x, 9), round(j.size, 9), j.point) for j in jumps.find(xs, f(xs), slope(xs), evaluate,
                                                                            np.dtype(dtype))]


def step_at(where: float):
    return lambda x: np.where(x < where, 0.0, 1.0) + x


def one(x):
    return np.ones_like(x)


def zero(x):
    return np.zeros_like(x)


@pytest.mark.parametrize("where", [0.0, 1.0, -0.5, 1 / 3])
@pytest.mark.parametrize("xs", [BETWEEN, ON], ids=["between grid points", "on a grid point or between"])
def test_a_jump_is_found_where_it_is_on_the_grid_or_between(where, xs):
    assert found(step_at(where), one, xs) == [(round(where, 9), 1.0, False)]


def test_every_jump_of_floor_is_found_and_the_end_of_the_range_counts():
    assert found(np.floor, zero, BETWEEN) == [(x, 1.0, False) for x in (-2.0, -1.0, 0.0, 1.0, 2.0, 3.0)]


def test_two_jumps_between_the_same_two_grid_points_are_both_found():
    coarse = np.linspace(-3.2, 3.2, 5)  # JAX's straight-through example: jnp.round, two halves between points
    assert found(np.round, zero, coarse) == [(x, 1.0, False) for x in (-2.5, -1.5, -0.5, 0.5, 1.5, 2.5)]


def test_sign_on_a_grid_point_is_one_jump_of_two_through_its_middle():
    assert found(np.sign, zero, ON) == [(0.0, 2.0, False)]
    assert found(np.sign, zero, BETWEEN) == [(0.0, 2.0, False)]


def test_a_single_point_off_is_said_to_be_only_that_point():
    def f(x):
        return np.where(x == ON[150], 4.0, x)  # x = 0.5
    assert found(f, one, ON) == [(0.5, 3.5, True)]


@pytest.mark.parametrize(("f", "slope"), [
    (np.abs, np.sign),
    (lambda x: np.maximum(x, 0.0), lambda x: (x > 0).astype(float)),
    (lambda x: np.abs(x - 1 / 3), lambda x: np.sign(x - 1 / 3)),
    (lambda x: np.abs(np.sin(5 * x)), lambda x: 5 * np.cos(5 * x) * np.sign(np.sin(5 * x))),
    (np.cbrt, lambda x: 1 / (3 * np.cbrt(x) ** 2)),
    (lambda x: np.sqrt(np.abs(x)), lambda x: np.sign(x) / (2 * np.sqrt(np.abs(x)))),
], ids=["abs", "relu", "abs off the grid", "steep kinks", "vertical tangent", "cusp"])
@pytest.mark.parametrize("xs", [BETWEEN, ON], ids=["between", "on"])
def test_a_kink_or_a_vertical_tangent_is_continuous_no_jump(f, slope, xs):
    with np.errstate(divide="ignore", invalid="ignore"):
        assert found(f, slope, xs) == []


@pytest.mark.parametrize("k", [50.0, 1e4, 1e8])
def test_a_steep_but_continuous_function_is_no_jump(k):
    def f(x):
        return np.tanh(k * x)

    def slope(x):
        return k / np.cosh(np.minimum(np.abs(k * x), 300.0)) ** 2
    for xs in (BETWEEN, ON, np.linspace(-3.0, 3.0, 7)):
        assert found(f, slope, xs) == [], xs.size


def test_smooth_functions_on_coarse_grids_have_no_jumps():
    for xs in (np.linspace(-3.0, 3.0, 5), BETWEEN):
        assert found(np.sin, np.cos, xs) == []
        assert found(np.exp, np.exp, xs) == []


def test_float32_rounding_is_no_jump():
    def f(x):
        return np.sin(x.astype(np.float32)).astype(np.float64)
    assert found(f, np.cos, BETWEEN, np.float32) == []


def test_without_bisection_a_suspect_is_only_placed_between_its_grid_points():
    xs = np.linspace(-3.0, 3.0, 7)
    steep = jumps.find(xs, np.tanh(50 * xs), 50 / np.cosh(50 * xs) ** 2, None, np.dtype(np.float64))
    assert [j.between for j in steep] == [(-1.0, 0.0), (0.0, 1.0)]  # the grid cannot tell steep from a jump
    assert jumps.find(xs, np.sin(xs), np.cos(xs), None, np.dtype(np.float64)) == []


# -- the job's reply and the page ----------------------------------------------------------------------------------

STEP = "def f(x):\n    return jnp.where(x < 0, 0., 1.) + x\n"


def test_the_derivatives_job_says_where_a_jump_between_grid_points_is():
    reply = d.derivatives(STEP, 2, -3.0, 3.0, 200)
    assert replies.check(REGISTRY["derivatives"].reply, reply) is reply
    assert reply["orders"][1]["ys"] == [1.0] * 200  # autodiff's slope of each piece: the jump is not in it
    assert reply["breaks"] == {"checks": [], "jumps": [{"x": 0.0, "size": 1.0, "point": False, "between": None}],
                               "jumps_found": 1}
    assert reply["notes"] == derivative_notes.notes(reply)
    assert reply["notes"][0].startswith("`f` jumps at x = 0 (by 1): there it changes between neighbouring points")
    status, _, checks, _ = render_orders(reply)
    assert status.endswith(f"{verdict('warning')} `f` jumps at x = 0: the warnings under the checks say more.")
    assert f"{verdict('warning')} `f` jumps at x = 0 (by 1)" in checks


def test_the_first_few_jumps_are_listed_and_the_rest_counted():
    reply = d.derivatives("def f(x):\n    return jnp.floor(2 * x)\n", 1, -3.0, 3.0, 200)
    assert reply["breaks"]["jumps_found"] == 12  # every half from −2.5 to 3, the range's end included
    assert [j["x"] for j in reply["breaks"]["jumps"]] == [-2.5, -2.0, -1.5, -1.0, -0.5]
    assert ("`f` jumps at x = -2.5 (by 1), x = -2 (by 1), x = -1.5 (by 1), x = -1 (by 1), x = -0.5 (by 1) and 7 "
            "more:") in reply["notes"][-1]


@pytest.mark.parametrize("code", ["def f(x):\n    return jnp.abs(x)\n", "def f(x):\n    return jax.nn.relu(x)\n",
                                  "def f(x):\n    return jnp.tanh(50 * x)\n"])
def test_kinks_and_steep_functions_have_no_jump_in_the_reply(code):
    reply = d.derivatives(code, 2, -3.0, 3.0, 200)
    assert reply["breaks"]["jumps"] == [] and not any("jumps" in note for note in reply["notes"])


def test_a_jump_found_point_by_point_is_pinned_down_too():
    code = "def f(x):\n    if x < 0.5:\n        return 3. * x ** 2\n    return -4 * x\n"
    reply = d.derivatives(code, 1, -3.0, 3.0, 7, budget_s=60.0)  # no grid point near 0.5
    assert reply["point_by_point"]["points"] == 7
    assert reply["breaks"]["jumps"] == [{"x": 0.5, "size": pytest.approx(-2.75), "point": False, "between": None}]


def test_a_search_that_runs_out_of_time_says_between_which_grid_points(monkeypatch):
    clock = TickingClock(1.0)  # a second a reading: the third call of f in the search is past the budget's end
    monkeypatch.setattr(d, "time", SimpleNamespace(perf_counter=clock.perf_counter))
    reply = d.derivatives(STEP, 1, -3.0, 3.0, 200, budget_s=2.0)
    xs = np.linspace(-3.0, 3.0, 200)
    assert [j["between"] for j in reply["breaks"]["jumps"]] == [[xs[99], xs[100]]]
    assert ("`f` jumps at x between -0.0150754 and 0.0150754 (perhaps only a steep stretch: no time was left to "
            "tell):") in reply["notes"][0]


@pytest.mark.parametrize(("language", "status", "note"), [
    ("de", "`f` springt bei x = 0: Die Warnungen unter den Prüfungen sagen mehr.",
     "`f` springt bei x = 0 (um 1): Dort ändert sich die Funktion"),
    ("zh", "`f` 在 x = 0 处跳跃：检查表下方的警告有详细说明。", "`f` 在 x = 0（跳变 1） 处跳跃"),
])
def test_the_page_says_where_f_jumps_in_its_readers_language(language, status, note):
    reply = d.derivatives(STEP, 1, -3.0, 3.0, 200)
    shown_status, _, checks, _ = render_orders(reply, language)
    assert shown_status.endswith(f"{verdict('warning', language)} {status}")
    assert note in checks and "jumps" not in checks
