"""Measure again on the timing tabs (jit, Speed of light, vmap): a result served from the cache brings the button
into sight; the button runs the job afresh, where the tab's own button is answered with the kept result.

The tabs are built alone over a recording pool (tests/pool_doubles.py) and their handlers called as Gradio calls
them; nothing is timed here."""

from __future__ import annotations

from functools import partial

import gradio as gr
import pytest

from playground.gallery import JIT_BENCHMARK_CODE
from playground.server.api import PlaygroundAPI
from playground.server.config import Settings
from playground.server.ui import jit_tab, speed_tab, vmap_tab
from playground.worker.jobs.jit_speed import jit_speed
from tests.owner_doubles import local_device
from tests.pool_doubles import ScriptedPool
from tests.tab_context import tab_context

HIDDEN, SHOWN = gr.update(visible=False), gr.update(visible=True)
KEPT_ERROR = {"ok": False, "error": {"kind": "user_exception", "message": "the same input gives it again", "line": 1}}


def handlers(tab, pool: ScriptedPool) -> dict:
    """The tab's Run and Measure again handlers, each taking the form's values: Gradio passes the request first
    (measure_again.handlers), here None, which reads as English."""
    with gr.Blocks() as demo:
        tab.build(tab_context(PlaygroundAPI(pool=pool, settings=Settings())))
    return {f.name: partial(f.fn, None) for f in demo.fns.values() if f.name in ("on_run", "on_again")}


@pytest.fixture(scope="module")
def jit_reply() -> dict:
    """A real /jit_speed reply at n=10, made by the worker's own code with the owner's session in this process."""
    reply = jit_speed(JIT_BENCHMARK_CODE, [10], repeats=1, memory_mb=65_536, device=local_device())
    assert reply["ok"], reply
    return reply


def test_the_jit_tab_offers_measure_again_beside_a_cached_result_and_it_measures(jit_reply):
    pool = ScriptedPool(jit_reply)
    tab = handlers(jit_tab, pool)
    first = list(tab["on_run"](JIT_BENCHMARK_CODE, "10", 1))
    assert first[0][-1] == HIDDEN and first[-1][-1] == HIDDEN  # measured for this click: nothing to offer
    served = list(tab["on_run"](JIT_BENCHMARK_CODE, "10", 1))
    assert len(pool.jobs) == 1  # Measure again after an example's click (the same button) measures nothing twice
    status, *_, again = served[-1]
    assert again == SHOWN and "Served from the cache" in status and "ago" in status
    fresh = list(tab["on_again"](JIT_BENCHMARK_CODE, "10", 1))
    assert len(pool.jobs) == 2 and pool.jobs[1] == pool.jobs[0]  # the same job, run again
    assert fresh[0][-1] == HIDDEN and fresh[-1][-1] == HIDDEN and "Served from the cache" not in fresh[-1][0]
    assert list(tab["on_run"](JIT_BENCHMARK_CODE, "10", 1))[-1][-1] == SHOWN and len(pool.jobs) == 2


@pytest.mark.parametrize(("tab", "values"), [
    (speed_tab, ("def f(x):\n    return x * 2\n", "jnp.ones(3)", True)),
    (vmap_tab, ("def f(x):\n    return x * 2\n", "jnp.ones(3)", "0", "0", "1, 2")),
])
def test_measure_again_runs_the_job_where_the_tab_button_is_answered_from_the_cache(tab, values):
    pool = ScriptedPool(KEPT_ERROR)
    wired = handlers(tab, pool)
    for handler in ("on_run", "on_run", "on_again"):
        last = list(wired[handler](*values))[-1]
        assert last[-1] == HIDDEN  # an error has no age to tell
    assert len(pool.jobs) == 2
