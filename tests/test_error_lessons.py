"""playground.worker.lessons.error_lessons: errors beyond tracer errors, through the Inspect tab's own function.

Each class of error is a real snippet in the spirit of JAX's Sharp Bits page, run
with ``staging.inspect``; its error must keep its kind and the user's line, and
gain a title, plain words, a fix written from the user's code, and a link into
JAX's documentation. Where the fix is a drop-in change, the fixed code is run
too and its result compared with plain JAX computing the same thing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from playground.ipc.limits import Limits
from playground.server.pools import reply
from playground.server.ui.error_views import error_markdown
from playground.worker.functions import usercode
from playground.worker.jobs import derivatives
from playground.worker.jobs import inspect as staging
from playground.worker.lessons import error_lessons
from tests.conftest import ROOT

GOTCHAS = "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html"
AUTOSUMMARY = "https://docs.jax.dev/en/latest/_autosummary/"
STATIC = "https://docs.jax.dev/en/latest/jit-compilation.html#marking-arguments-as-static"
KEY = jax.random.key(0)


@dataclass(frozen=True)
class Case:
    code: str
    args: str
    line: int | None
    title: str  # a part of the lesson's title
    fix: tuple[str, ...]  # parts of the fix, each quoting the user's code
    doc_url: str
    fixed: str | None = None  # the code with the fix applied
    expected: object = None  # what plain JAX computes for the fixed code
    static_argnums: tuple[int, ...] = field(default=())


CASES = {
    "list_input": Case(
        "def f(x):\n    return jnp.sum([x, 2 * x, 3 * x])\n", "2.0", 2, "arrays, not Python lists",
        ("Line 2 (`return jnp.sum([x, 2 * x, 3 * x])`)", "jnp.sum(jnp.asarray([x, 2 * x, 3 * x]))"),
        GOTCHAS + "#non-array-inputs-numpy-vs-jax",
        "def f(x):\n    return jnp.sum(jnp.asarray([x, 2 * x, 3 * x]))\n", jnp.sum(jnp.asarray([2.0, 4.0, 6.0]))),
    "list_argument": Case(
        "def f(x):\n    return jnp.sum(x)\n", "[1, 2, 3]", 2, "arrays, not Python lists",
        ("passes `x` to `jnp.sum`, and `x` is a Python list", "jnp.sum(jnp.asarray(x))"),
        GOTCHAS + "#non-array-inputs-numpy-vs-jax",
        "def f(x):\n    return jnp.sum(jnp.asarray(x))\n", jnp.sum(jnp.asarray([1, 2, 3]))),
    "truth_value_of_if": Case(
        "def f(x):\n    if x > 0:\n        return x\n    return -x\n", "jnp.array([-1.0, 2.0])", 2,
        "not one True or False", ("jnp.where(x > 0, a, b)", "lax.cond(jnp.all(x > 0)"),
        "https://docs.jax.dev/en/latest/control-flow.html#logical-operators",
        "def f(x):\n    return jnp.where(x > 0, x, -x)\n", jnp.abs(jnp.array([-1.0, 2.0]))),
    "truth_value_of_and": Case(
        "def f(x):\n    ok = (x > 0) and (x < 2)\n    return jnp.where(ok, x, 0.0)\n", "jnp.array([-1.0, 1.0, 3.0])",
        2, "not one True or False", ("ok = jnp.logical_and(x > 0, x < 2)",),
        "https://docs.jax.dev/en/latest/control-flow.html#logical-operators",
        "def f(x):\n    ok = jnp.logical_and(x > 0, x < 2)\n    return jnp.where(ok, x, 0.0)\n",
        jnp.array([0.0, 1.0, 0.0])),
    "truth_value_at_top_level": Case(
        "mask = jnp.arange(3) > 0\nif mask:\n    pass\n\ndef f(x):\n    return x\n", "1.0", 2,
        "not one True or False", ("if jnp.all(mask)", "if jnp.any(mask)"),
        "https://docs.jax.dev/en/latest/control-flow.html#logical-operators"),
    "in_place_update": Case(
        "def f(x):\n    x = x * 2\n    x[0] = 1.0\n    return x\n", "jnp.arange(3.0)", 3, "changed in place",
        ("Line 3 (`x[0] = 1.0`)", "x = x.at[0].set(1.0)"), GOTCHAS + "#in-place-updates",
        "def f(x):\n    x = x * 2\n    x = x.at[0].set(1.0)\n    return x\n", jnp.array([1.0, 2.0, 4.0])),
    "in_place_add": Case(
        "def f(x):\n    x[1] += 5.0\n    return x\n", "jnp.arange(3.0)", 2, "changed in place",
        ("x = x.at[1].add(5.0)",), GOTCHAS + "#in-place-updates",
        "def f(x):\n    x = x.at[1].add(5.0)\n    return x\n", jnp.array([0.0, 6.0, 2.0])),
    "out_of_bounds": Case(
        "def f(x):\n    return jnp.take(x, 5, mode=\"raise\")\n", "jnp.arange(3.0)", 2, "out of bounds",
        ("jnp.take(x, 5, mode=\"fill\", fill_value=jnp.nan)", "x.at[5].get(mode=\"fill\""),
        GOTCHAS + "#out-of-bounds-indexing",
        "def f(x):\n    return jnp.take(x, 5, mode=\"fill\", fill_value=jnp.nan)\n",
        jnp.take(jnp.arange(3.0), 5, mode="fill", fill_value=jnp.nan)),
    "lax_dtypes": Case(
        "def f(x):\n    return lax.add(x, 1)\n", "2.0", 2, "jax.lax does not mix dtypes",
        ("`lax.add` float32 and int32", "jnp.add(x, 1)   # instead of lax.add(x, 1)", "lax.add(x, 1.0)"),
        "https://docs.jax.dev/en/latest/key-concepts.html#jax-api-layering-numpy-lax-xla",
        "def f(x):\n    return lax.add(x, 1.0)\n", lax.add(2.0, 1.0)),
    "integer_overflow": Case(
        "def f(x):\n    return x + 2**31\n", "1", 2, "does not fit in its dtype",
        ("Line 2 (`return x + 2**31`)", "2,147,483,648, which int32 cannot hold", "`2147483648.0`",
         'jax.config.update("jax_enable_x64", True)'),
        GOTCHAS + "#double-64bit-precision",
        "def f(x):\n    return x + 2147483648.0\n", jnp.int32(1) + 2147483648.0),
    "prng_key": Case(
        "def f(x):\n    noise = jax.random.normal(0, (3,))\n    return x + noise\n", "1.0", 2, "needs a key",
        ("key = jax.random.key(0)", "key, subkey = jax.random.split(key)", "jax.random.normal(subkey, (3,))"),
        "https://docs.jax.dev/en/latest/random-numbers.html",
        "def f(x):\n    key = jax.random.key(0)\n    key, subkey = jax.random.split(key)\n"
        "    return x + jax.random.normal(subkey, (3,))\n", 1.0 + jax.random.normal(jax.random.split(KEY)[1], (3,))),
    "ragged_rows": Case(
        "def f(x):\n    rows = jnp.array([[1.0, 2.0], [3.0]])\n    return rows * x\n", "2.0", 2, "one length",
        ("Line 2 (`rows = jnp.array([[1.0, 2.0], [3.0]])`)", "Pad the rows"), GOTCHAS + "#dynamic-shapes"),
    "matmul_shapes": Case(
        "def f(x):\n    w = jnp.ones((2, 3))\n    return w @ x\n", "jnp.arange(6.0).reshape(2, 3)", 3,
        "matrix product",
        ("(3 against 2)", "`w` has shape (2, 3) and `x` has shape (2, 3)", "w @ x.T   # shape (2, 2)"),
        AUTOSUMMARY + "jax.numpy.matmul.html",
        "def f(x):\n    w = jnp.ones((2, 3))\n    return w @ x.T\n",
        jnp.ones((2, 3)) @ jnp.arange(6.0).reshape(2, 3).T),
    "broadcasting": Case(
        "def f(x):\n    y = jnp.arange(4.0)\n    return x + y\n", "jnp.arange(3.0)", 3, "cannot be broadcast",
        ("shapes (3,) and (4,)", "`x` has shape (3,) and `y` has shape (4,)", "x[:, None] + y   # shape (3, 4)"),
        AUTOSUMMARY + "jax.numpy.broadcast_shapes.html",
        "def f(x):\n    y = jnp.arange(4.0)\n    return x[:, None] + y\n", jnp.arange(3.0)[:, None] + jnp.arange(4.0)),
    "reshape_size": Case(
        "def f(x):\n    return x.reshape(4, 4)\n", "jnp.arange(12.0)", 2, "number of elements",
        ("the 12 elements of shape (12,) into shape (4, 4), which holds 16", "x.reshape(-1, 4)   # shape (3, 4)"),
        AUTOSUMMARY + "jax.numpy.reshape.html",
        "def f(x):\n    return x.reshape(-1, 4)\n", jnp.arange(12.0).reshape(3, 4)),
    "concatenate_shapes": Case(
        "def f(x):\n    return jnp.concatenate([x, jnp.ones((2, 2))])\n", "jnp.ones(3)", 2, "cannot be joined",
        ("concatenates arrays of shapes (3,) and (2, 2)",), AUTOSUMMARY + "jax.numpy.concatenate.html"),
    "array_as_shape": Case(
        "def f(x):\n    key = jax.random.key(0)\n    return jax.random.normal(key, x)\n", "jnp.ones(3)", 3,
        "shape must be a tuple of ints", ("passes the array `x`", "jax.random.normal(key, x.shape)"),
        GOTCHAS + "#dynamic-shapes",
        "def f(x):\n    key = jax.random.key(0)\n    return jax.random.normal(key, x.shape)\n",
        jax.random.normal(KEY, (3,))),
    "traced_size": Case(
        "def f(x, n):\n    return jnp.zeros(n) + x\n", "(1.0, 3)", 2, "known when compiling",
        ("sizes an array with a traced number", "If `n` is", "static_argnums=1"), GOTCHAS + "#dynamic-shapes",
        "def f(x, n):\n    return jnp.zeros(n) + x\n", jnp.ones(3), static_argnums=(1,)),
    "unhashable_static_argument": Case(
        "from functools import partial\n\n@partial(jax.jit, static_argnums=1)\ndef scale(x, sizes):\n"
        "    return x * len(sizes)\n\ndef f(x):\n    return scale(x, [1, 2])\n", "3.0", 8, "must be hashable",
        ("passes the list `[1, 2]`", "scale(x, (1, 2))   # instead of [1, 2]"), STATIC,
        "from functools import partial\n\n@partial(jax.jit, static_argnums=1)\ndef scale(x, sizes):\n"
        "    return x * len(sizes)\n\ndef f(x):\n    return scale(x, (1, 2))\n", jnp.float32(6.0)),
    "non_array_argument": Case(
        "def act(x, name):\n    return jnp.tanh(x) if name == \"tanh\" else x\n\ndef f(x):\n"
        "    return jax.jit(act)(x, \"tanh\")\n", "0.5", 5, "unless marked static",
        ("passes a str as `name` to the jitted `act`", 'jax.jit(act, static_argnames="name")(x, "tanh")'), STATIC,
        "def act(x, name):\n    return jnp.tanh(x) if name == \"tanh\" else x\n\ndef f(x):\n"
        "    return jax.jit(act, static_argnames=\"name\")(x, \"tanh\")\n", jnp.tanh(0.5)),
    "grad_of_vector_output": Case(
        "def f(x):\n    return jax.grad(jnp.sin)(x)\n", "jnp.arange(3.0)", 2, "one number as output",
        ("returns shape (3,)", "jax.vmap(jax.grad(jnp.sin))(x)", "jax.jacrev(jnp.sin)(x)"),
        AUTOSUMMARY + "jax.grad.html",
        "def f(x):\n    return jax.vmap(jax.grad(jnp.sin))(x)\n", jnp.cos(jnp.arange(3.0))),
    "grad_at_integer": Case(
        "def f(x):\n    df = jax.grad(lambda v: v ** 3)\n    return df(2) + x\n", "1.0", 3, "floats, not integers",
        ("at the integer `2`", "df(2.0)   # not 2"), AUTOSUMMARY + "jax.grad.html",
        "def f(x):\n    df = jax.grad(lambda v: v ** 3)\n    return df(2.0) + x\n",
        jax.grad(lambda v: v ** 3)(2.0) + 1.0),
    "loop_carry_dtype": Case(
        "def f(x):\n    return lax.fori_loop(0, 3, lambda i, total: total + x, jnp.int32(0))\n", "1.5", 2,
        "one shape and dtype", ("(int32[]), but each step returns a float32[]",
                                "lax.fori_loop(0, 3, lambda i, total: total + x, jnp.float32(0))"),
        "https://docs.jax.dev/en/latest/control-flow.html#structured-control-flow-primitives",
        "def f(x):\n    return lax.fori_loop(0, 3, lambda i, total: total + x, jnp.float32(0))\n", jnp.float32(4.5)),
    "loop_carry_shape": Case(
        "def f(x):\n    return lax.fori_loop(0, 3, lambda i, s: jnp.append(s, x), jnp.zeros(1))\n", "1.0", 2,
        "one shape and dtype", ("(float32[1] -> float32[2])", "lax.scan"),
        "https://docs.jax.dev/en/latest/control-flow.html#structured-control-flow-primitives"),
    "cond_branches": Case(
        "def f(x):\n    return lax.cond(x > 0, lambda v: v, lambda v: jnp.zeros(2), x)\n", "1.5", 2,
        "same shapes and dtypes", ("return float32[] and float32[2]", "`lambda v: v, lambda v: jnp.zeros(2)`"),
        AUTOSUMMARY + "jax.lax.cond.html"),
    "cond_on_an_array": Case(  # lax.cond's docs: the predicate is a scalar; an array asks for np.where
        "def f(x):\n    return lax.cond(x > 0, lambda v: v, lambda v: -v, x)\n", "jnp.array([1.0, -2.0])", 2,
        "choose once per call", ("Line 2 (`return lax.cond(", "`jnp.where(x > 0, a, b)`", "`jax.vmap`"),
        AUTOSUMMARY + "jax.lax.cond.html",
        "def f(x):\n    return jnp.where(x > 0, x, -x)\n", jnp.array([1.0, 2.0])),
    "switch_on_an_array": Case(
        "def f(x):\n    i = (x > 0).astype(int)\n    return lax.switch(i, [jnp.sin, jnp.cos], x)\n",
        "jnp.array([1.0, -2.0])", 3, "choose once per call",
        ("`lax.switch`", "`jnp.select([i == 0, i == 1, ...], [a, b, ...])`"),
        AUTOSUMMARY + "jax.lax.cond.html",
        "def f(x):\n    i = (x > 0).astype(int)\n    return jnp.select([i == 0, i == 1], [jnp.sin(x), jnp.cos(x)])\n",
        jnp.array([jnp.cos(1.0), jnp.sin(-2.0)])),
    "vmap_sizes": Case(
        "def f(x):\n    w = jnp.arange(4.0)\n    return jax.vmap(lambda a, b: a * b)(x, w)\n", "jnp.arange(3.0)", 3,
        "different numbers of examples", ("`a` (float32[3], batched along axis 0)", "`b` (float32[4]",
                                          "in_axes=(0, None)"), AUTOSUMMARY + "jax.vmap.html",
        "def f(x):\n    w = jnp.arange(4.0)\n    return jax.vmap(lambda a, b: a * b, in_axes=(0, None))(x, w)\n",
        jnp.arange(3.0)[:, None] * jnp.arange(4.0)),
    "iterator_operand": Case(  # the Sharp Bits' lax.cond with an iterator operand
        "def f(x):\n    it = iter(range(10))\n"
        "    return lax.cond(x > 0, lambda i: next(i) + 1, lambda i: next(i) - 1, it)\n",
        "1.0", 3, "not arbitrary Python objects",
        ("Line 3 (`return lax.cond(", "hands JAX a range_iterator", "`jnp.arange(10)` for `iter(range(10))`"),
        GOTCHAS + "#pure-functions",
        "def f(x):\n    it = jnp.arange(10)\n    return lax.cond(x > 0, lambda i: i[0] + 1, lambda i: i[0] - 1, it)\n",
        jnp.int32(1)),
    "reverse_mode_while_loop": Case(  # the control-flow page's summary table: while_loop is forward-mode only
        "def f(x):\n    return jax.grad(lambda y: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, 2. * c[1]),"
        " (0, y))[1])(x)\n", "1.0", 2, "reverse mode cannot differentiate a while_loop",
        ("Line 2 (`return jax.grad(", "`lax.fori_loop(0, n, body, init)`", "`jax.jacfwd(f)(x)`"),
        "https://docs.jax.dev/en/latest/control-flow.html#summary",
        "def f(x):\n    return jax.grad(lambda y: lax.fori_loop(0, 3, lambda i, v: 2. * v, y))(x)\n",
        jnp.float32(8.0)),
    "unsortable_dict_keys": Case(
        "def f(x):\n    params = {1: x, 'b': 2 * x}\n    return jax.tree.map(lambda v: v + 1, params)\n", "1.0", 3,
        "keys must be sortable", ("Line 2 makes a dict", "{'1': x, 'b': 2 * x}", "collections.OrderedDict"),
        "https://docs.jax.dev/en/latest/pytrees.html#dictionary-keys-must-be-sortable",
        "def f(x):\n    params = {'1': x, 'b': 2 * x}\n    return jax.tree.map(lambda v: v + 1, params)\n",
        {"1": jnp.float32(2.0), "b": jnp.float32(3.0)}),
    "grad_of_tuple_output": Case(
        "def f(x):\n    return jax.grad(lambda y: (y ** 2, y))(x)\n", "3.0", 2, "not several values",
        ("differentiates `lambda y: (y ** 2, y)`", "has_aux=True"), AUTOSUMMARY + "jax.grad.html",
        "def f(x):\n    return jax.grad(lambda y: (y ** 2, y), has_aux=True)(x)\n",
        (jnp.float32(6.0), jnp.float32(3.0))),
    "vmap_in_axes_count": Case(
        "def f(x):\n    w = jnp.ones(2)\n    return jax.vmap(lambda a, b: a @ b, in_axes=(0, 0, 0))(x, w)\n",
        "jnp.ones((3, 2))", 3, "one entry per positional argument",
        ("gets 2 positional arguments, and `in_axes` has 3 entries", "`in_axes=(0, None)`"),
        AUTOSUMMARY + "jax.vmap.html",
        "def f(x):\n    w = jnp.ones(2)\n    return jax.vmap(lambda a, b: a @ b, in_axes=(0, None))(x, w)\n",
        jnp.full(3, 2.0)),
    "vmap_of_a_scalar": Case(
        "def f(x):\n    return jax.vmap(lambda a, b: a * b)(x, 2.0)\n", "jnp.arange(3.0)", 2,
        "an axis the argument does not have", ("shape () along axis 0", "in_axes=(0, None)"),
        AUTOSUMMARY + "jax.vmap.html",
        "def f(x):\n    return jax.vmap(lambda a, b: a * b, in_axes=(0, None))(x, 2.0)\n", jnp.arange(3.0) * 2),
}


def _fails(case: Case) -> dict:
    response = staging.inspect(case.code, case.args, 100_000)
    assert not response["ok"], response
    return response["error"]


@pytest.mark.parametrize("name", CASES)
def test_each_class_gets_its_lesson_with_the_users_line_fix_and_doc(name):
    case = CASES[name]
    error = _fails(case)
    assert error["kind"] == "user_exception"
    assert error["line"] == case.line
    assert case.title in error["title"], error["title"]
    assert error["explanation"] and error["doc_url"] == case.doc_url
    for part in case.fix:
        assert part in error["fix"], f"{part!r} not in the fix:\n{error['fix']}"
    passed_on = reply.validated({"ok": False, "error": error}, "inspect")["error"]  # what the server keeps
    assert {k: passed_on.get(k) for k in ("title", "fix", "doc_url")} == {k: error[k] for k in ("title", "fix",
                                                                                                  "doc_url")}


@pytest.mark.parametrize("name", [n for n, case in CASES.items() if case.fixed])
def test_the_fixed_code_runs_and_matches_plain_jax(name):
    case = CASES[name]
    response = staging.inspect(case.fixed, case.args, 100_000, case.static_argnums, checks_budget_s=0)
    assert response["ok"], response.get("error")
    program = usercode.load(case.fixed)
    got = jax.jit(program.function, static_argnums=case.static_argnums)(
        *usercode.evaluate_args(case.args, program.namespace))
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-6), got, case.expected)


@pytest.mark.parametrize("name", CASES)
def test_exactly_one_lesson_matches_what_plain_jax_raises(name):
    case = CASES[name]
    with pytest.raises(Exception) as info:
        program = usercode.load(case.code)
        arguments = usercode.evaluate_args(case.args, program.namespace)
        jax.jit(program.function)(*arguments)
    assert [lesson.title for lesson in error_lessons.LESSONS if lesson.matches(info.value)] == \
        [_fails(case)["title"].partition(": ")[2]]


def test_a_nan_caught_by_jax_debug_nans_names_the_calls_and_how_to_find_the_line():
    # The user's code turns on a global flag, as in a worker, where every job has a fresh process: so here too.
    code = "jax.config.update(\"jax_debug_nans\", True)\n\ndef f(x):\n    y = x * 2\n    return jnp.log(y)\n"
    compiled, eager = _in_a_fresh_process([code, code + "\nf(jnp.array(-1.0))\n"], "-1.0")
    assert compiled["kind"] == "user_exception" and compiled["line"] is None  # jit checks its output as a whole
    assert "NaN" in compiled["title"] and "call `f` once at the top level" in compiled["fix"]
    assert "- line 5: `jnp.log(y)`" in compiled["fix"]
    # Following that advice: run op by op, the check names the line.
    assert eager["line"] == 5 and eager["title"].startswith("FloatingPointError: ")
    assert eager["fix"].startswith("Line 5 (`return jnp.log(y)`) produced it.")
    assert eager["doc_url"] == ("https://docs.jax.dev/en/latest/debugging/flags.html"
                                "#jax-debug-nans-configuration-option-and-context-manager")


def _in_a_fresh_process(codes: list[str], args: str) -> list[dict]:
    """staging.inspect's error for each code, each in its own new Python process (as each job gets a worker)."""
    errors = []
    for code in codes:
        script = ("import json, sys\nfrom playground.worker.jobs import inspect\n"
                  "print(json.dumps(inspect.inspect(sys.argv[1], sys.argv[2], 100_000)))")
        done = subprocess.run([sys.executable, "-c", script, code, args], capture_output=True, text=True,
                              timeout=120, cwd=ROOT, check=True)
        reply = json.loads(done.stdout.strip().splitlines()[-1])
        assert not reply["ok"], reply
        errors.append(reply["error"])
    return errors


