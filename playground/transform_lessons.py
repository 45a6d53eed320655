"""Lessons for the transformations' rules: jit's static and array arguments, grad's inputs and outputs,
loops' and conds' fixed types, vmap's sizes, pytree keys, and NaNs caught by ``jax_debug_nans``.
"""

from __future__ import annotations

import ast
import re

from playground import tracer_sites as sites
from playground.lesson_kit import Clue, taught

_DOCS = "https://docs.jax.dev/en/latest/"
_STATIC = _DOCS + "jit-compilation.html#marking-arguments-as-static"
_NAN_MAKERS = {"log", "log2", "log10", "log1p", "sqrt", "arcsin", "arccos", "arctanh", "power", "divide"}


def _fix_unhashable(clue: Clue) -> str:
    kind = clue.group("type")
    if kind.endswith("Tracer"):  # a value traced by an outer jit reached a jitted helper's static argument
        inspected = sites.inspected_function(clue.tree)
        return (f"{clue.where()} passes a traced value where a jitted function declares a static argument: the "
                f"value comes from an argument of an outer `jax.jit`, which traces it. Make it static there too "
                f"(for `{inspected}` in the Inspect tab: its position in the static_argnums field, or "
                f"`@partial(jax.jit, static_argnames=...)` on it), and pass a Python value (an int, a tuple), not an "
                "array: a static value must be known when tracing.")
    literals = [a for c in clue.nodes(ast.Call) for a in [*c.args, *(k.value for k in c.keywords)]
                if isinstance(a, (ast.List, ast.Set, ast.Dict))]
    if kind in ("list", "set") and literals and not isinstance(literals[0], ast.Dict):
        old = clue.text(literals[0], "[...]")
        new = "(" + ", ".join(clue.text(e, "...") for e in literals[0].elts) + ("," if len(literals[0].elts) == 1
                                                                                   else "") + ")"
        return (f"{clue.where()} passes the {kind} `{old}` as a static argument. Pass a tuple, which is hashable:"
                f"\n```python\n{clue.in_call(literals[0], new)}   # instead of {old}\n```\n"
                "Or, if it holds numbers to compute with, pass it as an ordinary (traced) argument, as an array.")
    if kind == "dict":
        return (f"{clue.where()} passes a dict as a static argument. Pass its items as a tuple, "
                "`tuple(sorted(config.items()))`, or, if its values are numbers to compute with, pass the dict as an "
                "ordinary (traced) argument: a dict of arrays is a pytree, which `jit` traces leaf by leaf.")
    return (f"{clue.where()} passes a {kind} as a static argument. Make it a tuple (`tuple(values)`), or pass it as "
            "an ordinary (traced) argument, leaving it out of `static_argnums`/`static_argnames`: arrays are "
            "traced arguments, not static ones.")


def _fix_non_array_argument(clue: Clue) -> str:
    function, path = clue.group("fn").rpartition(".")[2], clue.group("path")
    params = sites.parameters(clue.tree, function)
    if path in params:
        tab = (f"\n(In the Inspect tab: {params.index(path)} in the static_argnums field.)"
               if function == sites.inspected_function(clue.tree) else "")
        static = f'static_argnames="{path}"'
        jits = [c for c in clue.calls("jit") if c.args and isinstance(c.args[0], ast.Name) and c.args[0].id == function]
        called = [next((c for c in clue.nodes(ast.Call) if c.func is jit), jit) for jit in jits]  # jax.jit(g)(x, s)
        marked = clue.replaced(called[0], jits[0].args[0], f"{function}, {static}", "") if jits else ""
        return (f"{clue.where()} passes a {clue.group('type')} as `{path}` to the jitted `{function}`. Mark that "
                f"argument static, and JAX compiles one program per value of it:\n```python\n"
                f"{marked or f'{function} = jax.jit({function}, {static})'}\n```\nor, as a decorator, "
                f"`@partial(jax.jit, {static})` (with `from functools import partial`)." + tab)
    calls = clue.calls(function)
    function = clue.text(calls[0].func, function) if calls else function
    return (f"{clue.where()} passes a {clue.group('type')} to `{function}`, which takes arrays and numbers only. "
            "Pass it an array (`jnp.asarray(...)`), or, if the value is a setting, mark it static in the `jax.jit` "
            "that receives it (`static_argnames=`).")


def _grad_call(clue: Clue) -> ast.Call | None:
    calls = clue.calls("grad", "value_and_grad")
    return calls[0] if calls and calls[0].args else None


def _fix_grad_output(clue: Clue) -> str:
    call = _grad_call(clue)
    g = clue.text(call.args[0], "g") if call is not None else "g"
    return (f"{clue.where()} differentiates `{g}`, which returns shape ({clue.group('shape')}). Say which derivative "
            f"you mean:\n```python\njax.vmap(jax.grad({g}))(x)   # each output by its own input, if {g} works "
            "element by element\n"
            f"jax.grad(lambda x: jnp.sum({g}(x)))(x)   # the gradient of the sum\n"
            f"jax.jacobian({g})(x)   # every output by every input\n```")


