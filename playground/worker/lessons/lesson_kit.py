"""What an error lesson is, and what its fix can read: the user's line, its calls, and the exception's own facts.

A lesson teaches one class of error that JAX or NumPy raise at a beginner's code:
it is recognised by the exception's class and the start of its message, and it
writes its fix from the statement that failed (``Clue``)::

    >>> import re
    >>> lesson = Lesson(("TypeError",), re.compile(r"(?P<fn>\\w+) requires ndarray"), "t", "{fn} wants arrays",
    ...                 lambda clue: "", "https://docs.jax.dev/")
    >>> lesson.matches(TypeError("sum requires ndarray or scalar arguments")).group("fn")
    'sum'
    >>> lesson.matches(ValueError("sum requires ndarray")) is None
    True

Pure logic: reads the exception, its traceback's frames and the user's source; runs nothing.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

from playground import messages
from playground.errors import USER_FILENAME
from playground.worker.lessons.tracer_fixes import Context
from playground.worker.lessons.tracer_sites import called_name

_MAX_REWRITE = 120  # longest rewritten code a fix shows on one line


@dataclass(frozen=True)
class Lesson:
    types: tuple[str, ...]  # the exception's class or one of its bases, by name (JAX's own classes are private)
    pattern: re.Pattern[str]  # how JAX's (or NumPy's) message for it starts; its groups fill ``words``
    title: str
    words: str  # why it happens, in plain words; ``{group}`` fields come from the pattern's match
    fix: Callable[[Clue], str | list]  # the fix fitted to the user's code: text, or catalogue pieces
    doc_url: str  # the page of JAX's documentation (docs.jax.dev) that explains it
    key: str = ""  # its words in every language: the catalogue's "lesson.<key>.title" and "lesson.<key>.what"

    def matches(self, exc: BaseException) -> re.Match[str] | None:
        if not {cls.__name__ for cls in type(exc).__mro__} & set(self.types):
            return None
        return self.pattern.match(str(exc))


def taught(types: tuple[str, ...], pattern: re.Pattern[str], key: str, fix: Callable[[Clue], str | list],
           doc_url: str) -> Lesson:
    """A lesson whose title and words are the catalogue's ``lesson.<key>.title`` and ``lesson.<key>.what``
    (playground/messages/lesson_texts.py): English here, and the reader's language where the server writes them."""
    english = {part: messages.CATALOGUE[f"lesson.{key}.{part}"]["en"] for part in ("title", "what")}
    return Lesson(types, pattern, english["title"], english["what"], fix, doc_url, key)


class Clue(Context):
    """tracer_fixes.Context (the source, its tree, the line, the message) plus the match and the exception."""

    def __init__(self, exc: BaseException, source: str, tree: ast.Module | None, line: int | None,
                 match: re.Match[str]) -> None:
        super().__init__(source, tree, str(exc), {}, line)
        self.exc, self.match = exc, match

    # The lessons write English text (not yet catalogue pieces): the tracer fixers' pieces, written in English.
    def where(self) -> str:
        return messages.render([super().where()])

    def static_hint(self) -> str:
        return messages.render(super().static_hint())

    def static_hint_pieces(self) -> list:
        """The static_argnums hint as catalogue pieces."""
        return super().static_hint()

    def where_piece(self) -> list:
        """"Line 2 (`...`)" or "Your code" as a catalogue piece, for the fixes written in pieces."""
        return super().where()

    def nodes(self, *types: type) -> list[ast.AST]:
        """The nodes of these types whose lines include the line, outermost first."""
        if self.tree is None or self.line is None:
            return []
        return [n for n in ast.walk(self.tree)
                if isinstance(n, types) and n.lineno <= self.line <= (n.end_lineno or n.lineno)]

    def calls(self, *names: str) -> list[ast.Call]:
        """Calls on the line to a function of one of these names (``jnp.sum`` and ``sum`` are both ``sum``)."""
        return [c for c in self.nodes(ast.Call) if called_name(c) in names]

    def replaced(self, node: ast.AST, part: ast.AST, new: str, default: str) -> str:
        """The user's spelling of ``node`` with ``part`` of it written as ``new`` (``default`` if not quotable)."""
        if node.lineno != node.end_lineno or not node.lineno == part.lineno == part.end_lineno:
            return default
        line = self.source.splitlines()[node.lineno - 1].encode()  # col offsets count UTF-8 bytes
        start, end = part.col_offset - node.col_offset, part.end_col_offset - node.col_offset
        quoted = line[node.col_offset:node.end_col_offset]
        written = (quoted[:start] + new.encode() + quoted[end:]).decode()
        return written if len(written) <= _MAX_REWRITE and "`" not in written else default

    def in_call(self, part: ast.AST, new: str) -> str:
        """The innermost call on the line that takes ``part`` as an argument, with ``part`` written as ``new``."""
        calls = [c for c in self.nodes(ast.Call) if part in c.args or part in [k.value for k in c.keywords]]
        return self.replaced(calls[-1], part, new, new) if calls else new

    def in_function(self) -> bool:
        """Whether the line is inside a function (which JAX may be tracing), not at the top of the module."""
        functions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
        return any(n.lineno < self.line <= n.end_lineno or isinstance(n, ast.Lambda) for n in self.nodes(*functions))

    def shape_of(self, node: ast.AST) -> tuple[int, ...] | None:
        """The shape of a variable of the user's at the line, read from the traceback's frame there."""
        if not isinstance(node, ast.Name):
            return None
        value = user_frame_locals(self.exc, self.line).get(node.id)
        shape = getattr(value, "shape", None)
        return tuple(shape) if isinstance(shape, tuple) and all(isinstance(n, int) for n in shape) else None

    def group(self, name: str, default: str = "") -> str:
        return self.match.groupdict().get(name) or default


def user_frame_locals(exc: BaseException, line: int | None) -> dict:
    """The local variables of the innermost frame of the user's code that was running ``line``."""
    found: dict = {}
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == USER_FILENAME and tb.tb_lineno == line:
            found = tb.tb_frame.f_locals
        tb = tb.tb_next
    return found


def shape_text(shape: tuple[int, ...] | str) -> str:
    """``(3,)``, ``(2, 3)``: a shape as Python writes a tuple (JAX's messages write them so too).

    >>> shape_text((3,)), shape_text("2, 3")
    ('(3,)', '(2, 3)')
    """
    if isinstance(shape, str):
        shape = tuple(int(n) for n in shape.replace(",", " ").split())
    return str(tuple(shape))
