"""The user's own ``jax.jit``, honoured: code pasted from JAX's docs often jits its function itself.

When the function is already jitted (``@jax.jit``, ``@partial(jax.jit, static_argnames=...)``,
``f = jax.jit(f, static_argnums=1)``), the playground inspects *that* jitted function, with the
static arguments, donation and shardings it declares, instead of wrapping it in a second
``jax.jit`` (which would drop its static arguments, and show the user's jit as a nested
``jit[name=f]`` equation). Otherwise it jits the function with the static_argnums field.

>>> from functools import partial
>>> @partial(jax.jit, static_argnames="n")
... def power(x, n):
...     return x ** n
>>> choice = choose(power, (), 2)
>>> choice.own, choice.static_argnums, choice.note
(True, (1,), None)
>>> print(choose(power, (0,), 2).note)  # doctest: +NORMALIZE_WHITESPACE
`power` is jitted in your code with static_argnums=(1,) (static_argnames=n): that applies;
the static_argnums field (0,) was not used.
>>> plain = choose(lambda x: x, (), 1)
>>> plain.own, plain.static_argnums
(False, ())
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass

import jax


@dataclass(frozen=True)
class JitChoice:
    jitted: Callable  # what the stages trace, lower and compile
    plain: Callable  # the same function without the outermost jit: what eager JAX runs
    static_argnums: tuple[int, ...]  # the ones that apply
    own: bool  # True when the user's code jitted the function itself
    note: str | None  # one line when the field and the user's jit disagree, or static arguments were added
    static_from: str = "field"  # "field", "your jit" or "a jitted helper": where static_argnums came from
    donate_argnums: tuple[int, ...] = ()  # the arguments the user's jit may overwrite (donate_argnums/argnames)

    def call_arguments(self, arguments: tuple) -> tuple:
        """The arguments for one call of ``jitted``: copies of the donated ones, so that the user's arrays
        survive every call the playground makes (on a GPU, a donated array is deleted by the call)."""
        if not self.donate_argnums:
            return arguments
        return tuple(jax.tree.map(lambda leaf: leaf.copy() if isinstance(leaf, jax.Array) else leaf, a)
                     if i in self.donate_argnums else a for i, a in enumerate(arguments))


def declared(function: Callable) -> dict | None:
    """The options of a ``jax.jit``-wrapped function (static_argnums, static_argnames, donate_argnums), else None.

    JAX resolves names to positions when it wraps a function; the resolved sets
    live on the wrapper (``_jit_info``: not public, so anything unexpected there
    reads as "jitted, with no static arguments" rather than failing).
    """
    if not (callable(getattr(function, "lower", None)) and callable(getattr(function, "trace", None))):
        return None
    info = getattr(function, "_jit_info", None)

    def option(name: str) -> tuple:
        value = getattr(info, name, ())
        return tuple(value) if isinstance(value, (tuple, list)) else ()

    return {"static_argnums": tuple(int(i) for i in option("static_argnums")),
            "static_argnames": tuple(str(n) for n in option("static_argnames")),
            "donate_argnums": tuple(int(i) for i in option("donate_argnums"))}


def choose(function: Callable, field_static_argnums: tuple[int, ...], count: int) -> JitChoice:
    """The jitted function to inspect for ``count`` positional arguments, and which static arguments apply."""
    options = declared(function)
    if options is None:
        return JitChoice(jax.jit(function, static_argnums=field_static_argnums), function,
                         tuple(field_static_argnums), own=False, note=None)
    static = tuple(i for i in options["static_argnums"] if i < count)
    note = None
    if field_static_argnums and tuple(sorted(field_static_argnums)) != tuple(sorted(static)):
        names = f" (static_argnames={', '.join(options['static_argnames'])})" if options["static_argnames"] else ""
        name = getattr(function, "__name__", "the function")
        note = (f"`{name}` is jitted in your code with static_argnums={static}{names}: that applies; "
                f"the static_argnums field {tuple(field_static_argnums)} was not used.")
    return JitChoice(function, getattr(function, "__wrapped__", function), static, own=True, note=note,
                     static_from="your jit", donate_argnums=options["donate_argnums"])


def trace(choice: JitChoice, arguments: tuple) -> tuple:
    """``choice.jitted.trace(*arguments)``, timed: (the choice that traced, traced, start, end).

    One retry: when the function is not jitted itself and a jitted helper it calls
    refuses a traced static argument, the arguments that are plain Python values
    become static too (see ``python_value_positions``), and the note says so.
    """
    started = time.perf_counter()
    try:
        traced = choice.jitted.trace(*arguments)
    except ValueError as exc:
        added = tuple(i for i in python_value_positions(arguments) if i not in choice.static_argnums)
        if choice.own or not added or not is_traced_static_argument(exc):
            raise
        static = tuple(sorted((*choice.static_argnums, *added)))
        # A fresh function object: JAX remembers the failed attempt's cache key per function, and would
        # explain a later retrace against it.
        fresh = functools.update_wrapper(lambda *a, **k: choice.plain(*a, **k), choice.plain)
        choice = JitChoice(jax.jit(fresh, static_argnums=static), choice.plain, static, own=False,
                           note=(f"Argument(s) {', '.join(map(str, added))} became static (static_argnums={static}): "
                                 "a jitted function your code calls declares them static, so under one jit they "
                                 "must be known when tracing, as they are when your code runs eagerly."),
                           static_from="a jitted helper")
        started = time.perf_counter()
        traced = choice.jitted.trace(*arguments)
    return choice, traced, started, time.perf_counter()


def is_traced_static_argument(exc: BaseException) -> bool:
    """JAX's refusal of a tracer passed where a jitted function declared a static argument."""
    text = str(exc)
    return "Non-hashable static arguments are not supported" in text and "Tracer" in text


def python_value_positions(arguments: tuple) -> tuple[int, ...]:
    """Positions of arguments that are plain Python settings (int, bool, str, None, tuples of them), not data.

    Floats are left out: a float argument is far more often a value to compute
    with (``f(2.0, 3)``) than a setting, and made static it would vanish from
    the jaxpr as a constant.

    When a function that is not jitted itself calls a jitted helper whose static
    argument is one of the function's own arguments, wrapping the function in
    ``jax.jit`` turns that value into a tracer, and the helper refuses it. Run
    eagerly, as the user wrote it, the value stays a Python value: marking these
    positions static reproduces that.
    """
    def is_python_value(value) -> bool:
        if isinstance(value, (bool, int, str, bytes, type(None))):
            return True
        if isinstance(value, (tuple, frozenset)):
            return all(map(is_python_value, value))
        return False

    return tuple(i for i, value in enumerate(arguments) if is_python_value(value))
