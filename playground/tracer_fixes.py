"""The fix that fits the statement a tracer error came from: jnp.where for an ``if``, lax.fori_loop for ``range``, ...

Each fixer reads the user's line (the nodes tracer_sites found there) and
writes the fix as text with a small example; tracer_errors.explain picks the
fixer by the error's class.
"""

from __future__ import annotations

import ast
import re

from playground import tracer_sites as sites
from playground import user_ast
from playground.errors import USER_FILENAME

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

    def where(self) -> str:
        lines = self.source.splitlines() if self.line else []
        code = lines[self.line - 1].strip() if 0 < (self.line or 0) <= len(lines) else ""
        quotable = code and "`" not in code and len(code) <= 2 * _MAX_QUOTE
        return f"Line {self.line} (`{code}`)" if quotable else "Your code"

    def static_hint(self) -> str:
        """``jax.jit(f, static_argnums=1)`` naming the traced function and the argument JAX blamed, when known."""
        names = re.search(r"depends on the values? of the arguments? (.+?)\.\s*$", self.message, re.M)
        traced = re.search(rf"tracing the function (\w+) at {re.escape(_FILE)}:(\d+)", self.message)
        blamed = re.split(r",? and |, ", names.group(1)) if names else []
        function = traced.group(1) if traced else "f"
        params = sites.parameters(self.tree, function)
        spots = [params.index(n) for n in blamed if n in params]
        if spots and len(spots) == len(blamed):
            nums = str(spots[0]) if len(spots) == 1 else str(tuple(spots))
            about = " and ".join(f"`{n}`" for n in blamed) + (" are" if len(blamed) > 1 else " is")
            tab = (f"\n(In the Inspect tab: {', '.join(map(str, spots))} in the static_argnums field.)"
                   if function == sites.inspected_function(self.tree) else "")
            return (f"If {about} really a fixed setting (a size, a count, a flag), mark it static, and JAX "
                    f"compiles once per value:\n```python\n{function} = jax.jit({function}, static_argnums={nums})\n"
                    "```" + tab)
        return ("If the value is really a fixed setting (a size, a count, a flag), mark that argument static, and "
                "JAX compiles once per value:\n```python\nf = jax.jit(f, static_argnums=1)   # the position of "
                "that argument\n```")


def _fix_bool(ctx: Context) -> str:
    found, where = ctx.found, ctx.where()
    if "while" in found:
        node = found["while"]
        carried = sorted(user_ast.names_in(node.test) & user_ast.stored_names(node.body)) or ["x"]
        state = carried[0] if len(carried) == 1 else "state"
        test = ctx.text(node.test, f"{state} < 10") if len(carried) == 1 else f"keep_going({state})"
        return (f"{where} loops on a traced condition. Use `lax.while_loop(cond_fun, body_fun, init)`: it carries "
                "the loop state through the compiled program and checks the condition on the device.\n```python\n"
                f"def body({state}): ...; return {state}   # one pass of your loop\n"
                f"{state} = lax.while_loop(lambda {state}: {test}, body, {state})\n```"
                + ("\nWith several loop variables, carry them as one tuple." if len(carried) > 1 else ""))
    if "ternary" in found or "if" in found:
        node = found.get("ternary") or found["if"]
        cond = ctx.text(node.test, "x > 0")
        names = sorted(user_ast.names_in(node.test)) if cond != "x > 0" else []
        x = names[0] if len(names) == 1 else "x"
        yes, no = (ctx.text(node.body, ""), ctx.text(node.orelse, "")) if isinstance(node, ast.IfExp) else ("", "")
        example = (f"y = jnp.where({cond}, {yes}, {no})\ny = lax.cond({cond}, lambda {x}: {yes}, lambda {x}: {no}, {x})"
                   if yes and no else f"y = jnp.where({cond}, a, b)   # a where True, b where False\n"
                   f"y = lax.cond({cond}, true_fn, false_fn, {x})   # each branch is a function of {x}")
        return (f"{where} branches on a traced value. Compute both sides and select, element by element, with "
                "`jnp.where`; or, when a branch is expensive, use `lax.cond`, which compiles both branches and runs "
                f"one (both must return the same shapes and dtypes):\n```python\n{example}\n```")
    if "assert" in found:
        return (f"{where} asserts on a traced value. Check inputs before calling the jitted function, or use "
                "`checkify`, which makes the check part of the program:\n```python\n"
                "from jax.experimental import checkify\ncheckify.check(jnp.all(x > 0), \"x must be positive\")\n```")
    if "logic" in found:
        return (f"{where} uses `and`/`or`/`not`, which ask for a Python bool. Use the element-wise JAX versions:"
                f"\n```python\nok = {logical_version(ctx, found['logic'])}   # also jnp.logical_or, "
                "jnp.logical_not\n```")
    return ("Replace Python control flow on traced values with JAX's: `jnp.where(cond, a, b)` or "
            "`lax.cond(cond, true_fn, false_fn, x)` for `if`, `lax.while_loop` for `while`, `lax.fori_loop` or "
            "`lax.scan` for loops.\n```python\ny = jnp.where(x > 0, x, -x)\n```\n" + ctx.static_hint())


