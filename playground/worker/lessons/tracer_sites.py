"""Where in the user's code a tracer error comes from: the constructs on a line, and leak sites.

Pure AST queries on the user's source, for tracer_errors' fixers.
"""

from __future__ import annotations

import ast

from playground.errors import UserCodeError
from playground.user_ast import pick_function_name, root_name, stored_names

CONVERTERS = {"int": "jnp.int32", "float": "jnp.float32", "bool": "bool", "complex": "jnp.complex64"}
_NUMPY_ROOTS = {"np", "numpy", "onp", "scipy", "math"}
_CONVERTING_METHODS = {"item", "tolist", "__index__", "__int__", "__float__", "__bool__"}
_DATA_SIZED = {"nonzero", "argwhere", "flatnonzero", "unique"}
_SHAPED = {"arange", "zeros", "ones", "full", "empty", "linspace", "eye", "reshape", "broadcast_to", "tile", "repeat"}
DTYPE_NAMES = {"int8", "int16", "int32", "int64", "uint8", "uint32", "float16", "bfloat16", "float32", "float64"}
_MUTATORS = {"append", "extend", "insert", "add", "update", "setdefault", "__setitem__"}


def find_constructs(tree: ast.Module, line: int) -> dict[str, ast.AST]:
    """The constructs on ``line`` that tracer errors come from, tag -> node (outermost first)."""
    found: dict[str, ast.AST] = {}

    def on(node: ast.AST | None) -> bool:
        end = getattr(node, "end_lineno", None)
        return node is not None and end is not None and node.lineno <= line <= end

    for node in ast.walk(tree):
        tag = None
        if isinstance(node, ast.If) and on(node.test):
            tag = "if"
        elif isinstance(node, ast.comprehension) and any(on(test) for test in node.ifs):
            tag = "if"
        elif not on(node) or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        elif isinstance(node, ast.IfExp):
            tag = "ternary"
        elif isinstance(node, ast.While) and on(node.test):
            tag = "while"
        elif isinstance(node, ast.Assert):
            tag = "assert"
        elif isinstance(node, ast.BoolOp) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
            tag = "logic"
        elif isinstance(node, ast.For) and on(node.iter):
            tag = "for"
        elif isinstance(node, ast.Subscript):
            tag = "mask" if any(isinstance(n, ast.Compare) for n in ast.walk(node.slice)) else "index"
        elif isinstance(node, ast.Call):
            tag = _call_tag(node)
            if tag is None and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Subscript):
                tag = "call"   # x.at[mask].set(v)
        if tag:
            found.setdefault(tag, node)
    return found


def _call_tag(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return "range" if func.id == "range" else "convert" if func.id in CONVERTERS else None
    if not isinstance(func, ast.Attribute):
        return None
    root = root_name(func)[0]
    if root is not None and root.id in _NUMPY_ROOTS:
        return "numpy"
    sized = func.attr in _DATA_SIZED or (func.attr == "where" and len(call.args) == 1)
    if sized and not any(k.arg == "size" for k in call.keywords):
        return "sized"
    return "shape" if func.attr in _SHAPED else "convert" if func.attr in _CONVERTING_METHODS else None


def leak_site(tree: ast.Module | None, leaked_in: str | None) -> tuple[ast.AST, str] | None:
    """The first statement that stores into state outside its function: a global, a mutated outer list, an attribute.

    The function JAX named as leaking (``leaked_in``) is searched first.
    """
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)] if tree is not None else []
    functions.sort(key=lambda f: f.name != leaked_in)
    for function in functions:
        local = stored_names(function.body) | {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
        for node in ast.walk(function):
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                return node, function.name
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            for target in targets if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) else []:
                if isinstance(target, ast.Attribute) or (
                        isinstance(target, ast.Subscript) and root_name(target)[0] is not None
                        and root_name(target)[0].id not in local):
                    return node, function.name
            if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                    and isinstance(node.value.func, ast.Attribute) and node.value.func.attr in _MUTATORS
                    and root_name(node.value.func)[0] is not None and root_name(node.value.func)[0].id not in local):
                return node, function.name
    return None


def parameters(tree: ast.Module | None, function: str) -> list[str]:
    """Positional parameter names of the user's function ``function`` (first definition), or []."""
    for node in ast.walk(tree) if tree is not None else []:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            return [a.arg for a in node.args.posonlyargs + node.args.args]
    return []


def inspected_function(tree: ast.Module | None) -> str | None:
    """The function the Inspect tab jits (user_ast.pick_function)."""
    try:
        return pick_function_name(tree) if tree is not None else None
    except UserCodeError:
        return None


def called_name(call: ast.Call) -> str | None:
    """The name a call's function goes by: ``jnp.sum(x)`` and ``sum(x)`` both call ``sum``."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def calls_named(tree: ast.Module | None, names: set[str]) -> list[ast.Call]:
    """Every call in the module to a function of one of these names, in the order of their lines."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and called_name(n) in names] if tree else []
    return sorted(calls, key=lambda c: (c.lineno, c.col_offset))
