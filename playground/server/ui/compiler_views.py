"""Pure builders for the Compiler tab: /passes, /graph and /compare responses in, Markdown or HTML out."""

from __future__ import annotations

import html

from playground import messages
from playground.messages import numbers
from playground.server.compiler import pass_notes, text_diff
from playground.server.ui import markdown as md
from playground.server.ui import progress
from playground.server.ui.inspect_views import source_pane

# Verdict labels: a word on a colour (markdown.verdict), read right without an emoji font.
OK, WARNING = md.verdict("ok"), md.verdict("warning")

MAX_DIFF_ROWS = 2_000  # on screen; the whole texts are in the API response
_ROW_COLOURS = {"removed": "#ffe6e6", "added": "#e3f7e3", "changed": "#fff3cc"}
_MARKS = {"same": " ", "removed": "-", "added": "+", "changed": "~"}


# -- passes ---------------------------------------------------------------------------------------------------------

def passes_status(response: dict, language: str = "en") -> str:
    """What the passes did, in ``language`` (the job's notices stay English)."""
    counts = response["counts"]
    dumped = messages.say("comp.dumped", language) if response["exhaustive"] else ""
    said = messages.say("comp.passes", language, passes=counts["passes"], pipelines=counts["pipelines"],
                        function=md.code(response["function"]), device=md.text(response["device"]),
                        changed=counts["changed"], unchanged=counts["unchanged"], dumped=dumped)
    lines = [f"{md.verdict('ok', language)} {said}"]
    lines += [f"- {md.text(n)}" for n in response["notices"]]
    lines += [f"- {note}" for note in progress.source_notes(response, language)]
    return "\n".join(lines)


def shown_passes(response: dict, hide_unchanged: bool) -> list[dict]:
    return [p for p in response["passes"] if not (hide_unchanged and p["changed"] is False)]


def _changed(changed: bool | None, language: str) -> str:
    return messages.say({True: "comp.changed", False: "comp.unchanged", None: "comp.not_known"}[changed], language)


def pass_choice(record: dict, language: str = "en") -> str:
    """How a pass reads in the chooser: its number, name and pipeline, and whether it changed the module."""
    verdict = _changed(record["changed"], language)
    what = messages.say("comp.whole_pipeline", language) if record["nested"] else ""
    return f"#{record['index']} {what}{record['name']} ({record['pipeline']}): {verdict}"


def passes_table(records: list[dict], language: str = "en") -> str:
    """One row per pass: pipeline, pass, changed, instructions after it, and a sentence for the known ones."""
    rows = "".join(
        f'<tr style="background:{"#fff3cc" if p["changed"] else "transparent"}"><td>{p["index"]}</td>'
        f"<td>{html.escape(p['pipeline'])}</td><td><code>{html.escape(p['name'])}</code>"
        f"{messages.say('comp.whole_pipeline_note', language) if p['nested'] else ''}</td>"
        f"<td>{_changed(p['changed'], language)}</td>"
        f"<td style='text-align:right'>{p['instructions']}</td><td>{html.escape(pass_notes.about(p['name'], language))}"
        "</td></tr>"
        for p in records)
    return ('<div style="max-height:360px;overflow:auto"><table class="compiler-passes" style="font-size:13px">'
            f"<thead><tr>{messages.say('comp.table_head', language)}</tr></thead><tbody>{rows}</tbody></table></div>")


def pass_diff(response: dict, index: int, unified: bool, language: str = "en") -> str:
    """The module before and after one pass, as a diff with the changed lines marked."""
    record = response["passes"][index]
    modules = response["modules"]
    if record["before"] is None or record["after"] is None:
        return f"<p>{messages.say('comp.not_kept', language)}</p>"
    name = messages.say("comp.pass_in", language, name=f"<b>#{record['index']} {html.escape(record['name'])}</b>",
                        pipeline=html.escape(record["pipeline"]))
    head = f"<p>{name}: {html.escape(pass_notes.about(record['name'], language))}</p>"
    before, after = modules[record["before"]], modules[record["after"]]
    if before == after:
        return head + f"<p>{messages.say('comp.same_text', language)}</p>"
    return head + diff_html(text_diff.compare(before, after, "before", "after"), "before", "after", unified, language)


