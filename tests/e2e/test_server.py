"""End to end: a real ``python app.py`` server, driven with gradio_client like any script would."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from gradio_client import Client
from gradio_client.utils import QueueError

from playground.confinement.lockdown import probe
from tests.conftest import start_server, stop_server
from tests.e2e.responses import assert_error

DEFAULT_CODE = "def f(x):\n    return x + x*x + x*x*x\n"
DEFAULT_ARGS = "jnp.arange(4.0)"
# What gradio_client raises when Gradio's bounded queue refuses an event (HTTP 503).
QUEUE_FULL_MESSAGE = "Queue is full"


def inspect(client: Client, code: str, args: str = "1.0") -> dict:
    return client.predict(code, args, api_name="/inspect")




def assert_default_example(response: dict) -> None:
    assert response["ok"] is True, response
    assert response["function"] == "f"
    assert "f32[4]" in response["result"]
    assert "39." in response["result"]


# -- /inspect -------------------------------------------------------------------


def test_inspect_default_example(client):
    response = inspect(client, DEFAULT_CODE, DEFAULT_ARGS)
    assert_default_example(response)
    lines = response["jaxpr"].splitlines()
    assert any("= mul " in line for line in lines), response["jaxpr"]
    assert any("= add " in line for line in lines), response["jaxpr"]
    assert response["stdout"] == ""
    assert response["warnings"] == []


def test_inspect_syntax_error_reports_its_line(client):
    code = "def f(x):\n    y = x * 2\n    return (y +\n\n"
    error = assert_error(inspect(client, code), "syntax", line=3)
    assert "SyntaxError" in error["message"]


def test_inspect_exception_reports_the_users_line(client):
    code = "def f(x):\n    y = x * 2\n    raise ValueError('boom from line 3')\n"
    error = assert_error(inspect(client, code), "user_exception", line=3)
    assert "ValueError" in error["message"]
    assert "boom from line 3" in error["message"]


@pytest.mark.parametrize("code", ["", "   \n\t\n"], ids=["empty", "blank"])
def test_inspect_without_code_is_invalid_input(client, code):
    assert_error(inspect(client, code), "invalid_input")


def test_inspect_oversized_code_is_invalid_input(client):
    code = DEFAULT_CODE + "#" * 20_001
    error = assert_error(inspect(client, code, DEFAULT_ARGS), "invalid_input")
    assert "20,000" in error["message"]


# -- /about -----------------------------------------------------------------------


def test_about(client, sandbox_mode):
    info = client.predict(api_name="/about")
    assert info["ok"] is True, info
    for package in ("python", "jax", "jaxlib", "gradio", "optax"):
        assert info["versions"].get(package), f"no version for {package}: {info['versions']}"
    assert info["backend"] == "cpu"
    assert isinstance(info["devices"], list) and info["devices"], info["devices"]

    layers = info["sandbox"]["layers"]
    assert info["sandbox"]["mode"] == sandbox_mode
    if sandbox_mode == "process":  # the local mode says what it is, and claims no layer it does not have
        assert sorted(layers) == ["process", "rlimits", "watchdogs"], layers
        assert all(layers[name]["active"] is True for name in layers), layers
        assert info["sandbox"]["mechanisms"]["processes"]["active"] is False
        assert "process isolation only" in info["sandbox"]["mechanisms"]["processes"]["detail"]
        return
    for name in ("process", "rlimits", "landlock", "seccomp", "watchdogs"):
        assert name in layers, f"layer {name} missing: {sorted(layers)}"
        assert isinstance(layers[name]["active"], bool)
        assert layers[name]["detail"], layers[name]
    for name in ("process", "rlimits", "watchdogs"):
        assert layers[name]["active"] is True, layers[name]
    # Landlock and seccomp depend on the kernel: expect what this kernel allows, and
    # on a kernel without them, expect them reported as not active (never silently dropped).
    kernel = probe()
    for name in ("landlock", "seccomp"):
        assert layers[name]["active"] is kernel[name]["active"], (name, layers[name], kernel[name])

    limits = info["limits"]
    for key in ("timeout_s", "memory_mb", "address_space_mb", "cpu_s", "output_chars"):
        assert key in limits, limits
    assert limits["timeout_s"] > 0 and limits["memory_mb"] > 0


# -- concurrency ----------------------------------------------------------------------

WORKERS = 2
QUEUE_SIZE = 4
N_REQUESTS = 20  # well beyond what runs (WORKERS) plus what may wait (QUEUE_SIZE)
BUSY_HINT = "try again"  # both refusals say it: the pool's "busy" error and the client's QueueError
# The burst's server's wall clock: a job here takes well under a second, but twenty at once on a loaded machine may
# take several; none may be stopped by the clock (the test counts time-outs as faults).
BURST_CLOCK_S = 60


def _classify(outcome: object) -> str:
    """'ok' (the right answer), 'busy' (the pool refused) or 'queue_full' (Gradio refused); anything else fails."""
    if isinstance(outcome, QueueError):
        assert QUEUE_FULL_MESSAGE in str(outcome) and BUSY_HINT in str(outcome).lower(), repr(outcome)
        return "queue_full"
    assert isinstance(outcome, dict), f"neither a result nor a busy answer: {outcome!r}"
    if outcome.get("ok") is True:
        assert_default_example(outcome)
        return "ok"
    error = assert_error(outcome, "busy")
    assert BUSY_HINT in error["message"].lower(), error
    return "busy"


def _pool_counts(client: Client) -> dict:
    info = client.predict(api_name="/about")
    assert info["ok"] is True, info
    return info["sandbox"]["pool"]


def test_concurrent_requests_succeed_or_say_busy(tmp_path, sandbox_mode):
    """Every one of a burst of clients gets the right answer or a plain "busy, try again", and enough get answers.

    The bound on answers follows from the configuration, not from timing. The pool's line holds
    at most ``max_waiting`` jobs waiting; a job leaves it only to start running. So whatever the
    timing, the first ``max_waiting`` arrivals of the burst are admitted (Gradio lets more events
    in than the line holds, and queues or refuses the rest itself). Admitted jobs run at most
    ``concurrency`` at a time, the pool's workers, so each gets a worker once the one before it is
    replaced: each admitted request gets the right answer. Requests admitted while others run can
    only add to that, so ``max_waiting`` is the floor.
    """
    # Without the result cache, so that every admitted request is a job of its own (identical ones would share).
    srv = start_server(tmp_path, PLAYGROUND_WORKERS=str(WORKERS), PLAYGROUND_QUEUE_SIZE=str(QUEUE_SIZE),
                       PLAYGROUND_RESULT_CACHE="0", PLAYGROUND_SANDBOX=sandbox_mode,
                       PLAYGROUND_TIMEOUT_S=str(BURST_CLOCK_S))
    try:
        about = srv.client().predict(api_name="/about")
        assert about["ok"] is True, about
        queue = about["queue"]
        concurrency, max_waiting = queue["concurrency"], queue["max_waiting"]
        assert (concurrency, max_waiting) == (WORKERS, QUEUE_SIZE), f"the server did not take its settings: {queue}"
        before = about["sandbox"]["pool"]
        assert concurrency <= before["size"], f"more jobs may run ({concurrency}) than the pool has workers: {before}"
        assert N_REQUESTS > concurrency + max_waiting, "the burst must go beyond the queue"

        clients = [srv.client() for _ in range(N_REQUESTS)]
        start = threading.Barrier(N_REQUESTS)
        outcomes: list[object] = [None] * N_REQUESTS

        def fire(i: int) -> None:
            start.wait()
            try:
                outcomes[i] = inspect(clients[i], DEFAULT_CODE, DEFAULT_ARGS)
            except Exception as exc:  # judged below: only the queue-full error is allowed
                outcomes[i] = exc

        threads = [threading.Thread(target=fire, args=(i,)) for i in range(N_REQUESTS)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=90)
        elapsed = time.monotonic() - t0
        assert not any(t.is_alive() for t in threads), "some requests never got an answer"

        counts = Counter(_classify(o) for o in outcomes)
        print(f"\n{N_REQUESTS} concurrent /inspect in {elapsed:.1f} s: {dict(counts)}")
        assert counts["ok"] >= max_waiting, (
            f"only {counts['ok']} of {N_REQUESTS} got an answer; with {concurrency} running and {max_waiting}"
            f" waiting, at least {max_waiting} must: {dict(counts)}"
        )

        # Healthy afterwards: up, still answering, and every job that reached a worker ran cleanly.
        assert srv.alive(), srv.log_path.read_text()
        after = _pool_counts(srv.client())
        assert after["template_alive"] is True, after
        assert after["jobs"] - before["jobs"] == counts["ok"], (
            f"{after['jobs'] - before['jobs']} jobs ran for {counts['ok']} answers", before, after)
        for key in ("timeouts", "memory_kills", "task_kills", "disk_kills", "crashes", "spawn_failures"):
            assert after[key] == before[key], (key, before, after)
        assert_default_example(inspect(srv.client(), DEFAULT_CODE, DEFAULT_ARGS))
        log = srv.log_path.read_text()
        assert "Traceback" not in log, log
    finally:
        stop_server(srv)
