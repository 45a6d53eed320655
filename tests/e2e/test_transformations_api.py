"""/derivatives, /gradient, /vmap and /jit_speed end to end: a real server, driven with gradio_client.

Every number a response claims is checked against one computed here, with NumPy
and closed forms written out by hand, never by asking JAX again.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from gradio_client import Client
from numpy.polynomial import Polynomial
from numpy.polynomial.hermite import Hermite

from playground.gallery import DERIVATIVE_PRESETS, GRADIENT_EXAMPLE, JIT_BENCHMARK_CODE, VMAP_PRESETS
from tests.conftest import SHARED_CLOCK_S, full_sandbox_only
from tests.e2e.conftest import STRICT_MEASURE_CLOCK_S
from tests.e2e.responses import assert_error, ok

X_MIN, X_MAX, POINTS = -2.0, 2.0, 9
ORDER = 5
GAUSSIAN = "def f(x):\n    return jnp.exp(-x*x)\n"
DERIVATIVE_KEYS = {"ok", "function", "dtype", "xs", "orders", "eqn_counts", "hlo_op_counts", "jaxprs"}


def derivatives(client: Client, code: str, order: int = ORDER, x_min: float = X_MIN, x_max: float = X_MAX,
                points: int = POINTS) -> dict:
    return client.predict(code, order, x_min, x_max, points, api_name="/derivatives")






def jobs_run(client: Client) -> int:
    """How many jobs the server's pool has handed to a worker so far (as /about reports it)."""
    return client.predict(api_name="/about")["sandbox"]["pool"]["jobs"]


# -- references, written out here --------------------------------------------------------


def tanh_by_hand(n: int, x: np.ndarray) -> np.ndarray:
    """Orders 1-3 as written in any table: sech² x, −2 tanh x sech² x, (6 tanh² x − 2) sech² x."""
    t = np.tanh(x)
    sech2 = 1.0 - t * t
    return {1: sech2, 2: -2.0 * t * sech2, 3: (6.0 * t * t - 2.0) * sech2}[n]


def tanh_by_recurrence(n: int, x: np.ndarray) -> np.ndarray:
    """tanh⁽ⁿ⁾ = Pₙ(tanh x) with P₀(t) = t and Pₙ₊₁(t) = Pₙ'(t)(1 − t²)."""
    p = Polynomial([0.0, 1.0])
    for _ in range(n):
        p = p.deriv() * Polynomial([1.0, 0.0, -1.0])
    return p(np.tanh(x))


def sin_derivative(n: int, x: np.ndarray) -> np.ndarray:
    return np.sin(x + n * math.pi / 2)


def gaussian_derivative(n: int, x: np.ndarray) -> np.ndarray:
    """dⁿ/dxⁿ exp(−x²) = (−1)ⁿ Hₙ(x) exp(−x²), with Hₙ the physicists' Hermite polynomial."""
    return (-1) ** n * Hermite.basis(n)(x) * np.exp(-x * x)


def check_orders(response: dict, reference, label: str, max_error: float, atol: float) -> None:
    xs = np.asarray(response["xs"])
    np.testing.assert_allclose(xs, np.linspace(X_MIN, X_MAX, POINTS))
    orders = response["orders"]
    assert [o["n"] for o in orders] == list(range(ORDER + 1))
    assert orders[0]["reference"] is None and orders[0]["max_error"] is None  # f itself is not checked
    for order in orders[1:]:
        n = order["n"]
        ys = np.asarray(order["ys"], dtype=float)
        np.testing.assert_allclose(ys, reference(n, xs), rtol=0, atol=atol, err_msg=f"order {n}")
        assert order["reference"] == label, order
        assert 0.0 <= order["max_error"] < max_error, order


