"""Pure builders for the Inspect tab: an /inspect response in, Markdown or HTML out."""

from __future__ import annotations

import html

from playground import line_colours, messages
from playground.server.ui import markdown as md
from playground.server.ui import progress
from playground.server.ui.markdown import code_block
from playground.server.ui.picked_function import picked_note

DISPLAY_CHARS = 30_000  # longer IR is cut on screen; the whole text is offered as a download
DISPLAY_LINES = 400  # per pane of the source <-> IR view


PENDING = ("purity", "retrace")  # the checks an early reply may say are still running


def status_markdown(response: dict, language: str = "en", code: str = "") -> str:
    """What went well, and every note worth reading: which function ran (from ``code``, the source that was
    sent, where it is not ``f``), purity findings, retracing, warnings.

    The headline and verdicts are in ``language``; the notes the job wrote stay as it wrote them (English).
    """
    device = messages.say("inspect.for_device", language, device=md.text(response["device"])) \
        if response.get("device") else ""
    done = messages.say("inspect.done", language, function=md.code(response.get("function", "?")), device=device)
    lines = [f"{md.verdict('ok', language)} {done}"]
    picked = picked_note(code, language)
    if picked:
        lines.append(f"- {picked}")
    if (response.get("jit") or {}).get("own"):
        static = response.get("static_argnums") or []
        declared = f" with static_argnums={tuple(static)}" if static else ""
        lines.append(f"- Your code jits {md.code(response.get('function', '?'))} itself{declared}: that jitted "
                     "function is what you see, not wrapped in a second jit.")
    for finding in response.get("purity") or []:
        where = f"line {finding['line']}: " if type(finding.get("line")) is int else ""
        lines.append(f"- {md.verdict('warning', language)} **{messages.say('inspect.purity', language)}** "
                     f"({md.text(finding['check'])}) {where}{md.text(finding['message'])}")
    retrace = response.get("retrace")
    if retrace:
        key = {True: "retraced", False: "reused", None: "second_failed"}[retrace.get("retraced")]
        verdict = f"**{messages.say('inspect.' + key, language)}**"
        lines.append(f"- {verdict}\n\n{code_block(retrace.get('explanation', ''))}")
    lines.extend(f"- {md.text(note)}" for note in response.get("warnings") or [])
    pending = [messages.say(f"inspect.pending.{name}", language) for name in response.get("pending") or []
               if name in PENDING]
    if pending:
        lines.append(f"- {messages.say('inspect.still_running', language, checks=messages.listed(pending, language))}")
    lines += [f"- {note}" for note in progress.source_notes(response, language)]
    return "\n".join(lines)


def for_display(text: str) -> str:
    if len(text) <= DISPLAY_CHARS:
        return text
    return text[:DISPLAY_CHARS] + f"\n… [{len(text) - DISPLAY_CHARS:,} more characters: download the whole text below]"


def stages_markdown(response: dict) -> str:
    """Stage timings, XLA's cost estimate and its memory plan, with reasons for anything missing."""
    rows = [f"| {name} | {response[key] * 1000:.1f} ms |" for name, key in (
        ("trace (Python -> jaxpr)", "trace_s"), ("lower (jaxpr -> StableHLO)", "lower_s"),
        ("compile (StableHLO -> optimised HLO)", "compile_s"), ("run", "run_s"))]
    cost = response.get("cost") or {}
    missing = cost.get("unavailable", {})
    cost_rows = [
        f"| {label} | {_number(cost[key]) if cost.get(key) is not None else _not_reported(missing.get(key, ''))} |"
        for label, key in (("flops", "flops"), ("bytes accessed", "bytes_accessed"),
                           ("transcendentals", "transcendentals"))
    ]
    memory = response.get("memory") or {}
    no_plan = md.cell(memory.get("unavailable", ""))
    memory_rows = [
        f"| {label} | {_bytes(memory[key]) if memory.get(key) is not None else no_plan} |"
        for label, key in (("arguments", "argument_bytes"), ("outputs", "output_bytes"),
                           ("temporaries", "temp_bytes"), ("generated code", "generated_code_bytes"))
    ]
    return "\n".join([
        "#### Stages", "| stage | time |", "|---|---|", *rows, "",
        "#### Cost (XLA's estimate)", "| quantity | value |", "|---|---|", *cost_rows, "",
        "#### Memory (XLA's plan)", "| buffer | size |", "|---|---|", *memory_rows,
    ])