def logical_version(ctx: Context, node: ast.AST) -> str:
    """``a and b`` as ``jnp.logical_and(a, b)`` (``or``, ``not`` likewise), in the user's words where quotable."""
    if isinstance(node, ast.UnaryOp):
        return f"jnp.logical_not({ctx.text(node.operand, 'a')})"
    function = "jnp.logical_and" if isinstance(getattr(node, "op", None), ast.And) else "jnp.logical_or"
    values = getattr(node, "values", [])
    operands = ", ".join(ctx.text(v, "b" if i else "a") for i, v in enumerate(values)) if len(values) == 2 else "a, b"
    return f"{function}({operands})"


def _fix_integer(ctx: Context) -> str:
    found, where = ctx.found, ctx.where()
    if "range" in found:
        call = found["range"]
        args = [ctx.text(a, "n") for a in call.args[:2]]
        low, high = (["0", *args] if len(args) == 1 else args) if args else ["0", "n"]
        loop = found.get("for")
        carried = sorted(user_ast.stored_names(loop.body) - user_ast.names_in(loop.target)) if loop is not None else []
        state = carried[0] if len(carried) == 1 else "x"
        return (f"{where} uses a traced number as a loop count. Run the loop inside the program with "
                "`lax.fori_loop` (or `lax.scan`, which also collects a result per step):\n```python\n"
                f"{state} = lax.fori_loop({low}, {high}, lambda i, {state}: ..., {state})   # the body returns the "
                f"next {state}\n```\n" + ctx.static_hint())
    if "index" in found:
        node = found["index"]
        seq, index = ctx.text(node.value, "values"), ctx.text(node.slice, "i")
        return (f"{where} indexes a Python list or tuple with a traced number. Make the sequence an array, "
                "which can be indexed by a traced value:\n```python\n"
                f"y = jnp.asarray({seq})[{index}]\n```\n" + ctx.static_hint())
    return ("Keep traced numbers inside JAX: loop with `lax.fori_loop`/`lax.scan` instead of `range(n)`, index "
            "arrays rather than lists.\n```python\nx = lax.fori_loop(0, n, lambda i, x: x + i, x)\n```\n"
            + ctx.static_hint())


def _fix_numpy(ctx: Context) -> str:
    call = ctx.found.get("numpy")
    root = user_ast.root_name(call.func)[0] if call is not None else None
    if call is not None and root is not None and isinstance(call.func, ast.Attribute):
        old = ctx.text(call.func, f"{root.id}.{call.func.attr}")
        return (f"{ctx.where()} calls `{old}` on a traced value. Use the `jax.numpy` version, which JAX can trace:"
                f"\n```python\njnp.{call.func.attr}(...)   # instead of {old}(...)\n```\nTo look at values while "
                "debugging, use `jax.debug.print(\"{x}\", x=x)`; for a library JAX cannot trace, "
                "`jax.pure_callback`.")
    return ("Use `jax.numpy` (`jnp`) instead of `numpy` (`np`) inside the function; `np` is fine outside it, on "
            "results.\n```python\ny = jnp.sin(x)   # not np.sin(x)\n```\nTo look at values while debugging, use "
            "`jax.debug.print(\"{x}\", x=x)`.")


