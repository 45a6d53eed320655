"""Hints that a user function is not pure, for the Inspect tab (runs inside a sandboxed worker).

JAX assumes the functions it transforms are pure but cannot check it: ``jax.jit``
runs the Python body once, with tracers, then replays the recorded program::

    counter = 0
    def f(x):
        global counter
        counter += 1          # runs once, at trace time
        return x + counter    # the jitted program adds 1 forever

``static_findings`` points at suspect lines of the source; ``behavioural_findings``
runs the function (two traces compared, then jit against eager). Neither proves
purity; both aim for no false alarms on ordinary JAX code.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from playground.measure.numerics import as_numbers, compare
from playground.user_ast import dotted, find_function, parse, root_name

MUTATING_METHODS = frozenset("append extend insert update pop popitem clear remove setdefault add discard sort reverse"
                             .split())
# Of those, the ones whose in-place forms (list, dict, set) return None: a call whose result is used is another
# object's method of the same name, e.g. optax's pure ``updates, state = optimizer.update(grads, state)``.
RETURN_NOTHING = frozenset("append extend insert update clear remove add discard sort reverse".split())
_CLOCK_RANDOM_PREFIXES = ("random.", "time.", "datetime.", "numpy.random.")
_DEFAULT_ALIASES = {"np": "numpy", "jnp": "jax.numpy", "lax": "jax.lax"}  # what usercode.base_namespace provides
_IO = {
    "print": "`print` runs once, while JAX traces, and shows tracers instead of values; use "
             '`jax.debug.print("{x}", x=x)` to print values each time the function runs.',
    "open": "`open` reads or writes once, at trace time; the jitted program never repeats it. "
            "Read files outside the function and pass the data in as an argument.",
    "input": "`input` runs once, at trace time, and its answer is frozen into the program. "
             "Ask outside the function and pass the answer in as an argument.",
}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
NOT_GIVEN = object()


@dataclass
class _Scope:
    """The names one function binds itself (Python's rule: assigned anywhere in it, unless declared global)."""

    params: set[str]
    local: set[str] = field(default_factory=set)
    globals: set[str] = field(default_factory=set)
    rebound_at: dict[str, int] = field(default_factory=dict)  # first assignment line per name


def _own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Nodes of node's own scope: nested functions and classes are yielded but not entered."""
    for child in ast.iter_child_nodes(node):
        yield child
        if not isinstance(child, (*_FUNCTIONS, ast.ClassDef)):
            yield from _own_nodes(child)


def _scope_of(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> _Scope:
    a = node.args
    scope = _Scope({arg.arg for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if arg})
    outer = set()  # global or nonlocal: bound elsewhere
    for child in _own_nodes(node):
        if isinstance(child, (ast.Global, ast.Nonlocal)):
            outer.update(child.names)
            scope.globals.update(child.names if isinstance(child, ast.Global) else ())
        elif isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            scope.local.add(child.id)
            scope.rebound_at[child.id] = min(child.lineno, scope.rebound_at.get(child.id, child.lineno))
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scope.local.add(child.name)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            scope.local.update((alias.asname or alias.name).split(".")[0] for alias in child.names)
    scope.local = (scope.local | scope.params) - outer
    return scope


def _walk(node: ast.AST, scopes: tuple[_Scope, ...] = ()) -> Iterator[tuple[ast.AST, tuple[_Scope, ...]]]:
    """Every node under node (parents first), with the function scopes it sits in, innermost last."""
    for child in ast.iter_child_nodes(node):
        yield child, scopes
        yield from _walk(child, scopes + (_scope_of(child),) if isinstance(child, _FUNCTIONS) else scopes)


def _resolve(name: str, scopes: tuple[_Scope, ...], line: int) -> str:
    """'param', 'local' or 'module' (free: a module variable, import or builtin).

    A parameter rebound on an earlier line (``xs = list(xs)``) counts as a local.
    """
    for scope in reversed(scopes):
        if name in scope.globals:
            return "module"
        if name in scope.local:
            return "param" if name in scope.params and scope.rebound_at.get(name, line) >= line else "local"
    return "module"


def _mutations(node: ast.AST, parent: ast.AST | None) -> list[tuple[ast.Name, str]]:
    """(base name, what) for each in-place change this node makes."""
    found = []
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING_METHODS:
        root, through_at = root_name(node.func.value)
        if root and not through_at and (node.func.attr not in RETURN_NOTHING or isinstance(parent, ast.Expr)):
            found.append((root, f"`.{node.func.attr}()`"))
    targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else []
    targets = [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else targets
    for sub in (sub for target in targets for sub in ast.walk(target)):
        if isinstance(sub, (ast.Subscript, ast.Attribute)) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            root, _ = root_name(sub.value)
            kind = "item" if isinstance(sub, ast.Subscript) else "attribute"
            if root:
                found.append((root, f"{kind} {'deletion' if isinstance(node, ast.Delete) else 'assignment'}"))
    return found


def _module_facts(tree: ast.Module) -> tuple[set[str], dict[str, str]]:
    """Module variables whose value can change after definition, and import aliases (name -> dotted path)."""
    assigned, augmented, declared, mutated = Counter(), set(), set(), set()
    aliases = dict(_DEFAULT_ALIASES)
    for node in _own_nodes(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            assigned[node.id] += 1
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            augmented.add(node.target.id)
        elif isinstance(node, ast.Import):
            aliases.update({a.asname or a.name.split(".")[0]: a.name if a.asname else a.name.split(".")[0]
                            for a in node.names})
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            aliases.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    for node, scopes in _walk(tree):
        declared.update(node.names if isinstance(node, ast.Global) else ())
        mutated.update(root.id for root, _ in _mutations(node, parents.get(node))
                       if _resolve(root.id, scopes, root.lineno) == "module")
    changing = {n for n in set(assigned) | declared if assigned[n] > 1 or n in augmented | declared | mutated}
    return changing, aliases


def static_findings(source: str, function_name: str) -> list[dict]:
    """AST checks of ``function_name`` (top-level def or ``name = lambda``) and the functions nested in it.

    Flags I/O (print/open/input), ``global``/``nonlocal``, reads of module
    variables that change, in-place changes to arguments or module variables,
    and Python randomness/clocks; one finding per line and kind, by line.
    Returns ``[]`` when the function is not found; bad syntax raises
    ``UserCodeError`` like the rest of the Inspect tab.

    >>> static_findings("def f(x):\\n    print(x)\\n    return x", "f")[0]["line"]
    2
    """
    tree = parse(source)
    function = find_function(tree, function_name)
    if function is None:
        return []
    changing, aliases = _module_facts(tree)
    parents = {child: parent for parent in ast.walk(function) for child in ast.iter_child_nodes(parent)}
    found: dict[tuple[int, str], str] = {}
    mutation_roots: set[ast.Name] = set()  # reported as a mutation, not again as a read

    def report(node: ast.AST, kind: str, message: str) -> None:
        found.setdefault((node.lineno, kind), message)

    for node, scopes in _walk(function, (_scope_of(function),)):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            word = "global" if isinstance(node, ast.Global) else "nonlocal"
            report(node, "scope", f"`{word} {', '.join(node.names)}` lets the function change a variable outside "
                   "it; under jit that change happens once, at trace time, not on every call. "
                   "Pass the value in as an argument and return the new value instead.")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in changing \
                and node not in mutation_roots and _resolve(node.id, scopes, node.lineno) == "module":
            report(node, "global", f"`{node.id}` is a module variable that changes elsewhere; JAX bakes its "
                   "current value into the trace and ignores later changes. Pass it in as an argument.")
        elif isinstance(node, ast.Call) and (path := dotted(node.func)) \
                and _resolve(root := path.split(".")[0], scopes, node.lineno) == "module":
            if path in _IO:
                report(node, "io", _IO[path])
            full = ".".join([aliases.get(root, root), *path.split(".")[1:]])
            if full.startswith(_CLOCK_RANDOM_PREFIXES):
                advice = ("use jax.random with an explicit key argument" if "random." in full
                          else "measure time outside the function and pass values in as arguments")
                report(node, "random", f"`{path}()` runs once, at trace time, and its value is frozen into the "
                       f"compiled program; {advice}.")
        for root, what in _mutations(node, parents.get(node)):
            where = _resolve(root.id, scopes, root.lineno)
            if where == "param" or (where == "module" and root.id in changing):
                mutation_roots.add(root)
                report(node, "mutation", f"{what} changes the {'argument' if where == 'param' else 'module variable'}"
                       f" `{root.id}` in place; under jit that happens once, at trace time (and JAX arrays cannot "
                       "change in place at all). Return a new value instead (for arrays: `x.at[i].set(v)`).")
    return [{"check": "static", "line": line, "message": message} for (line, _), message in sorted(found.items())]


def behavioural_findings(function: Callable, args: tuple, static_argnums: tuple[int, ...] = (),
                         jitted: object = NOT_GIVEN) -> list[dict]:
    """Run the function and compare what a pure function would keep equal.

    1. Two traces with ``jax.make_jaxpr``, each through a fresh wrapper (a new
       function object, so no trace cache answers the second): same jaxpr
       text and same captured constants.
    2. ``jax.jit`` against eager (``jax.disable_jit()``): same tree structure,
       and per leaf the same shape, dtype and values (rtol=1e-4, atol=1e-6,
       NaNs equal). ``jitted`` is the jitted function's result on ``args``
       when the caller already has it (the Inspect tab ran the compiled
       program); otherwise it is computed here.

    A run that raises gives one finding saying so, never an exception.
    """
    import jax

    stage = "tracing the function with jax.make_jaxpr"
    try:
        first = jax.make_jaxpr(lambda *a: function(*a), static_argnums=static_argnums)(*args)
        second = jax.make_jaxpr(lambda *a: function(*a), static_argnums=static_argnums)(*args)
        stage = "running the function under jax.jit"
        if jitted is NOT_GIVEN:
            jitted = jax.jit(lambda *a: function(*a), static_argnums=static_argnums)(*args)
        stage = "running the function eagerly"
        with jax.disable_jit():
            eager = function(*args)
        stage = "comparing the results"
        return _compare_traces(first, second) + _compare_results(jitted, eager)
    except Exception as exc:  # user code may raise anything: report it, don't break the tab
        text = str(exc).strip().splitlines()
        detail = f": {text[0][:300]}" if text else ""
        return [_behavioural(f"{stage[0].upper()}{stage[1:]} raised {type(exc).__name__}{detail}")]


def _behavioural(message: str) -> dict:
    return {"check": "behavioural", "line": None, "message": message}


def _compare_traces(first, second) -> list[dict]:
    a, b = str(first).splitlines(), str(second).splitlines()
    if a != b:
        i = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        one, two = (lines[i].strip()[:200] if i < len(lines) else "(end)" for lines in (a, b))
        return [_behavioural(f"two traces gave different programs: first differing line is `{one}` then `{two}`; "
                             "something outside the arguments changed in between.")]
    for i, (x, y) in enumerate(zip(map(as_numbers, first.consts), map(as_numbers, second.consts), strict=True)):
        if x.shape != y.shape or not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"):
            return [_behavioural(f"two traces captured different values for constant {i} (the jaxpr's "
                                 "constvars): an array read from outside the function changed in between.")]
    return []


def _compare_results(jitted, eager) -> list[dict]:
    found = compare(jitted, eager, rtol=1e-4, atol=1e-6, same_dtype=True)
    if found.equal:
        return []
    if found.where is None:
        return [_behavioural(f"jit and eager results have {found.reason}")]
    if not found.differing:
        return [_behavioural(f"jit and eager results differ at {found.where}: {found.reason}")]
    largest = found.largest if found.largest is not None else "nan"
    return [_behavioural(f"jit and eager results differ at {found.where}: max abs difference {largest} "
                         f"({found.differing} of {found.elements} elements)")]