def test_the_tracer_error_for_and_now_quotes_the_users_operands():
    error = _fails(Case("def f(x):\n    return (x > 0) and (x < 3)\n", "2.0", 2, "", (), ""))
    assert error["line"] == 2 and error["title"].startswith("TracerBoolConversionError")
    assert "ok = jnp.logical_and(x > 0, x < 3)" in error["fix"]
    fixed = "def f(x):\n    return jnp.logical_and(x > 0, x < 3)\n"
    assert staging.inspect(fixed, "jnp.array([-1.0, 2.0, 4.0])", 100_000, checks_budget_s=0)["ok"]
    x = jnp.array([-1.0, 2.0, 4.0])
    np.testing.assert_array_equal(jax.jit(usercode.load(fixed).function)(x), (x > 0) & (x < 3))


# -- no false teaching ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("code, line", [
    # The user's own raise, in JAX's words: theirs, not JAX's refusal of a list.
    ("def f(x):\n    raise TypeError(\"sum requires ndarray or scalar arguments, got <class 'list'> at position "
     "0.\")\n", 2),
    ("def f(x):\n    return jnp.sum({'a': x})\n", 2),  # a dict, not a list: "use jnp.asarray" would be wrong
    ("def f(x):\n    return x[0, 0]\n", 2),  # an IndexError no lesson teaches
    ("def f(x):\n    return x + 1 // 0\n", 2),  # plain Python
    ("def f(x):\n    return {'a': x}['b']\n", 2),
])
def test_an_error_no_lesson_teaches_gets_none(code, line):
    error = _fails(Case(code, "jnp.ones(3)", line, "", (), ""))
    assert error["kind"] == "user_exception" and error["line"] == line
    assert not {"title", "explanation", "fix", "doc_url"} & set(error), error


