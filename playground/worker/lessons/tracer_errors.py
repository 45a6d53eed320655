"""Errors that teach: JAX's tracer errors in plain words, with the fix that fits the user's line.

Under ``jax.jit`` a function runs once on *tracers* (a shape and a dtype, no value),
so Python control flow and conversions on traced values fail. JAX's messages are
precise but written for people who already know that. ``explain`` adds the why,
and picks the fix from the statement that failed::

    >>> source = "def f(x):\\n    if x > 0:\\n        return x\\n    return -x\\n"
    >>> from playground.worker.functions import usercode
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

from playground import messages, user_ast
from playground.errors import USER_FILENAME
from playground.worker.lessons import error_lessons
from playground.worker.lessons import tracer_fixes as fixes
from playground.worker.lessons import tracer_sites as sites

DOCS_URL = "https://docs.jax.dev/en/latest/errors.html#jax.errors."
_FILE = USER_FILENAME

# Most specific first: TracerBoolConversionError is a subclass of ConcretizationTypeError. Their words are in
# playground/messages/tracer_texts.py, under "tracer.<name>.title" and "tracer.<name>.what".
_CLASSES = ("TracerBoolConversionError", "TracerIntegerConversionError", "TracerArrayConversionError",
            "NonConcreteBooleanIndexError", "ConcretizationTypeError", "UnexpectedTracerError")


def explain(exc: BaseException, source: str, line: int | None) -> dict | None:
    """{"title", "explanation", "fix", "doc_url"} (all str) for JAX's tracer errors, and for the other errors
    error_lessons teaches (a list given to ``jnp.sum``, ``x[0] = 1``, ...); None for any other exception.

    A tracer error's result adds ``words``: ``{"title", "explanation", "fix"}``, each a list of catalogue
    pieces (playground/messages) that the server writes again in the reader's language; the strings are
    those pieces in English.

    ``line`` is the user's line closest to the failure (``user_errors.user_line``), or None.
    The fix is chosen from the statement on that line: an ``if`` gets ``jnp.where``/``lax.cond``,
    a ``while`` gets ``lax.while_loop``, ``range(n)`` gets ``lax.fori_loop`` or ``static_argnums``,
    and so on; without a line, or if the source does not parse, a general fix for the error.
    """
    name = next((n for n in _CLASSES if isinstance(exc, getattr(jax_errors, n))), None)
    if name is None or (name == "UnexpectedTracerError" and "type Ref<" in str(exc)):  # a Pallas kernel's ref
        return error_lessons.explain(exc, source, line)
    message = str(exc)
    tree = user_ast.try_parse(source)
    if line is None and name == "UnexpectedTracerError":
        created = re.search(rf"created on line {re.escape(_FILE)}:(\d+)", message)
        line = int(created.group(1)) if created else None
    found = sites.find_constructs(tree, line) if tree is not None and line is not None else {}
    ctx = fixes.Context(source, tree, message, found, line)
    shape = re.search(r"(?:with shape|got) ([a-z]+[0-9]*\[[0-9, ]*\])", message)
    words = {
        "title": [name + ": ", messages.piece(f"tracer.{name}.title")],
        "explanation": [messages.piece("tracer.intro", shape=messages.piece("tracer.here", shape=shape.group(1))
                                       if shape else ""), messages.piece(f"tracer.{name}.what")],
        "fix": fixes.FIXERS[name](ctx),
    }
    return {**{part: messages.render(pieces) for part, pieces in words.items()}, "doc_url": DOCS_URL + name,
            "words": words}
