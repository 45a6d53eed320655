"""The fix that fits the statement a tracer error came from: jnp.where for an ``if``, lax.fori_loop for ``range``, ...

Each fixer reads the user's line (the nodes tracer_sites found there) and
writes the fix as catalogue pieces (playground/messages: ``[key, params]``, in any
language) with a small example; tracer_errors.explain picks the fixer by the
error's class.
"""

from __future__ import annotations

import ast
import re

from playground import user_ast
from playground.errors import USER_FILENAME
from playground.messages import piece
from playground.worker.lessons import tracer_sites as sites

_FILE = USER_FILENAME
_MAX_QUOTE = 60


class Context:
    """What the fixers know: the source, its tree, the nodes found on the line, and JAX's message."""

    def __init__(self, source: str, tree: ast.Module | None, message: str, found: dict, line: int | None) -> None:
        self.source, self.tree, self.message, self.found, self.line = source, tree, message, found, line

    def text(self, node: ast.AST | None, default: str) -> str:
        """The user's spelling of ``node``, if short enough to quote in an example."""
        segment = ast.get_source_segment(self.source, node) if node is not None else None
        return segment if segment and "\n" not in segment and len(segment) <= _MAX_QUOTE else default

    def where(self) -> list:
        """"Line 2 (`if x > 0:`)" or "Your code", as a piece."""
        lines = self.source.splitlines() if self.line else []
        code = lines[self.line - 1].strip() if 0 < (self.line or 0) <= len(lines) else ""
        quotable = code and "`" not in code and len(code) <= 2 * _MAX_QUOTE
        return piece("where.line", line=str(self.line), code=code) if quotable else piece("where.code")

    def static_hint(self) -> list:
        """``jax.jit(f, static_argnums=1)`` naming the traced function and the argument JAX blamed, when known."""
        names = re.search(r"depends on the values? of the arguments? (.+?)\.\s*$", self.message, re.M)
        traced = re.search(rf"tracing the function (\w+) at {re.escape(_FILE)}:(\d+)", self.message)
        blamed = re.split(r",? and |, ", names.group(1)) if names else []
        function = traced.group(1) if traced else "f"
        params = sites.parameters(self.tree, function)
        spots = [params.index(n) for n in blamed if n in params]
        if spots and len(spots) == len(blamed):
            nums = str(spots[0]) if len(spots) == 1 else str(tuple(spots))
            hint = (piece("static.one", name=blamed[0], function=function, nums=nums) if len(blamed) == 1 else
                    piece("static.many", first=", ".join(f"`{n}`" for n in blamed[:-1]), last=blamed[-1],
                          function=function, nums=nums))
            tab = ([piece("static.tab", spots=", ".join(map(str, spots)))]
                   if function == sites.inspected_function(self.tree) else [])
            return [hint, *tab]
        return [piece("static.general")]


def _fix_bool(ctx: Context) -> list:
    found, where = ctx.found, ctx.where()
    if "while" in found:
        node = found["while"]
        carried = sorted(user_ast.names_in(node.test) & user_ast.stored_names(node.body)) or ["x"]
        state = carried[0] if len(carried) == 1 else "state"
        test = ctx.text(node.test, f"{state} < 10") if len(carried) == 1 else f"keep_going({state})"
        return [piece("fix.bool.while", where=where, state=state, test=test),
                *([piece("fix.bool.while_many")] if len(carried) > 1 else [])]
    if "ternary" in found or "if" in found:
        node = found.get("ternary") or found["if"]
        cond = ctx.text(node.test, "x > 0")
        names = sorted(user_ast.names_in(node.test)) if cond != "x > 0" else []
        x = names[0] if len(names) == 1 else "x"
        yes, no = (ctx.text(node.body, ""), ctx.text(node.orelse, "")) if isinstance(node, ast.IfExp) else ("", "")
        example = (piece("fix.bool.if_quoted", cond=cond, yes=yes, no=no, x=x) if yes and no else
                   piece("fix.bool.if_general", cond=cond, x=x))
        return [piece("fix.bool.if", where=where, example=example)]
    if "assert" in found:
        return [piece("fix.bool.assert", where=where)]
    if "logic" in found:
        return [piece("fix.bool.logic", where=where, version=logical_version(ctx, found["logic"]))]
    return [piece("fix.bool.general"), *ctx.static_hint()]


def logical_version(ctx: Context, node: ast.AST) -> str:
    """``a and b`` as ``jnp.logical_and(a, b)`` (``or``, ``not`` likewise), in the user's words where quotable."""
    if isinstance(node, ast.UnaryOp):
        return f"jnp.logical_not({ctx.text(node.operand, 'a')})"
    function = "jnp.logical_and" if isinstance(getattr(node, "op", None), ast.And) else "jnp.logical_or"
    values = getattr(node, "values", [])
    operands = ", ".join(ctx.text(v, "b" if i else "a") for i, v in enumerate(values)) if len(values) == 2 else "a, b"
    return f"{function}({operands})"


