"""Lessons for how JAX arrays differ from NumPy's: lists, truth values, in-place updates, bounds, dtypes, keys.

The classes the JAX Sharp Bits page lists (``Common_Gotchas_in_JAX``), each with
its fix written from the user's line; error_lessons.explain picks the lesson.
"""

from __future__ import annotations

import ast
import re

import numpy as np

from playground.messages import piece
from playground.worker.lessons.lesson_kit import Clue, taught
from playground.worker.lessons.tracer_fixes import logical_version

GOTCHAS = "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html"
_UPDATES = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide", ast.Pow: "power"}


def _fix_list_input(clue: Clue) -> list:
    name, position = clue.group("fn"), int(clue.group("pos", "0"))
    for call in clue.calls(name):
        if position >= len(call.args):
            continue
        given = call.args[position]
        new = clue.replaced(call, given, f"jnp.asarray({clue.text(given, 'x')})", "")
        where, kind, fn = clue.where_piece(), clue.group("kind"), clue.text(call.func, name)
        if new and isinstance(given, (ast.List, ast.Tuple)):
            return [piece("lfix.list.literal", where=where, kind=kind, fn=fn, new=new)]
        if new and isinstance(given, ast.Name):
            return [piece("lfix.list.name", where=where, name=given.id, fn=fn, kind=kind, new=new)]
    return [piece("lfix.list.general", fn=name)]


def _fix_truth(clue: Clue) -> list:
    logic = [n for n in clue.nodes(ast.BoolOp, ast.UnaryOp) if not isinstance(n, ast.UnaryOp) or
             isinstance(n.op, ast.Not)]
    if logic:
        return [piece("lfix.truth.logic", where=clue.where_piece(), logical=logical_version(clue, logic[0]))]
    tests = [n.test for n in clue.nodes(ast.If, ast.While, ast.IfExp)]
    cond = clue.text(tests[0], "x > 0") if tests else "x > 0"
    method = cond if cond.isidentifier() else f"({cond})"
    if clue.in_function():
        return [piece("lfix.truth.in_function", where=clue.where_piece(), cond=cond)]
    return [piece("lfix.truth.top", where=clue.where_piece(), cond=cond, method=method)]


def _fix_setitem(clue: Clue) -> list:
    for node in clue.nodes(ast.Assign, ast.AugAssign):
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target
        method = "set" if isinstance(node, ast.Assign) else _UPDATES.get(type(node.op))
        if isinstance(target, ast.Subscript) and method:
            array, index = clue.text(target.value, "x"), clue.text(target.slice, "i")
            value = clue.text(node.value, "y")
            return [piece("lfix.setitem.line", where=clue.where_piece(), array=array, index=index, method=method,
                          value=value)]
    return [piece("lfix.setitem.general")]


def _fix_take_raise(clue: Clue) -> list:
    calls = clue.calls("take")
    args = [clue.text(a, "") for a in calls[0].args[:2]] if calls else []
    array, index = args if len(args) == 2 and all(args) else ("x", "i")
    return [piece("lfix.take", where=clue.where_piece(), array=array, index=index)]


def _fix_lax_dtypes(clue: Clue) -> list:
    op, dtypes = clue.group("op"), (clue.group("a"), clue.group("b"))
    calls = [c for c in clue.calls(op) if isinstance(c.func, ast.Attribute)]
    if not calls:
        return [piece("lfix.lax.general", op=op)]
    call, old = calls[0], clue.text(calls[0], f"lax.{op}(a, b)")
    promoting = clue.replaced(call, call.func, f"jnp.{op}", f"jnp.{op}(a, b)")
    ints = [a for a in call.args if isinstance(a, ast.Constant) and type(a.value) is int]
    floats = any(d.startswith(("float", "bfloat")) for d in dtypes)
    same = clue.replaced(call, ints[0], f"{ints[0].value}.0", "") if ints and floats else ""
    converted = same or piece("lfix.lax.converted", op=op, a=dtypes[0], b=dtypes[1])
    return [piece("lfix.lax.line", where=clue.where_piece(), op=op, a=dtypes[0], b=dtypes[1], promoting=promoting,
                  old=old, converted=converted)]


def _fix_overflow(clue: Clue) -> list:
    value = int(clue.group("value") or clue.group("value2") or 2**31)
    dtype = np.dtype(clue.group("dtype", "int32"))
    limits = np.iinfo(dtype) if dtype.kind in "iu" else np.iinfo(np.int32)
    lead = piece("lfix.overflow.lead", where=clue.where_piece(), value=f"{value:,}", dtype=str(dtype),
                 low=f"{limits.min:,}", high=f"{limits.max:,}")
    if dtype.itemsize < 4:
        return [lead, piece("lfix.overflow.narrow")]
    if not np.iinfo(np.int64).min <= value <= np.iinfo(np.uint64).max or dtype.itemsize == 8:
        lead = lead if clue.group("dtype") else piece("lfix.overflow.lead_plain", where=clue.where_piece(),
                                                      value=f"{value:,}")
        return [lead, piece("lfix.overflow.none", raw=str(value))]
    return [lead, piece("lfix.overflow.x64", raw=str(value))]


