"""What JAX sees of a function: its result and its jaxpr. Runs inside a worker.

>>> inspect("def f(x):\n    return x + x*x + x*x*x", "jnp.arange(4.0)", 10_000)["jaxpr"]
'{ lambda ; a:f32[4]. let\n    b:f32[4] = mul a a\n    c:f32[4] = add a b ...'
"""

from __future__ import annotations

import contextlib
import warnings

import jax
import numpy as np

from playground import usercode


def inspect(code: str, args: str, max_chars: int) -> dict:
    stdout = usercode.CappedText(max_chars)
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(stdout):
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ResourceWarning)  # garbage collection noise, not the user's
        try:
            program = usercode.load(code)
            arguments = usercode.evaluate_args(args, program.namespace)
            jaxpr = jax.make_jaxpr(program.function)(*arguments)
            value = jax.block_until_ready(jax.jit(program.function)(*arguments))
        except Exception as exc:
            return usercode.error_result(exc)
    notes = [f"{w.category.__name__}: {w.message}" for w in caught]
    printed = stdout.getvalue()
    if printed:
        notes.append(
            "Your code printed while it ran (shown under Output). Inside a traced function, print runs "
            "once at trace time and sees tracers, not values; use jax.debug.print to see values."
        )
    return {
        "ok": True,
        "function": program.name,
        "result": usercode.cap_text(describe(value), max_chars),
        "jaxpr": usercode.cap_text(format_jaxpr(jaxpr), max_chars),
        "stdout": printed,
        "warnings": [usercode.cap_text(n, 2000) for n in notes],
    }


def format_jaxpr(jaxpr) -> str:
    """JAX's own text, one equation per line even where the whole jaxpr would fit on one."""
    text = str(jaxpr)
    if "\n" not in text and jaxpr.eqns:
        text = jaxpr.pretty_print(use_color=False, width=40)
    return text


def describe(tree) -> str:
    """A short text for a pytree of arrays: each leaf as ``f32[4] [0. 3. 14. 39.]``."""
    leaves = jax.tree_util.tree_flatten_with_path(tree)[0]
    if len(leaves) == 1 and not leaves[0][0]:
        return _describe_leaf(leaves[0][1])
    if not leaves:
        return f"{tree!r} (no arrays)"
    return "\n".join(f"{jax.tree_util.keystr(path)}: {_describe_leaf(leaf)}" for path, leaf in leaves)


def _describe_leaf(leaf) -> str:
    array = np.asarray(leaf)
    with np.printoptions(threshold=20, edgeitems=3, precision=6, linewidth=100):
        return f"{short_dtype(array.dtype)}{list(array.shape)} {array}"


def short_dtype(dtype) -> str:
    """JAX's short dtype names, as in jaxprs: float32 -> f32, int8 -> i8, bool -> bool."""
    name = np.dtype(dtype).name
    for long, short in (("bfloat", "bf"), ("complex", "c"), ("float", "f"), ("uint", "u"), ("int", "i")):
        if name.startswith(long):
            return short + name[len(long):]
    return name