def _fix_grad_input(clue: Clue) -> str:
    ints = [a for c in clue.nodes(ast.Call) for a in c.args if isinstance(a, ast.Constant) and type(a.value) is int]
    if ints:
        return (f"{clue.where()} differentiates at the integer `{ints[0].value}`. Write it as a float:\n```python\n"
                f"{clue.in_call(ints[0], f'{ints[0].value}.0')}   # not {ints[0].value}\n```")
    return (f"{clue.where()} differentiates at an integer array. Convert it: `x.astype(jnp.float32)`; or, if it is "
            "data that needs no derivative, pass `allow_int=True` to `jax.grad` (its gradient is then zero, of "
            "dtype float0).")


def _fix_carry(clue: Clue) -> str:
    loops = clue.calls("fori_loop", "while_loop", "scan")
    before, after = clue.group("before"), clue.group("after")
    if clue.group("what") == "dtypes" and loops and loops[0].args:
        init = loops[0].args[-1] if sites.called_name(loops[0]) != "scan" else loops[0].args[1]
        old, dtype = clue.text(init, "init"), re.match(r"[a-z]+\d*", after).group(0)
        if isinstance(init, ast.Constant) and type(init.value) is int:
            new = f"{init.value}.0"
        elif isinstance(init, ast.Call) and sites.called_name(init) in sites.DTYPE_NAMES and len(init.args) == 1:
            new = clue.replaced(init, init.func, f"jnp.{dtype}", f"jnp.asarray({old}, jnp.{dtype})")
        else:
            new = f"jnp.asarray({old}, jnp.{dtype})"
        return (f"{clue.where()} starts the loop with `{old}` ({before}), but each step returns a {after}. Start "
                f"with the dtype the body returns:\n```python\n{clue.in_call(init, new)}\n```")
    if clue.group("what") == "dtypes":
        return f"Start the loop with a value of the dtype its body returns ({after}), e.g. `0.0` instead of `0`."
    return (f"{clue.where()} grows the value the loop carries ({before} -> {after}). Make it full size from the start "
            "and fill it in, or let `lax.scan` collect one result per step:\n```python\n"
            "out = lax.fori_loop(0, n, lambda i, out: out.at[i].set(step(i)), jnp.zeros(n))\n"
            "_, out = lax.scan(lambda carry, i: (carry, step(i)), None, jnp.arange(n))\n```")


def _fix_branches(clue: Clue) -> str:
    kind = clue.group("prim")
    calls = clue.calls(kind)
    branches = ", ".join(clue.text(b, "?") for b in calls[0].args[1:3]) if calls and kind == "cond" else ""
    return (f"{clue.where()} has branches that return {clue.group('a')} and {clue.group('b')}. Make each return "
            "the same shape and dtype, e.g. `jnp.zeros_like(x)` rather than `0` or a smaller array"
            + (f" (the branches: `{branches}`)" if branches else "") + "; for a choice element by element, "
            "`jnp.where(cond, a, b)` broadcasts both sides for you.")


def _fix_vmap_sizes(clue: Clue) -> str:
    sizes = re.findall(r"axis (\d+) of argument (\w+) of type (\S+?)[;\n]?$", clue.message, re.M)
    said = ", ".join(f"`{name}` ({kind}, batched along axis {axis})" for axis, name, kind in sizes)
    return (f"{clue.where()} batches {said or 'arguments'} with `jax.vmap`, but their batch axes differ in length. "
            "Every batched argument must have the same number of examples; an argument shared by all examples "
            "gets `None` in `in_axes`:\n```python\njax.vmap(g, in_axes=(0, None))(xs, w)   # w is the same for every x"
            "\n```")


def _fix_keys(clue: Clue) -> str:
    mixed = [d for d in ast.walk(clue.tree) if isinstance(d, ast.Dict) and d.keys and all(
        isinstance(k, ast.Constant) for k in d.keys) and len({type(k.value) for k in d.keys}) > 1] if clue.tree else []
    mixed.sort(key=lambda d: d.lineno != clue.line)  # the one on the failing line first
    if mixed:
        node = mixed[0]
        new = "{" + ", ".join(f"{str(k.value)!r}: {clue.text(v, '...')}" for k, v in
                              zip(node.keys, node.values, strict=True)) + "}"
        return (f"Line {node.lineno} makes a dict whose keys have different types. Give it keys of one type:\n"
                f"```python\n{new}   # instead of {clue.text(node, 'that dict')}\n```\nor use "
                "`collections.OrderedDict`, which JAX flattens in insertion order without sorting.")
    return ("Give the dict keys of one type (all `str`, say), or use `collections.OrderedDict`, which JAX flattens in "
            "insertion order without sorting.")


