"""The live bytes at each step of XLA's schedule, from a compiled program's own buffer assignment. No JAX.

A compile with ``xla_dump_to`` writes, beside the optimised module, XLA's
buffer assignment (each allocation: an argument, an output, the block of
temporaries, a constant; and each value placed in it, with its size and
offset) and its live ranges (the schedule as one flat sequence of
instructions, and for each value the steps from its definition to its last
use, both included). From the two, the bytes in use at each step:

- a value is in use from the step that defines it to its last use;
- values at the same place of the same allocation are one piece of memory (an
  instruction that writes its result over its operand's buffer starts one
  value where the other ends: counted once, not twice);
- arguments are in use all along (their buffers are the caller's);
- the schedule's last step is its end, after the last instruction: the outputs
  are all written, the temporaries are gone.

What XLA sets aside is another thing (``memory_analysis``): every argument,
every output (for the whole run, although an output is written late), and one
block for all temporaries, as large as the highest offset its values reach.
So the peak of the timeline is at most what XLA reserves, and the difference
is named, piece by piece (``explained``), never left as a gap.

>>> timeline = read(BUFFERS, LIVE_RANGES, {"argument_bytes": 64, "output_bytes": 64, "temp_bytes": 128,
...                                        "alias_bytes": 0, "generated_code_bytes": 0}, {"mul.3": 2, "exp.2": 3})
>>> timeline["temporaries"], timeline["outputs"], timeline["peak_bytes"], timeline["peak_step"]
([0, 64, 128, 64, 0], [0, 0, 0, 64, 64], 192, 2)
>>> timeline["steps"]
['x.1', 'mul.3', 'exp.2', 'add.1', '(end)']
>>> [(b["name"], b["kind"], b["line"]) for b in timeline["at_peak"]]
[('x.1', 'argument', None), ('mul.3', 'temporary', 2), ('exp.2', 'temporary', 3)]
>>> timeline["explained"]
[{'what': 'outputs_after_peak', 'bytes': 64}]
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from playground.jobs.speed_of_light import MAX_AT_PEAK, MAX_STEPS

BUFFERS = """BufferAssignment:
allocation 0: size 64, parameter 0, shape |f32[16]| at ShapeIndex {}:
 value: <1 x.1 @0> (size=64,offset=0): f32[16]{0}
allocation 1: size 64, output shape is |f32[16]|, maybe-live-out:
 value: <4 add.1 @0> (size=64,offset=0): f32[16]{0}
allocation 2: size 128, preallocated-temp:
 value: <2 mul.3 @0> (size=64,offset=0): f32[16]{0}
 value: <3 exp.2 @0> (size=64,offset=64): f32[16]{0}
"""
LIVE_RANGES = """HloLiveRange (max 4):
  InstructionSequence:
    0:x.1
    1:mul.3
    2:exp.2
    3:add.1
  BufferLiveRange:
    x.1{}:0-4
    mul.3{}:1-2
    exp.2{}:2-3
    add.1{}:3-4