def check_program_sizes(response: dict) -> None:
    eqns, ops, jaxprs = response["eqn_counts"], response["hlo_op_counts"], response["jaxprs"]
    assert len(eqns) == len(ops) == len(jaxprs) == ORDER + 1, response
    assert all(b > a for a, b in zip(eqns, eqns[1:], strict=False)), f"jaxpr equations do not grow: {eqns}"
    assert all(isinstance(n, int) and n > 0 for n in ops), ops
    assert all(j.startswith("{ lambda") and "f64[]" in j for j in jaxprs), jaxprs


# -- /derivatives ----------------------------------------------------------------------------


def test_tanh_to_order_five_matches_the_closed_forms(client):
    response = ok(derivatives(client, DERIVATIVE_PRESETS["tanh"]))
    assert set(response) >= DERIVATIVE_KEYS, sorted(response)
    assert response["function"] == "f"
    assert response["dtype"] == "float64"
    np.testing.assert_allclose(response["orders"][0]["ys"], np.tanh(np.linspace(X_MIN, X_MAX, POINTS)), atol=1e-15)
    xs = np.asarray(response["xs"])
    for n in (1, 2, 3):  # the hand formulas and the recurrence agree, so the recurrence can be trusted further
        np.testing.assert_allclose(tanh_by_hand(n, xs), tanh_by_recurrence(n, xs), atol=1e-14)
    check_orders(response, tanh_by_recurrence, "closed form", max_error=1e-12, atol=1e-12)
    for n in (1, 2, 3):
        np.testing.assert_allclose(response["orders"][n]["ys"], tanh_by_hand(n, xs), atol=1e-14)
    # Odd orders of tanh at 0: 1, −2, 16 (the grid's middle point is x = 0).
    middle = POINTS // 2
    assert xs[middle] == 0.0
    assert [response["orders"][n]["ys"][middle] for n in (1, 3, 5)] == pytest.approx([1.0, -2.0, 16.0], abs=1e-12)
    check_program_sizes(response)
    assert "tanh" in response["jaxprs"][0]


def test_sin_to_order_five_matches_sin_x_plus_n_half_pi(client):
    response = ok(derivatives(client, DERIVATIVE_PRESETS["sin"]))
    np.testing.assert_allclose(response["orders"][0]["ys"], np.sin(response["xs"]), atol=1e-15)
    check_orders(response, sin_derivative, "closed form", max_error=1e-12, atol=1e-12)
    check_program_sizes(response)
    assert "sin" in response["jaxprs"][0]
    assert "cos" in response["jaxprs"][1]


def test_code_without_a_closed_form_is_checked_by_finite_differences(client):
    response = ok(derivatives(client, GAUSSIAN))
    # float64 central differences are good to about ε^(2/3) ≈ 4e-11 of the scale (|H₅ e^{-x²}| < 40 here)
    check_orders(response, gaussian_derivative, "finite differences", max_error=1e-7, atol=1e-10)
    check_program_sizes(response)


@pytest.mark.parametrize(("order", "x_min", "x_max", "points"), [
    (0, X_MIN, X_MAX, POINTS),
    (9, X_MIN, X_MAX, POINTS),
    (3, X_MIN, X_MAX, 1),
    (3, 1.0, 1.0, POINTS),
    (3, 2.0, -2.0, POINTS),
], ids=["order-0", "order-9", "points-1", "x_min-equals-x_max", "x_min-above-x_max"])
def test_bad_derivative_arguments_are_refused_before_any_worker(client, order, x_min, x_max, points):
    before = jobs_run(client)
    error = assert_error(derivatives(client, DERIVATIVE_PRESETS["tanh"], order, x_min, x_max, points),
                         "invalid_input")
    assert jobs_run(client) == before, "an invalid request reached a worker"
    named = "order" if order in (0, 9) else "points" if points == 1 else "x_min"
    assert named in error["message"], error


# -- /gradient ---------------------------------------------------------------------------------


