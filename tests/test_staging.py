"""playground.worker.jobs.inspect: the result and jaxpr of a user function, checked against JAX and numpy directly."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

from playground.worker.functions import usercode
from playground.worker.functions.values import describe, short_dtype
from playground.worker.jobs import inspect as staging
from playground.worker.jobs.inspect import inspect

DEFAULT_CODE = "def f(x):\n    return x + x*x + x*x*x\n"
DEFAULT_ARGS = "jnp.arange(4.0)"


def _values(text: str) -> np.ndarray:
    """The numbers printed after ``f32[4]`` in a result line."""
    inner = text[text.index("[", text.index("]")) + 1:text.rindex("]")]
    return np.array([float(v) for v in inner.split()])


def reference(x):
    return x + x * x + x * x * x


def same_text(a: str, b: str) -> bool:
    """Equal up to line breaks and indentation (format_jaxpr may break a one-line jaxpr)."""
    return a.split() == b.split()


def test_default_example_result_matches_numpy():
    out = inspect(DEFAULT_CODE, DEFAULT_ARGS, 10_000)
    assert out["ok"] is True
    assert out["function"] == "f"
    assert out["result"].startswith("f32[4] ")
    x = np.arange(4.0, dtype=np.float32)
    np.testing.assert_allclose(_values(out["result"]), reference(x), rtol=1e-6)
    assert out["result"] == "f32[4] [ 0.  3. 14. 39.]"
    assert out["stdout"] == ""
    assert out["warnings"] == []


def test_default_example_jaxpr_equals_make_jaxpr():
    out = inspect(DEFAULT_CODE, DEFAULT_ARGS, 10_000)
    expected = str(jax.make_jaxpr(reference)(jnp.arange(4.0)))
    assert out["jaxpr"] == expected
    assert "mul" in expected and "add" in expected


def test_several_arguments_and_result_against_jit_and_eager():
    code = "def f(w, x, b):\n    return jnp.tanh(w @ x + b)\n"
    args = "(jnp.ones((2, 3)) * 0.1, jnp.arange(3.0), jnp.array([0.5, -0.5]))"
    out = inspect(code, args, 10_000)
    assert out["ok"], out
    w, x, b = np.ones((2, 3), np.float32) * 0.1, np.arange(3.0, dtype=np.float32), np.array([0.5, -0.5], np.float32)
    assert out["result"].startswith("f32[2] ")
    np.testing.assert_allclose(_values(out["result"]), np.tanh(w @ x + b), rtol=1e-5)

    def fn(w, x, b):
        return jnp.tanh(w @ x + b)

    assert same_text(out["jaxpr"], str(jax.make_jaxpr(fn)(jnp.asarray(w), jnp.asarray(x), jnp.asarray(b))))


def test_pytree_in_and_out_uses_key_paths():
    code = "def f(p):\n    return p['a'] * 2, {'c': p['b'] + 1}\n"
    out = inspect(code, "{'a': jnp.ones(2), 'b': jnp.arange(3)}", 10_000)
    assert out["ok"], out
    lines = out["result"].splitlines()
    assert lines == ["[0]: f32[2] [2. 2.]", "[1]['c']: i32[3] [1 2 3]"]

    def fn(p):
        return p["a"] * 2, {"c": p["b"] + 1}

    assert same_text(out["jaxpr"], str(jax.make_jaxpr(fn)({"a": jnp.ones(2), "b": jnp.arange(3)})))


def test_dict_output_shows_key_in_result():
    out = inspect("def f(x):\n    return {'a': x, 'b': x * 2}\n", "jnp.float32(1.5)", 10_000)
    assert out["ok"], out
    assert out["result"] == "['a']: f32[] 1.5\n['b']: f32[] 3.0"


def test_printing_function_reports_stdout_and_a_warning():
    out = inspect("def f(x):\n    print('value is', x)\n    return x * 2\n", "jnp.arange(3.0)", 10_000)
    assert out["ok"], out
    assert out["stdout"].startswith("value is ")
    assert "Tracer" in out["stdout"]  # print sees the tracer at trace time, not the values
    assert any("jax.debug.print" in w for w in out["warnings"])
    np.testing.assert_allclose(_values(out["result"]), np.arange(3.0) * 2)


def test_python_warning_is_reported():
    code = "import warnings\ndef f(x):\n    warnings.warn('careful now')\n    return x\n"
    out = inspect(code, "1.0", 10_000)
    assert out["ok"], out
    assert "UserWarning: careful now" in out["warnings"]


def test_long_stdout_is_truncated_with_notice():
    out = inspect("def f(x):\n    print('a' * 500)\n    return x\n", "1.0", 100)
    assert out["ok"], out
    assert out["stdout"].startswith("a" * 100 + "\n…")
    match = re.search(r"output truncated: ([\d,]+) more characters", out["stdout"])
    assert match, out["stdout"]
    dropped = int(match.group(1).replace(",", ""))
    # printed at least once (trace time): 500 a's and a newline; more if traced twice.
    assert dropped in (501 - 100, 2 * 501 - 100)


def test_long_jaxpr_and_result_are_truncated_with_notice():
    code = "def f(x):\n" + "".join(f"    x = jnp.sin(x) + {i}\n" for i in range(40)) + "    return x\n"
    out = inspect(code, "jnp.arange(3.0)", 200)
    assert out["ok"], out
    assert len(out["jaxpr"]) < 300
    assert "output truncated" in out["jaxpr"]
    full_out = inspect(code, "jnp.arange(3.0)", 1_000_000)
    dropped = int(re.search(r"([\d,]+) more characters", out["jaxpr"]).group(1).replace(",", ""))
    assert dropped == len(full_out["jaxpr"]) - 200
    assert out["jaxpr"].startswith(full_out["jaxpr"][:200])


def test_short_jaxpr_gets_one_equation_per_line_with_the_same_tokens():
    jaxpr = jax.make_jaxpr(lambda x: x * 2)(1.0)
    assert "\n" not in str(jaxpr).strip()  # JAX prints this small one on one line
    out = inspect("def f(x):\n    return x * 2\n", "1.0", 10_000)
    assert same_text(out["jaxpr"], str(jaxpr))
    assert out["jaxpr"].splitlines()[1].strip() == "b:f32[] = mul a 2.0:f32[]"


def test_error_in_a_callback_names_the_user_line():
    code = (
        "def bad(v):\n"
        "    raise ValueError('inner problem')\n"
        "\n"
        "def f(x):\n"
        "    return jax.pure_callback(bad, jax.ShapeDtypeStruct(x.shape, x.dtype), x * 2)\n"
    )
    out = inspect(code, "jnp.arange(3.0)", 10_000)
    assert out["ok"] is False
    assert out["error"]["kind"] == "user_exception"
    assert out["error"]["line"] == 2
    assert out["error"]["message"].endswith("ValueError: inner problem")
    assert "Traceback" not in out["error"]["message"]


def test_syntax_error_result():
    out = inspect("def f(x):\n    return x +\n", "1.0", 10_000)
    assert out == {"ok": False, "error": {"kind": "syntax", "message": out["error"]["message"], "line": 2}}


def test_traced_bool_conversion_points_at_user_line():
    out = inspect("def f(x):\n    if x > 0:\n        return x\n    return -x\n", "1.0", 10_000)
    assert out["ok"] is False
    assert out["error"]["kind"] == "user_exception"
    assert out["error"]["line"] == 2
    assert "TracerBoolConversionError" in out["error"]["message"]


# JAX's own example (docs: Control flow and logical operators with JIT): `# ok!` under grad, an error under jit.
DOCS_IF = "def f(x):\n  if x < 3:\n    return 3. * x ** 2\n  else:\n    return -4 * x\n"


def _piece_keys(error: dict, part: str) -> list[str]:
    return [piece[0] for piece in error["words"][part] if isinstance(piece, list)]


def test_an_error_only_the_added_jit_causes_says_the_tab_added_it_and_how_it_runs_without():
    error = inspect(DOCS_IF, "2.0", 10_000)["error"]
    assert _piece_keys(error, "explanation")[0] == "tracer.jitted_here"
    assert _piece_keys(error, "fix")[-1] == "tracer.without_jit"
    assert error["explanation"].startswith("Your code does not jit `f`: this tab does")
    assert "Derivatives tab" in error["fix"] and "`jax.grad` alone runs `f`" in error["fix"]
    assert jax.grad(usercode.load(DOCS_IF).function)(2.0) == 12.0  # as the fix says


@pytest.mark.parametrize("code", [
    DOCS_IF + "f = jax.jit(f)\n",  # the user's own jit: nothing was added
    "def f(x):\n    return np.asarray(x) * 2\n",  # NumPy on a tracer fails under grad alone too
])
def test_an_error_the_code_itself_causes_says_nothing_of_an_added_jit(code):
    error = inspect(code, "2.0", 10_000)["error"]
    assert "tracer.jitted_here" not in _piece_keys(error, "explanation")
    assert "tracer.without_jit" not in _piece_keys(error, "fix")


def test_a_gradient_made_at_the_top_level_is_what_runs_and_its_def_is_what_the_checks_read():
    code = "def loss(w):\n    print(w)\n    return jnp.sum(w ** 2)\n\ngrad_loss = jax.grad(loss)\n"
    out = inspect(code, "jnp.arange(3.0)", 10_000)
    assert out["function"] == "grad_loss"
    np.testing.assert_allclose(_values(out["result"]), [0.0, 2.0, 4.0])
    assert [(finding["check"], finding["line"]) for finding in out["purity"]] == [("static", 2)]  # print, in loss


def test_bad_args_are_invalid_input():
    out = inspect(DEFAULT_CODE, "nope(", 10_000)
    assert out["ok"] is False
    assert out["error"]["kind"] == "invalid_input"


def test_shape_error_is_user_exception_with_line():
    out = inspect("def f(x, y):\n    z = x * 2\n    return z @ y\n", "(jnp.ones(3), jnp.ones(4))", 10_000)
    assert out["ok"] is False
    assert out["error"]["kind"] == "user_exception"
    assert out["error"]["line"] == 3


@pytest.mark.parametrize(
    ("dtype", "short"),
    [
        (np.float32, "f32"),
        (ml_dtypes.bfloat16, "bf16"),
        (jnp.bfloat16, "bf16"),
        (np.float16, "f16"),
        (np.int8, "i8"),
        (np.int32, "i32"),
        (np.uint32, "u32"),
        (np.uint8, "u8"),
        (np.complex64, "c64"),
        (np.bool_, "bool"),
    ],
)
def test_short_dtype_matches_jaxpr_names(dtype, short):
    assert short_dtype(dtype) == short
    if dtype is not ml_dtypes.bfloat16 and np.dtype(dtype).itemsize <= 4:
        # The same spelling JAX itself uses in jaxprs.
        jaxpr = str(jax.make_jaxpr(lambda x: x)(jnp.zeros(2, dtype)))
        assert f"{short}[2]" in jaxpr


def test_describe_single_array():
    assert describe(jnp.arange(3, dtype=jnp.int8)) == "i8[3] [0 1 2]"
    assert describe(jnp.float32(2.5)) == "f32[] 2.5"


def test_describe_long_array_is_summarised():
    text = describe(jnp.arange(1000.0))
    assert text.startswith("f32[1000] ")
    assert "..." in text
    assert len(text) < 100


def test_describe_non_array_values():
    assert describe(None) == "None (no arrays)"
    assert describe(()) == "() (no arrays)"
    assert describe({}) == "{} (no arrays)"
    assert describe(3).endswith(" 3")
    text = describe([1.5])
    assert text.startswith("[0]: f") and text.endswith("[] 1.5")


def test_module_docstring_example_is_true():
    out = staging.inspect("def f(x):\n    return x + x*x + x*x*x", "jnp.arange(4.0)", 10_000)["jaxpr"]
    assert out.startswith("{ lambda ; a:f32[4]. let\n    b:f32[4] = mul a a\n    c:f32[4] = add a b")


def test_behavioural_checks_are_skipped_with_a_note_when_the_function_is_slow():
    code = "import time\ndef f(x):\n    time.sleep(0.3)\n    return x\n"
    out = inspect(code, "1.0", 10_000, checks_budget_s=0.1)
    assert out["ok"] is True
    assert out["purity"] == [] or all(f["check"] == "static" for f in out["purity"])
    assert any("behavioural purity checks were skipped" in w for w in out["warnings"])


def test_missing_cost_counters_are_null_with_the_reason_never_a_number():
    out = inspect(DEFAULT_CODE, DEFAULT_ARGS, 10_000)  # no sin/exp/...: XLA leaves transcendentals out
    assert out["cost"]["transcendentals"] is None
    assert "leaves out counts that are zero" in out["cost"]["unavailable"]["transcendentals"]
    assert out["cost"]["flops"] > 0
