"""HLO text as data: its computations, their instructions, what each reads and calls. Pure; stdlib only.

>>> text = '''ENTRY %main (x: f32[4]) -> f32[4] {
...   %x = f32[4]{0} parameter(0)
...   ROOT %neg = f32[4]{0} negate(%x), metadata={op_name="jit(f)/neg"}
... }'''
>>> [(i.name, i.opcode, i.operands) for i in parse(text)[0].instructions]
[('x', 'parameter', ()), ('neg', 'negate', ('x',))]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADER = re.compile(r"^(ENTRY\s+)?%?([\w.\-]+) \(.*\{\s*$")
_INSTRUCTION = re.compile(r"^\s*(ROOT\s+)?%?([\w.\-]+) = (.+?) ([a-z][a-z0-9\-]*)\((.*)$")
_CALLED = re.compile(r"\b(calls|body|condition|true_computation|false_computation|to_apply)=%?([\w.\-]+)")
_CALLED_LISTS = re.compile(r"\b(branch_computations|called_computations)=\{([^}]*)\}")
_NAME = re.compile(r"%?([\w.\-]+)$")
_LAYOUT = re.compile(r"\{[^{}]*\}")
_PARAMETER_NUMBER = re.compile(r"^(\d+)\)")


@dataclass(frozen=True)
class Instruction:
    name: str
    opcode: str
    shape: str  # without layouts: f32[1000,1000], (f32[], s32[])
    operands: tuple[str, ...]
    calls: tuple[tuple[str, str], ...]  # (role, computation): ("calls", "fused_computation"), ("body", ...)
    root: bool
    line: int | None  # the user's line, from its stack frame, when the caller resolved one
    parameter: int | None = None  # parameter(N)'s N


@dataclass(frozen=True)
class Computation:
    name: str
    entry: bool
    instructions: tuple[Instruction, ...]


def parse(text: str, user_lines: list[int | None] | None = None) -> list[Computation]:
    """Every computation in HLO text, in order; ``user_lines`` gives each line of ``text`` its user line."""
    computations = []
    current: tuple[str, bool] | None = None
    instructions: list[Instruction] = []
    for number, line in enumerate(text.splitlines()):
        if current is None:
            header = _HEADER.match(line)
            if header:
                current, instructions = (header.group(2), bool(header.group(1))), []
            continue
        if line.strip() == "}":
            computations.append(Computation(current[0], current[1], tuple(instructions)))
            current = None
            continue
        match = _INSTRUCTION.match(line)
        if match:
            user_line = user_lines[number] if user_lines is not None and number < len(user_lines) else None
            instructions.append(_instruction(match, user_line))
    return computations


def _instruction(match: re.Match, user_line: int | None) -> Instruction:
    root, name, shape, opcode, rest = match.groups()
    arguments, attributes = _split_call(rest)
    calls = [(role, callee) for role, callee in _CALLED.findall(attributes)]
    for role, names in _CALLED_LISTS.findall(attributes):
        calls.extend((role, n.strip().lstrip("%")) for n in names.split(",") if n.strip())
    operands = ()
    parameter = None
    if opcode == "parameter":
        number = _PARAMETER_NUMBER.match(rest)
        parameter = int(number.group(1)) if number else None
    elif opcode != "constant":
        operands = tuple(m.group(1) for m in (_NAME.search(a.strip()) for a in _top_level(arguments)) if m)
    return Instruction(name, opcode, _LAYOUT.sub("", shape), operands, tuple(calls), bool(root), user_line,
                       parameter)


def _split_call(rest: str) -> tuple[str, str]:
    """``"%a, %b), kind=kLoop, ..."`` -> (the operands inside the parentheses, the attributes after them)."""
    depth = 1
    for i, char in enumerate(rest):
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
            if depth == 0:
                return rest[:i], rest[i + 1:]
    return rest, ""


def _top_level(arguments: str) -> list[str]:
    """The comma-separated items of an operand list, commas inside brackets left alone."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(arguments):
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(arguments[start:i])
            start = i + 1
    items.append(arguments[start:])
    return [item for item in items if item.strip()]
