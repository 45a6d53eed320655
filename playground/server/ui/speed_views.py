"""What the Speed of light tab shows of a speed_of_light reply: pure functions from the reply to Markdown and figures.

The verdicts are written again from the reply's ``roofline`` in the reader's
language (its ``verdict`` field is English); the reasons the job or the server
gave (why there is no point, no timeline, no ceilings) stay as they came,
escaped, inside our sentences. Every buffer and kernel named with a line of the
user's code gets that line's colour, as in Inspect's Source ↔ IR
(playground/line_colours.py), the kernel timeline too.

>>> _shape("f32[2000,2000]{1,0}")
'f32[2000,2000]'
>>> source_line(2, ["def f(x):", "    return x * 2"], {2: "#fde2e4"})  # doctest: +ELLIPSIS
'<span style="background:#fde2e4;...">line 2</span> `return x * 2`'

The gradient's peak with and without jax.checkpoint, and what XLA reserves beyond a peak, piece by piece:

>>> plain, remat = {"peak_bytes": 42_205_196, "flops": 4.04e8}, {"peak_bytes": 17_039_368, "flops": 5.39e8}
>>> print(gradient_markdown({"plain": plain, "checkpointed": remat, "checkpoint_calls": 1, "unavailable": None},
...                         "de"))  # doctest: +NORMALIZE_WHITESPACE
jax.grad deiner Funktion (der Summe ihrer Ausgabe, nach ihrem ersten Argument) erreicht ohne `jax.checkpoint`
höchstens **42,2 MB** und mit ihm **17,0 MB** (1 Aufruf(e) in deinem Code); es rechnet ohne 404 MFLOP und mit
539 MFLOP: Was nicht aufbewahrt wurde, wird im Rückwärtsdurchlauf neu berechnet.
>>> memory = {"peak_step": 1, "merged": 1, "steps": ["x.1", "exp.2", "(end)"], "schedule_length": 3,
...           "peak_bytes": 192, "reserved": {"argument_bytes": 64, "output_bytes": 64, "temp_bytes": 128},
...           "explained": [{"what": "outputs_after_peak", "bytes": 64}]}
>>> print(explanation(memory))  # doctest: +NORMALIZE_WHITESPACE
Memory of one call: at its peak, step 2 of 3 of XLA's schedule (`exp.2`), **192 B** are live; XLA reserves
**256 B** for a call (arguments, outputs and temporaries). Reserved but not live at the peak: 64 B of outputs
written after the peak.
"""

from __future__ import annotations

import html
import statistics
from typing import NamedTuple

from playground import line_colours, messages
from playground.server import roofline
from playground.server.ui import markdown as md
from playground.server.ui import progress
from playground.server.ui.error_views import error_markdown
from playground.server.ui.field_labels import LABELS
from playground.server.ui.figures import speed_plots, timeline_plots
from playground.server.ui.figures.xla_names import gloss
from playground.server.ui.picked_function import picked_note
from playground.server.ui.roofline_views import (
    REMAT_LABELS,
    ceilings_markdown,
    comparison_markdown,
    size,
    verdict_markdown,
)

MAX_KERNEL_ROWS = 12
SHOWN_LINE_CHARS = 60  # of a line of the user's code quoted in a table


class Shown(NamedTuple):
    """The tab's outputs, top to bottom: a figure is None where there is nothing to draw."""

    status: str
    verdict: str
    ceilings: str
    roofline: object
    memory: object
    buffers: str
    gradient: object
    gradient_text: str
    kernels: object
    kernel_table: str
    notes: str


def blank(status: str = "") -> Shown:
    """Nothing shown but ``status``: before a run's result, or beside an error."""
    return Shown(status, "", "", None, None, "", None, "", None, "", "")