def pytree_markdown(pytree: dict) -> str:
    """Per side, the treedef and a table of leaves; typed PRNG keys' key data folded away below it."""
    sections = []
    for title, tree in (("Inputs", pytree["inputs"]), ("Outputs", pytree["outputs"])):
        rows = [f"| {md.code(leaf['key_path'] or '(root)')} | {[int(d) for d in leaf['shape']]} | "
                f"{md.cell(leaf['dtype'])} |" for leaf in tree["leaves"]]
        static = "".join(f"\n\nStatic argument {s['position']}: {md.code(s['value'])} (part of the cache key, not "
                         "traced)" for s in tree.get("static", []))
        sections.append(f"#### {title}\n{md.code(tree['treedef'])}\n\n| key path | shape | dtype |\n|---|---|---|\n"
                        + "\n".join(rows) + _key_data(tree["leaves"]) + static)
    return "\n\n".join(sections)


def _key_data(leaves: list[dict]) -> str:
    """A collapsed block with each key's bits, as ``jax.random.key_data`` gives them; nothing without keys."""
    lines = []
    for leaf in leaves:
        if "key_data" in leaf:
            head = f"{leaf['key_path'] or '(root)'}: "
            lines.append(head + str(leaf["key_data"]).replace("\n", "\n" + " " * len(head)))  # rows stay lined up
    if not lines:
        return ""
    text = "\n".join(lines)
    return f"\n\n<details><summary>Key data (jax.random.key_data)</summary>\n\n{code_block(text)}\n\n</details>"


def source_ir_html(code: str, response: dict) -> str:
    """Source, jaxpr and StableHLO side by side; each user line and the IR it produced share a colour."""
    line_map = response.get("line_map") or {}
    colour = line_colours.colours(line for key in ("jaxpr", "stablehlo") for line in line_map.get(key, []))
    source_lines = code.splitlines()
    panes = [
        source_pane("Your code", source_lines, list(range(1, len(source_lines) + 1)), colour, numbered=True),
        source_pane("jaxpr", response.get("jaxpr", "").splitlines(), line_map.get("jaxpr", []), colour),
        source_pane("StableHLO", response.get("stablehlo", "").splitlines(), line_map.get("stablehlo", []), colour),
    ]
    return (
        '<div class="source-ir">'  # three columns side by side; stacked on a phone (ui/__init__.py's CSS)
        + "".join(panes) + "</div>"
    )


def source_pane(title: str, lines: list[str], origins: list, colour: dict, numbered: bool = False) -> str:
    """One pane of lines, each in the colour of the user line it came from (``origins``), escaped."""
    rows = []
    for i, text in enumerate(lines[:DISPLAY_LINES]):
        origin = origins[i] if i < len(origins) else None
        origin = origin if type(origin) is int else None  # whatever a reply holds, only a line number gets in
        style = f"background:{colour[origin]};" if origin in colour else ""
        tip = f' title="from line {origin}"' if origin and not numbered else ""
        prefix = f"{i + 1:>3}  " if numbered else ""
        rows.append(f'<div data-line="{origin or ""}" style="{style}white-space:pre"{tip}>'
                    f"{html.escape(prefix + str(text)) or '&nbsp;'}</div>")
    if len(lines) > DISPLAY_LINES:
        rows.append(f"<div>… {len(lines) - DISPLAY_LINES:,} more lines</div>")
    return (f'<div style="min-width:0"><b>{html.escape(title)}</b><div style="font-family:monospace;'
            f'font-size:12px;overflow-x:auto;border:1px solid #ddd;padding:4px">{"".join(rows)}</div></div>')


def _not_reported(reason: str) -> str:
    return "not reported: " + md.cell(reason)


def _number(value: float) -> str:
    return f"{value:,.0f}"


def _bytes(value: int) -> str:
    return f"{value:,} B"
