"""The user's code as a syntax tree: parse it, find its functions, follow a name to its root.

One set of AST helpers for everything that reads user code without running it:
loading it (usercode.py), the static purity checks (purity.py) and the tracer
errors' explanations (tracer_sites.py, tracer_errors.py).

>>> tree = parse("def g(x):\\n    return x\\nf = lambda x: x * 2\\n")
>>> pick_function_name(tree), [name for name, _ in top_level_functions(tree)]
('f', ['g', 'f'])
>>> root_name(ast.parse("cache['k'].at[0].set(1)").body[0].value)
(<ast.Name ...>, True)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from playground.errors import USER_FILENAME, UserCodeError

Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


def parse(source: str) -> ast.Module:
    """The module's tree; a syntax error is the user's, with its line and column."""
    try:
        return ast.parse(source, filename=USER_FILENAME)
    except SyntaxError as exc:
        detail = f" (column {exc.offset})" if exc.offset else ""
        raise UserCodeError("syntax", f"SyntaxError: {exc.msg}{detail}", exc.lineno) from None


def try_parse(source: str) -> ast.Module | None:
    """The tree, or None for code that does not parse (or is too deep or large to)."""
    try:
        return ast.parse(source, filename=USER_FILENAME)
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return None


def top_level_functions(tree: ast.Module) -> Iterator[tuple[str, Function]]:
    """``def name`` and ``name = lambda ...`` at the top level, in the order they are bound."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Lambda):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    yield target.id, node.value


def top_level_names(tree: ast.Module) -> set[str]:
    """Names a top-level assignment binds (``f = jax.jit(g)`` binds ``f``)."""
    return {target.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Name)}


def pick_function_name(tree: ast.Module) -> str:
    """The function the playground runs: the one named ``f`` (def or assignment), else the last top-level def."""
    defs = [name for name, node in top_level_functions(tree) if not isinstance(node, ast.Lambda)]
    if "f" in defs or "f" in top_level_names(tree):
        return "f"
    if not defs:
        raise UserCodeError("invalid_input", "Define a function to inspect, for example `def f(x): return x * 2`.")
    return defs[-1]


def find_function(tree: ast.Module, name: str) -> Function | None:
    """The last top-level binding of ``name`` as a def or lambda (the one that wins when the module runs)."""
    found = None
    for bound, node in top_level_functions(tree):
        found = node if bound == name else found
    return found


def root_name(node: ast.AST) -> tuple[ast.Name | None, bool]:
    """The name at the bottom of ``a.b[c].d()``, and whether the chain goes through ``.at`` (JAX's pure updates)."""
    through_at = False
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        through_at |= isinstance(node, ast.Attribute) and node.attr == "at"
        node = node.func if isinstance(node, ast.Call) else node.value
    return (node if isinstance(node, ast.Name) else None), through_at


def dotted(node: ast.AST) -> str | None:
    """``jax.numpy.sin`` for that attribute chain of names; None for anything else."""
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return base and f"{base}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else None


def names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def stored_names(body: list[ast.stmt]) -> set[str]:
    return {n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