"""

_ALLOCATION = re.compile(r"^allocation (\d+): size \d+(.*)$")
_VALUE = re.compile(r"^\s*value: <\d+ (\S+?)(\{[\d,]*\})?(?: \(phi\))? @\d+> \(size=(\d+),offset=(\d+)\): (.*)$")
_STEP = re.compile(r"^\s+(\d+):(\S+)$")
_RANGE = re.compile(r"^\s+(\S+?)(\{[\d,]*\}):(\d+)-(\d+)$")
_KINDS = ("argument", "output", "temporary", "constant")


@dataclass(frozen=True)
class Value:
    name: str  # the instruction, with its tuple index where it has one ("while.3{2}")
    allocation: int
    kind: str  # argument, output, temporary, constant
    offset: int
    size: int
    shape: str


def allocations(buffer_assignment: str) -> dict[str, Value]:
    """The values by name, each with its allocation's number and kind, from XLA's buffer-assignment text."""
    values: dict[str, Value] = {}
    current: tuple[int, str] | None = None
    for line in buffer_assignment.splitlines():
        found = _ALLOCATION.match(line)
        if found:
            number, rest = int(found.group(1)), found.group(2)
            kind = ("argument" if "parameter" in rest else "output" if "output" in rest or "live-out" in rest
                    else "constant" if "constant" in rest else "temporary")
            current = (number, kind)
            continue
        found = _VALUE.match(line)
        if found and current is not None:
            name = found.group(1) + (found.group(2) if found.group(2) not in (None, "{}") else "")
            values.setdefault(name, Value(name, current[0], current[1], int(found.group(4)), int(found.group(3)),
                                          found.group(5).strip()))
        elif not line.startswith((" ", "\t")):
            current = None  # a section after the allocations ("Total bytes used", "Used values")
    return values


def schedule(live_ranges: str) -> tuple[list[str], dict[str, tuple[int, int]]]:
    """XLA's flat schedule (an instruction per step) and each value's first and last step, from the live-range text."""
    steps: list[str] = []
    ranges: dict[str, tuple[int, int]] = {}
    section = None
    for line in live_ranges.splitlines():
        stripped = line.strip()
        if stripped in ("InstructionSequence:", "BufferLiveRange:"):
            section = stripped
            continue
        if not line.startswith("    "):
            section = None
            continue
        if section == "InstructionSequence:" and (found := _STEP.match(line)):
            steps.append(found.group(2))
        elif section == "BufferLiveRange:" and (found := _RANGE.match(line)):
            index = found.group(2)
            ranges[found.group(1) + (index if index != "{}" else "")] = (int(found.group(3)), int(found.group(4)))
    return steps, ranges


def read(buffer_assignment: str, live_ranges: str, reserved: dict, lines: dict[str, int | None],
         flops: float | None = None) -> dict:
    """The memory timeline (the MEMORY record of playground/jobs/speed_of_light.py), or ValueError when the texts
    hold no schedule. ``reserved``: XLA's memory_analysis (xla_estimates.memory_summary); ``lines``: the user
    line of each instruction of the optimised module."""
    values = allocations(buffer_assignment)
    steps, ranges = schedule(live_ranges)
    if not steps or not ranges:
        raise ValueError("XLA wrote no schedule for this program")
    length = max(len(steps), max(end for _, end in ranges.values()) + 1)
    live = [v for name, v in values.items() if name in ranges]
    series = {kind: [0] * length for kind in _KINDS}
    starting: dict[int, list[Value]] = {}
    ending: dict[int, list[Value]] = {}
    for value in live:
        first, last = ranges[value.name]
        if value.kind == "argument":
            first, last = 0, length - 1
        starting.setdefault(first, []).append(value)
        ending.setdefault(last, []).append(value)
    holders: Counter = Counter()  # (allocation, offset, size) -> values in use there now
    in_use = dict.fromkeys(_KINDS, 0)
    for step in range(length):
        for value in starting.get(step, ()):
            place = (value.allocation, value.offset, value.size)
            if holders[place] == 0:
                in_use[value.kind] += value.size
            holders[place] += 1
        for kind in _KINDS:
            series[kind][step] = in_use[kind]
        for value in ending.get(step, ()):
            place = (value.allocation, value.offset, value.size)
            holders[place] -= 1
            if holders[place] == 0:
                in_use[value.kind] -= value.size
    totals = [sum(series[kind][step] for kind in _KINDS) for step in range(length)]
    peak_step = max(range(length), key=lambda step: (totals[step], -step))
    at_peak = _at_peak(live, ranges, peak_step, length, lines)
    merged, points = _merged(length)
    shown = [max(range(first, end), key=lambda step: (totals[step], -step)) for first, end in points]
    return {
        "steps": [(steps[step] if step < len(steps) else "(end)")[:300] for step in shown],
        "merged": merged,
        "arguments": [series["argument"][step] for step in shown],
        "outputs": [series["output"][step] for step in shown],
        "temporaries": [series["temporary"][step] + series["constant"][step] for step in shown],
        "peak_step": peak_step, "peak_bytes": totals[peak_step], "schedule_length": length,
        "at_peak": at_peak[:MAX_AT_PEAK], "buffers_at_peak": len(at_peak),
        "reserved": reserved,
        "explained": _explained(series, peak_step, reserved),
        "flops": flops,
    }


def _at_peak(live: list[Value], ranges: dict, peak_step: int, length: int, lines: dict) -> list[dict]:
    """The values in use at the peak, largest first, each place once (the value that holds it first)."""
    seen, found = set(), []
    for value in sorted(live, key=lambda v: (-v.size, ranges[v.name][0], v.name)):
        first, last = (0, length - 1) if value.kind == "argument" else ranges[value.name]
        place = (value.allocation, value.offset, value.size)
        if first <= peak_step <= last and place not in seen:
            seen.add(place)
            found.append({"name": value.name[:300], "bytes": value.size, "kind": value.kind, "shape": value.shape[:300],
                          "line": lines.get(value.name.split("{")[0]), "defined_at": first})
    return found


def _explained(series: dict, peak: int, reserved: dict) -> list[dict]:
    """What XLA reserves (arguments + outputs + temporaries - outputs written into arguments) beyond the peak's
    live bytes, piece by piece, only the pieces that are not zero: their sum and the peak make the reserved bytes."""
    if None in (reserved.get("argument_bytes"), reserved.get("output_bytes"), reserved.get("temp_bytes")):
        return []
    pieces = [
        ("outputs_after_peak", reserved["output_bytes"] - (reserved.get("alias_bytes") or 0) - series["output"][peak]),
        ("temporaries_unused_at_peak", reserved["temp_bytes"] - series["temporary"][peak]),
        ("arguments_not_in_schedule", reserved["argument_bytes"] - series["argument"][peak]),
        ("constants", -series["constant"][peak]),  # in use, but in the program's own memory, not reserved per call
    ]
    return [{"what": what, "bytes": amount} for what, amount in pieces if amount]


def _merged(length: int) -> tuple[int, list[tuple[int, int]]]:
    """Steps per point and each point's span of steps: every step up to MAX_STEPS of them; else spans of equal
    width, each shown at its step of most bytes (so the peak stays exact, in the span that holds it)."""
    width = max(1, -(-length // MAX_STEPS))
    return width, [(first, min(first + width, length)) for first in range(0, length, width)]


