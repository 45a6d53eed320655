"""JAX's common transformation mistakes are the user's to learn from, never a bug of ours: each at module level
(``g = jax.grad(f)``, which the playground runs) and inside the function, through the Inspect tab's own function.

A worker keeps JAX's frames in its tracebacks (handlers.run: user_errors.keep_library_frames), which is what lets
an error JAX raises with no frame of the user's on the stack (``jax.grad`` of ``g = jax.grad(f)`` with an array
output) be told from one our own code raises; these tests run the same way. Each mistake must come back as the
user's error (not ``internal``), on the line that made it, with a lesson that names the mistake.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import pytest

from playground import messages
from playground.server.pools import reply
from playground.server.ui.error_views import error_markdown
from playground.worker.functions import user_jit
from playground.worker.jobs import inspect as staging
from playground.worker.jobs import speed_of_light as speed_of_light_job
from playground.worker.lessons import user_errors
from tests.owner_doubles import local_device

HEAD = "import jax\nimport jax.numpy as jnp\n\n"  # the mistakes' code starts on line 4


@pytest.fixture(autouse=True)
def library_frames():
    """JAX's frames kept, as in a worker; this process's setting back afterwards."""
    previous = jax.config.jax_traceback_filtering
    user_errors.keep_library_frames()
    yield
    jax.config.update("jax_traceback_filtering", previous)


@dataclass(frozen=True)
class Mistake:
    code: str  # after HEAD
    args: str
    line: int | None  # in the whole code, HEAD included
    says: tuple[str, ...]  # what the reply names: parts of the lesson's title, explanation or fix, or JAX's message
    kind: str = "user_exception"


MISTAKES = {
    "grad of an array output, at module level": Mistake(
        "def f(x):\n    return jnp.sin(x)\n\ng = jax.grad(f)\n", "jnp.arange(3.0)", 7,
        ("one number as output", "jax.vmap(jax.grad(f))(x)", "jnp.sum(f(x))", "jax.jacrev(f)(x)")),
    "grad of an array output, inside f": Mistake(
        "def f(x):\n    return jax.grad(jnp.sin)(x)\n", "jnp.arange(3.0)", 5,
        ("one number as output", "jax.jacrev(jnp.sin)(x)")),
    "value_and_grad of an array output, at module level": Mistake(
        "def f(x):\n    return x * 2\n\ng = jax.value_and_grad(f)\n", "jnp.ones(3)", 7, ("one number as output",)),
    "grad of a tuple output, at module level": Mistake(
        "def f(x):\n    return x ** 2, x\n\ng = jax.grad(f)\n", "1.0", 7,
        ("not several values", "jax.grad(f, has_aux=True)")),
    "grad of a dict output, inside f": Mistake(
        "def f(x):\n    return jax.grad(lambda y: {'a': y})(x)\n", "1.0", 5, ("not several values", "has_aux=True")),
    "grad at an integer, at module level": Mistake(
        "def f(x):\n    return x ** 2\n\ng = jax.grad(f)\n", "3", 7, ("floats, not integers",)),
    "grad at an integer, inside f": Mistake(
        "def f(x):\n    return jax.grad(lambda y: y ** 2)(3) + x\n", "1.0", 5, ("floats, not integers", "3.0")),
    "jacrev at an integer array, at module level": Mistake(
        "def f(x):\n    return x * 2\n\ng = jax.jacrev(f)\n", "jnp.arange(3)", 7, ("floats, not integers",)),
    "vmap over unequal sizes, at module level": Mistake(
        "def f(x, y):\n    return x + y\n\ng = jax.vmap(f)\n", "(jnp.ones(3), jnp.ones(4))", 7,
        ("different numbers of examples", "in_axes=(0, None)")),
    "vmap over unequal sizes, inside f": Mistake(
        "def f(x, y):\n    return jax.vmap(lambda a, b: a + b)(x, y)\n", "(jnp.ones(3), jnp.ones(4))", 5,
        ("different numbers of examples",)),
    "vmap in_axes of the wrong length, at module level": Mistake(
        "def f(x, y):\n    return x + y\n\ng = jax.vmap(f, in_axes=(0, 0, 0))\n", "(jnp.ones(3), jnp.ones(3))", 7,
        ("one entry per positional argument", "gets 2 positional arguments", "`in_axes=(0, None)`")),
    "vmap in_axes of the wrong structure, inside f": Mistake(
        "def f(x):\n    return jax.vmap(lambda p: p['y'] * 2, in_axes=({'x': 0},))({'y': x})\n", "jnp.ones(3)", 5,
        ("one entry per positional argument", "a pytree shaped like its argument")),
    "vmap over a scalar, at module level": Mistake(
        "def f(x):\n    return x * 2\n\ng = jax.vmap(f)\n", "1.0", 7,
        ("an axis the argument does not have", "shape () along axis 0", "`None` in `in_axes`")),
    "vmap over a scalar, inside f": Mistake(
        "def f(x):\n    return jax.vmap(lambda a, b: a * b)(x, 2.0)\n", "jnp.ones(3)", 5,
        ("an axis the argument does not have",)),
    "jit with a Python if on a traced value, at module level": Mistake(
        "def f(x):\n    if x > 0:\n        return x\n    return -x\n\ng = jax.jit(f)\n", "1.0", 5,
        ("Python needed True or False from a traced value", "jnp.where")),
    "static_argnums past the arguments, at module level": Mistake(
        "def f(x, n):\n    return x * n\n\ng = jax.jit(f, static_argnums=2)\n", "(1.0, 2)", 7,
        ("static_argnums=(2,)", "only accepts 2 positional arguments")),
    "an unhashable static argument, at module level": Mistake(
        "def f(x, n):\n    return x * len(n)\n\ng = jax.jit(f, static_argnums=1)\n", "(1.0, [1, 2])", 7,
        ("must be hashable",)),
    "shapes that do not broadcast, at module level": Mistake(
        "def f(x):\n    return x + jnp.ones(4)\n\ng = jax.jit(f)\n", "jnp.ones(3)", 5, ("(3,)", "(4,)")),
    "jit returning a string, at module level": Mistake(
        "def f(x):\n    return 'done'\n\ng = jax.jit(f)\n", "1.0", 7,
        ("returns arrays, not arbitrary Python objects", "`f` returns a str")),
    "jit returning a string beside an array, inside f": Mistake(
        "def f(x):\n    return x, 'done'\n", "1.0", None, ("`f` returns a str (output [1])",)),
    # 4 PB: more than any address space holds, so XLA's allocation fails on every machine, overcommitted or not.
    "an array too big for memory, at module level": Mistake(
        "big = jax.random.normal(jax.random.key(0), (10**5,) * 3)\n\ndef f(x):\n    return x + jnp.sum(big)\n",
        "1.0", 4, ("more memory than a job has", "needs a buffer of 4000 TB", "smaller shape"), kind="memory"),
    "an array too big for memory, inside f": Mistake(
        "def f(x):\n    return x + jax.random.normal(jax.random.key(0), (10**5,) * 3)\n", "1.0", None,
        ("more memory than a job has", "4000 TB"), kind="memory"),
    "an argument too big for memory": Mistake(
        "def f(x):\n    return jnp.sum(x)\n", "jax.random.normal(jax.random.key(0), (10**5,) * 3)", None,
        ("Out of memory allocating 4000000000000000 bytes",), kind="memory"),
}


@pytest.mark.parametrize("name", MISTAKES)
def test_each_mistake_is_the_users_on_its_line_and_named(name):
    mistake = MISTAKES[name]
    error = staging.inspect(HEAD + mistake.code, mistake.args, 100_000)["error"]
    assert error["kind"] == mistake.kind, error
    assert error["line"] == mistake.line, error
    said = "\n".join(error.get(part, "") for part in ("title", "explanation", "fix", "message"))
    for part in mistake.says:
        assert part in said, f"{part!r} not in:\n{said}"


def test_an_error_raised_in_a_frame_of_ours_stays_internal_even_in_the_words_of_a_lesson():
    # Our own code failing in words a lesson knows, with no frame of the user's: a bug of ours, and no lesson.
    words = "Gradient only defined for scalar-output functions. Output had shape: (3,)."
    try:
        exec(compile(f"raise TypeError({words!r})", user_jit.__file__, "exec"))  # noqa: S102 - a frame of ours
    except TypeError as exc:
        error = staging.explained_error(exc, HEAD + "def f(x):\n    return jnp.sin(x)\n\ng = jax.grad(f)\n")["error"]
    assert error["kind"] == "internal" and words in error["message"]
    assert not {"title", "explanation", "fix", "doc_url"} & set(error)


def test_an_error_jax_raises_is_the_users_though_jax_recorded_our_frame_as_where_it_traced():
    # The export for the device traces the function from a frame of ours; JAX adds the stack of that moment as the
    # error's cause, but JAX raised the error (the deleted array, read as a constant), at the user's array.
    code = HEAD + "x0 = jnp.ones(3)\nx0.delete()\n\ndef f(x):\n    return x + x0\n"
    error = speed_of_light_job.speed_of_light(code, "1.0", local_device(), gradient=False)["error"]
    assert error["kind"] == "user_exception" and "Array has been deleted" in error["message"], error


def test_frames_the_users_code_filters_out_again_are_kept_for_the_jobs_errors():
    code = HEAD + "jax.config.update('jax_traceback_filtering', 'quiet_remove_frames')\n\ndef f(x):\n" \
                  "    return jnp.sin(x)\n\ng = jax.grad(f)\n"
    error = staging.inspect(code, "jnp.arange(3.0)", 100_000)["error"]
    assert error["kind"] == "user_exception" and error["line"] == 9, error


def test_a_memory_lesson_keeps_the_sandboxs_words_and_both_read_in_the_readers_language():
    mistake = MISTAKES["an array too big for memory, at module level"]
    error = reply.validated(staging.inspect(HEAD + mistake.code, mistake.args, 100_000), "inspect")["error"]
    page = error_markdown(error, "de")
    assert messages.say("prefix.memory", "de").strip() in page and messages.say("lesson.memory.title", "de") in page
