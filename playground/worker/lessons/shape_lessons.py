"""Lessons for shapes that do not fit: matrix products, broadcasting, reshape, concatenate, shapes given as arrays.

Each fix names both shapes and the line; a variable's shape is read from the
user's frame in the traceback, where JAX's message gives only part of it.
"""

from __future__ import annotations

import ast
import math
import re

from playground.messages import piece
from playground.worker.lessons.lesson_kit import Clue, shape_text, taught

_AUTOSUMMARY = "https://docs.jax.dev/en/latest/_autosummary/"
_PRODUCTS = ("matmul", "dot", "inner", "vdot", "tensordot")
_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
_LAX_OPERATORS = {"add": ast.Add, "sub": ast.Sub, "mul": ast.Mult, "div": ast.Div, "pow": ast.Pow}


def _operands(clue: Clue, binop: type | tuple[type, ...], calls: tuple[str, ...]) -> tuple[ast.AST, ast.AST] | None:
    """The two operands of the product or element-wise operation on the line: ``a @ b`` or ``jnp.matmul(a, b)``."""
    for node in clue.nodes(ast.BinOp):
        if isinstance(node.op, binop):
            return node.left, node.right
    for call in clue.calls(*calls):
        if len(call.args) >= 2:
            return call.args[0], call.args[1]
    return None


def _shapes_in(text: str) -> list[tuple[int, ...]]:
    """Each ``(2, 3)`` written in ``text``, once, in order."""
    found = [tuple(int(n) for n in inner.replace(",", " ").split()) for inner in re.findall(r"\(([\d, ]*)\)", text)]
    return list(dict.fromkeys(found))


def _named_shapes(clue: Clue, pair: tuple[ast.AST, ast.AST] | None) -> list:
    """"`w` has shape (2, 3) and `x` has shape (3, 4). ", for the operands whose shapes the traceback knows (pieces)."""
    said = [(clue.text(node, "?"), shape_text(shape)) for node in pair or ()
            if (shape := clue.shape_of(node)) is not None]
    pieces: list = []
    for name, shape in dict.fromkeys(said):
        pieces += [*([piece("lfix.shape.and")] if pieces else []), piece("lfix.shape.has", name=name, shape=shape)]
    return [*pieces, piece("lfix.shape.stop")] if pieces else []


def _shapes_said(shapes: list[tuple[int, ...]]) -> str | list:
    """"(3,) and (4,)": two shapes as a piece, in any language; more (rarely) as English joins them."""
    texts = [shape_text(shape) for shape in shapes]
    return piece("lfix.shapes2", a=texts[0], b=texts[1]) if len(texts) == 2 else " and ".join(texts)


def _product(clue: Clue, pair: tuple[ast.AST, ast.AST], transposed: int) -> str:
    """The user's product with one operand transposed."""
    part = pair[transposed]
    whole = next((n for n in clue.nodes(ast.BinOp, ast.Call) if part in (getattr(n, "left", None),
                  getattr(n, "right", None), *getattr(n, "args", ()))), None)
    new = f"{clue.text(part, 'x')}.T" if isinstance(part, (ast.Name, ast.Attribute)) else f"({clue.text(part, 'x')}).T"
    return clue.replaced(whole, part, new, new) if whole is not None else new


def _fix_matmul(clue: Clue) -> list:
    pair = _operands(clue, ast.MatMult, _PRODUCTS)
    lead = [piece("lfix.matmul.lead", where=clue.where_piece(), a=clue.group("a"), b=clue.group("b")),
            *_named_shapes(clue, pair)]
    shapes = [clue.shape_of(node) for node in pair] if pair else []
    if len(shapes) == 2 and all(s is not None and len(s) == 2 for s in shapes):
        left, right = shapes
        if left[1] == right[1]:
            return [*lead, piece("lfix.matmul.second", code=_product(clue, pair, 1),
                                 shape=shape_text((left[0], right[0])))]
        if left[0] == right[0]:
            return [*lead, piece("lfix.matmul.first", code=_product(clue, pair, 0),
                                 shape=shape_text((left[1], right[1])))]
    return [*lead, piece("lfix.matmul.general")]


def _fix_broadcast(clue: Clue) -> list:
    shapes = _shapes_in(clue.group("shapes") or clue.group("shapes2"))
    pair = _operands(clue, _LAX_OPERATORS.get(clue.group("op")) or (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow), ())
    lead = [piece("lfix.broadcast.lead", where=clue.where_piece(), shapes=_shapes_said(shapes)),
            *_named_shapes(clue, pair)]
    vectors = len(shapes) == 2 and all(len(s) == 1 for s in shapes)
    if pair is not None and vectors and [clue.shape_of(n) for n in pair] in ([*shapes], [None, None]):
        node = next(n for n in clue.nodes(ast.BinOp) if (n.left, n.right) == pair)
        a, b, sign = clue.text(pair[0], "a"), clue.text(pair[1], "b"), _OPERATORS[type(node.op)]
        return [*lead, piece("lfix.broadcast.outer", sign=sign, a=a, b=b, shape=shape_text(shapes[0] + shapes[1]))]
    return [*lead, piece("lfix.broadcast.general")]


