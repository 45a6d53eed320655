"""The user's own jit is honoured: code from JAX's docs that jits itself runs as written, in every tab."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from playground.worker.functions import user_jit, usercode
from playground.worker.jobs import compare, jit_speed, speed_of_light
from playground.worker.jobs import inspect as staging
from tests.owner_doubles import local_device

MAX_CHARS = 100_000

# In the spirit of the docs' "JIT compilation" page: static arguments spelled every way JAX accepts.
POWER_PARTIAL = '''from functools import partial

@partial(jax.jit, static_argnames="n")
def f(x, n):
    y = x
    for _ in range(n - 1):
        y = y * x
    return y
'''
POWER_FACTORY = '''@jax.jit(static_argnums=1)
def f(x, n):
    return x ** n
'''
POWER_ASSIGNED = '''def f(x, n):
    return x ** n

f = jax.jit(f, static_argnames="n")
'''
HELPER_STATIC = '''from functools import partial

@partial(jax.jit, static_argnums=0)
def repeat(n, x):
    return jnp.concatenate([x] * n)

def f(x, n):
    return repeat(n, x).sum()
'''
PLAIN_JIT = '''@jax.jit
def f(x):
    return x * 2.0 + 1.0
'''
DONATING = '''from functools import partial

@partial(jax.jit, donate_argnums=0)
def f(x):
    return x + 1.0
'''
X = "jnp.arange(1.0, 5.0)"


def inspect(code: str, args: str, **options) -> dict:
    reply = staging.inspect(code, args, MAX_CHARS, **options)
    assert reply["ok"], reply.get("error")
    return reply


def plain_jax(code: str, *arguments):
    """What the user's code computes when called directly, outside the playground."""
    return usercode.load(code).function(*arguments)


@pytest.mark.parametrize("code", [POWER_PARTIAL, POWER_FACTORY, POWER_ASSIGNED], ids=["partial", "factory", "assigned"])
def test_a_function_jitted_with_static_arguments_runs_as_written(code):
    reply = inspect(code, f"{X}, 3")
    expected = plain_jax(code, jnp.arange(1.0, 5.0), 3)
    assert reply["result"] == f"f32[4] {np.asarray(expected)}" == "f32[4] [ 1.  8. 27. 64.]"
    assert reply["static_argnums"] == [1]
    assert reply["jit"] == {"own": True, "static_from": "your jit", "note": None}
    assert "jit[" not in reply["jaxpr"]  # the user's jit is the one inspected, not nested in ours
    assert "HloModule jit_f" in reply["hlo"]
    assert reply["pytree"]["inputs"]["static"][0]["value"] == "3"


def test_the_field_and_the_decorator_disagreeing_is_said_in_one_line():
    reply = inspect(POWER_ASSIGNED, f"{X}, 2", static_argnums=(0,))
    assert reply["static_argnums"] == [1]  # the decorator applies
    assert reply["jit"]["note"] == ("`f` is jitted in your code with static_argnums=(1,) (static_argnames=n): that "
                                    "applies; the static_argnums field (0,) was not used.")
    assert reply["warnings"][0] == reply["jit"]["note"]
    agreeing = inspect(POWER_ASSIGNED, f"{X}, 2", static_argnums=(1,))
    assert agreeing["jit"]["note"] is None and not agreeing["warnings"]


def test_a_jitted_helper_with_a_static_argument_makes_that_argument_static():
    reply = inspect(HELPER_STATIC, f"{X}, 3")
    expected = plain_jax(HELPER_STATIC, jnp.arange(1.0, 5.0), 3)  # eagerly, n stays a Python int
    assert float(expected) == 30.0 and reply["result"] == "f32[] 30.0"
    assert reply["static_argnums"] == [1] and reply["jit"]["static_from"] == "a jitted helper"
    assert "Argument(s) 1 became static" in reply["jit"]["note"]


def test_a_traced_array_for_a_helpers_static_argument_is_still_an_error():
    # n is an array here, not a Python value: no retry can make it static, and the user reads why.
    reply = staging.inspect(HELPER_STATIC, f"{X}, jnp.int32(3)", MAX_CHARS)
    assert not reply["ok"] and reply["error"]["kind"] == "user_exception" and reply["error"]["line"] == 8


