"""Lessons for how JAX arrays differ from NumPy's: lists, truth values, in-place updates, bounds, dtypes, keys.

The classes the JAX Sharp Bits page lists (``Common_Gotchas_in_JAX``), each with
its fix written from the user's line; error_lessons.explain picks the lesson.
"""

from __future__ import annotations

import ast
import re

import numpy as np

from playground.lesson_kit import Clue, Lesson
from playground.tracer_fixes import logical_version

GOTCHAS = "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html"
_UPDATES = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide", ast.Pow: "power"}


def _fix_list_input(clue: Clue) -> str:
    name, position = clue.group("fn"), int(clue.group("pos", "0"))
    for call in clue.calls(name):
        if position >= len(call.args):
            continue
        given = call.args[position]
        new = clue.replaced(call, given, f"jnp.asarray({clue.text(given, 'x')})", "")
        if new and isinstance(given, (ast.List, ast.Tuple)):
            return (f"{clue.where()} passes a Python {clue.group('kind')} to `{clue.text(call.func, name)}`. "
                    f"Make it one array first:\n```python\n{new}\n```\n(`jnp.stack` does the same for a list of "
                    "arrays of one shape.)")
        if new and isinstance(given, ast.Name):
            return (f"{clue.where()} passes `{given.id}` to `{clue.text(call.func, name)}`, and `{given.id}` is a "
                    f"Python {clue.group('kind')}. Convert it here, or make it an array where it comes from (in the "
                    f"Arguments field, `jnp.array([1, 2, 3])` rather than `[1, 2, 3]`):\n```python\n{new}\n```")
    return (f"Convert the list or tuple to an array before passing it: `jnp.{name}(jnp.asarray(values))`, or "
            "`jnp.stack(values)` for a list of arrays of one shape.")


def _fix_truth(clue: Clue) -> str:
    logic = [n for n in clue.nodes(ast.BoolOp, ast.UnaryOp) if not isinstance(n, ast.UnaryOp) or
             isinstance(n.op, ast.Not)]
    if logic:
        return (f"{clue.where()} combines arrays with `and`/`or`/`not`, which ask each side for one True or False. "
                f"Combine them element by element instead:\n```python\nok = {logical_version(clue, logic[0])}\n```\n"
                "(`&`, `|` and `~` do the same on boolean arrays.)")
    tests = [n.test for n in clue.nodes(ast.If, ast.While, ast.IfExp)]
    cond = clue.text(tests[0], "x > 0") if tests else "x > 0"
    method = cond if cond.isidentifier() else f"({cond})"
    if clue.in_function():
        return (f"{clue.where()} asks one True or False of a whole array. To choose element by element, select with "
                f"`jnp.where`; to branch once on all (or any) of them, reduce first, and under `jit` branch with "
                f"`lax.cond`:\n```python\ny = jnp.where({cond}, a, b)   # a where True, b where False\n"
                f"y = lax.cond(jnp.all({cond}), true_fn, false_fn, x)   # or jnp.any\n```")
    return (f"{clue.where()} asks one True or False of a whole array. Say which you mean:\n```python\n"
            f"if jnp.all({cond}): ...   # every element (also {method}.all())\nif jnp.any({cond}): ...   # at least one"
            f"\ny = jnp.where({cond}, a, b)   # element by element\n```")


def _fix_setitem(clue: Clue) -> str:
    for node in clue.nodes(ast.Assign, ast.AugAssign):
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target
        method = "set" if isinstance(node, ast.Assign) else _UPDATES.get(type(node.op))
        if isinstance(target, ast.Subscript) and method:
            array, index = clue.text(target.value, "x"), clue.text(target.slice, "i")
            value = clue.text(node.value, "y")
            return (f"{clue.where()} assigns into an array. Make a new array with the change, and keep the name:"
                    f"\n```python\n{array} = {array}.at[{index}].{method}({value})\n```")
    return ("Write the update as a new array: `x = x.at[i].set(y)` (also `.add`, `.multiply`, `.min`, `.max`, ...)."
            "\n```python\nx = x.at[0].set(1.0)\n```")


def _fix_take_raise(clue: Clue) -> str:
    calls = clue.calls("take")
    args = [clue.text(a, "") for a in calls[0].args[:2]] if calls else []
    array, index = args if len(args) == 2 and all(args) else ("x", "i")
    return (f"{clue.where()} asks `jnp.take` to raise. Pick what an index out of bounds should give instead, for "
            f"example NaN:\n```python\ny = jnp.take({array}, {index}, mode=\"fill\", fill_value=jnp.nan)\n"
            f"y = {array}.at[{index}].get(mode=\"fill\", fill_value=jnp.nan)   # the same, as indexing\n```\n"
            "To check indices on purpose, check them before calling the function, or use `checkify`.")