def _fix_reshape(clue: Clue) -> list:
    old, size = shape_text(clue.group("old")), int(clue.group("n"))
    wanted = [int(n) for n in clue.group("new").replace(",", " ").split()]
    said = {"where": clue.where_piece(), "size": str(size), "old": old, "new": shape_text(tuple(wanted))}
    lead = (piece("lfix.reshape.lead_holds", **said, m=f"{int(clue.group('m')):,}") if clue.group("m")
            else piece("lfix.reshape.lead", **said))
    if -1 in wanted:
        divisors = ", ".join(str(d) for d in range(1, size + 1) if size % d == 0) if size <= 10_000 else ""
        return [lead, piece("lfix.reshape.minus_one_divisors", size=str(size), divisors=divisors) if divisors
                else piece("lfix.reshape.minus_one", size=str(size))]
    for call in clue.calls("reshape"):
        given = call.args if isinstance(call.func, ast.Attribute) and not _is_module(call.func.value) else call.args[1:]
        lengths = [e for a in given for e in (a.elts if isinstance(a, ast.Tuple) else [a])]
        if [getattr(n, "value", None) for n in lengths] != wanted:
            continue
        for i, node in enumerate(lengths):
            rest = math.prod(n for j, n in enumerate(wanted) if j != i)
            fixed = clue.replaced(call, node, "-1", "") if rest > 0 and size % rest == 0 else ""
            if fixed:
                result = shape_text(tuple(size // rest if j == i else n for j, n in enumerate(wanted)))
                return [lead, piece("lfix.reshape.fixed", fixed=fixed, result=result)]
    return [lead, piece("lfix.reshape.general", size=str(size))]


def _is_module(node: ast.AST) -> bool:
    """``jnp`` or ``np`` in ``jnp.reshape(x, ...)``, as opposed to the array in ``x.reshape(...)``."""
    return isinstance(node, ast.Name) and node.id in ("jnp", "np", "numpy", "lax")


def _fix_join(clue: Clue) -> list:
    shapes = _shapes_said(_shapes_in(clue.group("shapes") or clue.group("shapes2")))
    stack = bool(clue.calls("stack", "vstack", "hstack")) or "same shape" in clue.message
    return [piece("lfix.join.stack" if stack else "lfix.join.concat", where=clue.where_piece(), shapes=shapes)]


def _fix_shape_argument(clue: Clue) -> list:
    if not clue.group("dims"):  # a traced integer: the size depends on data
        return [piece("lfix.shape_arg.traced", where=clue.where_piece()), *clue.static_hint_pieces()]
    arrays = [a for c in clue.nodes(ast.Call) for a in c.args
              if clue.shape_of(a) == tuple(int(n) for n in clue.group("dims").split(","))]
    if arrays:
        name = clue.text(arrays[0], "x")
        return [piece("lfix.shape_arg.array", where=clue.where_piece(), name=name,
                      code=clue.in_call(arrays[0], f"{name}.shape"))]
    return [piece("lfix.shape_arg.general")]


LESSONS = (
    taught(("TypeError",), re.compile(r"dot_general requires contracting dimensions to have the same shape, got "
                                      r"\((?P<a>[\d, ]*?),?\) and \((?P<b>[\d, ]*?),?\)"),
           "matmul", _fix_matmul, _AUTOSUMMARY + "jax.numpy.matmul.html"),
    taught(("TypeError", "ValueError"), re.compile(r"(?P<op>\w+) got incompatible shapes for broadcasting: "
                                                   r"(?P<shapes>.*)\.|Incompatible shapes for broadcasting: "
                                                   r"shapes=(?P<shapes2>.*)"),
           "broadcast", _fix_broadcast,
           _AUTOSUMMARY + "jax.numpy.broadcast_shapes.html"),
    taught(("TypeError",), re.compile(r"cannot reshape array of shape \((?P<old>[\d, ]*)\) \(size (?P<n>\d+)\) "
                                      r"into shape \((?P<new>[-\d, ]*?),?\)(?: \(size (?P<m>\d+)\))?"),
           "reshape", _fix_reshape, _AUTOSUMMARY + "jax.numpy.reshape.html"),
    taught(("TypeError", "ValueError"), re.compile(r"Cannot concatenate arrays with .*?(?:got|for shapes) "
                                                   r"(?P<shapes>\(.*\))\.|All input arrays must have the same "
                                                   r"shape\. Got (?P<shapes2>\(.*\))\."),
           "join", _fix_join, _AUTOSUMMARY + "jax.numpy.concatenate.html"),
    taught(("TypeError",), re.compile(r"Shapes must be 1D sequences of concrete values of integer type, got \(?"
                                      r"\w*Tracer\(~?(?P<dtype>[a-z]+\d*)\[(?P<dims>[\d,]*)\]\)"),
           "shape_argument", _fix_shape_argument,
           "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#dynamic-shapes"),
)
