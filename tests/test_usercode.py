"""playground.worker.functions.usercode: choosing the function, running it, and explaining its failures."""

from __future__ import annotations

import ast
import errno
import json
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from playground.errors import ERROR_KINDS, UserCodeError, cap_text
from playground.server.ui.picked_function import picked_note
from playground.user_ast import Picked, parse, pick_function, pick_function_name
from playground.worker.functions import usercode
from playground.worker.functions.usercode import CappedText, evaluate_args, load
from playground.worker.lessons.user_errors import classify, error_result, user_line

ROOT = Path(__file__).resolve().parent.parent


def _name(source: str) -> str:
    return pick_function_name(ast.parse(source))


# -- pick_function_name -------------------------------------------------------


def test_pick_prefers_f_even_when_not_last():
    assert _name("def f(x):\n    return x\n\ndef g(x):\n    return 2 * x\n") == "f"


def test_pick_last_top_level_def_without_f():
    source = "def g(x):\n    def inner(y):\n        return y\n    return x\n\ndef h(x):\n    return x\n"
    assert _name(source) == "h"


def test_pick_nested_def_does_not_count():
    source = "def g(x):\n    def f(y):\n        return y\n    return f(x)\n"
    assert _name(source) == "g"


def test_pick_f_assigned_a_lambda():
    assert _name("def g(x):\n    return x\n\nf = lambda x: g(x) * 2\n") == "f"


# A function a JAX transformation makes at the top level is what a learner who writes it means to run.
@pytest.mark.parametrize(("source", "picked"), [
    ("def loss(w):\n    return w ** 2\ngrad_loss = jax.grad(loss)\n", Picked("grad_loss", "jax.grad(loss)", "loss")),
    ("def f(x):\n    return x\ng = jax.grad(f)\n", Picked("g", "jax.grad(f)", "f")),
    ("def f(x):\n    return x\nh = jax.vmap(f)\n", Picked("h", "jax.vmap(f)", "f")),
    ("def f(x):\n    return x\nk = jax.jit(f)\n", Picked("k", "jax.jit(f)", "f")),
    ("def f(x):\n    return x\ng = jax.grad(f)\nh = jax.jit(jax.vmap(g), donate_argnums=0)\n",
     Picked("h", "jax.jit(jax.vmap(g), donate_argnums=0)", "g")),
    ("from jax import grad\ndef f(x):\n    return x\ndf = grad(f)\n", Picked("df", "grad(f)", "f")),
    ("def f(x):\n    return x\nf = jax.jit(f, static_argnums=0)\n", Picked("f", "jax.jit(f, static_argnums=0)", "f")),
    ("def f(x):\n    return x\ng: object = jax.value_and_grad(f)\n", Picked("g", "jax.value_and_grad(f)", "f")),
    ("g = jax.jit(lambda x: x * 2)\n", Picked("g", "jax.jit(lambda x: x * 2)", None)),
    # Bound to f after the transformation (as the docs corpus binds what it runs): f, the name the user chose.
    ("def td(x):\n    return x\nupdate = jax.grad(td)\nf = update\n", Picked("f")),
    # A def after it, using it, is the step the code builds up to.
    ("def loss(w):\n    return w ** 2\ng = jax.grad(loss)\ndef f(w):\n    return w - 0.1 * g(w)\n", Picked("f")),
    # Not transformations: a call of the user's own `grad`, optax's optimiser, a transformation called at once.
    ("def grad(f):\n    return f\ndef h(x):\n    return x\ng = grad(h)\n", Picked("h")),
    ("import optax\ndef loss(w):\n    return w\nopt = optax.adam(1e-3)\n", Picked("loss")),
    ("def loss(w):\n    return w\nvalue = jax.grad(loss)(1.0)\n", Picked("loss")),
])
def test_pick_a_function_made_by_a_transformation(source, picked):
    assert pick_function(ast.parse(source), source) == picked


@pytest.mark.parametrize(("source", "name", "rules_after"), [
    ("@jax.custom_jvp\ndef log1pexp(x):\n    return x\n@log1pexp.defjvp\ndef log1pexp_jvp(p, t):\n    return p, t\n",
     "log1pexp", ("log1pexp_jvp",)),
    ("def clip(x):\n    return x\ndef fwd(x):\n    return x, None\ndef bwd(r, g):\n    return (g,)\n"
     "clip.defvjp(fwd, bwd)\n", "clip", ("fwd", "bwd")),
    ("def g(x):\n    return x\ndef h(x):\n    return x\n", "h", ()),
])
def test_pick_passes_over_custom_derivative_rules_and_says_which(source, name, rules_after):
    picked = pick_function(ast.parse(source), source)
    assert (picked.name, picked.rules_after) == (name, rules_after)
    note = picked_note(source, "de")
    assert f"Ausgeführt wurde `{name}`" in note
    assert all(f"`{rule}`" in note for rule in rules_after)
    assert ("keine Regel einer eigenen Ableitung" in note) == bool(rules_after)


