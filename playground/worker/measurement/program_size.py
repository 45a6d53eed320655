"""How big a program is, before and after XLA: jaxpr equations, HLO instructions, kernels, peak memory.

>>> count_equations(jax.make_jaxpr(lambda x: x + x*x + x*x*x)(1.0).jaxpr)
5
"""

from __future__ import annotations

import re

import numpy as np
from jax.extend.core import jaxprs_in_params

# One instruction of HLO text: "%name = f32[4]{0} opcode(...)", with ROOT before the last one of a computation.
_HLO_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?[\w.\-]+ = .+? ([a-z][a-z0-9\-]*)\(")
# "%name = shape opcode(operands)": the shape may be a tuple; the operands run to the line's last ")" before its
# attributes, so only what looks like "%name" inside is taken.
_HLO_DEFINITION = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+) = (.+?) ([a-z][a-z0-9\-]*)\((.*?)\)(?:, |$)")
_DTYPE_BYTES = {"pred": 1, "s4": 1, "u4": 1, "s8": 1, "u8": 1, "f8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2,
                "s32": 4, "u32": 4, "f32": 4, "s64": 8, "u64": 8, "f64": 8, "c64": 8, "c128": 16}
_FREE_OPS = {"parameter", "constant", "bitcast", "tuple", "get-tuple-element", "after-all", "opt-barrier"}


def count_equations(jaxpr) -> int:
    """Equations in a jaxpr, counted recursively.

    An equation that calls a sub-jaxpr (``pjit``/``jit``, ``custom_jvp_call``,
    ``custom_vjp_call``, ``cond`` branches, ``while``/``scan`` bodies) counts
    one, plus the equations of each sub-jaxpr it holds, once per call site, as
    if inlined; a loop body counts once, not once per iteration. A custom_jvp
    rule is a Python function, not a jaxpr, so it is not counted until a
    ``grad`` traces it into the next order's jaxpr.
    """
    return sum(1 + sum(count_equations(sub) for sub in jaxprs_in_params(eqn.params)) for eqn in jaxpr.eqns)


def count_hlo_instructions(hlo_text: str) -> int:
    """Instructions in optimised HLO text, in every computation (the entry and the fused/called ones).

    ``parameter`` lines are left out (they name inputs, they compute nothing);
    a ``fusion`` counts one, and the instructions of its fused computation
    count too.
    """
    return sum(opcode != "parameter" for opcode in map(hlo_opcode, hlo_text.splitlines()) if opcode)


def hlo_opcode(line: str) -> str | None:
    """The opcode of one line of HLO text (``add``, ``fusion``, ``all-reduce-start``), None if it is no instruction."""
    match = _HLO_INSTRUCTION.match(line)
    return match.group(1) if match else None


def count_kernels(hlo_text: str) -> int:
    """Kernels XLA runs for the optimised HLO: the instructions of its ENTRY computation that do work.

    After fusion, each ``fusion(...)`` instruction in ENTRY is one loop nest
    (one kernel) however many jaxpr operations it swallowed; ops XLA left
    unfused (``sort``, ``copy``, ``custom-call``, ``while``, ...) are one each.
    Parameters, constants, bitcasts and tuple plumbing launch nothing and are
    not counted; a ``while`` or ``conditional`` counts once, not its body.
    The classic benchmark's ``x + x*x + x*x*x`` becomes a single ``multiply_add_fusion``: 1.
    """
    return len(kernels(hlo_text))


def kernels(hlo_text: str) -> list[dict]:
    """The kernels of ``count_kernels``, in the ENTRY computation's order: each instruction's ``name``, ``opcode``,
    and ``bytes`` it reads and writes at least (its operands' and its result's sizes, from their shapes).

    >>> [(k["name"], k["opcode"], k["bytes"]) for k in kernels(jax.jit(lambda x: x + x*x + x*x*x).lower(
    ...     np.ones((10, 10), np.float32)).compile().as_text())]
    [('multiply_add_fusion', 'fusion', 800)]
    """
    entry = hlo_text[hlo_text.index("\nENTRY"):] if "\nENTRY" in hlo_text else hlo_text
    shapes: dict[str, int] = {}
    found = []
    for line in entry.split("\n}", 1)[0].splitlines()[1:]:
        match = _HLO_DEFINITION.match(line)
        if not match:
            continue
        name, shape, opcode, operands = match.groups()
        shapes[name] = _shape_bytes(shape)
        if opcode not in _FREE_OPS:
            read = sum(shapes.get(operand, 0) for operand in re.findall(r"%([\w.\-]+)", operands))
            found.append({"name": name, "opcode": opcode, "bytes": read + shapes[name]})
    return found


def _shape_bytes(shape: str) -> int:
    """Bytes of an HLO shape ("f32[500,500]{1,0}", a tuple of them, "pred[]")."""
    total = 0
    for dtype, dims in re.findall(r"\b([a-z]+\d*(?:e\d+m\d+\w*)?)\[([\d,]*)\]", shape):
        count = 1
        for dim in filter(None, dims.split(",")):
            count *= int(dim)
        total += count * _DTYPE_BYTES.get(re.sub(r"e\d+m\d+\w*$", "", dtype), 1)
    return total


def peak_live_bytes(jaxpr) -> int:
    """Most bytes alive at once when the jaxpr runs op by op, each value freed after its last use.

    The inputs stay alive throughout (the caller holds them); an equation with
    sub-jaxprs adds their own peak while it runs.
    """
    last_use = {}
    for i, eqn in enumerate(jaxpr.eqns):
        for v in eqn.invars:
            if _is_var(v):
                last_use[v] = i
    pinned = set(jaxpr.invars) | set(jaxpr.constvars) | {v for v in jaxpr.outvars if _is_var(v)}
    live = {v: _nbytes(v) for v in (*jaxpr.invars, *jaxpr.constvars)}
    peak = sum(live.values())
    for i, eqn in enumerate(jaxpr.eqns):
        inner = max((peak_live_bytes(sub) for sub in jaxprs_in_params(eqn.params)), default=0)
        outs = {v: _nbytes(v) for v in eqn.outvars if _is_var(v)}
        peak = max(peak, sum(live.values()) + sum(outs.values()) + inner)
        live.update(outs)
        for v in eqn.invars:
            if _is_var(v) and last_use.get(v) == i and v not in pinned:
                live.pop(v, None)
    return peak


def _is_var(v) -> bool:
    return not hasattr(v, "val")  # Literals carry a value; Vars (and DropVars) do not


def _nbytes(v) -> int:
    aval = getattr(v, "aval", None)
    shape, dtype = getattr(aval, "shape", None), getattr(aval, "dtype", None)
    itemsize = getattr(dtype, "itemsize", None)  # also PRNG key dtypes, which np.dtype() refuses
    if shape is None or not isinstance(itemsize, int):
        return 0
    return int(np.prod(shape, dtype=np.int64)) * itemsize