@pytest.mark.parametrize("literal, says", [("jnp.array(300, dtype=jnp.int8)", "int8 cannot hold (-128 to 127)"),
                                            ("2**64", "No integer dtype of JAX holds it")])
def test_the_64_bit_flag_is_offered_only_where_64_bits_would_help(literal, says):
    error = _fails(Case(f"def f(x):\n    return x + {literal}\n", "1", 2, "", (), ""))
    assert error["title"].startswith("OverflowError") and says in error["fix"]
    assert "jax_enable_x64" not in error["fix"]


def test_unsortable_keys_in_the_arguments_field_are_the_users_input_to_fix():
    # jit would flatten the dict in JAX's C++ code, called from ours (no frame of the user's): checked before.
    error = staging.inspect("def f(p):\n    return p\n", "{1: 1.0, 'b': 2.0}", 100_000)["error"]
    assert error["kind"] == "invalid_input" and "sorting pytree dictionary keys" in error["message"]
    assert error["message"].startswith("The Arguments field gives a dict whose keys cannot be sorted")
    assert "pytrees.html#dictionary-keys-must-be-sortable" in error["message"]


# -- the other tabs and the UI -------------------------------------------------------------------------------------


def test_the_derivatives_tab_gets_the_same_lessons():
    on_a_grid = derivatives.derivatives("def f(x):\n    return jnp.sum([x, x ** 2])\n", 1, -1.0, 1.0, 5)["error"]
    assert on_a_grid["line"] == 2 and "jnp.sum(jnp.asarray([x, x ** 2]))" in on_a_grid["fix"]
    at_a_point = derivatives.gradient_job(Limits(), "def f(x):\n    x[0] = 1.0\n    return jnp.sum(x ** 2)\n",
                                          "jnp.ones(3)")["error"]
    assert at_a_point["line"] == 2 and "x = x.at[0].set(1.0)" in at_a_point["fix"]


