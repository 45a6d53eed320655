"""The FLOPs of each kernel of an optimised HLO module, counted as XLA's cost analysis counts them. Stdlib only.

XLA reports its cost analysis for a whole program only; a kernel's point on
the roofline needs its own. Its bytes are its operands' and its result's
(program_size.kernels); its FLOPs are counted here from its instructions (a
fusion's: those of the computation it calls), by XLA's rules
(HloCostAnalysis): an elementwise operation costs one FLOP per element of its
result, except the transcendental ones (exp, log, tanh, ...), which XLA
counts apart; a dot 2 x (result elements) x (contracted elements); a reduce
(its input's elements less its result's) x the operations of its reducer; the
operations that move or name data (broadcast, reshape, slice, ...) none. A
kernel holding anything else (a loop, a convolution, a custom call) gets None:
not counted, never guessed. The sum over a program's kernels equals XLA's own
count where every kernel is counted (tests/test_speed_of_light.py).

>>> import jax, jax.numpy as jnp
>>> text = jax.jit(lambda x: jnp.tanh(x @ x) + x * x).lower(jnp.ones((30, 30))).compile().as_text()
>>> kernel_flops(text)  # 2 * 30**3 for the dot; the multiply and the add 900 each; tanh is transcendental
{'ynn_fusion': 54000.0, 'multiply_add_fusion': 1800.0}
"""

from __future__ import annotations

import math
import re

from playground.worker.measurement import hlo_text

TRANSCENDENTAL = frozenset({"exponential", "exponential-minus-one", "log", "log-plus-one", "logistic", "power",
                            "sqrt", "cbrt", "rsqrt", "tanh", "sine", "cosine", "tan", "atan2", "erf"})
ELEMENTWISE = frozenset({"add", "subtract", "multiply", "divide", "maximum", "minimum", "negate", "abs", "sign",
                         "compare", "select", "clamp", "and", "or", "xor", "not", "remainder", "floor", "ceil",
                         "round-nearest-afz", "round-nearest-even", "convert", "is-finite", "real", "imag"})
FREE = frozenset({"parameter", "constant", "broadcast", "reshape", "bitcast", "transpose", "copy", "slice",
                  "dynamic-slice", "dynamic-update-slice", "concatenate", "pad", "iota", "reverse", "tuple",
                  "get-tuple-element", "bitcast-convert", "gather"})
_CONTRACTING = re.compile(r"lhs_contracting_dims=\{([\d,]*)\}")
_DIMS = re.compile(r"\[([\d,]*)\]")


def kernel_flops(text: str) -> dict[str, float | None]:
    """Each kernel of the ENTRY computation (program_size.kernels) by name: its FLOPs, or None where not counted."""
    computations = {c.name: c for c in hlo_text.parse(text)}
    lines = {match.group(1): line for line in text.splitlines()
             if (match := re.match(r"^\s*(?:ROOT\s+)?%?([\w.\-]+) = ", line))}
    entry = next((c for c in computations.values() if c.entry), None)
    if entry is None:
        return {}
    shapes = {i.name: i.shape for c in computations.values() for i in c.instructions}
    found: dict[str, float | None] = {}
    for instruction in entry.instructions:
        if instruction.opcode in ("parameter", "constant", "bitcast", "tuple", "get-tuple-element"):
            continue
        if instruction.opcode == "fusion":
            called = [computations.get(name) for role, name in instruction.calls if role == "calls"]
            found[instruction.name] = (_computation_flops(called[0], computations, shapes, lines)
                                       if len(called) == 1 and called[0] is not None else None)
        else:
            found[instruction.name] = _flops(instruction, computations, shapes, lines)
    return found


def _computation_flops(computation, computations: dict, shapes: dict, lines: dict) -> float | None:
    total = 0.0
    for instruction in computation.instructions:
        flops = _flops(instruction, computations, shapes, lines)
        if flops is None:
            return None
        total += flops
    return total


def _flops(instruction, computations: dict, shapes: dict, lines: dict) -> float | None:
    opcode = instruction.opcode
    if opcode in FREE or opcode in TRANSCENDENTAL:
        return 0.0
    if opcode in ELEMENTWISE:
        return float(_elements(instruction.shape))
    if opcode == "dot":
        contracting = _CONTRACTING.search(lines.get(instruction.name, ""))
        lhs = _dims(shapes.get(instruction.operands[0], "")) if instruction.operands else None
        if contracting is None or lhs is None:
            return None
        k = math.prod(lhs[int(d)] for d in filter(None, contracting.group(1).split(",")))
        return 2.0 * _elements(instruction.shape) * k
    if opcode == "reduce" and instruction.operands:
        reducer = [computations.get(name) for role, name in instruction.calls if role == "to_apply"]
        if len(reducer) != 1 or reducer[0] is None:
            return None
        per_element = _computation_flops(reducer[0], computations, shapes, lines)
        if per_element is None:
            return None
        inputs = sum(_elements(shapes.get(name, "")) for name in instruction.operands[:len(instruction.operands) // 2])
        return float((inputs - _elements(instruction.shape)) * per_element)
    return None


def _dims(shape: str) -> list[int] | None:
    match = _DIMS.search(shape)
    return [int(d) for d in filter(None, match.group(1).split(","))] if match else None


def _elements(shape: str) -> int:
    dims = _dims(shape)
    return math.prod(dims) if dims is not None else 0
