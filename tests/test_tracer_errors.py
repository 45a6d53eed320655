"""playground.worker.lessons.tracer_errors: real JAX tracer errors in, an explanation and a fitting fix out."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.errors import (
    ConcretizationTypeError,
    NonConcreteBooleanIndexError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
)

from playground import messages
from playground.errors import USER_FILENAME
from playground.worker.lessons.tracer_errors import DOCS_URL, explain
from playground.worker.lessons.user_errors import user_line

KEYS = {"title", "explanation", "fix", "doc_url"}


def _namespace() -> dict:
    return {"__name__": "__playground__", "jax": jax, "jnp": jnp, "np": np, "lax": lax}


def _fail(raises: type[BaseException], source: str, *args, name: str = "f") -> BaseException:
    """Run the user's ``name`` through jax.jit on ``args`` and return the exception it raises.

    The exception must be exactly ``raises``, not a subclass: TracerBoolConversionError is a
    ConcretizationTypeError, and explain() tells the two apart.
    """
    namespace = _namespace()
    exec(compile(source, USER_FILENAME, "exec"), namespace)
    with pytest.raises(raises) as info:
        jax.jit(namespace[name])(*args)
    assert type(info.value) is raises, f"expected exactly {raises.__name__}, JAX raised {info.value!r}"
    return info.value


def _explain(raises: type[BaseException], source: str, *args) -> tuple[BaseException, dict]:
    exc = _fail(raises, source, *args)
    info = explain(exc, source, user_line(exc))
    assert info is not None and set(info) == KEYS | {"words"}
    assert all(isinstance(info[key], str) and info[key] for key in KEYS)
    assert {part: messages.render(pieces) for part, pieces in info["words"].items()} == {
        part: info[part] for part in ("title", "explanation", "fix")}  # the pieces, in English, are the text
    return exc, info


def _check_class(exc: BaseException, info: dict) -> None:
    """The explanation is titled and linked by the public jax.errors class JAX raised."""
    name = type(exc).__name__
    assert getattr(jax.errors, name, None) is type(exc), f"{type(exc)} is not jax.errors.{name}"
    assert info["title"].startswith(f"{name}: ")
    assert info["doc_url"] == f"https://docs.jax.dev/en/latest/errors.html#jax.errors.{name}"
    assert info["doc_url"] == DOCS_URL + name


IF = "def f(x):\n    if x > 0:\n        return x\n    return -x\n"
TERNARY = "def f(x):\n    y = x if x > 0 else -x\n    return y\n"
WHILE = "def f(x):\n    while x < 10:\n        x = x * 2\n    return x\n"
RANGE = "def f(x, n):\n    for i in range(n):\n        x = x + i\n    return x\n"
LEAK = ("cache = []\n\ndef g(x):\n    cache.append(x)\n    return x\n\n"
        "def f(x):\n    jax.jit(g)(x)\n    return cache[0] + 1\n")


# -- one real error of each class ---------------------------------------------


def test_if_on_traced_value_suggests_where_and_cond():
    exc, info = _explain(TracerBoolConversionError, IF, 1.0)
    _check_class(exc, info)
    assert "tracer" in info["explanation"] and "shape" in info["explanation"] and "dtype" in info["explanation"]
    assert "Common_Gotchas_in_JAX" in info["explanation"]
    assert "jnp.where(x > 0" in info["fix"] and "lax.cond(x > 0" in info["fix"]
    assert info["fix"].startswith("Line 2 (`if x > 0:`)")


def test_ternary_example_uses_the_users_branches():
    exc, info = _explain(TracerBoolConversionError, TERNARY, 1.0)
    _check_class(exc, info)
    assert "jnp.where(x > 0, x, -x)" in info["fix"] and "lax.cond" in info["fix"]


def test_while_suggests_while_loop():
    exc, info = _explain(TracerBoolConversionError, WHILE, 1.0)
    _check_class(exc, info)
    assert "lax.while_loop(lambda x: x < 10, body, x)" in info["fix"]
    assert "jnp.where" not in info["fix"]


def test_assert_and_boolean_operators_get_their_own_fixes():
    _, info = _explain(TracerBoolConversionError, "def f(x):\n    assert x > 0\n    return x\n", 1.0)
    assert "checkify" in info["fix"]
    _, info = _explain(TracerBoolConversionError, "def f(x):\n    return x > 0 and x < 1\n", 1.0)
    assert "jnp.logical_and" in info["fix"]


def test_range_of_traced_count_suggests_fori_loop_and_static_argnums():
    exc, info = _explain(TracerIntegerConversionError, RANGE, 1.0, 3)
    _check_class(exc, info)
    assert "lax.fori_loop(0, n, lambda i, x: ..., x)" in info["fix"]
    assert "lax.scan" in info["fix"]
    assert "static_argnums=1" in info["fix"] and "`n`" in info["fix"]  # JAX blamed n, the second parameter


def test_list_index_with_tracer_suggests_an_array():
    exc, info = _explain(TracerIntegerConversionError, "def f(x, i):\n    return [1, 2, 3][i]\n", jnp.ones(3), 1)
    _check_class(exc, info)
    assert "jnp.asarray([1, 2, 3])[i]" in info["fix"] and "static_argnums=1" in info["fix"]


def test_int_of_tracer_is_a_concretization_error():
    exc, info = _explain(ConcretizationTypeError, "def f(x):\n    return int(x)\n", 1.0)
    _check_class(exc, info)
    assert "jnp.asarray(x, jnp.int32)" in info["fix"] and "not int(x)" in info["fix"]
    assert "static_argnums=0" in info["fix"]


def test_data_dependent_shape_suggests_static_argnums():
    exc, info = _explain(ConcretizationTypeError, "def f(x, n):\n    return x + jnp.arange(n)\n", jnp.ones(3), 3)
    _check_class(exc, info)
    assert "x.shape" in info["fix"] and "static_argnums=1" in info["fix"]


def test_nonzero_without_size_suggests_size():
    exc, info = _explain(ConcretizationTypeError, "def f(x):\n    return jnp.nonzero(x)\n", jnp.ones(3))
    _check_class(exc, info)
    assert "jnp.nonzero(x, size=x.size, fill_value=0)" in info["fix"]


@pytest.mark.parametrize("call", ["np.asarray(x)", "np.sin(x)"])
def test_numpy_on_tracer_suggests_jnp(call):
    exc, info = _explain(TracerArrayConversionError, f"def f(x):\n    return {call}\n", jnp.ones(3))
    _check_class(exc, info)
    name = call.split("(")[0].split(".")[1]
    assert f"jnp.{name}(" in info["fix"] and f"instead of np.{name}" in info["fix"]


def test_boolean_mask_suggests_where_and_nonzero_size():
    exc, info = _explain(NonConcreteBooleanIndexError, "def f(x):\n    return x[x > 0]\n", jnp.ones(3))
    _check_class(exc, info)
    assert "jnp.where(x > 0, x, 0)" in info["fix"] and "jnp.nonzero(x > 0, size=" in info["fix"]
    assert "bool[3]" in info["explanation"]


def test_masked_update_suggests_where():
    exc, info = _explain(NonConcreteBooleanIndexError, "def f(x):\n    return x.at[x > 0].set(0)\n", jnp.ones(3))
    _check_class(exc, info)
    assert "x = jnp.where(x > 0, 0, x)" in info["fix"]


def test_leaked_tracer_names_the_statement_that_stores_it():
    exc = _fail(UnexpectedTracerError, LEAK, 1.0)
    assert user_line(exc) is None  # JAX raises it far from the user's frames
    info = explain(exc, LEAK, None)
    _check_class(exc, info)
    assert "return" in info["fix"] and "global" in info["explanation"]
    assert info["fix"].startswith("Line 4 (`cache.append(x)`)") and "`g`" in info["fix"]


def test_leak_through_a_dict_uses_the_line_jax_reports():
    source = "cache = {}\ndef f(x):\n    cache['y'] = x * 2\n    return x\nf = jax.jit(f)\nf(1.0)\n" \
             "def f(x):\n    return x + cache['y']\n"
    exc = _fail(UnexpectedTracerError, source, 1.0)
    info = explain(exc, source, user_line(exc))
    _check_class(exc, info)
    assert info["fix"].startswith("Line 3 (`cache['y'] = x * 2`)")


# -- the suggested code really runs under jit ---------------------------------


@pytest.mark.parametrize("raises, source, args", [
    (TracerBoolConversionError, TERNARY, (-2.0,)),
    (NonConcreteBooleanIndexError, "def f(x):\n    return x[x > 0]\n", (jnp.array([-1.0, 2.0, 3.0]),)),
    (NonConcreteBooleanIndexError, "def f(x):\n    return x.at[x > 0].set(0)\n", (jnp.array([-1.0, 2.0]),)),
    (ConcretizationTypeError, "def f(x):\n    return int(x)\n", (2.5,)),
    (ConcretizationTypeError, "def f(x):\n    return jnp.nonzero(x)\n", (jnp.array([0.0, 1.0]),)),
    (TracerArrayConversionError, "def f(x):\n    return np.sin(x)\n", (jnp.array([0.0, 1.0]),)),
])
def test_suggested_code_traces(raises, source, args):
    """The fix's first code block runs under jit, with the user's names bound, without a tracer error."""
    _, info = _explain(raises, source, *args)
    block = re.search(r"```python\n(.*?)```", info["fix"], re.S).group(1).replace("(...)", "(x)")

    def suggested(x):
        namespace = {**_namespace(), "x": x}
        exec(block, namespace)
        return {k: v for k, v in namespace.items() if k not in _namespace() and k != "__builtins__"}

    values = jax.jit(suggested)(*args)
    assert jax.tree.leaves(values)
    if source == TERNARY:
        np.testing.assert_allclose(values["y"], 2.0)


# -- robustness ---------------------------------------------------------------


def test_other_exceptions_give_none():
    assert explain(ValueError("nope"), IF, 2) is None
    assert explain(TypeError("nope"), IF, 2) is None
    assert explain(KeyboardInterrupt(), IF, None) is None


@pytest.mark.parametrize("raises, source, args, tool", [
    (TracerBoolConversionError, IF, (1.0,), "jnp.where"),
    (TracerBoolConversionError, WHILE, (1.0,), "lax.while_loop"),
    (TracerIntegerConversionError, RANGE, (1.0, 3), "fori_loop"),
])
def test_without_a_line_the_fix_is_general(raises, source, args, tool):
    exc = _fail(raises, source, *args)
    info = explain(exc, source, None)
    assert info is not None and tool in info["fix"] and not info["fix"].startswith("Line")


@pytest.mark.parametrize("source", ["def f(x:\n    if x > 0", "", "\x00", "(" * 500, "def f(x):\n\treturn x\n  y"])
def test_unparsable_source_gives_the_general_fix(source):
    for exc in (_fail(TracerBoolConversionError, IF, 1.0), _fail(TracerIntegerConversionError, RANGE, 1.0, 3),
                _fail(UnexpectedTracerError, LEAK, 1.0),
                _fail(NonConcreteBooleanIndexError, "def f(x):\n    return x[x > 0]\n", jnp.ones(2))):
        info = explain(exc, source, 2)
        assert info is not None and set(info) == KEYS | {"words"} and info["fix"]


@pytest.mark.parametrize("line", [0, -3, 99, 10**9])
def test_lines_outside_the_source_are_harmless(line):
    info = explain(_fail(TracerBoolConversionError, IF, 1.0), IF, line)
    assert "jnp.where" in info["fix"] and "lax.cond" in info["fix"]


def test_static_hint_without_jax_argument_names():
    """A message from another wording of JAX still gets a static_argnums example."""
    exc = TracerIntegerConversionError.__new__(TracerIntegerConversionError)
    Exception.__init__(exc, "The __index__() method was called on traced array")
    info = explain(exc, RANGE, 2)
    assert "fori_loop" in info["fix"] and "static_argnums=1" in info["fix"]


def test_static_argnums_counts_in_the_jitted_function_not_the_helper():
    source = ("def step(n, x):\n    for i in range(n):\n        x = x + i\n    return x\n\n"
              "def f(x, n):\n    return step(n, x)\n")
    exc = _fail(TracerIntegerConversionError, source, 1.0, 3)
    info = explain(exc, source, user_line(exc))
    assert user_line(exc) == 2 and "lax.fori_loop(0, n" in info["fix"]
    assert "f = jax.jit(f, static_argnums=1)" in info["fix"] and "1 in the static_argnums field" in info["fix"]


def test_a_line_with_backticks_is_not_quoted_inline():
    source = "def f(x):\n    if x > 0:  # `why`\n        return x\n    return -x\n"
    namespace = {"jnp": jnp}
    exec(compile(source, "<playground>", "exec"), namespace)
    with pytest.raises(TracerBoolConversionError) as raised:
        jax.jit(namespace["f"])(1.0)
    fix = explain(raised.value, source, 2)["fix"]
    assert fix.startswith("Your code branches on a traced value")
