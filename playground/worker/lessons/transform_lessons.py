"""Lessons for the transformations' rules: jit's static and array arguments, grad's inputs and outputs,
loops' and conds' fixed types, vmap's sizes and in_axes, pytree keys, and NaNs caught by ``jax_debug_nans``.
"""

from __future__ import annotations

import ast
import re

from playground import messages
from playground.messages import piece
from playground.worker.lessons import tracer_sites as sites
from playground.worker.lessons.lesson_kit import Clue, taught

_DOCS = "https://docs.jax.dev/en/latest/"
_STATIC = _DOCS + "jit-compilation.html#marking-arguments-as-static"
_NAN_MAKERS = {"log", "log2", "log10", "log1p", "sqrt", "arcsin", "arccos", "arctanh", "power", "divide"}


def _fix_unhashable(clue: Clue) -> list:
    kind, where = clue.group("type"), clue.where_piece()
    if kind.endswith("Tracer"):  # a value traced by an outer jit reached a jitted helper's static argument
        return [piece("lfix.unhashable.tracer", where=where, inspected=str(sites.inspected_function(clue.tree)))]
    literals = [a for c in clue.nodes(ast.Call) for a in [*c.args, *(k.value for k in c.keywords)]
                if isinstance(a, (ast.List, ast.Set, ast.Dict))]
    if kind in ("list", "set") and literals and not isinstance(literals[0], ast.Dict):
        old = clue.text(literals[0], "[...]")
        new = "(" + ", ".join(clue.text(e, "...") for e in literals[0].elts) + ("," if len(literals[0].elts) == 1
                                                                                   else "") + ")"
        return [piece("lfix.unhashable.literal", where=where, kind=kind, old=old,
                      code=clue.in_call(literals[0], new))]
    if kind == "dict":
        return [piece("lfix.unhashable.dict", where=where)]
    return [piece("lfix.unhashable.other", where=where, kind=kind)]


def _fix_non_array_argument(clue: Clue) -> list:
    function, path = clue.group("fn").rpartition(".")[2], clue.group("argument")
    params = sites.parameters(clue.tree, function)
    if path in params:
        tab = ([piece("lfix.non_array.tab", n=str(params.index(path)))]
               if function == sites.inspected_function(clue.tree) else [])
        static = f'static_argnames="{path}"'
        jits = [c for c in clue.calls("jit") if c.args and isinstance(c.args[0], ast.Name) and c.args[0].id == function]
        called = [next((c for c in clue.nodes(ast.Call) if c.func is jit), jit) for jit in jits]  # jax.jit(g)(x, s)
        marked = clue.replaced(called[0], jits[0].args[0], f"{function}, {static}", "") if jits else ""
        return [piece("lfix.non_array.static", where=clue.where_piece(), type=clue.group("type"), argument=path,
                      function=function, marked=marked or f"{function} = jax.jit({function}, {static})",
                      static=static), *tab]
    calls = clue.calls(function)
    function = clue.text(calls[0].func, function) if calls else function
    return [piece("lfix.non_array.other", where=clue.where_piece(), type=clue.group("type"), function=function)]


def _grad_call(clue: Clue) -> ast.Call | None:
    calls = clue.calls("grad", "value_and_grad")
    return calls[0] if calls and calls[0].args else None


def _fix_grad_output(clue: Clue) -> list:
    call = _grad_call(clue)
    g = clue.text(call.args[0], "g") if call is not None else "g"
    return [piece("lfix.grad_output", where=clue.where_piece(), g=g, shape=clue.group("shape"))]


def _fix_grad_tuple(clue: Clue) -> list:
    call = _grad_call(clue)
    return [piece("lfix.grad_tuple", where=clue.where_piece(), g=clue.text(call.args[0], "g") if call else "g")]


def _fix_grad_input(clue: Clue) -> list:
    ints = [a for c in clue.nodes(ast.Call) for a in c.args if isinstance(a, ast.Constant) and type(a.value) is int]
    if ints:
        return [piece("lfix.grad_input.literal", where=clue.where_piece(), value=str(ints[0].value),
                      code=clue.in_call(ints[0], f"{ints[0].value}.0"))]
    return [piece("lfix.grad_input.array", where=clue.where_piece())]


