"""Errors that teach: JAX's tracer errors in plain words, with the fix that fits the user's line.

Under ``jax.jit`` a function runs once on *tracers* (a shape and a dtype, no value),
so Python control flow and conversions on traced values fail. JAX's messages are
precise but written for people who already know that. ``explain`` adds the why,
and picks the fix from the statement that failed::

    >>> source = "def f(x):\\n    if x > 0:\\n        return x\\n    return -x\\n"
    >>> from playground import usercode
    >>> try:
    ...     jax.jit(usercode.load(source).function)(1.0)
    ... except jax.errors.TracerBoolConversionError as error:
    ...     exc = error
    >>> info = explain(exc, source, 2)
    >>> info["title"]
    'TracerBoolConversionError: Python needed True or False from a traced value'
    >>> "jnp.where(x > 0" in info["fix"] and "lax.cond" in info["fix"]
    True

Pure logic: reads the exception's text and the user's source, never runs anything.
"""

from __future__ import annotations

import re

from jax import errors as jax_errors

from playground import error_lessons, user_ast
from playground import tracer_fixes as fixes
from playground import tracer_sites as sites
from playground.errors import USER_FILENAME

DOCS_URL = "https://docs.jax.dev/en/latest/errors.html#jax.errors."
GOTCHAS_URL = "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html"
_FILE = USER_FILENAME

_TRACERS = ("Under `jax.jit`, JAX does not run your function on your numbers: it calls it once with *tracers*, "
            "stand-ins that have a shape and a dtype{shape} but no value, and records what is done to them "
            "into a program that XLA compiles. ")
# Most specific first: TracerBoolConversionError is a subclass of ConcretizationTypeError.
_CLASSES: dict[str, tuple[str, str]] = {
    "TracerBoolConversionError": (
        "Python needed True or False from a traced value",
        "Your code asked Python for `True` or `False` from one of them (an `if`, `while`, `and`/`or`/`not`, "
        "`assert` or `bool()`), and a value that does not exist yet cannot pick a branch. Python control flow runs "
        "once, while tracing; control flow that depends on data must be written with JAX functions, which put both "
        f"branches (or the whole loop) into the compiled program. More: {GOTCHAS_URL}"),
    "TracerIntegerConversionError": (
        "Python needed an int from a traced value",
        "Python asked one of them for an integer: a `range()` bound, an index into a list or tuple, or a count. "
        "A tracer has no value, so it cannot be one. The loop or the index must either live inside the compiled "
        f"program (JAX loops, array indexing) or be a constant that is fixed when compiling. More: {GOTCHAS_URL}"),
    "TracerArrayConversionError": (
        "NumPy was given a traced value",
        "A NumPy function (or `np.asarray`/`np.array`) tried to turn one of them into a NumPy array. NumPy computes "
        "right away, on numbers in memory, and a tracer has none; `jax.numpy` functions record the operation into "
        "the program instead."),
    "NonConcreteBooleanIndexError": (
        "Boolean mask indexing needs a size known in advance",
        "Indexing with a boolean mask, like `x[x > 0]`, returns as many elements as the mask has `True`s, so the "
        "shape of the result would depend on the data. Under jit every shape must be known before any data arrives."),
    "ConcretizationTypeError": (
        "A concrete value was needed, but there was only a tracer",
        "Your code needed an actual Python value from one of them: a number (`int()`, `float()`, `.item()`), a "
        "shape or length, or a branch. Shapes must be known while tracing, and values exist only when the "
        f"compiled program runs. More: {GOTCHAS_URL}"),
    "UnexpectedTracerError": (
        "A traced value escaped its function",
        "A tracer was saved somewhere that outlives the trace (a global list or dict, an object attribute, a "
        "variable of an enclosing function) and used after that trace had finished, where it means nothing. "
        "Functions that JAX transforms must be pure: everything they produce leaves through `return`."),
}


def explain(exc: BaseException, source: str, line: int | None) -> dict | None:
    """{"title", "explanation", "fix", "doc_url"} (all str) for JAX's tracer errors, and for the other errors
    error_lessons teaches (a list given to ``jnp.sum``, ``x[0] = 1``, ...); None for any other exception.

    ``line`` is the user's line closest to the failure (``user_errors.user_line``), or None.
    The fix is chosen from the statement on that line: an ``if`` gets ``jnp.where``/``lax.cond``,
    a ``while`` gets ``lax.while_loop``, ``range(n)`` gets ``lax.fori_loop`` or ``static_argnums``,
    and so on; without a line, or if the source does not parse, a general fix for the error.
    """
    name = next((n for n in _CLASSES if isinstance(exc, getattr(jax_errors, n))), None)
    if name is None:
        return error_lessons.explain(exc, source, line)
    message = str(exc)
    tree = user_ast.try_parse(source)
    if line is None and name == "UnexpectedTracerError":
        created = re.search(rf"created on line {re.escape(_FILE)}:(\d+)", message)
        line = int(created.group(1)) if created else None
    found = sites.find_constructs(tree, line) if tree is not None and line is not None else {}
    ctx = fixes.Context(source, tree, message, found, line)
    title, what = _CLASSES[name]
    shape = re.search(r"(?:with shape|got) ([a-z]+[0-9]*\[[0-9, ]*\])", message)
    return {
        "title": f"{name}: {title}",
        "explanation": _TRACERS.format(shape=f" (here `{shape.group(1)}`)" if shape else "") + what,
        "fix": fixes.FIXERS[name](ctx),
        "doc_url": DOCS_URL + name,
    }
