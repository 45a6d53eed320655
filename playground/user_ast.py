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
from dataclasses import dataclass, field

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


# JAX's transformations that take a function and give one back: ``g = jax.grad(f)`` makes the function to run.
TRANSFORMATIONS = frozenset({"grad", "value_and_grad", "vmap", "jit", "jacfwd", "jacrev", "jacobian", "hessian",
                             "checkpoint", "remat", "pmap", "shard_map"})


@dataclass(frozen=True)
class Picked:
    """The function the playground runs: its name; where a top-level ``name = jax.grad(f)`` made it, ``made``,
    that transformation's source, ``of``, the name of the function it transforms (``f``), if it names one, and
    ``line``, the line of that statement; ``rules_after``, custom derivative rules defined after it, which were
    passed over."""

    name: str
    made: str | None = None
    of: str | None = None
    line: int | None = field(default=None, compare=False)
    rules_after: tuple[str, ...] = field(default=(), compare=False, repr=False)


def pick_function(tree: ast.Module, source: str = "") -> Picked:
    """The function the playground runs: the last top-level one that is made by a JAX transformation
    (``grad_loss = jax.grad(loss)``: what a learner who writes that means to run) or named ``f``; else the last
    top-level def that is not a custom derivative's rule (``@log1pexp.defjvp``, ``f.defvjp(f_fwd, f_bwd)``:
    JAX calls those, the learner calls ``log1pexp``). ``source`` (the text ``tree`` was parsed from) gives
    ``made`` its words.

    >>> source = "def loss(w):\\n    return w ** 2\\ngrad_loss = jax.grad(loss)\\n"
    >>> pick_function(parse(source), source)
    Picked(name='grad_loss', made='jax.grad(loss)', of='loss', line=3)
    """
    picked = None
    imported = _imported_from_jax(tree)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "f":
            picked = Picked("f")
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if not isinstance(target, ast.Name):
                    continue
                if _transforms_a_function(node.value, imported):
                    picked = Picked(target.id, source and ast.get_source_segment(source, node.value) or None,
                                    _transformed_name(node.value, imported), node.lineno)
                elif target.id == "f":
                    picked = Picked("f")
    if picked is not None:
        return picked
    rules = _derivative_rules(tree)
    defs = [name for name, node in top_level_functions(tree) if not isinstance(node, ast.Lambda)]
    kept = [i for i, name in enumerate(defs) if name not in rules]
    if not kept:
        raise UserCodeError("invalid_input", "Define a function to inspect, for example `def f(x): return x * 2`.")
    last = kept[-1]
    return Picked(defs[last], rules_after=tuple(dict.fromkeys(defs[last + 1:])))


# The methods of jax.custom_jvp and jax.custom_vjp that take the rules of a function's derivative.
RULE_METHODS = frozenset({"defjvp", "defjvps", "defvjp"})


def _derivative_rules(tree: ast.Module) -> list[str]:
    """Top-level functions that are rules of a custom derivative: decorated ``@name.defjvp`` (or ``defjvps``), or
    passed to ``name.defvjp(fwd, bwd)`` (or ``defjvp``, ``defjvps``) at the top level.

    >>> _derivative_rules(parse("@g.defjvp\\ndef g_jvp(p, t):\\n    pass\\ng.defvjp(g_fwd, g_bwd)\\n"))
    ['g_bwd', 'g_fwd', 'g_jvp']
    """
    def is_rule_method(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr in RULE_METHODS

    rules = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                is_rule_method(decorator.func if isinstance(decorator, ast.Call) else decorator)
                for decorator in node.decorator_list):
            rules.add(node.name)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and is_rule_method(node.value.func):
            rules.update(arg.id for arg in node.value.args if isinstance(arg, ast.Name))
    return sorted(rules)


def made_line(tree: ast.Module) -> int | None:
    """The line of the top-level ``g = jax.grad(f)`` that made the function the playground runs, if one did."""
    try:
        return pick_function(tree).line
    except UserCodeError:
        return None


def pick_function_name(tree: ast.Module) -> str:
    """The name of the function the playground runs (``pick_function``)."""
    return pick_function(tree).name


def _transforms_a_function(node: ast.AST, imported: set[str]) -> bool:
    """``jax.grad(loss)``, ``jax.jit(jax.vmap(f), ...)``, ``grad(f)`` after ``from jax import grad``."""
    if not (isinstance(node, ast.Call) and node.args):
        return False
    name = dotted(node.func) or ""
    last = name.rpartition(".")[2]
    return last in TRANSFORMATIONS and (name.startswith("jax.") or name in imported)


def _transformed_name(node: ast.AST, imported: set[str]) -> str | None:
    """``f`` for ``jax.jit(jax.vmap(f))``: the function at the bottom of the transformations, if it is a name."""
    while _transforms_a_function(node, imported):
        node = node.args[0]
    return node.id if isinstance(node, ast.Name) else None


def _imported_from_jax(tree: ast.Module) -> set[str]:
    """Names bound by ``from jax import grad`` (or from any module of jax's) at the top level."""
    return {alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
            and (node.module or "").split(".")[0] == "jax" for alias in node.names}


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
