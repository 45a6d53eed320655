"""Errors that teach, beyond tracer errors: the mistakes JAX's Sharp Bits page lists, in plain words.

A Python list given to ``jnp.sum``, ``x[0] = 1``, shapes that do not fit a
matrix product, ``lax.add(1, 1.0)``, an unhashable static argument, ... JAX's
(or NumPy's) message says what went wrong; a lesson adds why JAX works that way,
the fix written from the user's own line, and the page of JAX's documentation
that explains it::

    >>> source = "def f(x):\\n    return jnp.sum([x, 2 * x])\\n"
    >>> import jax
    >>> from playground.worker.functions import usercode
    >>> try:
    ...     jax.jit(usercode.load(source).function)(1.0)
    ... except TypeError as error:
    ...     exc = error
    >>> info = explain(exc, source, 2)
    >>> info["title"]
    'TypeError: jax.numpy takes arrays, not Python lists'
    >>> print(info["fix"].splitlines()[2])
    jnp.sum(jnp.asarray([x, 2 * x]))

A lesson is given only when the exception really is that error: its class and
the start of its message match, it was raised by a library and not by the
user's own ``raise``, and it is not a bug of the playground's own.
"""

from __future__ import annotations

import ast
import re
import traceback

from playground import messages, user_ast
from playground.errors import USER_FILENAME
from playground.worker.lessons import (
    array_lessons,
    memory_lessons,
    pallas_lessons,
    shape_lessons,
    transform_lessons,
    user_errors,
)
from playground.worker.lessons.lesson_kit import Clue, Lesson

LESSONS: tuple[Lesson, ...] = (*array_lessons.LESSONS, *shape_lessons.LESSONS, *transform_lessons.LESSONS,
                               *memory_lessons.LESSONS, *pallas_lessons.LESSONS)


def explain(exc: BaseException, source: str, line: int | None) -> dict | None:
    """{"title", "explanation", "fix", "doc_url"} for an error a lesson teaches; None for any other exception.

    A lesson with a catalogue key adds ``words`` (as tracer_errors.explain does): the title and explanation as
    catalogue pieces, and the fix too where the lesson writes it in pieces.

    ``line`` is the user's line closest to the failure (``user_errors.user_line``), or None.
    """
    tree = user_ast.try_parse(source)
    if user_errors.our_bug(exc) or raised_by_user(exc, tree):
        return None
    for lesson in LESSONS:
        match = lesson.matches(exc)
        if match is not None:
            groups = {k: v or "" for k, v in match.groupdict().items()}
            fix = lesson.fix(Clue(exc, source, tree, line, match))
            result = {
                "title": f"{type(exc).__name__}: {lesson.title}",
                "explanation": lesson.words.format_map(groups),
                "fix": messages.render(fix) if isinstance(fix, list) else fix,
                "doc_url": lesson.doc_url,
            }
            if lesson.key:  # the same words as catalogue pieces, for the server to write in the reader's language
                result["words"] = {"title": [f"{type(exc).__name__}: ", messages.piece(f"lesson.{lesson.key}.title")],
                                   "explanation": [messages.piece(f"lesson.{lesson.key}.what", **groups)],
                                   **({"fix": fix} if isinstance(fix, list) else {})}
            return result
    return None


_TRUNCATED_TO_32_BITS = re.compile(r"Explicitly requested dtype (?P<wide>\w+)(?: requested in (?P<where>[\w.]+))? is "
                                   r"not available, and will be truncated to dtype (?P<narrow>\w+)")
DOUBLE_PRECISION_URL = "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#double-64bit-precision"


def warning_note(category: type, message: str) -> str:
    """A warning as the user reads it: JAX's float64-to-float32 warning in plain words, others as they are.

    >>> print(warning_note(UserWarning, "Explicitly requested dtype float64 requested in zeros is not available, "
    ...                    "and will be truncated to dtype float32. To enable more dtypes, set the ..."))
    ... # doctest: +NORMALIZE_WHITESPACE
    float64 was asked for (in zeros), and float32 is used: JAX computes in 32 bits unless the jax_enable_x64 flag
    is set before any array is made (it is off here), so results carry float32 rounding (about 7
    significant digits). See https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#double-64bit-precision
    """
    match = _TRUNCATED_TO_32_BITS.search(message)
    if match is None:
        return f"{category.__name__}: {message}"
    where = f" (in {match.group('where')})" if match.group("where") else ""
    digits = "about 7 significant digits" if match.group("narrow") == "float32" else "fewer digits"
    return (f"{match.group('wide')} was asked for{where}, and {match.group('narrow')} is used: JAX computes in 32 "
            "bits unless the jax_enable_x64 flag is set before any array is made (it is off here), so "
            f"results carry {match.group('narrow')} rounding ({digits}). See {DOUBLE_PRECISION_URL}")


def raised_by_user(exc: BaseException, tree: ast.Module | None) -> bool:
    """Whether the user's own ``raise`` statement raised it (its words may copy JAX's, its cause is not JAX's)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames or frames[-1].filename != USER_FILENAME:
        return False
    line = frames[-1].lineno
    return tree is None or any(isinstance(n, ast.Raise) and n.lineno <= line <= n.end_lineno for n in ast.walk(tree))