def test_gradient_and_hessian_are_the_analytic_ones(client):
    response = ok(client.predict(*GRADIENT_EXAMPLE, api_name="/gradient"))
    x = np.array([1.0, 2.0, 3.0])
    assert GRADIENT_EXAMPLE[1] == "jnp.array([1.0, 2.0, 3.0])"
    # f(x) = Σ xᵢ³ + x₀x₁
    assert response["point"] == x.tolist()
    assert response["value"] == pytest.approx(np.sum(x**3) + x[0] * x[1])
    gradient = 3 * x**2 + np.array([x[1], x[0], 0.0])
    hessian = np.diag(6 * x) + np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(response["gradient"], gradient, rtol=1e-12)
    np.testing.assert_allclose(response["hessian"], hessian, rtol=1e-12, atol=1e-12)

    jacobians = response["jacobians"]
    assert jacobians["wide"]["shape"] == [4, 1000]
    assert jacobians["tall"]["shape"] == [1000, 4]
    for name, entry in jacobians.items():
        for key in ("jacfwd_s", "jacrev_s"):
            assert isinstance(entry[key], float) and 0 < entry[key] < 10, (name, entry)
        assert entry["faster"] in ("jacfwd", "jacrev"), entry
    assert "jacrev" in response["explanation"] and "jacfwd" in response["explanation"]


# -- /vmap --------------------------------------------------------------------------------------

SIZES = [1, 10, 100]


@pytest.mark.parametrize("name", ["x + x² + x³", "per-example gradients"])
def test_vmap_presets_agree_with_the_python_loop(client, name):
    preset = VMAP_PRESETS[name]
    response = ok(client.predict(preset.code, preset.args, preset.in_axes, SIZES, "0", api_name="/vmap"))
    assert response["equal"] is True, response
    assert response["batch_sizes"] == SIZES
    for key in ("loop_s", "vmap_s", "jit_vmap_s"):
        assert len(response[key]) == len(SIZES), (key, response[key])
    for key in ("vmap_s", "jit_vmap_s"):
        assert all(isinstance(t, float) and t > 0 for t in response[key]), (key, response[key])
    assert all(t is None or t > 0 for t in response["loop_s"]), response["loop_s"]
    assert response["jaxpr"] != response["batched_jaxpr"]
    assert response["jaxpr"].startswith("{ lambda") and response["batched_jaxpr"].startswith("{ lambda")
    assert response["max_abs_diff"] is not None and response["max_abs_diff"] < 1e-3


def test_vmap_batch_dimension_shows_in_the_batched_jaxpr(client):
    preset = VMAP_PRESETS["x + x² + x³"]
    response = ok(client.predict(preset.code, preset.args, preset.in_axes, [1, 7], "0", api_name="/vmap"))
    assert "a:f32[3]" in response["jaxpr"], response["jaxpr"]
    assert "a:f32[7,3]" in response["batched_jaxpr"], response["batched_jaxpr"]  # a size asked for, not 1


@pytest.mark.parametrize("in_axes", ["__import__('os')", "(None, 0", "1.5", "{1: 0}"])
def test_vmap_in_axes_must_be_a_literal_of_ints(client, in_axes):
    preset = VMAP_PRESETS["x + x² + x³"]
    error = assert_error(client.predict(preset.code, preset.args, in_axes, [2], "0", api_name="/vmap"),
                         "invalid_input")
    assert "in_axes" in error["message"], error


# -- /jit_speed --------------------------------------------------------------------------------


def test_jit_speed_on_the_classic_benchmark(client):
    response = ok(client.predict(JIT_BENCHMARK_CODE, [10, 100, 1000], 3, api_name="/jit_speed"))
    assert response["sizes"] == [10, 100, 1000]
    assert response["checked_sizes"] == response["numpy_checked_sizes"] == [10, 100, 1000]  # compared at each
    assert response["skipped"] == []
    assert response["device"].startswith("cpu"), response["device"]
    assert response["jaxpr_ops"] == 5  # mul, add, mul, mul, add
    assert 1 <= response["fused_kernels"] < response["jaxpr_ops"], response
    for key in ("numpy_s", "eager_s", "jit_s", "compile_s"):
        assert len(response[key]) == 3, (key, response[key])
        assert all(isinstance(t, float) and t > 0 for t in response[key]), (key, response[key])
    assert response["numpy_unavailable"] is None