def _fix_carry(clue: Clue) -> list:
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
        return [piece("lfix.carry.dtype", where=clue.where_piece(), old=old, before=before, after=after,
                      code=clue.in_call(init, new))]
    if clue.group("what") == "dtypes":
        return [piece("lfix.carry.dtype_general", after=after)]
    return [piece("lfix.carry.grows", where=clue.where_piece(), before=before, after=after)]


def _fix_branches(clue: Clue) -> list:
    kind = clue.group("prim")
    calls = clue.calls(kind)
    branches = ", ".join(clue.text(b, "?") for b in calls[0].args[1:3]) if calls and kind == "cond" else ""
    return [piece("lfix.branches", where=clue.where_piece(), a=clue.group("a"), b=clue.group("b"),
                  which=piece("lfix.branches.which", branches=branches) if branches else "")]


def _fix_array_pred(clue: Clue) -> list:
    kind = "cond" if clue.group("pred") else "switch"
    calls = clue.calls(kind)
    chosen_by = clue.text(calls[0].args[0], "pred") if calls and calls[0].args else "pred"
    pick = (f"jnp.where({chosen_by}, a, b)" if kind == "cond" else
            f"jnp.select([{chosen_by} == 0, {chosen_by} == 1, ...], [a, b, ...])")
    return [piece("lfix.array_pred", where=clue.where_piece(), prim=kind, pick=pick)]


def _fix_vmap_sizes(clue: Clue) -> list:
    sizes = re.findall(r"axis (\d+) of argument (\w+) of type (\S+?)[;\n]?$", clue.message, re.M)
    said: list = []
    for axis, name, kind in sizes:
        said += [*([", "] if said else []), piece("lfix.vmap_sizes.arg", name=name, kind=kind, axis=axis)]
    if len(said) > 5:  # more than a reply's pieces may hold: these in English
        said = [messages.render(said)]
    return [piece("lfix.vmap_sizes.head", where=clue.where_piece()), *(said or [piece("lfix.vmap_sizes.arguments")]),
            piece("lfix.vmap_sizes.tail")]


def _fix_vmap_in_axes(clue: Clue) -> list:
    if clue.group("args"):
        count = int(clue.group("args"))
        example = ", ".join(["0"] + ["None"] * (count - 1)) + ("," if count == 1 else "")
        return [piece("lfix.vmap_in_axes.count", where=clue.where_piece(), args=clue.group("args"),
                      axes=clue.group("axes"), example=example)]
    return [piece("lfix.vmap_in_axes.other", where=clue.where_piece())]


def _fix_vmap_rank(clue: Clue) -> list:
    return [piece("lfix.vmap_rank", where=clue.where_piece(), shape=clue.group("shape"), axis=clue.group("axis"))]


def _fix_keys(clue: Clue) -> list:
    mixed = [d for d in ast.walk(clue.tree) if isinstance(d, ast.Dict) and d.keys and all(
        isinstance(k, ast.Constant) for k in d.keys) and len({type(k.value) for k in d.keys}) > 1] if clue.tree else []
    mixed.sort(key=lambda d: d.lineno != clue.line)  # the one on the failing line first
    if mixed:
        node = mixed[0]
        new = "{" + ", ".join(f"{str(k.value)!r}: {clue.text(v, '...')}" for k, v in
                              zip(node.keys, node.values, strict=True)) + "}"
        return [piece("lfix.keys.mixed", line=str(node.lineno), new=new,
                      old=clue.text(node, "") or piece("lfix.keys.that_dict"))]
    return [piece("lfix.keys.general")]


def _fix_nan(clue: Clue) -> list:
    makers = sites.calls_named(clue.tree, _NAN_MAKERS)
    function = clue.group("fn", "jit(f)")
    name = re.sub(r"^\w+\((.*)\)$", r"\1", function)
    listed = [piece("lfix.nan.call", line=str(c.lineno), code=clue.text(c, sites.called_name(c))) for c in makers[:5]]
    place = (piece("lfix.nan.line", where=clue.where_piece()) if clue.line else
             piece("lfix.nan.compiled", function=function, name=name))
    return [place, *([piece("lfix.nan.calls"), *listed] if listed else [" "]), piece("lfix.nan.guard")]


