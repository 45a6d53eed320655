"""playground.worker.jobs.purity: static hints point at the right lines; pure gallery examples raise no alarm."""

from __future__ import annotations

import ast

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from playground.errors import USER_FILENAME, UserCodeError
from playground.user_ast import pick_function_name
from playground.worker.functions.usercode import base_namespace
from playground.worker.jobs.purity import behavioural_findings, static_findings


def run_source(source: str):
    """The function the app would inspect, loaded as usercode.load does (filename "<playground>")."""
    namespace = base_namespace()
    exec(compile(source, USER_FILENAME, "exec"), namespace)  # noqa: S102 - test code
    return namespace[pick_function_name(ast.parse(source))]


def static_lines(source: str, name: str = "f") -> list[int]:
    return [finding["line"] for finding in static_findings(source, name)]


# ---- static checks: each caught on the right line --------------------------------------------------------------

STATIC_CASES = {
    "print": ("def f(x):\n    y = x * 2\n    print(y)\n    return y\n", [3]),
    "open": ("def f(x):\n    with open('w.txt') as fh:\n        fh.read()\n    return x\n", [2]),
    "input": ("def f(x):\n    k = float(input())\n    return x * k\n", [2]),
    "global statement": ("n = 0\ndef f(x):\n    global n\n    return x\n", [3]),
    "nonlocal in nested": (
        "def f(x):\n    total = 0\n    def add(v):\n        nonlocal total\n        total = v\n"
        "    add(1)\n    return x\n", [4]),
    "reassigned module variable": ("SCALE = 2.0\nSCALE = 3.0\ndef f(x):\n    return x * SCALE\n", [4]),
    "aug-assigned module variable": ("step = 0\nstep += 1\ndef f(x):\n    return x + step\n", [4]),
    "declared global elsewhere": (
        "lr = 0.1\ndef set_lr(v):\n    global lr\n    lr = v\ndef f(x):\n    return x * lr\n", [6]),
    "module container mutated elsewhere": (
        "sizes = [3, 4]\nsizes.append(5)\ndef f(x):\n    return x * len(sizes)\n", [4]),
    "module dict item set elsewhere": ("cfg = {}\ncfg['k'] = 2\ndef f(x):\n    return x * cfg['k']\n", [4]),
    "append to argument": ("def f(xs):\n    xs.append(1.0)\n    return xs\n", [2]),
    "item assignment to argument": ("def f(x):\n    x[0] = 1.0\n    return x\n", [2]),
    "attribute assignment to argument": ("def f(state):\n    state.count = 1\n    return state\n", [2]),
    "del item of argument": ("def f(d):\n    del d['a']\n    return d\n", [2]),
    "aug-assign item of argument": ("def f(d):\n    d['n'] += 1\n    return d\n", [2]),
    "mutate module list inside": ("log = []\ndef f(x):\n    log.append(x)\n    return x\n", [3]),
    "nested lambda mutates argument": (
        "def f(xs, x):\n    g = lambda v: xs.pop()\n    return g(x)\n", [2]),
    "random module": ("import random\ndef f(x):\n    return x * random.random()\n", [3]),
    "from random import": ("from random import gauss\ndef f(x):\n    return x + gauss(0, 1)\n", [3]),
    "time module": ("import time\ndef f(x):\n    t = time.time()\n    return x + t\n", [3]),
    "from time import": ("from time import perf_counter\ndef f(x):\n    return x + perf_counter()\n", [3]),
    "datetime": ("import datetime\ndef f(x):\n    return x + datetime.datetime.now().second\n", [3]),
    "np.random": ("def f(x):\n    return x + np.random.rand()\n", [2]),
    "numpy.random via import": ("import numpy\ndef f(x):\n    return x + numpy.random.normal()\n", [3]),
    "lambda function": ("f = lambda x: print(x)\n", [1]),
}


@pytest.mark.parametrize("source, lines", STATIC_CASES.values(), ids=STATIC_CASES.keys())
def test_static_check_points_at_line(source, lines):
    findings = static_findings(source, "f")
    assert [finding["line"] for finding in findings] == lines, findings
    for finding in findings:
        assert finding["check"] == "static"
        assert len(finding["message"]) > 40  # says why and what to do


def test_messages_name_the_fix():
    text = lambda src: static_findings(src, "f")[0]["message"]  # noqa: E731
    assert "jax.debug.print" in text(STATIC_CASES["print"][0])
    assert "argument" in text(STATIC_CASES["reassigned module variable"][0])
    assert "jax.random" in text(STATIC_CASES["np.random"][0])
    assert "outside" in text(STATIC_CASES["time module"][0])
    assert ".at[" in text(STATIC_CASES["item assignment to argument"][0])