def _fix_key(clue: Clue) -> list:
    calls = [c for c in clue.nodes(ast.Call) if clue.text(c.func, "").startswith(("jax.random.", "random."))]
    new = clue.replaced(calls[0], calls[0].args[0], "subkey", "") if calls and calls[0].args else ""
    seed = clue.text(calls[0].args[0], "0") if calls and calls[0].args else "0"
    seed = seed if re.fullmatch(r"\d+", seed) else "0"
    return [piece("lfix.key", where=clue.where_piece(), seed=seed,
                  new=new or "noise = jax.random.normal(subkey, x.shape)")]


def _fix_ragged(clue: Clue) -> list:
    return [piece("lfix.ragged", where=clue.where_piece())]


def _fix_not_a_jax_type(clue: Clue) -> list:
    kind = clue.group("type")
    key = "lfix.jaxtype.iterator" if "iterator" in kind or "generator" in kind else "lfix.jaxtype.other"
    return [piece(key, where=clue.where_piece(), kind=kind)]


def _fix_not_a_jax_output(clue: Clue) -> list:
    output = clue.group("output")
    component = piece("lfix.not_a_jax_output.component", output=output) if output else ""
    return [piece("lfix.not_a_jax_output", function=clue.group("function"), type=clue.group("type"),
                  component=component)]


LESSONS = (
    taught(("TypeError",), re.compile(r"Argument '.*' of type '?<class '(?:[\w.]+\.)?(?P<type>\w+)'>'? is not a valid "
                                      r"JAX type", re.S),
           "not_a_jax_type", _fix_not_a_jax_type, GOTCHAS + "#pure-functions"),
    taught(("TypeError",), re.compile(r"function (?P<function>\S+) at \S+ traced for jit returned a value of type "
                                      r"<class '(?:[\w.]+\.)?(?P<type>\w+)'>(?: at output component (?P<output>\S+))?, "
                                      r"which is not a valid JAX type"),
           "not_a_jax_output", _fix_not_a_jax_output, "https://docs.jax.dev/en/latest/jit-compilation.html"),
    taught(("TypeError",), re.compile(r"(?P<fn>\w+) requires ndarray or scalar arguments, got <class "
                                      r"'(?P<kind>list|tuple)'> at position (?P<pos>\d+)"),
           "list_input", _fix_list_input, GOTCHAS + "#non-array-inputs-numpy-vs-jax"),
    taught(("ValueError",), re.compile(r"The truth value of an array with more than one element is ambiguous"),
           "truth", _fix_truth,
           "https://docs.jax.dev/en/latest/control-flow.html#logical-operators"),
    taught(("TypeError",), re.compile(r"JAX arrays are immutable and do not support in-place item assignment"),
           "setitem", _fix_setitem, GOTCHAS + "#in-place-updates"),
    taught(("NotImplementedError",), re.compile(r"The 'raise' mode to jnp\.take is not supported"),
           "take_raise", _fix_take_raise, GOTCHAS + "#out-of-bounds-indexing"),
    taught(("TypeError",), re.compile(r"lax\.(?P<op>\w+) requires arguments to have the same dtypes, got "
                                      r"(?P<a>\w+), (?P<b>\w+)"),
           "lax_dtypes", _fix_lax_dtypes,
           "https://docs.jax.dev/en/latest/key-concepts.html#jax-api-layering-numpy-lax-xla"),
    taught(("OverflowError",), re.compile(r"Python int(?:eger)? (?P<value>-?\d+) (?:too large to convert to|out of "
                                          r"bounds for) (?P<dtype>u?int\d+)|"
                                          r"An overflow was encountered while parsing an argument to a jitted "
                                          r"computation.*value (?P<value2>-?\d+)", re.DOTALL),
           "overflow", _fix_overflow, GOTCHAS + "#double-64bit-precision"),
    taught(("TypeError",), re.compile(r"JAX encountered invalid PRNG key data"),
           "key", _fix_key, "https://docs.jax.dev/en/latest/random-numbers.html"),
    taught(("ValueError",), re.compile(r"setting an array element with a sequence\. The requested array has an "
                                       r"inhomogeneous shape"),
           "ragged", _fix_ragged, GOTCHAS + "#dynamic-shapes"),
)