# -- diffs ----------------------------------------------------------------------------------------------------------

def diff_html(diff: text_diff.Diff, before_label: str, after_label: str, unified: bool, language: str = "en") -> str:
    """Side by side (two columns, changed rows marked) or unified (one column, - and + lines)."""
    if unified:
        lines = diff.unified.splitlines()[:MAX_DIFF_ROWS]
        rows = "".join(f'<div style="background:{_unified_colour(line)};white-space:pre">'
                       f"{html.escape(line) or '&nbsp;'}</div>" for line in lines)
        empty = messages.say("comp.no_difference", language)
        # Lines keep their shape (HLO lines run long): the box scrolls sideways, where the page would cut them off.
        return f'<div class="compiler-diff" style="{_MONO};overflow-x:auto">{rows or empty}</div>'
    rows = diff.rows
    shown = rows[:MAX_DIFF_ROWS]
    cells = "".join(
        f'<div class="diff-row" data-kind="{kind}" style="display:contents">'
        f'<span style="{_CELL}background:{_ROW_COLOURS.get(kind, "transparent")}">{_MARKS[kind]}</span>'
        f'<span style="{_CELL}background:{_ROW_COLOURS.get(kind, "transparent")}">{_cell(left)}</span>'
        f'<span style="{_CELL}background:{_ROW_COLOURS.get(kind, "transparent")}">{_cell(right)}</span></div>'
        for kind, left, right in shown)
    more = (f"<p>{messages.say('comp.more_rows', language, n=numbers.number(len(rows) - len(shown), language))}</p>"
            if len(rows) > len(shown) else "")
    heads = "".join(f'<b style="{_CELL}">{html.escape(label)}</b>' for label in ("", before_label, after_label))
    return (f'<div class="compiler-diff" style="{_MONO};display:grid;grid-template-columns:1.2em minmax(0,1fr) '
            f'minmax(0,1fr);column-gap:6px">{heads}{cells}</div>{more}')


_MONO = "font-family:monospace;font-size:12px"
_CELL = "white-space:pre-wrap;overflow-wrap:anywhere;padding:0 2px;"


def _cell(text: str | None) -> str:
    return "" if text is None else html.escape(text)