def _fix_lax_dtypes(clue: Clue) -> str:
    op, dtypes = clue.group("op"), (clue.group("a"), clue.group("b"))
    calls = [c for c in clue.calls(op) if isinstance(c.func, ast.Attribute)]
    if not calls:
        return (f"Use `jnp.{op}(a, b)`, which promotes, or give `lax.{op}` two values of one dtype: "
                f"`lax.{op}(a.astype(b.dtype), b)`.")
    call, old = calls[0], clue.text(calls[0], f"lax.{op}(a, b)")
    promoting = clue.replaced(call, call.func, f"jnp.{op}", f"jnp.{op}(a, b)")
    ints = [a for a in call.args if isinstance(a, ast.Constant) and type(a.value) is int]
    floats = any(d.startswith(("float", "bfloat")) for d in dtypes)
    same = clue.replaced(call, ints[0], f"{ints[0].value}.0", "") if ints and floats else ""
    converted = same or f"lax.{op}(a.astype(jnp.{dtypes[1]}), b)   # a is the {dtypes[0]} one"
    return (f"{clue.where()} gives `lax.{op}` {dtypes[0]} and {dtypes[1]}. Either let `jax.numpy` promote "
            f"them, or give `lax` one dtype yourself:\n```python\n{promoting}   # instead of {old}\n{converted}\n```")


def _fix_overflow(clue: Clue) -> str:
    value = int(clue.group("value") or clue.group("value2") or 2**31)
    dtype = np.dtype(clue.group("dtype", "int32"))
    limits = np.iinfo(dtype) if dtype.kind in "iu" else np.iinfo(np.int32)
    lead = f"{clue.where()} uses the integer {value:,}, which {dtype} cannot hold ({limits.min:,} to {limits.max:,})."
    as_float = f"If a float will do, write it as one (`{value}.0`, a float with about 7 significant digits in float32)"
    if dtype.itemsize < 4:
        return f"{lead} Choose a dtype wide enough for it (`jnp.int32`), or clip the value first."
    if not np.iinfo(np.int64).min <= value <= np.iinfo(np.uint64).max or dtype.itemsize == 8:
        lead = lead if clue.group("dtype") else f"{clue.where()} uses the integer {value:,}."
        return f"{lead} No integer dtype of JAX holds it. {as_float}."
    return (f"{lead} {as_float}; for 64-bit integers and floats, switch JAX to 64 bits at the top of your code, "
            "before any array is made:\n```python\njax.config.update(\"jax_enable_x64\", True)\n```")


def _fix_key(clue: Clue) -> str:
    calls = [c for c in clue.nodes(ast.Call) if clue.text(c.func, "").startswith(("jax.random.", "random."))]
    new = clue.replaced(calls[0], calls[0].args[0], "subkey", "") if calls and calls[0].args else ""
    seed = clue.text(calls[0].args[0], "0") if calls and calls[0].args else "0"
    seed = seed if re.fullmatch(r"\d+", seed) else "0"
    return (f"{clue.where()} gives `jax.random` something that is not a key. Make a key once from a seed, and split "
            "it for each use (a key used twice gives the same numbers twice):\n```python\n"
            f"key = jax.random.key({seed})\nkey, subkey = jax.random.split(key)\n"
            f"{new or 'noise = jax.random.normal(subkey, x.shape)'}\n```\nIn a function, take the key as an "
            "argument, like the data.")


def _fix_ragged(clue: Clue) -> str:
    return (f"{clue.where()} makes an array from rows of different lengths. Pad the rows to one length (and keep a "
            "mask of which entries are real), or keep them as a list of arrays, which JAX handles as a pytree:\n"
            "```python\nrows = jnp.array([[1, 2], [3, 0]])   # padded with 0\n"
            "lengths = jnp.array([2, 1])\n```")


def _fix_not_a_jax_type(clue: Clue) -> str:
    kind = clue.group("type")
    if "iterator" in kind or "generator" in kind:
        return (f"{clue.where()} hands JAX a {kind}. Make the values an array first (`jnp.arange(10)` for "
                "`iter(range(10))`, `jnp.asarray(list(values))` otherwise) and index it (`x[0]`) instead of calling "
                "`next`: an array has no hidden position that changes as it is read.")
    return (f"{clue.where()} hands JAX a {kind}. Pass an array, a number or a pytree (tuple, list, dict) of them "
            "(`jnp.asarray(...)`), or, if the object is a setting rather than data, close over it as a constant "
            "(use it inside the function without passing it in).")