def _fix_reverse_while(clue: Clue) -> list:
    return [piece("lfix.reverse_while", where=clue.where_piece())]


LESSONS = (
    taught(("ValueError",), re.compile(r"Reverse-mode differentiation does not work for lax\.while_loop or "
                                       r"lax\.fori_loop with dynamic start/stop values"),
           "reverse_while", _fix_reverse_while, _DOCS + "control-flow.html#summary"),
    taught(("ValueError",), re.compile(r"Non-hashable static arguments are not supported\. An error occurred while "
                                       r"trying to hash an object of type <class '(?:[\w.]+\.)?(?P<type>\w+)'>"),
           "unhashable", _fix_unhashable, _STATIC),
    taught(("TypeError",), re.compile(r"Error interpreting argument to <function (?P<fn>[\w.<>]+) at 0x[0-9a-f]+> as "
                                      r"an abstract array\. The problematic value is of type <class '(?:[\w.]+\.)?"
                                      r"(?P<type>\w+)'> and was passed to the function at path (?P<argument>\w+)"),
           "non_array_argument", _fix_non_array_argument, _STATIC),
    taught(("TypeError",), re.compile(r"Gradient only defined for scalar-output functions\. Output had shape: "
                                      r"\((?P<shape>[\d, ]*)\)"),
           "grad_output", _fix_grad_output, _DOCS + "_autosummary/jax.grad.html"),
    taught(("TypeError",), re.compile(r"Gradient only defined for scalar-output functions\. Output was [(\[{]"),
           "grad_tuple", _fix_grad_tuple, _DOCS + "_autosummary/jax.grad.html"),
    taught(("TypeError",), re.compile(r"(?:grad|jacrev|jacfwd) requires real- or complex-valued inputs .*?but got "
                                      r"(?P<dtype>\w+)"),
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
    taught(("TypeError",), re.compile(r"(?:(?P<pred>Pred)|Branch index) must be (?:a )?scalar, got .+? of shape "
                                      r"(?P<shape>\([\d, ]*\))", re.DOTALL),
           "array_pred", _fix_array_pred, _DOCS + "_autosummary/jax.lax.cond.html"),
    taught(("ValueError",), re.compile(r"vmap got inconsistent sizes for array axes to be mapped"),
           "vmap_sizes", _fix_vmap_sizes, _DOCS + "_autosummary/jax.vmap.html"),
    taught(("ValueError",), re.compile(r"vmap in_axes (?:must be an int, None, or a tuple of entries corresponding to "
                                       r"the positional arguments passed to the function, but got (?:len\(in_axes\)="
                                       r"(?P<axes>\d+), len\(args\)=(?P<args>\d+))?|specification must be a tree "
                                       r"prefix of the corresponding value)"),
           "vmap_in_axes", _fix_vmap_in_axes, _DOCS + "_autosummary/jax.vmap.html"),
    taught(("ValueError",), re.compile(r"vmap was requested to map its argument along axis (?P<axis>\d+), which "
                                       r"implies that its rank should be at least \d+, but is only (?P<rank>\d+) "
                                       r"\(its shape is (?P<shape>\([\d, ]*\))\)"),
           "vmap_rank", _fix_vmap_rank, _DOCS + "_autosummary/jax.vmap.html"),
    taught(("ValueError", "TypeError"), re.compile(r"Comparator raised exception while sorting pytree dictionary keys"),
           "keys", _fix_keys,
           _DOCS + "pytrees.html#dictionary-keys-must-be-sortable"),
    taught(("FloatingPointError", "InternalFloatingPointError"),
           re.compile(r"invalid value \((?P<ty>nan|inf)\) encountered in|\('(?P<fn>[^']*)', '(?P<ty2>nan|inf)'\)"),
           "nan", _fix_nan, _DOCS + "debugging/flags.html#jax-debug-nans-configuration-option-and-context-manager"),
)
