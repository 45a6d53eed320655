"""How big a program is, before and after XLA: jaxpr equations, HLO instructions, kernels.

>>> count_equations(jax.make_jaxpr(lambda x: x + x*x + x*x*x)(1.0).jaxpr)
5
"""

from __future__ import annotations

import re

from jax.extend.core import jaxprs_in_params

_HLO_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%\S+\s+=\s+(?:\([^=]*?\)|\S+)\s+([\w-]+)\(", re.MULTILINE)
_FREE_OPS = {"parameter", "constant", "bitcast", "tuple", "get-tuple-element", "after-all", "opt-barrier"}
_HLO_OP = re.compile(r"^\s*(?:ROOT\s+)?%?[\w.\-]+ = .+? ([a-z][a-z0-9\-]*)\(")


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
    return sum(opcode != "parameter" for opcode in _HLO_INSTRUCTION.findall(hlo_text))


def count_kernels(hlo_text: str) -> int:
    """Kernels XLA runs for the optimised HLO: the instructions of its ENTRY computation that do work.

    After fusion, each ``fusion(...)`` instruction in ENTRY is one loop nest
    (one kernel) however many jaxpr operations it swallowed; ops XLA left
    unfused (``sort``, ``copy``, ``custom-call``, ``while``, ...) are one each.
    Parameters, constants, bitcasts and tuple plumbing launch nothing and are
    not counted; a ``while`` or ``conditional`` counts once, not its body.
    The seeds' ``x + x*x + x*x*x`` becomes a single ``multiply_add_fusion``: 1.
    """
    entry = hlo_text[hlo_text.index("\nENTRY"):] if "\nENTRY" in hlo_text else hlo_text
    body = entry.split("\n}", 1)[0].splitlines()[1:]
    ops = [m.group(1) for line in body if (m := _HLO_OP.match(line))]
    return sum(op not in _FREE_OPS for op in ops)