def _fix_integer(ctx: Context) -> list:
    found, where = ctx.found, ctx.where()
    if "range" in found:
        call = found["range"]
        args = [ctx.text(a, "n") for a in call.args[:2]]
        low, high = (["0", *args] if len(args) == 1 else args) if args else ["0", "n"]
        loop = found.get("for")
        carried = sorted(user_ast.stored_names(loop.body) - user_ast.names_in(loop.target)) if loop is not None else []
        state = carried[0] if len(carried) == 1 else "x"
        return [piece("fix.int.range", where=where, state=state, low=low, high=high), *ctx.static_hint()]
    if "index" in found:
        node = found["index"]
        seq, index = ctx.text(node.value, "values"), ctx.text(node.slice, "i")
        return [piece("fix.int.index", where=where, seq=seq, index=index), *ctx.static_hint()]
    return [piece("fix.int.general"), *ctx.static_hint()]


def _fix_numpy(ctx: Context) -> list:
    call = ctx.found.get("numpy")
    root = user_ast.root_name(call.func)[0] if call is not None else None
    if call is not None and root is not None and isinstance(call.func, ast.Attribute):
        old = ctx.text(call.func, f"{root.id}.{call.func.attr}")
        return [piece("fix.numpy.call", where=ctx.where(), old=old, attr=call.func.attr)]
    return [piece("fix.numpy.general")]


def _fix_mask(ctx: Context) -> list:
    node = ctx.found.get("mask") or ctx.found.get("index")
    indexed = node.value if node is not None else None
    at = isinstance(indexed, ast.Attribute) and indexed.attr == "at"
    array = ctx.text(indexed.value if at else indexed, "x")
    mask = ctx.text(node.slice, f"{array} > 0") if node is not None else f"{array} > 0"
    update = ctx.found.get("call")
    if at and isinstance(update, ast.Call) and update.func.attr in ("set", "add") and len(update.args) == 1:
        value = ctx.text(update.args[0], "v")
        new = f"jnp.where({mask}, {value}, {array})" if update.func.attr == "set" else \
            f"{array} + jnp.where({mask}, {value}, 0)"
        return [piece("fix.mask.update", where=ctx.where(), array=array, new=new,
                      old=ctx.text(update, "x.at[mask].set(v)"))]
    return [piece("fix.mask.select", where=ctx.where(), array=array, mask=mask)]


def _fix_concrete(ctx: Context) -> list:
    found, where = ctx.found, ctx.where()
    if "sized" in found:
        node = found["sized"]
        call, arg = ctx.text(node.func, "jnp.nonzero"), ctx.text(node.args[0] if node.args else None, "x > 0")
        size = f"{arg}.size" if arg.isidentifier() else "3"   # an upper bound on how many are found
        return [piece("fix.concrete.sized", where=where, call=call, arg=arg, size=size)]
    if "shape" in found:
        call = ctx.text(found["shape"].func, "jnp.zeros")
        return [piece("fix.concrete.shape", where=where, call=call), *ctx.static_hint()]
    if "numpy" in found:
        return _fix_numpy(ctx)
    if "convert" in found:
        call = found["convert"]
        old = ctx.text(call, "int(x)")
        if isinstance(call.func, ast.Name) and call.args:
            new = f"jnp.asarray({ctx.text(call.args[0], 'x')}, {sites.CONVERTERS.get(call.func.id, 'jnp.int32')})"
        else:
            new = ctx.text(getattr(call.func, "value", None), "x")
        return [piece("fix.concrete.convert", where=where, new=new, old=old), *ctx.static_hint()]
    if "range" in found or "index" in found:
        return _fix_integer(ctx)
    if found.keys() & {"while", "if", "ternary", "assert", "logic"}:
        return _fix_bool(ctx)
    return [piece("fix.concrete.general"), *ctx.static_hint()]


def _fix_leak(ctx: Context) -> list:
    example = piece("fix.leak.example")
    leaked_in = re.search(rf"value leaked was (\w+) at {re.escape(_FILE)}:", ctx.message)
    site = sites.leak_site(ctx.tree, leaked_in.group(1) if leaked_in else None)
    if site is not None:
        node, function = site
        return [piece("fix.leak.site", line=str(node.lineno), statement=ctx.text(node, "this statement"),
                      function=function), example]
    if ctx.where()[0] != "where.code":
        return [piece("fix.leak.line", where=ctx.where()), example]
    return [piece("fix.leak.general"), example]


FIXERS = {
    "TracerBoolConversionError": _fix_bool,
    "TracerIntegerConversionError": _fix_integer,
    "TracerArrayConversionError": _fix_numpy,
    "NonConcreteBooleanIndexError": _fix_mask,
    "ConcretizationTypeError": _fix_concrete,
    "UnexpectedTracerError": _fix_leak,
}