def _fix_nan(clue: Clue) -> str:
    makers = sites.calls_named(clue.tree, _NAN_MAKERS)
    function = clue.group("fn", "jit(f)")
    name = re.sub(r"^\w+\((.*)\)$", r"\1", function)
    listed = "\n".join(f"- line {c.lineno}: `{clue.text(c, sites.called_name(c))}`" for c in makers[:5])
    place = (f"{clue.where()} produced it." if clue.line else
             f"`{function}` produced it: JAX checked the output of the compiled program as a whole, so it "
             f"cannot name the line. To find it, call `{name}` once at the top level of your code, below its `def`, "
             "with the same arguments: run operation by operation, the check stops at the one that made it, and "
             "names its line.")
    guard = ("Keep inputs in the domain, e.g. `jnp.log(jnp.where(x > 0, x, 1.0))`; the inner `jnp.where` also keeps "
             "the gradient free of NaN, which an outer `jnp.where` would not.")
    return place + (f" Calls that give NaN outside their domain:\n{listed}\n" if listed else " ") + guard


def _fix_reverse_while(clue: Clue) -> str:
    return (f"{clue.where()} differentiates a loop whose number of steps is known only while it runs. If it is "
            "known beforehand, write the loop as `lax.fori_loop(0, n, body, init)` with Python ints (JAX turns it "
            "into a `lax.scan`, which `grad` handles) or as a `lax.scan`; otherwise differentiate forwards: "
            "`jax.jacfwd(f)(x)`, or `jax.jvp(f, (x,), (1.0,))[1]` for the derivative of f: R -> R.")


LESSONS = (
    taught(("ValueError",), re.compile(r"Reverse-mode differentiation does not work for lax\.while_loop or "
                                       r"lax\.fori_loop with dynamic start/stop values"),
           "reverse_while", _fix_reverse_while, _DOCS + "control-flow.html#summary"),
    taught(("ValueError",), re.compile(r"Non-hashable static arguments are not supported\. An error occurred while "
                                       r"trying to hash an object of type <class '(?:[\w.]+\.)?(?P<type>\w+)'>"),
           "unhashable", _fix_unhashable, _STATIC),
    taught(("TypeError",), re.compile(r"Error interpreting argument to <function (?P<fn>[\w.<>]+) at 0x[0-9a-f]+> as "
                                      r"an abstract array\. The problematic value is of type <class '(?:[\w.]+\.)?"
                                      r"(?P<type>\w+)'> and was passed to the function at path (?P<path>\w+)"),
           "non_array_argument", _fix_non_array_argument, _STATIC),
    taught(("TypeError",), re.compile(r"Gradient only defined for scalar-output functions\. Output had shape: "
                                      r"\((?P<shape>[\d, ]*)\)"),
           "grad_output", _fix_grad_output, _DOCS + "_autosummary/jax.grad.html"),
    taught(("TypeError",), re.compile(r"grad requires real- or complex-valued inputs .*?but got (?P<dtype>\w+)"),
           "grad_input", _fix_grad_input,
           _DOCS + "_autosummary/jax.grad.html"),
    taught(("TypeError",), re.compile(r"\w+ body function carry input and carry output must have equal types.*?"
                                      r"has type (?P<before>\S+) but the corresponding output carry component has "
                                      r"type (?P<after>\S+), so the (?P<what>shapes|dtypes)", re.DOTALL),
           "carry", _fix_carry, _DOCS + "control-flow.html#structured-control-flow-primitives"),
    taught(("TypeError",), re.compile(r"(?P<prim>cond|switch) branches must have equal output types.*?The output of "
                                      r".+? has type (?P<a>\S+) but the corresponding output of .+? has type "
                                      r"(?P<b>\S+), so the", re.DOTALL),
           "branches", _fix_branches,
           _DOCS + "_autosummary/jax.lax.cond.html"),
    taught(("ValueError",), re.compile(r"vmap got inconsistent sizes for array axes to be mapped"),
           "vmap_sizes", _fix_vmap_sizes, _DOCS + "_autosummary/jax.vmap.html"),
    taught(("ValueError", "TypeError"), re.compile(r"Comparator raised exception while sorting pytree dictionary keys"),
           "keys", _fix_keys,
           _DOCS + "pytrees.html#dictionary-keys-must-be-sortable"),
    taught(("FloatingPointError", "InternalFloatingPointError"),
           re.compile(r"invalid value \((?P<ty>nan|inf)\) encountered in|\('(?P<fn>[^']*)', '(?P<ty2>nan|inf)'\)"),
           "nan", _fix_nan, _DOCS + "debugging/flags.html#jax-debug-nans-configuration-option-and-context-manager"),
)