def test_the_inspect_tab_renders_title_fix_and_link():
    error = _fails(CASES["in_place_update"])
    text = error_markdown(error)
    assert "**TypeError: JAX arrays cannot be changed in place on line 3**" in text
    assert "```python\nx = x.at[0].set(1.0)\n```" in text
    assert f"[Read more in the JAX documentation]({GOTCHAS}#in-place-updates)" in text


def test_every_lesson_links_into_jax_documentation():
    assert len(error_lessons.LESSONS) >= 15
    for lesson in error_lessons.LESSONS:
        assert lesson.doc_url.startswith("https://docs.jax.dev/en/latest/"), lesson.doc_url


def test_float64_silently_float32_is_said_in_plain_words_with_the_docs_page():
    reply = staging.inspect("def f(x):\n    return x + jnp.zeros(3, dtype=jnp.float64)\n", "jnp.arange(3.0)", 10_000)
    assert reply["ok"] and reply["result"].startswith("f32[3]")  # what plain JAX does too: float32
    assert reply["warnings"] == [
        "float64 was asked for (in zeros), and float32 is used: JAX computes in 32 bits unless the jax_enable_x64 "
        "flag is set before any array is made (it is off here), so results carry float32 rounding (about 7 "
        f"significant digits). See {error_lessons.DOUBLE_PRECISION_URL}"]
    assert error_lessons.DOUBLE_PRECISION_URL.startswith("https://docs.jax.dev/")


def test_other_warnings_keep_their_own_words():
    assert error_lessons.warning_note(UserWarning, "careful now") == "UserWarning: careful now"