def test_deduplicated_and_sorted_by_line():
    source = "import random\ncount = 0\ndef f(x):\n    global count\n    count += 1\n    print(x); print(x)\n" \
             "    return x * random.random() + count\n"
    findings = static_findings(source, "f")
    assert [f["line"] for f in findings] == [4, 6, 7, 7]  # global; one print; count read and random on one line


def test_checks_only_the_named_function():
    source = "def g(x):\n    print(x)\n    return x\n\ndef f(x):\n    return x * 2\n"
    assert static_lines(source, "f") == []
    assert static_lines(source, "g") == [2]
    assert static_lines(source, "missing") == []


def test_no_false_alarms_on_ordinary_code():
    source = (
        "import math\nfrom jax import random\nSCALE = 2.0\nSIZES = [3, 4]\n"
        "def helper(v):\n    return v\n"
        "def f(x, key, xs):\n"
        "    x = x + 1\n"                        # rebinding a parameter
        "    ys = []\n    ys.append(x)\n"        # local container
        "    d = {}\n    d['a'] = x\n"
        "    xs = list(xs)\n    xs.append(1)\n"    # parameter rebound first, then a fresh list mutated
        "    y = x.at[0].add(1.0)\n"             # JAX's pure update
        "    z = jnp.sort(x) + x.sort()\n"       # jax arrays' pure sort
        "    n = random.normal(key, x.shape)\n"  # jax.random
        "    return helper(y) * SCALE * len(SIZES) + math.pi + z + n + ys[0] + d['a']\n"
    )
    assert static_findings(source, "f") == []


OPTAX_STEP = """import optax
params = {"w": jnp.zeros(3), "b": 0.0}
optimizer = optax.adam(1e-3)
opt_state = optimizer.init(params)

def loss(params, x, y):
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)

def f(params, opt_state, x, y):
    grads = jax.grad(loss)(params, x, y)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state
"""


def test_an_optax_step_from_its_docs_is_pure():
    """optax's ``update`` returns the new state (dict.update returns None): a used result is not a change in place."""
    assert static_findings(OPTAX_STEP, "f") == []


def test_a_discarded_update_of_a_module_dict_is_still_a_change():
    source = "cfg = {}\ncfg.update(k=2)\ndef f(x):\n    cfg.update(k=3)\n    return x * cfg['k']\n"
    assert [finding["line"] for finding in static_findings(source, "f")] == [4, 5]


def test_local_variable_shadowing_a_changing_global_is_fine():
    source = "n = 0\nn = 1\ndef f(x):\n    n = 3\n    return x * n\n"
    assert static_findings(source, "f") == []


# ---- pure gallery examples: no finding at all -----------------------------------------------------------------

MLP = """def relu(x):
    return jnp.maximum(x, 0)

def f(params, x):
    for w, b in params[:-1]:
        x = relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b
"""


def mlp_params():
    keys = jax.random.split(jax.random.key(0), 3)
    sizes = [(4, 8), (8, 8), (8, 2)]
    return [(jax.random.normal(k, s) * 0.5, jnp.zeros(s[1])) for k, s in zip(keys, sizes, strict=True)]


PURE = {
    "polynomial": ("def f(x):\n    return x + x*x + x*x*x\n", lambda: (jnp.arange(4.0),), ()),
    "tanh": ("def f(x):\n    return jnp.tanh(x)\n", lambda: (jnp.linspace(-2.0, 2.0, 5),), ()),
    "mlp": (MLP, lambda: (mlp_params(), jnp.ones((3, 4))), ()),
    "cond": ("def f(x):\n    return lax.cond(x.sum() > 0, lambda v: v * 2, lambda v: -v, x)\n",
             lambda: (jnp.arange(3.0),), ()),
    "fori_loop": ("def f(x):\n    return lax.fori_loop(0, 10, lambda i, acc: acc + i * x, jnp.zeros_like(x))\n",
                  lambda: (jnp.arange(3.0),), ()),
    "static loop count": ("def f(x, n):\n    for _ in range(n):\n        x = x * 2\n    return x\n",
                          lambda: (jnp.arange(3.0), 4), (1,)),
    "module constant": ("SCALE = 3.0\n\ndef f(x):\n    return x * SCALE\n", lambda: (jnp.arange(3.0),), ()),
}