def _unified_colour(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "transparent"
    return {"+": _ROW_COLOURS["added"], "-": _ROW_COLOURS["removed"], "@": "#eef2ff"}.get(line[:1], "transparent")


# -- graphs ---------------------------------------------------------------------------------------------------------

def graph_status(response: dict, language: str = "en") -> str:
    """What was drawn, the fusions, and what was left out, in ``language`` (the renderer's problem stays English)."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    fusions = response["fusions"]
    counted = say("comp.fusion_one" if len(fusions) == 1 else "comp.fusion_many", n=len(fusions))
    drew = say("comp.graph", function=md.code(response["function"]), device=md.text(response["device"]),
               jaxpr=len(response["jaxpr_graph"]["nodes"]), hlo=len(response["hlo_graph"]["nodes"]), fusions=counted)
    lines = [f"{md.verdict('ok', language)} {drew}"]
    for fusion in fusions[:20]:
        lines.append("- " + say("comp.fuses", label=md.code(fusion["label"].removeprefix("fusion: ")),
                                operations=md.text(", ".join(fusion["operations"]))))
    for key, name in (("jaxpr_graph", "jaxpr"), ("hlo_graph", "HLO")):
        if response[key]["left_out"]:
            lines.append("- " + say("comp.large_graph", name=name,
                                    left=numbers.number(response[key]["left_out"], language),
                                    drawn=numbers.number(len(response[key]["nodes"]), language)))
    if response["renderer"]["problem"]:
        lines.append(f"- {md.verdict('warning', language)} {md.text(response['renderer']['problem'])}")
    lines += [f"- {note}" for note in progress.source_notes(response, language)]
    return "\n".join(lines)


def graph_html(svg: str, dot: str, title: str, language: str = "en") -> str:
    """The picture (Graphviz's SVG, already rebuilt from an allow-list), or the DOT text when there is none."""
    if svg:
        return (f'<div class="compiler-graph" style="overflow:auto;max-height:720px"><b>{html.escape(title)}</b>'
                f"{svg}</div>")
    return (f"<div><b>{html.escape(title)}</b><p>{messages.say('comp.no_picture', language)}</p>"
            f'<pre style="max-height:300px;overflow:auto">{html.escape(dot)}</pre></div>')


def coloured_source(code: str, response: dict, language: str = "en") -> str:
    """The user's code with each line in the colour of the nodes it made."""
    colour = {int(line): value for line, value in response["line_colours"].items()}
    lines = code.splitlines()
    return source_pane(messages.say("comp.your_code", language), lines, list(range(1, len(lines) + 1)), colour,
                       numbered=True, language=language)


# -- compare --------------------------------------------------------------------------------------------------------

def compare_table(response: dict, language: str = "en") -> str:
    """Both versions' sizes, XLA's estimates and measured times in one table, our words in ``language``."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    a, b = response["variants"]

    def row(label: str, get) -> str:
        return f"| {say('comp.row.' + label)} | {get(a)} | {get(b)} |"

    def amount(value, unit: str = "") -> str:
        return _amount(value, unit, language)

    ratio = response.get("b_over_a")
    verdict = say({True: "comp.same_result", False: "comp.different",
                   None: "comp.not_compared"}[response["same_result"]])
    lines = [f"| | A: {md.cell(a['label'])} | B: {md.cell(b['label'])} |", "|---|---|---|",
             row("kernels", lambda v: v["kernels"]),
             row("hlo", lambda v: v["hlo_instructions"]),
             row("jaxpr", lambda v: v["jaxpr_equations"]),
             row("flops", lambda v: amount(v["cost"].get("flops"))),
             row("bytes", lambda v: amount(v["cost"].get("bytes_accessed"))),
             row("temp", lambda v: amount(v["memory"].get("temp_bytes"), " B")),
             row("io", lambda v: amount(_sum(v["memory"], "argument_bytes", "output_bytes"), " B")),
             row("alias", lambda v: amount(v["memory"].get("alias_bytes"), " B")),
             row("compile", lambda v: numbers.duration(v["compile_s"], language)),
             row("run", lambda v: _run(v, language))]
    difference = response.get("max_abs_diff")
    apart = say("comp.apart", d=numbers.figures(difference, language)) if difference else ""
    compared = say("comp.compared_on", device=md.text(response["device"]), what=md.text(b["what"]))
    summary = [f"{md.verdict('ok', language)} {compared}",
               f"- {say('comp.results', verdict=verdict, apart=apart)}"]
    if ratio is not None:
        summary.append(f"- {say('comp.ratio', ratio=numbers.number(ratio, language, 2))}")
    summary += [f"- {md.text(n)}" for n in response["notes"]]
    summary += [f"- {note}" for note in progress.source_notes(response, language)]
    return "\n".join(summary) + "\n\n" + "\n".join(lines)


def _run(variant: dict, language: str = "en") -> str:
    run = variant.get("run")
    if not run:
        return messages.say("comp.not_run", language)
    return messages.say("comp.runs", language, median=numbers.duration(run["median_s"], language),
                        iqr=numbers.duration(run["iqr_s"], language), runs=numbers.number(run["runs"], language))


def _sum(memory: dict, *keys: str) -> int | None:
    parts = [memory.get(k) for k in keys]
    return None if any(p is None for p in parts) else sum(parts)


def _amount(value, unit: str = "", language: str = "en") -> str:
    return messages.say("comp.not_reported", language) if value is None else f"{numbers.number(value, language)}{unit}"
