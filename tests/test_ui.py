"""Pure helpers of the UI tabs: turning API dicts into component values and markdown."""

from __future__ import annotations

import pytest

from playground.config import Settings
from playground.sandbox.limits import Limits
from playground.ui import about_tab, inspect_tab
from playground.ui.inspect_tab import error_markdown, render
from playground.usercode import ERROR_KINDS, error_dict

OK_RESPONSE = {
    "ok": True,
    "function": "f",
    "result": "f32[4] [ 0.  3. 14. 39.]",
    "jaxpr": "{ lambda ; a:f32[4]. let b:f32[4] = mul a a in (b,) }",
    "stdout": "",
    "warnings": [],
}


def _update(value) -> dict:
    assert isinstance(value, dict) and value.get("__type__") == "update", value
    return value


def test_render_ok():
    status, result, jaxpr, stdout, raw = render(OK_RESPONSE)
    assert status == "✅ Traced `f`."
    assert result == OK_RESPONSE["result"]
    assert jaxpr == OK_RESPONSE["jaxpr"]
    assert _update(stdout)["visible"] is False
    assert stdout["value"] == ""
    assert raw is OK_RESPONSE


def test_render_ok_with_stdout_and_warnings():
    response = {**OK_RESPONSE, "stdout": "hi Traced<f32[]>\n", "warnings": ["use jax.debug.print", "UserWarning: x"]}
    status, _result, _jaxpr, stdout, _raw = render(response)
    assert "**Notes**" in status
    assert "\n- use jax.debug.print" in status
    assert "\n- UserWarning: x" in status
    assert _update(stdout) == {"__type__": "update", "value": "hi Traced<f32[]>\n", "visible": True}


def test_render_ok_without_optional_fields():
    response = {"ok": True, "function": "g", "result": "i32[] 1", "jaxpr": "{ }"}
    status, result, _jaxpr, stdout, _raw = render(response)
    assert "`g`" in status and "Notes" not in status
    assert result == "i32[] 1"
    assert stdout["visible"] is False


def test_render_error():
    response = error_dict("user_exception", "ZeroDivisionError: division by zero", 3)
    status, result, jaxpr, stdout, raw = render(response)
    assert "Your code raised an exception" in status
    assert "line 3" in status
    assert "ZeroDivisionError: division by zero" in status
    assert (result, jaxpr) == ("", "")
    assert _update(stdout)["visible"] is False
    assert raw is response


@pytest.mark.parametrize("kind", ERROR_KINDS)
def test_error_markdown_every_kind_has_its_own_title(kind):
    text = error_markdown({"kind": kind, "message": "details here", "line": None})
    assert text.startswith("❌ **")
    first_line = text.splitlines()[0]
    assert first_line != "❌ **Error**", f"kind {kind!r} falls back to the generic title"
    assert "line" not in first_line
    assert "```\ndetails here\n```" in text


def test_error_markdown_titles_are_distinct():
    titles = {error_markdown({"kind": k, "message": "m", "line": None}).splitlines()[0] for k in ERROR_KINDS}
    assert len(titles) == len(ERROR_KINDS)


def test_error_markdown_with_line():
    text = error_markdown({"kind": "syntax", "message": "SyntaxError: invalid syntax", "line": 7})
    assert text.splitlines()[0] == "❌ **Syntax error on line 7**"


def test_error_markdown_unknown_kind_is_generic():
    assert error_markdown({"kind": "something_new", "message": "m"}).startswith("❌ **Error**")


def test_error_markdown_message_cannot_close_the_code_fence():
    text = error_markdown({"kind": "user_exception", "message": "a\n```\n# heading", "line": 2})
    assert text.count("```") == 2
    assert "'''" in text


def test_inspect_defaults_are_the_documented_example():
    assert inspect_tab.DEFAULT_CODE == "def f(x):\n    return x + x*x + x*x*x\n"
    assert inspect_tab.DEFAULT_ARGS == "jnp.arange(4.0)"


def sample_about(devices=("TFRT_CPU_0",), backend="cpu") -> dict:
    limits = Limits()
    return {
        "ok": True,
        "versions": {"python": "3.11.9", "jax": "0.10.2", "jaxlib": "0.10.2", "gradio": "6.31.0",
                     "optax": None, "numpy": "2.4.6"},
        "backend": backend,
        "devices": list(devices),
        "sandbox": {
            "layers": {
                "process": {"active": True, "detail": "one fresh worker process per job"},
                "landlock": {"active": True, "detail": "ABI 7"},
                "seccomp": {"active": False, "detail": "libseccomp not loadable"},
            },
            "pool": {"size": 2, "warm": 2},
        },
        "limits": limits.to_dict(),
        "queue": {"concurrency": 2, "max_waiting": 32},
    }


def test_about_to_markdown():
    text = about_tab.to_markdown(sample_about())
    assert "**Backend:** cpu" in text
    assert "**Devices:** TFRT_CPU_0" in text
    assert "jax 0.10.2" in text
    assert "optax not installed" in text
    assert "| landlock | ✅ active | ABI 7 |" in text
    assert "| seccomp | ⚠️ not active | libseccomp not loadable |" in text
    assert "| process | ✅ active |" in text
    assert "**Jobs at once:** 2, **waiting at most:** 32" in text
    table = [line for line in text.splitlines() if line.startswith("|")]
    assert len(table) == 2 + 3  # header, rule, one row per layer


def test_about_to_markdown_without_a_worker_answer():
    text = about_tab.to_markdown(sample_about(devices=(), backend=None))
    assert "**Backend:** unknown" in text
    assert "unknown (no worker answered)" in text


def test_about_to_markdown_several_devices():
    text = about_tab.to_markdown(sample_about(devices=("cuda:0", "cuda:1")))
    assert "**Devices:** cuda:0, cuda:1" in text


def test_about_to_markdown_accepts_the_api_shape():
    from playground.api import PlaygroundAPI

    class Pool:
        layers = {"landlock": {"active": True, "detail": "ABI 7"}}

        def run(self, job):
            return {"ok": True, "backend": "cpu", "devices": ["TFRT_CPU_0"]}

        def status(self):
            return {"size": 1}

    text = about_tab.to_markdown(PlaygroundAPI(pool=Pool(), settings=Settings()).about())
    assert "| landlock | ✅ active | ABI 7 |" in text
    assert "| watchdogs | ✅ active | wall clock 10 s" in text