def test_pick_without_any_def_is_invalid_input():
    with pytest.raises(UserCodeError) as info:
        _name("x = 1\ny = lambda z: z\n")
    assert info.value.kind == "invalid_input"
    assert "def f" in info.value.message


# -- parse --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("x = 1\ny = = 2\n", 2),
        ("def f(x):\n    return x\n\ndef g(x:\n    return x\n", 4),
        ("def f(x):\n    return x +\n", 2),
    ],
)
def test_parse_syntax_error_has_kind_and_line(source, line):
    with pytest.raises(UserCodeError) as info:
        parse(source)
    assert info.value.kind == "syntax"
    assert info.value.line == line
    assert info.value.message.startswith("SyntaxError")
    result = info.value.to_result()
    assert result == {"ok": False, "error": {"kind": "syntax", "message": info.value.message, "line": line}}


def test_parse_valid_source_returns_module():
    assert isinstance(parse("def f(x):\n    return x\n"), ast.Module)


# -- load ---------------------------------------------------------------------


def test_load_returns_a_working_function_with_jnp_in_scope():
    program = load("def helper(x):\n    return jnp.sin(x)\n\ndef f(x):\n    return helper(x) * 2\n")
    assert program.name == "f"
    x = np.linspace(-1.0, 1.0, 5, dtype=np.float32)
    np.testing.assert_allclose(program.function(x), 2 * np.sin(x), rtol=1e-6)
    for name in ("jax", "jnp", "np", "lax"):
        assert name in program.namespace


def test_load_lambda_f():
    program = load("f = lambda x: x * 3\n")
    assert program.name == "f"
    assert program.function(2) == 6


def test_load_f_not_callable_is_invalid_input():
    with pytest.raises(UserCodeError) as info:
        load("def g(x):\n    return x\n\nf = 3\n")
    assert info.value.kind == "invalid_input"


def test_load_module_level_exception_carries_user_line():
    source = "def f(x):\n    return x\n\nraise ValueError('boom')\n"
    with pytest.raises(ValueError) as info:
        load(source)
    result = error_result(info.value)
    assert result["ok"] is False
    assert result["error"]["kind"] == "user_exception"
    assert result["error"]["line"] == 4
    assert result["error"]["message"] == "ValueError: boom"


def test_load_waits_for_the_modules_arrays_but_not_for_a_deleted_one_or_a_leaked_tracer():
    source = ("leak = []\n\n@jax.jit\ndef g(x):\n    leak.append(x)\n    return x\n\ng(1.0)\ntraced = leak[0]\n"
              "gone = jnp.ones(3)\ngone.delete()\nkept = jnp.arange(3.0)\n\ndef f(x):\n    return x + kept\n")
    program = load(source)
    assert program.function(1.0).tolist() == [1.0, 2.0, 3.0]


def test_error_result_of_call_inside_user_function_points_at_that_line():
    program = load("def f(x):\n    y = x + 1\n    return y / 0\n")
    with pytest.raises(ZeroDivisionError) as info:
        program.function(1)
    assert error_result(info.value)["error"]["line"] == 3


def test_error_result_of_user_code_error_is_its_own_dict():
    exc = UserCodeError("invalid_input", "bad args")
    assert error_result(exc) == {"ok": False, "error": {"kind": "invalid_input", "message": "bad args", "line": None}}


def test_error_result_prefixes_memory_and_forbidden():
    assert error_result(MemoryError())["error"]["message"].startswith("Out of memory")
    forbidden = error_result(PermissionError(errno.EPERM, "nope"))["error"]
    assert forbidden["kind"] == "forbidden"
    assert forbidden["message"].startswith("Blocked by the sandbox")
    assert "PermissionError: [Errno 1] nope" in forbidden["message"]


def test_error_message_is_capped():
    result = error_result(ValueError("x" * 10_000))
    message = result["error"]["message"]
    assert len(message) < 4200
    assert "more characters]" in message


# -- evaluate_args -------------------------------------------------------------


def test_evaluate_args_tuple_gives_several_arguments():
    args = evaluate_args("(jnp.arange(3.0), 2)", usercode.base_namespace())
    assert len(args) == 2
    np.testing.assert_array_equal(args[0], np.arange(3.0))
    assert args[1] == 2


