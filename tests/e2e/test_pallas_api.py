"""The Pallas job through a real server and gradio_client: every example runs in interpret mode in the sandbox and
passes the server's reply check, a mistake's lesson comes back in the reader's words, and a kernel that never ends
meets the clock while the server answers the next job."""

from __future__ import annotations

import pytest

from playground import messages, pallas_gallery
from tests.e2e.responses import ok


@pytest.mark.parametrize("example", pallas_gallery.EXAMPLES, ids=lambda e: e.name)
def test_every_example_runs_in_the_sandbox_and_its_reply_passes_the_servers_check(client, example):
    response = ok(client.predict(example.code, example.args, api_name="/pallas"))

    assert response["mode"] == "interpret" and response["ran"]
    assert response["matches"] is not bool(example.mistake)
    assert [f["kind"] for f in response["findings"] if f["kind"] == example.mistake] == \
        ([example.mistake] if example.mistake else [])
    [call] = response["calls"]
    assert all(len(operand["blocks"]) == call["total"] for operand in call["operands"])


def test_a_kernel_mistake_comes_back_with_its_lesson_in_every_language(client):
    code = pallas_gallery.ELEMENTWISE.code.replace("o_ref[...] = x_ref[...] + y_ref[...]",
                                                   "o_ref[...] = x_ref[pl.ds(4, 8), :] + y_ref[...]")

    response = client.predict(code, pallas_gallery.ELEMENTWISE.args, api_name="/pallas")

    assert response["ok"] is False
    error = response["error"]
    assert error["title"].startswith("ValueError: a kernel reads or writes past the end of its block")
    assert error["line"] == 5 and error["doc_url"].startswith("https://docs.jax.dev/en/latest/pallas/")  # the store
    for language in ("de", "zh"):
        assert messages.render(error["words"]["fix"], language) != messages.render(error["words"]["fix"], "en")


def test_a_kernel_that_never_ends_meets_the_clock_and_the_next_job_is_answered(strict_server):
    client = strict_server.client()
    code = pallas_gallery.ELEMENTWISE.code.replace(
        "    o_ref[...] = x_ref[...] + y_ref[...]",
        "    o_ref[...] = x_ref[...] + y_ref[...]\n    while True:\n        pass")

    response = client.predict(code, pallas_gallery.ELEMENTWISE.args, api_name="/pallas")

    assert response["ok"] is False and response["error"]["kind"] == "timeout", response
    ok(client.predict(pallas_gallery.SOFTMAX.code, pallas_gallery.SOFTMAX.args, api_name="/pallas"))


@pytest.mark.parametrize(("change", "kind"), [
    (("o_ref[...] = x_ref[...] + y_ref[...]", "o_ref[pl.ds(4, 8), :] = x_ref[...] + y_ref[...]"), "user_exception"),
    (("out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype)", "out_shape=jax.ShapeDtypeStruct((200_000, 128 * 1024), "
      "x.dtype)"), "memory"),
], ids=["a write past its block", "an output larger than the job's memory"])
def test_a_hostile_kernel_ends_with_a_clear_error_and_the_server_goes_on(client, change, kind):
    code = pallas_gallery.ELEMENTWISE.code.replace(*change)

    response = client.predict(code, pallas_gallery.ELEMENTWISE.args, api_name="/pallas")

    assert response["ok"] is False and response["error"]["kind"] == kind, response
    assert "Traceback" not in response["error"]["message"]
    ok(client.predict(pallas_gallery.ELEMENTWISE.code, pallas_gallery.ELEMENTWISE.args, api_name="/pallas"))
