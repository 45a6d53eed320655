"""The timing harness against known durations: a clock the test moves, real sleeps, a recorded block_until_ready,
a real compile.

A loaded machine makes a real sleep last longer, never shorter: real sleeps are checked only against what they
must at least take; what a run must not exceed is checked on the test's own clock.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from playground.measure import timing
from playground.measure.timing import Timing, compile_time, measure


class HandClock:
    """The harness's perf_counter, moved only by ``sleep``: a call takes what the test says, however loaded the
    machine."""

    def __init__(self) -> None:
        self.now = 1000.0

    def perf_counter(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch) -> HandClock:
    test_clock = HandClock()
    monkeypatch.setattr(timing, "time", SimpleNamespace(perf_counter=test_clock.perf_counter))
    return test_clock


def test_a_known_20_ms_sleep_measures_about_20_ms(clock):
    t = measure(lambda: clock.sleep(0.020), min_total_s=0.2)
    assert t.median_s == pytest.approx(0.020), t
    assert t.min_s == pytest.approx(0.020) and t.min_s <= t.q1_s <= t.median_s <= t.q3_s
    assert t.iqr_s == pytest.approx(t.q3_s - t.q1_s)
    assert 10 <= t.runs <= 11  # min_total_s / 20 ms, and one more where the sum rounds to just below it


def test_min_runs_is_a_floor_when_min_total_s_is_already_spent():
    calls = []
    t = measure(lambda: calls.append(time.sleep(0.02)), min_total_s=0.0, min_runs=4, warmup=1)
    assert t.runs == 4
    assert len(calls) == 5  # one untimed warm-up


def test_max_runs_is_a_ceiling_when_min_total_s_is_far_away():
    calls = []
    t = measure(lambda: calls.append(1), min_total_s=60.0, max_runs=7, warmup=2)
    assert t.runs == 7
    assert len(calls) == 9


def test_the_clock_stops_only_after_block_until_ready():
    """A result that is 'dispatched' at once but ready 20 ms later, as JAX's async dispatch does."""
    blocked = []

    class Pending:
        def block_until_ready(self):
            time.sleep(0.020)
            blocked.append(time.perf_counter())
            return self

    t = measure(Pending, min_total_s=0.1, warmup=1)
    assert len(blocked) == t.runs + 1
    assert t.median_s >= 0.018, "the harness stopped the clock before the result was ready"


def test_warm_up_calls_are_not_timed(clock):
    first = [True]

    def slow_first_call():
        clock.sleep(0.300 if first[0] else 0.002)
        first[0] = False

    t = measure(slow_first_call, min_total_s=0.05, min_runs=5)
    assert t.q3_s < 0.050 and t.median_s < 0.050, t


def test_without_warm_up_the_first_call_is_timed():
    first = [True]

    def slow_first_call():
        time.sleep(0.300 if first[0] else 0.002)
        first[0] = False

    t = measure(slow_first_call, min_total_s=0.0, min_runs=1, max_runs=1, warmup=0)
    assert t.runs == 1 and t.median_s >= 0.29


@pytest.mark.parametrize("kwargs", [{"min_runs": 0}, {"min_runs": 5, "max_runs": 4}, {"warmup": -1},
                                    {"min_total_s": float("nan")}])
def test_impossible_settings_are_refused(kwargs):
    with pytest.raises(ValueError):
        measure(lambda: None, **kwargs)


def test_timing_quartiles_and_dict():
    t = Timing.from_samples([0.4, 0.1, 0.3, 0.2, 0.5])
    assert (t.min_s, t.q1_s, t.median_s, t.q3_s, t.runs) == (0.1, 0.2, 0.3, 0.4, 5)
    assert t.to_dict() == {"min_s": 0.1, "median_s": 0.3, "iqr_s": pytest.approx(0.2), "q1_s": 0.2, "q3_s": 0.4,
                           "runs": 5}
    one = Timing.from_samples([0.25])
    assert one.median_s == one.q1_s == one.q3_s == 0.25 and one.iqr_s == 0


def test_compile_time_is_positive_and_the_executable_runs():
    def poly(x):  # a fresh function, so no compilation cache can answer
        return jnp.sin(x) * 3.0 + x ** 2

    x = jnp.linspace(-1.0, 1.0, 64, dtype=jnp.float32)
    seconds, compiled = compile_time(jax.jit(poly), x)
    assert 0 < seconds < 30
    np.testing.assert_allclose(np.asarray(compiled(x)), np.sin(np.asarray(x)) * 3.0 + np.asarray(x) ** 2,
                               rtol=1e-6, atol=1e-6)


def test_compile_time_needs_only_shapes():
    spec = jax.ShapeDtypeStruct((8, 8), jnp.float32)
    seconds, compiled = compile_time(jax.jit(lambda x: x @ x.T - 1.0), spec)
    assert seconds > 0
    assert compiled(jnp.ones((8, 8), jnp.float32)).shape == (8, 8)


def test_steady_state_jit_excludes_compilation():
    traced = []  # one entry per trace: Python runs the function only when jit traces (and then compiles) it

    def chain(x):  # fresh, so its first call traces and compiles
        traced.append(1)
        for _ in range(20):
            x = jnp.tanh(x) * 1.01 + 0.5
        return x

    jitted = jax.jit(chain)
    x = jax.block_until_ready(jnp.ones((64, 64), jnp.float32))
    traces_per_call = []

    def call():
        before = len(traced)
        out = jitted(x)
        traces_per_call.append(len(traced) - before)
        return out

    steady = measure(call, min_total_s=0.05, warmup=1)
    assert traces_per_call[0] == 1  # the untimed warm-up compiled it
    assert traces_per_call[1:] == [0] * steady.runs  # no timed call did


def test_max_total_s_stops_a_slow_function_after_one_run():
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.05)

    result = measure(slow, min_runs=10, warmup=0, max_total_s=0.01)
    assert result.runs == 1 and len(calls) == 1


def test_page_faults_are_counted_over_the_timed_calls_only(monkeypatch):
    """A call that takes fresh pages shows them per timed call; the warm-up's are not counted."""
    counted = iter(range(0, 10_000, 7))  # the process's minor faults: 7 more at each reading
    readings = []

    def faults() -> int:
        readings.append(next(counted))
        return readings[-1]

    monkeypatch.setattr(timing, "minor_faults", faults)
    t = measure(lambda: None, min_total_s=0.0, min_runs=4, max_runs=4, warmup=2)
    assert len(readings) == 2 and t.faults_per_call == pytest.approx(7 / 4)  # read before and after the 4 runs


def test_page_faults_are_unknown_where_the_os_does_not_count_them(monkeypatch):
    monkeypatch.setattr(timing, "minor_faults", lambda: None)
    assert measure(lambda: None, min_total_s=0.0, min_runs=1, max_runs=1).faults_per_call is None