def test_evaluate_args_single_value_gives_one_tuple():
    args = evaluate_args("jnp.ones((2, 2))", usercode.base_namespace())
    assert isinstance(args, tuple) and len(args) == 1
    np.testing.assert_array_equal(args[0], np.ones((2, 2)))


def test_evaluate_args_list_is_one_argument():
    assert evaluate_args("[1, 2]", {}) == ([1, 2],)


@pytest.mark.parametrize("expression", ["", "   ", "\n"])
def test_evaluate_args_empty_gives_no_arguments(expression):
    assert evaluate_args(expression, {}) == ()


def test_evaluate_args_sees_user_namespace():
    program = load("SCALE = 3.0\ndef f(x):\n    return x * SCALE\n")
    assert evaluate_args("SCALE", program.namespace) == (3.0,)


@pytest.mark.parametrize("expression", ["(1, ", "x = 1", "def"])
def test_evaluate_args_syntax_error_is_invalid_input(expression):
    with pytest.raises(UserCodeError) as info:
        evaluate_args(expression, {})
    assert info.value.kind == "invalid_input"
    assert "not a Python expression" in info.value.message


def test_evaluate_args_name_error_is_invalid_input():
    with pytest.raises(UserCodeError) as info:
        evaluate_args("undefined_name + 1", usercode.base_namespace())
    assert info.value.kind == "invalid_input"
    assert "NameError" in info.value.message
    assert "undefined_name" in info.value.message


def test_evaluate_args_memory_error_is_not_swallowed():
    with pytest.raises(MemoryError):
        evaluate_args("boom()", {"boom": _raise(MemoryError())})


def _raise(exc):
    def boom():
        raise exc

    return boom


# -- classify ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (MemoryError(), "memory"),
        (OSError(errno.EPERM, "Operation not permitted"), "forbidden"),
        (OSError(errno.EACCES, "Permission denied"), "forbidden"),
        (PermissionError(errno.EACCES, "Permission denied"), "forbidden"),
        (OSError(errno.ENOSPC, "No space left on device"), "disk"),
        (OSError(errno.EFBIG, "File too large"), "disk"),
        # What a message says never decides: these are the user's own exceptions.
        (PermissionError("denied"), "user_exception"),
        (ValueError("Permission denied"), "user_exception"),
        (RuntimeError("can't start new thread"), "user_exception"),
        (RuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 8.00GiB"), "user_exception"),
        (OSError("No space left on device"), "user_exception"),
        (ValueError("shapes do not match"), "user_exception"),
        (OSError(errno.ENOENT, "No such file"), "user_exception"),
        (TypeError("bad"), "user_exception"),
    ],
)
def test_classify(exc, kind):
    assert classify(exc) == kind
    assert kind in ERROR_KINDS


def test_a_thread_that_cannot_start_is_a_task_limit(monkeypatch):
    import threading

    def refuse(*_args, **_kwargs):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading, "_start_new_thread", refuse)
    with pytest.raises(RuntimeError) as info:
        threading.Thread(target=lambda: None).start()
    assert classify(info.value) == "tasks"


def test_xla_out_of_memory_is_memory_by_its_status_code():
    import jax.numpy as jnp

    with pytest.raises(Exception) as info:
        jnp.ones((200_000, 200_000)).block_until_ready()  # 160 GB: XLA refuses before allocating
    assert info.value.error_code_string == "RESOURCE_EXHAUSTED"
    assert classify(info.value) == "memory"


def test_a_computation_whose_input_could_not_be_made_is_memory_by_xlas_status_and_words():
    import jax

    with pytest.raises(Exception) as info:  # 4 PB: no address space holds it, overcommitted or not
        (jax.random.normal(jax.random.key(0), (10**5,) * 3) + 1).block_until_ready()
    assert info.value.error_code_string == "INTERNAL"  # XLA's status for a failed input, its words say why
    assert classify(info.value) == "memory"


def test_xlas_words_in_a_runtime_error_made_in_python_are_not_memory():
    import jax

    forged = jax.errors.JaxRuntimeError("INTERNAL: Error dispatching computation: Out of memory allocating 8 bytes.")
    assert classify(forged) == "user_exception"


@pytest.mark.parametrize(("raised", "kind"), [(PermissionError(errno.EACCES, "no"), "forbidden"),
                                              (ValueError("Permission denied"), "user_exception")])
def test_a_callback_error_is_classified_by_the_callbacks_own_exception(raised, kind):
    import jax
    import jax.numpy as jnp

    from playground.worker.lessons.user_errors import CallbackFailures

    def callback(x):
        raise raised

    CallbackFailures.install()
    with pytest.raises(Exception) as info:
        jax.jit(lambda x: jax.pure_callback(callback, jax.ShapeDtypeStruct((), jnp.float32), x))(1.0)
    assert classify(info.value) == kind