@pytest.mark.parametrize("source, make_args, static_argnums", PURE.values(), ids=PURE.keys())
def test_pure_examples_raise_no_alarm(source, make_args, static_argnums):
    assert static_findings(source, "f") == []
    assert behavioural_findings(run_source(source), make_args(), static_argnums) == []


# ---- behavioural checks ----------------------------------------------------------------------------------------

def behavioural(source: str, *args) -> list[dict]:
    findings = behavioural_findings(run_source(source), args)
    assert all(f["check"] == "behavioural" and f["line"] is None for f in findings)
    return findings


def test_counter_changed_between_traces():
    source = "counter = 0\n\ndef f(x):\n    global counter\n    counter += 1\n    return x + counter\n"
    messages = [f["message"] for f in behavioural(source, jnp.arange(3.0))]
    assert messages[0].startswith("two traces gave different programs")
    assert "add" in messages[0]


def test_changed_module_array_shows_as_different_constants():
    source = "W = np.ones(3, np.float32)\n\ndef f(x):\n    global W\n    W = W * 2\n    return x + W\n"
    messages = [f["message"] for f in behavioural(source, jnp.arange(3.0))]
    assert "constant" in messages[0]


def test_jit_and_eager_differ():
    assert hasattr(jax.core, "Tracer")  # the spelling the user example relies on (JAX 0.10)
    source = "def f(x):\n    return x + (1.0 if isinstance(x, jax.core.Tracer) else 0.0)\n"
    assert [f["message"] for f in behavioural(source, jnp.arange(4.0))] == [
        "jit and eager results differ at the result: max abs difference 1.0 (4 of 4 elements)"
    ]


def test_jit_and_eager_differ_at_a_leaf():
    source = ("def f(x):\n    traced = isinstance(x, jax.core.Tracer)\n"
              "    return x, x * (3.0 if traced else 0.0)\n")
    messages = [f["message"] for f in behavioural(source, jnp.ones(2))]
    assert messages == ["jit and eager results differ at leaf [1]: max abs difference 3.0 (2 of 2 elements)"]


def test_nan_results_count_as_equal():
    assert behavioural("def f(x):\n    return jnp.log(x - 1.0)\n", jnp.arange(3.0)) == []


def test_a_raising_function_gives_one_sentence():
    (finding,) = behavioural("def f(x):\n    if x.sum() > 0:\n        return x\n    return -x\n", jnp.arange(3.0))
    assert finding["message"].startswith("Tracing the function with jax.make_jaxpr raised TracerBoolConversionError")
    assert "\n" not in finding["message"]


def test_eager_only_failure_is_reported():
    source = "def f(x):\n    if not isinstance(x, jax.core.Tracer):\n        raise ValueError('eager!')\n    return x\n"
    (finding,) = behavioural(source, jnp.arange(3.0))
    assert finding["message"] == "Running the function eagerly raised ValueError: eager!"


def test_results_equal_within_tolerance():
    np.testing.assert_allclose(1.0, 1.0 + 5e-5, rtol=1e-4)  # the tolerance the module uses
    assert behavioural("def f(x):\n    return jnp.exp(x) @ jnp.exp(x).T\n", jnp.ones((8, 8)) * 3.0) == []


@pytest.mark.parametrize("source, args", [
    ("def f(key):\n    return jax.random.split(key)\n", (jax.random.key(0),)),  # PRNG key results
    ("def f(x):\n    return x.shape[0], x > 1\n", (jnp.ones(3),)),  # eager Python int vs jit int32
    ("KEY = jax.random.key(1)\n\ndef f(x):\n    return x + jax.random.normal(KEY, x.shape)\n", (jnp.ones(3),)),
    ("@jax.jit\ndef f(x):\n    return x.astype(jnp.bfloat16) * 2\n", (jnp.arange(3.0),)),
])
def test_more_pure_functions_raise_no_alarm(source, args):
    assert static_findings(source, "f") == []
    assert behavioural(source, *args) == []


def test_different_result_structures_are_reported():
    source = "def f(x):\n    return [x] if isinstance(x, jax.core.Tracer) else (x,)\n"
    (finding,) = behavioural(source, jnp.ones(3))
    assert finding["message"].startswith("jit and eager results have different structures")


def test_bad_syntax_is_the_usual_user_error():
    with pytest.raises(UserCodeError) as info:
        static_findings("def f(x:\n    return x\n", "f")
    assert info.value.kind == "syntax"
