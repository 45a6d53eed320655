"""A job's arguments: the limits of what a job may ask for, and one maker per kind of argument.

Each maker gives an ``Argument`` with everything the rest of the app derives from it: the check the server runs
before any worker is used, the default, the conversion to what the worker gets, the type and the sentence of the
endpoint's signature (HTTP, gradio_client and MCP see them), and how a form holds it (``Form``: what a share link
may carry for it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from playground import validation as check

# The limits of what a job may ask for: each number is here and nowhere else.
MAX_CODE_CHARS = 20_000
MAX_ARGS_CHARS = 2_000
MAX_STATIC_ARGNUMS = 8
MAX_ORDER = 8
MAX_POINTS = 2_000
MAX_SIZES = 8
MAX_BATCH = 100_000
MAX_MATRIX = 10_000
MAX_REPEATS = 50
MAX_DEVICES = 64
MAX_MESH_AXES = 4

REQUIRED = object()  # no default: the caller must give it
BY_SERVER = object()  # the default depends on the server (its memory limit): the API fills it in


@dataclass(frozen=True)
class Form:
    """How a tab's form holds an argument, and so what a share link may carry for it: ``text`` up to ``limit``
    characters (lists are typed as text too), a ``number`` from ``low`` to ``high``, a ``flag``, or a ``choice``
    of ``choices``."""

    kind: str
    limit: int = 0
    low: float = 0.0
    high: float = 0.0
    whole: bool = False
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Argument:
    """One argument: its check (None when fine, else an invalid_input error dict) and what the worker gets."""

    name: str
    check: Callable[[str, Any], dict | None]
    doc: str
    annotation: Any
    form: Form
    default: Any = REQUIRED
    convert: Callable[[Any], Any] = lambda value: value

    def renamed(self, name: str) -> Argument:
        """The same argument under another name (a tab with two jobs holds both jobs' ``code``)."""
        return Argument(name, self.check, self.doc, self.annotation, self.form, self.default, self.convert)


def _wholes_list(values: list) -> list[int]:
    return [check.as_whole(v) for v in values]


def _sorted_unique(values: list | None) -> list[int]:
    return sorted(set(_wholes_list(values or [])))


def code(doc: str = "Python source defining the function (named ``f``, else the last ``def``); jax, jnp, np, lax "
                    "in scope.") -> Argument:
    return Argument("code", lambda name, value: check.code(value, MAX_CODE_CHARS), doc, str,
                    Form("text", MAX_CODE_CHARS))


def text(name: str, doc: str, default: Any = REQUIRED, limit: int = MAX_ARGS_CHARS,
         also: Callable[[str, Any], dict | None] | None = None) -> Argument:
    """Text up to ``limit`` characters; ``also``: a further check of the text."""
    def checked(name: str, value: Any) -> dict | None:
        return check.text(name, value, limit) or (also(name, value) if also else None)
    return Argument(name, checked, doc, str, Form("text", limit), default)


def whole(name: str, doc: str, low: int, high: int, default: Any = REQUIRED) -> Argument:
    return Argument(name, lambda name, value: check.whole_number(name, value, low, high), doc, int,
                    Form("number", low=low, high=high, whole=True), default, check.as_whole)


def number(name: str, doc: str, default: Any = REQUIRED) -> Argument:
    return Argument(name, check.number, doc, float, Form("number", low=-1e6, high=1e6), default, float)


def wholes(name: str, doc: str, low: int, high: int, most: int, default: Any = REQUIRED, *,
           sort: bool = False) -> Argument:
    """A list of whole numbers (``sort``: sorted, each once); a form types it as text ("1, 10, 100")."""
    return Argument(name, lambda name, value: check.whole_numbers(name, value, low, high, most), doc,
                    list[int] if default is REQUIRED else list[int] | None, Form("text", MAX_ARGS_CHARS), default,
                    _sorted_unique if sort else _wholes_list)


def names(name: str, doc: str, most: int) -> Argument:
    return Argument(name, lambda name, value: check.names(name, value, most), doc, list[str],
                    Form("text", MAX_ARGS_CHARS))


def flag(name: str, doc: str, default: bool = False) -> Argument:
    return Argument(name, check.flag, doc, bool, Form("flag"), default)


ARGS = text("args", 'its arguments as one Python expression, e.g. "jnp.arange(4.0)"; a tuple gives several.')
STATIC_ARGNUMS = wholes("static_argnums", "positions of the arguments ``jax.jit`` takes as static (null or []: "
                        "none).", 0, 63, MAX_STATIC_ARGNUMS, None, sort=True)
ON_ACCELERATOR = flag("on_accelerator", "compile and run on the host's GPU or TPU (the CPU where it has none).")
