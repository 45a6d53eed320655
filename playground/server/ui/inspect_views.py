"""Pure builders for the Inspect tab: an /inspect response in, Markdown or HTML out."""

from __future__ import annotations

import html

from playground import line_colours, messages
from playground.messages import numbers
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
        declared = messages.say("inspect.own_jit_static", language, argnums=tuple(static)) if static else ""
        lines.append("- " + messages.say("inspect.own_jit", language, function=md.code(response.get("function", "?")),
                                         declared=declared))
    for finding in response.get("purity") or []:
        where = messages.say("inspect.on_line", language, line=finding["line"]) if type(finding.get("line")) is int \
            else ""
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


def for_display(text: str, language: str = "en") -> str:
    """``text``, cut to DISPLAY_CHARS with a line that says how much is left out (in ``language``)."""
    if len(text) <= DISPLAY_CHARS:
        return text
    more = messages.say("inspect.more_characters", language, n=numbers.number(len(text) - DISPLAY_CHARS, language))
    return f"{text[:DISPLAY_CHARS]}\n{more}"


def stages_markdown(response: dict, language: str = "en") -> str:
    """Stage timings, XLA's cost estimate and its memory plan, with reasons for anything missing (in ``language``;
    the reasons as XLA's backend gave them)."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    rows = [f"| {say('inspect.stage.' + key)} | {numbers.number(response[key] * 1000, language, 1)} ms |"
            for key in ("trace_s", "lower_s", "compile_s", "run_s")]
    cost = response.get("cost") or {}
    missing = cost.get("unavailable", {})
    cost_rows = [
        f"| {say('inspect.cost.' + key)} | " + (numbers.number(cost[key], language) if cost.get(key) is not None
                                                else say("inspect.not_reported", reason=md.cell(missing.get(key, ""))))
        + " |" for key in ("flops", "bytes_accessed", "transcendentals")
    ]
    memory = response.get("memory") or {}
    no_plan = md.cell(memory.get("unavailable", ""))
    memory_rows = [
        f"| {say('inspect.memory.' + key)} | "
        f"{numbers.number(memory[key], language) + ' B' if memory.get(key) is not None else no_plan} |"
        for key in ("argument_bytes", "output_bytes", "temp_bytes", "generated_code_bytes")
    ]
    return "\n".join([
        f"#### {say('inspect.stages')}", say("inspect.stages_head"), "|---|---|", *rows, "",
        f"#### {say('inspect.cost')}", say("inspect.cost_head"), "|---|---|", *cost_rows, "",
        f"#### {say('inspect.memory')}", say("inspect.memory_head"), "|---|---|", *memory_rows,
    ])


def pytree_markdown(pytree: dict, language: str = "en") -> str:
    """Per side, the treedef and a table of leaves; typed PRNG keys' key data folded away below it (our words in
    ``language``)."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    sections = []
    for title, tree in ((say("inspect.inputs"), pytree["inputs"]), (say("inspect.outputs"), pytree["outputs"])):
        rows = [f"| {md.code(leaf['key_path'] or say('inspect.root'))} | "
                f"{[int(d) for d in leaf['shape']]} | {md.cell(leaf['dtype'])} |" for leaf in tree["leaves"]]
        static = "".join("\n\n" + say("inspect.static_argument", position=s["position"], value=md.code(s["value"]))
                         for s in tree.get("static", []))
        sections.append(f"#### {title}\n{md.code(tree['treedef'])}\n\n{say('inspect.leaves_head')}\n|---|---|---|\n"
                        + "\n".join(rows) + _key_data(tree["leaves"], language) + static)
    return "\n\n".join(sections)


def _key_data(leaves: list[dict], language: str) -> str:
    """A collapsed block with each key's bits, as ``jax.random.key_data`` gives them; nothing without keys."""
    lines = []
    for leaf in leaves:
        if "key_data" in leaf:
            head = f"{leaf['key_path'] or messages.say('inspect.root', language)}: "
            lines.append(head + str(leaf["key_data"]).replace("\n", "\n" + " " * len(head)))  # rows stay lined up
    if not lines:
        return ""
    text = "\n".join(lines)
    summary = html.escape(messages.say("inspect.key_data", language))
    return f"\n\n<details><summary>{summary}</summary>\n\n{code_block(text)}\n\n</details>"


def source_ir_html(code: str, response: dict, language: str = "en") -> str:
    """Source, jaxpr and StableHLO side by side; each user line and the IR it produced share a colour."""
    line_map = response.get("line_map") or {}
    colour = line_colours.colours(line for key in ("jaxpr", "stablehlo") for line in line_map.get(key, []))
    source_lines = code.splitlines()
    panes = [
        source_pane(messages.say("inspect.your_code", language), source_lines, list(range(1, len(source_lines) + 1)),
                    colour, numbered=True, language=language),
        source_pane("jaxpr", response.get("jaxpr", "").splitlines(), line_map.get("jaxpr", []), colour,
                    language=language),
        source_pane("StableHLO", response.get("stablehlo", "").splitlines(), line_map.get("stablehlo", []), colour,
                    language=language),
    ]
    return (
        '<div class="source-ir">'  # three columns side by side; stacked on a phone (ui/__init__.py's CSS)
        + "".join(panes) + "</div>"
    )


def source_pane(title: str, lines: list[str], origins: list, colour: dict, numbered: bool = False,
                language: str = "en") -> str:
    """One pane of lines, each in the colour of the user line it came from (``origins``), escaped; its words in
    ``language``."""
    rows = []
    for i, text in enumerate(lines[:DISPLAY_LINES]):
        origin = origins[i] if i < len(origins) else None
        origin = origin if type(origin) is int else None  # whatever a reply holds, only a line number gets in
        style = f"background:{colour[origin]};" if origin in colour else ""
        tip = f' title="{messages.say("inspect.from_line", language, line=origin)}"' if origin and not numbered else ""
        prefix = f"{i + 1:>3}  " if numbered else ""
        rows.append(f'<div data-line="{origin or ""}" style="{style}white-space:pre"{tip}>'
                    f"{html.escape(prefix + str(text)) or '&nbsp;'}</div>")
    if len(lines) > DISPLAY_LINES:
        more = messages.say("inspect.more_lines", language, n=numbers.number(len(lines) - DISPLAY_LINES, language))
        rows.append(f"<div>{html.escape(more)}</div>")
    return (f'<div style="min-width:0"><b>{html.escape(title)}</b><div style="font-family:monospace;'
            f'font-size:12px;overflow-x:auto;border:1px solid #ddd;padding:4px">{"".join(rows)}</div></div>')

