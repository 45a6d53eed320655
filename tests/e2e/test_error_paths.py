"""JAX's common transformation mistakes through a real server, on every tab that runs the user's code: never a bug
of ours (kind ``internal``), always the user's error in words that name the mistake.

Every mistake of tests/test_transformation_mistakes.py (grad of an array or tuple output, grad at integers, vmap's
sizes, in_axes and ranks, a Python ``if`` under jit, static arguments, shapes that do not broadcast, arrays too big
for memory; each at module level and inside the function) goes to /inspect, as a worker runs it: the same kind, line
and words as in-process. Then each tab gets the mistakes that fit what it calls the function with, among them the
playground's first-hour example (``g = jax.grad(f)`` of ``jnp.sin``) and the array of 40 GB from ``jax.random``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from gradio_client import Client

from tests.e2e.responses import assert_error
from tests.test_transformation_mistakes import HEAD, MISTAKES


def said(error: dict) -> str:
    return "\n".join(error.get(part) or "" for part in ("title", "explanation", "fix", "message"))


@pytest.mark.parametrize("name", MISTAKES)
def test_every_mistake_is_the_users_on_inspect(client, name):
    mistake = MISTAKES[name]
    error = assert_error(client.predict(HEAD + mistake.code, mistake.args, None, "", False, api_name="/inspect"),
                         mistake.kind, mistake.line)
    for part in mistake.says:
        assert part in said(error), f"{part!r} not in:\n{said(error)}"


# Each tab as a function of (client, code, args): what it calls the user's function with is ``args``, or its own
# (the jit tab: an n x n array; the Derivatives tab: one number at each point of a grid).
TABS: dict[str, Callable[[Client, str, str], dict]] = {
    "Compiler": lambda client, code, args: client.predict(code, args, None, False, api_name="/passes"),
    "Speed of light": lambda client, code, args: client.predict(code, args, True, api_name="/speed_of_light"),
    "Parallel": lambda client, code, args: client.predict(code, args, [2], ["d"], "(None,)", "P(None)",
                                                          api_name="/shard"),
    "vmap": lambda client, code, args: client.predict(code, args, "0", [2], "0", api_name="/vmap"),
    "jit": lambda client, code, _args: client.predict(code, [8], 1, api_name="/jit_speed"),
    "Derivatives, gradient": lambda client, code, args: client.predict(code, args, api_name="/gradient"),
}
GRAD_OF_SIN = (HEAD + "def f(x):\n    return jnp.sin(x)\n\ng = jax.grad(f)\n", "jnp.arange(3.0)",
               "user_exception", ("one number as output", "jax.jacrev(f)(x)"))
UNEQUAL_SIZES = (HEAD + "def f(x):\n    return jax.vmap(lambda a, b: a * b)(x, jnp.ones(5))\n", "jnp.ones(3)",
                 "user_exception", ("different numbers of examples", "in_axes=(0, None)"))
# The job's memory (2,048 MB on these servers) is named whichever limit stops it: XLA's allocation under the address
# space's limit, or the memory watchdog where a host lets 40 GB be reserved.
HUGE = (HEAD + "key = jax.random.key(0)\nbig = jax.random.normal(key, (10**5, 10**5))\n\ndef f(x):\n"
        "    return x + jnp.sum(big)\n", "jnp.ones(3)", "memory", ("2,048 MB",))


@pytest.mark.parametrize("mistake", [GRAD_OF_SIN, UNEQUAL_SIZES, HUGE], ids=["grad of sin", "unequal sizes", "huge"])
@pytest.mark.parametrize("tab", TABS)
def test_each_tab_says_what_the_mistake_is(client, tab, mistake):
    code, args, kind, says = mistake
    error = assert_error(TABS[tab](client, code, args), kind)
    for part in says:
        assert part in said(error), f"{tab}: {part!r} not in:\n{said(error)}"


def test_the_derivatives_grid_says_what_the_mistake_is(client):
    # f of one number: vmap inside it finds a scalar where it maps an axis.
    code = HEAD + "def f(x):\n    return jnp.sum(jax.vmap(jnp.sin)(x))\n"
    error = assert_error(client.predict(code, 2, -1.0, 1.0, 5, api_name="/derivatives"), "user_exception", 5)
    assert "an axis the argument does not have" in said(error), said(error)


def test_integers_where_the_gradient_is_taken_are_named_on_the_compiler_tab(client):
    code = HEAD + "def f(x):\n    return jnp.sum(x ** 2)\n\ng = jax.grad(f)\n"
    error = assert_error(TABS["Compiler"](client, code, "jnp.arange(3)"), "user_exception", 7)
    assert "floats, not integers" in said(error), said(error)


@pytest.mark.parametrize("code, line", [
    (HEAD + "import sys\n\ndef f(x):\n    sys.exit(3)\n", 7),
    (HEAD + "raise SystemExit\n\ndef f(x):\n    return x\n", 4),
    (HEAD + "def f(x):\n    raise KeyboardInterrupt\n", 5),
], ids=["sys.exit in f", "SystemExit at module level", "KeyboardInterrupt"])
def test_leaving_python_is_the_users_exception_on_its_line(client, code, line):
    # Not Exceptions (BaseException): they pass the handlers' nets, and once ended the worker as a crash.
    error = assert_error(client.predict(code, "1.0", None, "", False, api_name="/inspect"), "user_exception", line)
    assert error["message"].split(":")[0] in ("SystemExit", "KeyboardInterrupt"), error