def render(code: str, reply: dict, language: str = "en") -> Shown:
    """Everything the tab shows of a final reply (an error: its explanation, nothing else), in ``language``."""
    if not reply.get("ok"):
        return blank(error_markdown(reply["error"], language, labels=LABELS["speed_of_light"]))
    colours = line_colours.colours(_lines(reply))
    lines = code.splitlines()
    memory, kernels, gradient = reply.get("memory"), reply["kernels"], reply.get("gradient")
    placed = reply.get("roofline") or {}
    return Shown(
        status_markdown(reply, code, language),
        verdict_markdown(placed, language),
        ceilings_markdown(placed, language),
        speed_plots.roofline_figure(placed, language, colours) if placed else None,
        timeline_plots.memory_figure(memory, language) if memory else None,
        memory_markdown(memory, reply.get("memory_unavailable"), lines, colours, language),
        timeline_plots.gradient_memory_figure(gradient, language) if gradient else None,
        gradient_markdown(gradient, language, placed.get("remat_comparison")),
        timeline_plots.kernel_figure(kernels, colours, language),
        kernels_markdown(kernels, lines, colours, language),
        notes_markdown(reply, language),
    )


def _lines(reply: dict) -> list:
    """The user lines the buffers at the peak and the kernels came from, for their colours."""
    at_peak = (reply.get("memory") or {}).get("at_peak") or []
    return [b.get("line") for b in at_peak] + [e.get("line") for e in reply["kernels"].get("events") or []]


def status_markdown(reply: dict, code: str = "", language: str = "en") -> str:
    """What was measured, on which device, which function ran (where not ``f``), and where the result came from."""
    done = messages.say("sol.done", language, function=md.code(reply.get("function", "?")),
                        device=md.text(reply.get("device", "?")))
    lines = [f"{md.verdict('ok', language)} {done}"]
    if picked := picked_note(code, language):
        lines.append(f"- {picked}")
    lines += [f"- {note}" for note in progress.source_notes(reply, language)]
    return "\n".join(lines)


def explanation(memory: dict, language: str = "en") -> str:
    """The peak, where in the schedule it falls, and what XLA reserves beyond it, piece by piece."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    total = timeline_plots.reserved_bytes(memory)
    peak, steps = memory["peak_step"], memory.get("steps") or []
    instruction = md.code(steps[timeline_plots.peak_point(memory)]) if steps else "?"
    sentence = say("sol.memory.peak", step=peak + 1, steps=memory["schedule_length"], instruction=instruction,
                   peak=size(memory["peak_bytes"], language),
                   reserved=size(total, language) if total is not None else "?")
    pieces = [say(f"sol.explained.{piece['what']}", bytes=size(abs(piece["bytes"]), language))
              for piece in memory.get("explained") or [] if piece.get("bytes")]
    rest = say("sol.memory.rest", pieces=messages.listed(pieces, language)) if pieces \
        else say("sol.memory.all_used")
    return f"{sentence} {rest}"


def source_line(line: object, lines: list[str], colours: dict[int, str], language: str = "en") -> str:
    """A table cell for a user line: "line 2" on its colour and the line's code; "–" where there is none."""
    if type(line) is not int:
        return "–"
    name = messages.say("sol.line", language, line=line)
    colour = colours.get(line)
    style = f"background:{colour};" if colour else ""
    said = f'<span style="{style}padding:0 4px;border-radius:3px;white-space:nowrap">{html.escape(name)}</span>'
    if 1 <= line <= len(lines) and lines[line - 1].strip():
        text = lines[line - 1].strip()
        text = text if len(text) <= SHOWN_LINE_CHARS else text[:SHOWN_LINE_CHARS - 1] + "…"
        said += f" {_code(text)}"
    return said


def _code(value: object) -> str:
    """A code span for a Markdown table's cell: a ``|`` in it would end the cell."""
    return md.code(value).replace("|", "\\|")


def _shape(shape: str) -> str:
    """f32[2000,2000]{1,0} -> f32[2000,2000]: the layout is XLA's business."""
    return shape.split("{", 1)[0] if shape.endswith("}") else shape