# Page faults a timed call may take in steady state: a call that lands on fresh memory every time takes about 1,000
# at n = 1,000 (4 MB arrays) and 4,000 at n = 2,000 (16 MB).
STEADY_FAULTS = 64


def test_jit_speed_calls_reuse_their_memory_as_a_plain_script_does(client):
    """NumPy in the sandbox's worker and jit in the device owner take no fresh pages per call at n = 1,000 and 2,000,
    in both sandbox modes: the allocator keeps what a call freed for the next (ipc/bootstrap.py). A worker whose
    allocator gave every call's arrays back took 1,900 and 1,100 page faults a NumPy call, at up to ten times a
    plain script's time."""
    response = ok(client.predict(JIT_BENCHMARK_CODE, [1000, 2000], 5, api_name="/jit_speed"))
    faults = response["faults_per_call"]
    assert response["numpy_checked_sizes"] == [1000, 2000], response
    for engine in ("numpy", "jit"):
        assert all(f is not None and f < STEADY_FAULTS for f in faults[engine]), (engine, faults)
    share = response["others_busy"]
    assert share is None or 0.0 <= share <= 1.0, share


def test_jit_speed_past_the_sandboxs_memory_times_numpy_no_more_and_says_why(client):
    """n = 10,000 fits the device, but NumPy's arrays would not fit the sandbox's 2,048 MB: the device's engines are
    timed, NumPy is not, and the reply says why."""
    response = ok(client.predict(JIT_BENCHMARK_CODE, [10000], 1, api_name="/jit_speed"))
    assert response["sizes"] == [10000] and response["numpy_s"] == [None] and response["jit_s"][0] > 0
    assert "2,048 MB" in response["numpy_unavailable"], response["numpy_unavailable"]


# -- hostile code in the new endpoints ------------------------------------------------------------


# Room beyond a wall clock for the answer to come back, which takes a fraction of a second.
WAIT_S = 60


VMAP_ARGS = ("jnp.ones(3)", "0", [2], "0")
HOSTILE = {
    "derivatives: python infinite loop": (
        "/derivatives", ("def f(x):\n    import time\n    while True:\n        time.sleep(0.01)\n", 2, -1.0, 1.0, 10),
        "timeout"),
    "vmap: read /etc/passwd": (
        "/vmap", ("def f(x):\n    open('/etc/passwd').read()\n    return x * 2\n", *VMAP_ARGS), "forbidden"),
    "jit_speed: os.system": (
        "/jit_speed", ("import os\ndef fn(x):\n    os.system('true')\n    return x * 2\n", [10], 1), "forbidden"),
    "gradient: 20 GB array": (
        "/gradient", ("def f(x):\n    big = np.ones((50_000, 50_000))\n    return jnp.sum(x) + big[0, 0]\n",
                      "jnp.ones(3)"), "memory"),
}


@pytest.mark.parametrize("name", [pytest.param(name, marks=full_sandbox_only) if "passwd" in name else name
                                  for name in HOSTILE])
def test_hostile_code_meets_the_sandbox_limits(request, sandbox_mode, name):
    # sandbox_mode: the variant, named here since the server is picked below (the strict one or the shared one)
    endpoint, arguments, kind = HOSTILE[name]
    server = request.getfixturevalue("strict_server" if kind == "timeout" else "server")
    clock_s = STRICT_MEASURE_CLOCK_S if kind == "timeout" else int(SHARED_CLOCK_S)  # the longer of its two clocks
    client = server.client()
    started = time.monotonic()
    assert_error(client.predict(*arguments, api_name=endpoint), kind)
    assert time.monotonic() - started < clock_s + WAIT_S, f"the server's {clock_s} s wall clock did not hold"
    assert server.alive(), server.log_path.read_text()
    after = ok(derivatives(client, DERIVATIVE_PRESETS["sin"], order=2))
    assert after["orders"][2]["max_error"] < 1e-12
