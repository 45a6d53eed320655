"""End to end: a real ``python app.py`` server, driven with gradio_client like any script would."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from gradio_client import Client
from gradio_client.utils import QueueError

from playground.sandbox.lockdown import probe
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


def test_about(client):
    info = client.predict(api_name="/about")
    assert info["ok"] is True, info
    for package in ("python", "jax", "jaxlib", "gradio", "optax"):
        assert info["versions"].get(package), f"no version for {package}: {info['versions']}"
    assert info["backend"] == "cpu"
    assert isinstance(info["devices"], list) and info["devices"], info["devices"]

    layers = info["sandbox"]["layers"]
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

N_REQUESTS = 20


def _classify(outcome: object) -> str:
    """'ok', 'busy' or 'queue_full'; anything else fails the test with the outcome shown."""
    if isinstance(outcome, QueueError):
        assert QUEUE_FULL_MESSAGE in str(outcome), repr(outcome)
        return "queue_full"
    assert isinstance(outcome, dict), f"unexpected outcome: {outcome!r}"
    if outcome.get("ok") is True:
        assert_default_example(outcome)
        return "ok"
    assert_error(outcome, "busy")
    return "busy"


def test_concurrent_requests_succeed_or_say_busy(tmp_path):
    srv = start_server(tmp_path, PLAYGROUND_WORKERS="2", PLAYGROUND_QUEUE_SIZE="4")
    try:
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
        assert not any(t.is_alive() for t in threads), "some requests never finished"

        counts = Counter(_classify(o) for o in outcomes)
        print(f"\n{N_REQUESTS} concurrent /inspect in {elapsed:.1f} s: {dict(counts)}")
        assert counts["ok"] >= 1, counts
        assert sum(counts.values()) == N_REQUESTS

        assert srv.alive(), srv.log_path.read_text()
        assert_default_example(inspect(srv.client(), DEFAULT_CODE, DEFAULT_ARGS))
        log = srv.log_path.read_text()
        assert "Traceback" not in log, log
    finally:
        stop_server(srv)