def test_a_plain_jit_is_inspected_itself_and_a_retrace_is_explained_once():
    reply = inspect(PLAIN_JIT, X, second_args="jnp.arange(6.0)")
    assert "jit[" not in reply["jaxpr"] and reply["jit"]["own"] is True
    assert reply["retrace"]["retraced"] is True
    assert reply["retrace"]["explanation"].count("TRACING CACHE MISS") == 1
    assert "now f32[6] and before f32[4]" in reply["retrace"]["explanation"]


def test_a_retrace_of_the_function_and_its_helper_names_each_once():
    reply = inspect(HELPER_STATIC, f"{X}, 3", second_args=f"{X}, 4")
    explanation = reply["retrace"]["explanation"]
    assert explanation.count("for f defined at") == 1 and explanation.count("for repeat defined at") == 1
    assert "before pytree leaf" not in explanation  # the failed first attempt is not what it is compared with


def test_donated_arguments_survive_every_call_the_playground_makes():
    x = jnp.arange(4.0)
    plain_jax(DONATING, x)
    assert x.is_deleted()  # donation is real on this backend: a second use of x would fail
    reply = inspect(DONATING, X, second_args=X)  # the stages, the purity checks and the second call all use x
    assert reply["jit"]["own"] is True and reply["retrace"]["retraced"] is False
    assert reply["result"] == "f32[4] [2. 3. 4. 5.]" and not reply["purity"]


def test_choose_reads_the_declared_options():
    @partial(jax.jit, static_argnums=(1,), donate_argnames="x")
    def g(x, n):
        return x * n

    choice = user_jit.choose(g, (), 2)
    assert choice.own and choice.static_argnums == (1,) and choice.donate_argnums == (0,)
    assert choice.plain is g.__wrapped__ and user_jit.declared(g.__wrapped__) is None
    assert user_jit.python_value_positions((jnp.ones(2), 3, "a", (1, 2), None, np.ones(1), 2.0, (1, 2.0))) == (
        1, 2, 3, 4)  # floats are data to compute with, not settings


def test_the_jit_tab_times_the_users_jitted_function_against_its_plain_version():
    code = "@jax.jit\ndef fn(x):\n    return x + x*x + x*x*x\n"
    reply = jit_speed.jit_speed(code, [10, 50], 2, memory_mb=65_536, device=local_device())  # in pytest's process
    assert reply["ok"], reply
    assert reply["checked_sizes"] == [10, 50] and all(reply["eager_s"]) and all(reply["jit_s"])
    program = usercode.load(code)
    choice = user_jit.choose(program.function, (), 1)
    assert choice.jitted is program.function and user_jit.declared(choice.plain) is None


@pytest.mark.parametrize(("code", "args", "result", "static"), [
    (POWER_PARTIAL, f"{X}, 3", "f32[4] [ 1.  8. 27. 64.]", [1]),
    (POWER_FACTORY, f"{X}, 3", "f32[4] [ 1.  8. 27. 64.]", [1]),
    (POWER_ASSIGNED, f"{X}, 3", "f32[4] [ 1.  8. 27. 64.]", [1]),
    (HELPER_STATIC, f"{X}, 3", "f32[] 30.0", [1]),
    (DONATING, X, "f32[4] [2. 3. 4. 5.]", []),
], ids=["partial", "factory", "assigned", "helper", "donating"])
def test_on_the_device_the_users_jit_is_the_one_exported_and_run(code, args, result, static):
    """The owner runs what the worker exported of the user's own jit: static arguments baked in, a donating jit
    run again and again (Speed of light times it, the Compiler compares two compiles of it)."""
    reply = inspect(code, args, device=local_device(), second_args=args)
    assert reply["result"] == result and reply["static_argnums"] == static
    assert reply["jit"] == inspect(code, args)["jit"] and "HloModule jit_f" in reply["hlo"]
    assert reply["retrace"]["retraced"] is False
    timed = speed_of_light.speed_of_light(code, args, local_device(), gradient=False)
    assert timed["ok"], timed
    assert all(p["run"]["runs"] >= 1 for p in timed["programs"])
    compared = compare.compare(code, args, MAX_CHARS, setting="fusion: off", device=local_device())
    assert compared["ok"] and compared["same_result"] is True, compared