def memory_markdown(memory: dict | None, unavailable: str | None, lines: list[str], colours: dict[int, str],
                    language: str = "en") -> str:
    """The peak against what XLA reserves, then the largest buffers live at the peak, each with its line."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    if memory is None:
        return f"{md.verdict('warning', language)} {say('sol.no_memory', why=md.text(unavailable or '-'))}"
    at_peak = memory.get("at_peak") or []
    head = [say(f"sol.col.{name}") for name in ("buffer", "what", "shape", "size", "line")]
    rows = [f"| {_code(b['name'])} | {md.text(gloss(b['name'], language, b['kind']))} | {_code(_shape(b['shape']))} | "
            f"{size(b['bytes'], language)} | {source_line(b.get('line'), lines, colours, language)} |"
            for b in at_peak]
    table = [say("sol.memory.buffers", shown=len(at_peak), count=memory.get("buffers_at_peak", len(at_peak))), "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head), *rows] if rows else []
    return "\n".join([explanation(memory, language), "", *table])


def gradient_markdown(gradient: dict | None, language: str = "en", comparison: dict | None = None) -> str:
    """The peak of jax.grad without and with the code's jax.checkpoint calls, their FLOPs, their times compared
    (``comparison``: roofline.place's ``remat_comparison``), or why not."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    def flops(value: float | None) -> str:
        return roofline.amount(value, "FLOP", language, 1)

    if gradient is None:
        return say("sol.grad.off")
    plain, checkpointed, why = gradient.get("plain"), gradient.get("checkpointed"), gradient.get("unavailable")
    calls = gradient.get("checkpoint_calls") or 0
    if plain is not None and checkpointed is not None:
        both = plain.get("flops") is not None and checkpointed.get("flops") is not None
        work = say("sol.grad.flops_compared", plain=flops(plain["flops"]),
                   checkpointed=flops(checkpointed["flops"])) if both else ""
        parts = [say("sol.grad.compared", plain=size(plain["peak_bytes"], language),
                     checkpointed=size(checkpointed["peak_bytes"], language), calls=calls, flops=work)]
        if comparison:
            parts.append(comparison_markdown(comparison, REMAT_LABELS, language))
        return "\n\n".join(parts + ([say("sol.grad.partly", why=md.text(why))] if why else []))
    if plain is not None and not calls:  # the two are one program: shown once
        work = say("sol.grad.flops", flops=flops(plain["flops"])) if plain.get("flops") is not None else ""
        return say("sol.grad.no_checkpoint", peak=size(plain["peak_bytes"], language), flops=work)
    return f"{md.verdict('warning', language)} {say('sol.grad.none', why=md.text(why or '-'))}"


def kernels_markdown(kernels: dict, lines: list[str], colours: dict[int, str], language: str = "en") -> str:
    """Each kernel once (its runs, median time, bytes and rate, its line), the most time in all first; what the
    timeline left out, or why there is none."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    events = kernels.get("events") or []
    if kernels.get("unavailable") or not events:
        return f"{md.verdict('warning', language)} " \
               f"{say('sol.kernels.none', why=md.text(kernels.get('unavailable') or '-'))}"
    by_name: dict[str, list[dict]] = {}
    for event in events:
        by_name.setdefault(event["name"], []).append(event)
    ordered = sorted(by_name.items(), key=lambda item: -sum(e["duration_s"] for e in item[1]))
    head = [say(f"sol.col.{name}") for name in ("kernel", "what", "runs", "median", "bytes", "rate", "line")]
    rows = []
    for name, runs in ordered[:MAX_KERNEL_ROWS]:
        median = statistics.median(e["duration_s"] for e in runs)
        moved = next((e["bytes"] for e in runs if e.get("bytes") is not None), None)
        line = next((e["line"] for e in runs if type(e.get("line")) is int), None)
        rate = messages.number(moved / median / 1e9, language, 1) if moved is not None and median > 0 else "–"
        rows.append(f"| {_code(name)} | {md.text(gloss(name, language))} | {len(runs)} | "
                    f"{messages.number(median * 1e6, language, 1)} | "
                    f"{size(moved, language) if moved is not None else '–'} | {rate} | "
                    f"{source_line(line, lines, colours, language)} |")
    parts = [say("sol.kernels.head", runs=len(events), calls=kernels.get("calls", 0),
                 plane=md.text(kernels.get("plane", ""))), "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head), *rows]
    if len(ordered) > MAX_KERNEL_ROWS:
        parts += ["", say("sol.kernels.more", count=len(ordered) - MAX_KERNEL_ROWS)]
    if kernels.get("left_out"):
        parts += ["", say("sol.kernels.left_out", count=kernels["left_out"])]
    return "\n".join(parts)


def notes_markdown(reply: dict, language: str = "en") -> str:
    """The job's notes (its warnings, the loop caveat), as it wrote them (English), each a bullet."""
    return "\n".join(f"- {md.verdict('warning', language)} {md.text(note)}" for note in reply.get("notes") or [])