LESSONS = (
    Lesson(("TypeError",), re.compile(r"Argument '.*' of type '?<class '(?:[\w.]+\.)?(?P<type>\w+)'>'? is not a valid "
                                      r"JAX type", re.S),
           "JAX takes arrays, not arbitrary Python objects",
           "Whatever a JAX function or transformation receives as an input (an operand of `lax.cond`, an argument "
           "of a jitted function) is traced: it must be an array, a number, or a pytree of them. A {type} is none "
           "of these; an iterator in particular has state that changes as it is used, which a traced program "
           "cannot replay.", _fix_not_a_jax_type, GOTCHAS + "#pure-functions"),
    Lesson(("TypeError",), re.compile(r"(?P<fn>\w+) requires ndarray or scalar arguments, got <class "
                                      r"'(?P<kind>list|tuple)'> at position (?P<pos>\d+)"),
           "jax.numpy takes arrays, not Python lists",
           "NumPy quietly turns a Python list or tuple into an array; `jax.numpy` refuses to, on purpose. Under "
           "`jit` each element of a list would be a separate input, traced and compiled one by one, so a long list "
           "would make tracing and compiling slow with no sign of why. Converting it yourself makes it one array, "
           "once.", _fix_list_input, GOTCHAS + "#non-array-inputs-numpy-vs-jax"),
    Lesson(("ValueError",), re.compile(r"The truth value of an array with more than one element is ambiguous"),
           "an array of many booleans is not one True or False",
           "`if`, `while`, `and`, `or`, `not` and `bool()` need a single True or False, but this condition is an "
           "array with one boolean per element (NumPy refuses the same way). Say what you mean: all of them, any "
           "of them, or element by element.", _fix_truth,
           "https://docs.jax.dev/en/latest/control-flow.html#logical-operators"),
    Lesson(("TypeError",), re.compile(r"JAX arrays are immutable and do not support in-place item assignment"),
           "JAX arrays cannot be changed in place",
           "A JAX array never changes once it is made: that is what lets JAX trace, differentiate and compile "
           "functions without tracking who else holds the array. `x.at[i]` makes a new array with the change "
           "instead; under `jit`, XLA still updates in place when the old array is not used again.",
           _fix_setitem, GOTCHAS + "#in-place-updates"),
    Lesson(("NotImplementedError",), re.compile(r"The 'raise' mode to jnp\.take is not supported"),
           "JAX does not raise for an index out of bounds",
           "Compiled code on an accelerator cannot stop and raise an error, so JAX never raises for an index out "
           "of bounds (NumPy raises `IndexError`): reading clamps the index to the nearest valid one, and an "
           "update out of bounds is dropped. You can choose another behaviour, but not an error.",
           _fix_take_raise, GOTCHAS + "#out-of-bounds-indexing"),
    Lesson(("TypeError",), re.compile(r"lax\.(?P<op>\w+) requires arguments to have the same dtypes, got "
                                      r"(?P<a>\w+), (?P<b>\w+)"),
           "jax.lax does not mix dtypes",
           "`jax.lax` is the layer below `jax.numpy`: each of its functions is one XLA operation, and does exactly "
           "that, so it never promotes types: `lax.{op}` got {a} and {b}. `jax.numpy` is the layer that "
           "promotes, as NumPy does.", _fix_lax_dtypes,
           "https://docs.jax.dev/en/latest/key-concepts.html#jax-api-layering-numpy-lax-xla"),
    Lesson(("OverflowError",), re.compile(r"Python int(?:eger)? (?P<value>-?\d+) (?:too large to convert to|out of "
                                          r"bounds for) (?P<dtype>u?int\d+)|"
                                          r"An overflow was encountered while parsing an argument to a jitted "
                                          r"computation.*value (?P<value2>-?\d+)", re.DOTALL),
           "that integer does not fit in its dtype",
           "JAX uses 32 bits unless told otherwise: integers are int32 and floats float32, where NumPy would use 64 "
           "bits. A Python int too large for its dtype cannot become a JAX value. The same default is why "
           "`dtype=jnp.float64` quietly gives float32 (with only a warning). The `jax_enable_x64` flag switches "
           "64-bit types on.", _fix_overflow, GOTCHAS + "#double-64bit-precision"),
    Lesson(("TypeError",), re.compile(r"JAX encountered invalid PRNG key data"),
           "jax.random needs a key, not a seed",
           "JAX has no hidden global random state (NumPy's `np.random` has one, which `jit` would freeze into a "
           "constant): every `jax.random` function takes a *key*, made from a seed with `jax.random.key(seed)` and "
           "split into a new key for each use, so the same key always gives the same numbers, under `jit` and "
           "`vmap` too.", _fix_key, "https://docs.jax.dev/en/latest/random-numbers.html"),
    Lesson(("ValueError",), re.compile(r"setting an array element with a sequence\. The requested array has an "
                                       r"inhomogeneous shape"),
           "an array's rows must all have one length",
           "An array is a rectangular block of numbers of one dtype: every row has the same length. Rows of "
           "different lengths are not an array (NumPy refuses them the same way), and JAX must know every shape "
           "before it compiles.", _fix_ragged, GOTCHAS + "#dynamic-shapes"),
)