def _fix_mask(ctx: Context) -> str:
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
        return (f"{ctx.where()} updates the elements picked by a traced mask. Select instead, which keeps every "
                f"shape fixed:\n```python\n{array} = {new}   # not {ctx.text(update, 'x.at[mask].set(v)')}\n```")
    return (f"{ctx.where()} selects by a traced mask. Keep the shape fixed: select with `jnp.where`, reduce with "
            "`where=`, or ask `jnp.nonzero` for a fixed number of indices with `size=`:\n```python\n"
            f"kept = jnp.where({mask}, {array}, 0)   # same shape, 0 where the mask is False\n"
            f"picked = {array}[jnp.nonzero({mask}, size={array}.size, fill_value=0)]   # fixed length, padded\n```"
            f"\nFor a sum of the selected values: `jnp.sum({array}, where={mask})`.")


def _fix_concrete(ctx: Context) -> str:
    found, where = ctx.found, ctx.where()
    if "sized" in found:
        node = found["sized"]
        call, arg = ctx.text(node.func, "jnp.nonzero"), ctx.text(node.args[0] if node.args else None, "x > 0")
        size = f"{arg}.size" if arg.isidentifier() else "3"   # an upper bound on how many are found
        return (f"{where} calls `{call}`, whose result size depends on the data. Give it a fixed `size=` (extra "
                f"slots get `fill_value`):\n```python\nidx = {call}({arg}, size={size}, fill_value=0)\n```")
    if "shape" in found:
        call = ctx.text(found["shape"].func, "jnp.zeros")
        return (f"{where} makes an array whose shape comes from a traced value in `{call}`. Shapes must be "
                "known when compiling: pass sizes as static arguments, or compute them from `x.shape`, which is "
                "always known.\n```python\ny = jnp.arange(x.shape[0])   # a shape, not a value\n```\n"
                + ctx.static_hint())
    if "numpy" in found:
        return _fix_numpy(ctx)
    if "convert" in found:
        call = found["convert"]
        old = ctx.text(call, "int(x)")
        if isinstance(call.func, ast.Name) and call.args:
            new = f"jnp.asarray({ctx.text(call.args[0], 'x')}, {sites.CONVERTERS.get(call.func.id, 'jnp.int32')})"
        else:
            new = ctx.text(getattr(call.func, "value", None), "x")
        return (f"{where} turns a traced value into a Python number. Keep it an array (change its dtype if "
                "needed), and print it with `jax.debug.print`:\n```python\n"
                f"y = {new}   # not {old}\njax.debug.print(\"y = {{y}}\", y=y)\n```\n" + ctx.static_hint())
    if "range" in found or "index" in found:
        return _fix_integer(ctx)
    if found.keys() & {"while", "if", "ternary", "assert", "logic"}:
        return _fix_bool(ctx)
    return ("Keep traced values inside JAX operations (`jnp`, `lax`), and make values that decide shapes or "
            "Python control flow static.\n" + ctx.static_hint())


def _fix_leak(ctx: Context) -> str:
    example = "```python\ndef f(x):\n    y = x * 2\n    return x, y   # return y instead of cache.append(y)\n```"
    leaked_in = re.search(rf"value leaked was (\w+) at {re.escape(_FILE)}:", ctx.message)
    site = sites.leak_site(ctx.tree, leaked_in.group(1) if leaked_in else None)
    if site is not None:
        node, function = site
        return (f"Line {node.lineno} (`{ctx.text(node, 'this statement')}`) stores a value computed inside "
                f"`{function}` outside of it, where it outlives the trace. Return it instead:\n" + example)
    if ctx.where() != "Your code":
        return f"{ctx.where()} created the value that escaped. Return it from the function instead:\n" + example
    return "Return every value the function computes, instead of storing it outside the function:\n" + example


FIXERS = {
    "TracerBoolConversionError": _fix_bool,
    "TracerIntegerConversionError": _fix_integer,
    "TracerArrayConversionError": _fix_numpy,
    "NonConcreteBooleanIndexError": _fix_mask,
    "ConcretizationTypeError": _fix_concrete,
    "UnexpectedTracerError": _fix_leak,
}