def test_classify_real_missing_file_is_user_exception(tmp_path):
    with pytest.raises(OSError) as info:
        (tmp_path / "missing" / "file").read_text()
    assert classify(info.value) == "user_exception"


# -- user_line -----------------------------------------------------------------


def test_user_line_through_jit_tracing():
    program = load("def f(x):\n    if x > 0:\n        return x\n    return -x\n")
    with pytest.raises(jax.errors.TracerBoolConversionError) as info:
        jax.jit(program.function)(jnp.float32(1.0))
    assert user_line(info.value) == 2
    result = error_result(info.value)
    assert result["error"]["kind"] == "user_exception"
    assert result["error"]["line"] == 2
    assert result["error"]["message"].startswith("TracerBoolConversionError")


def test_user_line_innermost_user_frame():
    source = "def g(x):\n    return x[10]\n\ndef f(x):\n    return g(x)\n"
    program = load(source)
    with pytest.raises(IndexError) as info:
        program.function([1, 2])
    assert user_line(info.value) == 2


def test_user_line_follows_cause_chain():
    program = load("def f(x):\n    return 1 / x\n")
    try:
        try:
            program.function(0)
        except ZeroDivisionError as inner:
            raise RuntimeError("wrapped") from inner
    except RuntimeError as outer:
        assert user_line(outer) == 2


def test_user_line_and_message_from_a_traceback_embedded_in_the_text():
    # JAX's callback errors carry the callback's traceback as text, not as frames.
    exc = RuntimeError(
        "INTERNAL: callback failed\n"
        "Traceback (most recent call last):\n"
        '  File "/venv/jax/_src/callback.py", line 93, in impl\n'
        "    return callback(*args)\n"
        '  File "<playground>", line 4, in g\n'
        '  File "<playground>", line 7, in h\n'
        "    raise ValueError('deep')\n"
        "ValueError: deep"
    )
    assert user_line(exc) == 7
    result = error_result(exc)
    assert result["error"]["line"] == 7
    assert result["error"]["message"] == "RuntimeError: INTERNAL: callback failed ValueError: deep"


def test_user_line_none_outside_user_code():
    try:
        raise ValueError("ours")
    except ValueError as exc:
        assert user_line(exc) is None


# -- CappedText and cap_text ----------------------------------------------------


def test_capped_text_keeps_first_chars_and_counts_rest():
    sink = CappedText(10)
    assert sink.write("0123456") == 7
    assert sink.write("789abcdef") == 9
    assert sink.write("XYZ") == 3
    assert sink.dropped == 6 + 3
    value = sink.getvalue()
    assert value.startswith("0123456789")
    assert value[10:] == "\n… [output truncated: 9 more characters]"


def test_capped_text_under_limit_has_no_notice():
    sink = CappedText(100)
    sink.write("hello\n")
    assert sink.getvalue() == "hello\n"
    assert sink.dropped == 0


def test_capped_text_as_print_target():
    sink = CappedText(5)
    print("a" * 2000, file=sink)
    assert sink.dropped == 2001 - 5
    assert "1,996 more characters" in sink.getvalue()


def test_cap_text():
    assert cap_text("short", 10) == "short"
    assert cap_text("exactly10!", 10) == "exactly10!"
    capped = cap_text("x" * 12_345, 100)
    assert capped.startswith("x" * 100 + "\n")
    assert capped.count("x") == 100
    assert "12,245 more characters" in capped


# -- forbid_new_processes (process-wide hook: only in a subprocess) --------------


def test_forbid_new_processes_in_a_subprocess():
    script = (
        "import json, os, subprocess\n"
        "from playground.worker.functions.usercode import forbid_new_processes\n"
        "forbid_new_processes()\n"
        "out = {}\n"
        "for name, call in (('system', lambda: os.system('true')),\n"
        "                   ('popen', lambda: subprocess.Popen(['true'])),\n"
        "                   ('fork', os.fork)):\n"
        "    try:\n"
        "        call()\n"
        "        out[name] = 'ran'\n"
        "    except PermissionError as exc:\n"
        "        out[name] = 'PermissionError: ' + str(exc)\n"
        "open(os.devnull).close()\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["system"].startswith("PermissionError: [Errno 1] os.system is not allowed")
    assert out["popen"].startswith("PermissionError:")
    assert out["fork"].startswith("PermissionError:")


def test_annotated_assignment_to_f_counts():
    assert pick_function_name(ast.parse("f: object = lambda x: x\n")) == "f"
