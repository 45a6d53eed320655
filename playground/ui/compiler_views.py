"""Pure builders for the Compiler tab: /passes, /graph and /compare responses in, Markdown or HTML out."""

from __future__ import annotations

import html

from playground import text_diff
from playground.ui import markdown as md
from playground.ui import progress
from playground.ui.inspect_views import source_pane
from playground.ui.timing_views import seconds

# Verdict labels: a word on a colour (markdown.verdict), read right without an emoji font.
OK, WARNING = md.verdict("ok"), md.verdict("warning")

MAX_DIFF_ROWS = 2_000  # on screen; the whole texts are in the API response
_ROW_COLOURS = {"removed": "#ffe6e6", "added": "#e3f7e3", "changed": "#fff3cc"}
_MARKS = {"same": " ", "removed": "-", "added": "+", "changed": "~"}


# -- passes ---------------------------------------------------------------------------------------------------------

def passes_status(response: dict) -> str:
    counts = response["counts"]
    lines = [f"{OK} {counts['passes']} passes in {counts['pipelines']} pipelines compiled "
             f"{md.code(response['function'])} for {md.text(response['device'])}: **{counts['changed']} changed the "
             f"module**, {counts['unchanged']} left its text as it was (XLA dumped the module after every pass)."]
    if not response["exhaustive"]:
        lines[0] = lines[0].replace(" (XLA dumped the module after every pass)", "")
    lines += [f"- {md.text(n)}" for n in response["notices"]]
    lines += [f"- {note}" for note in [progress.cache_note(response)] if note]
    return "\n".join(lines)


def shown_passes(response: dict, hide_unchanged: bool) -> list[dict]:
    return [p for p in response["passes"] if not (hide_unchanged and p["changed"] is False)]


def pass_choice(record: dict) -> str:
    """How a pass reads in the chooser: its number, name and pipeline, and whether it changed the module."""
    verdict = {True: "changed", False: "unchanged", None: "not known"}[record["changed"]]
    what = "the whole pipeline " if record["nested"] else ""
    return f"#{record['index']} {what}{record['name']} ({record['pipeline']}): {verdict}"


def passes_table(records: list[dict]) -> str:
    """One row per pass: pipeline, pass, changed, instructions after it, and a sentence for the known ones."""
    rows = "".join(
        f'<tr style="background:{"#fff3cc" if p["changed"] else "transparent"}"><td>{p["index"]}</td>'
        f"<td>{html.escape(p['pipeline'])}</td><td><code>{html.escape(p['name'])}</code>"
        f"{' (the whole pipeline)' if p['nested'] else ''}</td>"
        f"<td>{ {True: 'changed', False: 'unchanged', None: 'not known'}[p['changed']]}</td>"
        f"<td style='text-align:right'>{p['instructions']}</td><td>{html.escape(p.get('about') or '')}</td></tr>"
        for p in records)
    return ('<div style="max-height:360px;overflow:auto"><table class="compiler-passes" style="font-size:13px">'
            "<thead><tr><th>#</th><th>pipeline</th><th>pass</th><th>module</th><th>instructions after</th>"
            f"<th>what it does</th></tr></thead><tbody>{rows}</tbody></table></div>")


def pass_diff(response: dict, index: int, unified: bool) -> str:
    """The module before and after one pass, as a diff with the changed lines marked."""
    record = response["passes"][index]
    modules = response["modules"]
    if record["before"] is None or record["after"] is None:
        return "<p>This pass's module was not kept (the reply's size cap): no diff to show.</p>"
    head = (f"<p><b>#{record['index']} {html.escape(record['name'])}</b> in {html.escape(record['pipeline'])}: "
            f"{html.escape(record.get('about') or '')}</p>")
    before, after = modules[record["before"]], modules[record["after"]]
    if before == after:
        return head + "<p>The module's text is the same after this pass as before it.</p>"
    return head + diff_html(before, after, "before", "after", unified)


# -- diffs ----------------------------------------------------------------------------------------------------------

def diff_html(before: str, after: str, before_label: str, after_label: str, unified: bool) -> str:
    """Side by side (two columns, changed rows marked) or unified (one column, - and + lines)."""
    if unified:
        text = text_diff.unified(before, after, before_label, after_label)
        lines = text.splitlines()[:MAX_DIFF_ROWS]
        rows = "".join(f'<div style="background:{_unified_colour(line)};white-space:pre">'
                       f"{html.escape(line) or '&nbsp;'}</div>" for line in lines)
        return f'<div class="compiler-diff" style="{_MONO}">{rows or "(no difference)"}</div>'
    rows = text_diff.side_by_side(before, after)
    shown = rows[:MAX_DIFF_ROWS]
    cells = "".join(
        f'<div class="diff-row" data-kind="{kind}" style="display:contents">'
        f'<span style="{_CELL}background:{_ROW_COLOURS.get(kind, "transparent")}">{_MARKS[kind]}</span>'
        f'<span style="{_CELL}background:{_ROW_COLOURS.get(kind, "transparent")}">{_cell(left)}</span>'
        f'<span style="{_CELL}background:{_ROW_COLOURS.get(kind, "transparent")}">{_cell(right)}</span></div>'
        for kind, left, right in shown)
    more = f"<p>… {len(rows) - len(shown):,} more rows</p>" if len(rows) > len(shown) else ""
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

def graph_status(response: dict) -> str:
    fusions = response["fusions"]
    lines = [f"{OK} Drew {md.code(response['function'])} as XLA compiled it for {md.text(response['device'])}: "
             f"the jaxpr's {len(response['jaxpr_graph']['nodes'])} nodes and the optimised HLO's "
             f"{len(response['hlo_graph']['nodes'])}, with **{len(fusions)} fusion{'s' * (len(fusions) != 1)}**."]
    for fusion in fusions[:20]:
        lines.append(f"- {md.code(fusion['label'].removeprefix('fusion: '))} fuses "
                     f"{md.text(', '.join(fusion['operations']))}")
    for key, name in (("jaxpr_graph", "jaxpr"), ("hlo_graph", "HLO")):
        if response[key]["left_out"]:
            lines.append(f"- The {name} graph is large: {response[key]['left_out']:,} operations past the first "
                         f"{len(response[key]['nodes']):,} are not drawn.")
    if response["renderer"]["problem"]:
        lines.append(f"- {WARNING} {md.text(response['renderer']['problem'])}")
    lines += [f"- {note}" for note in [progress.cache_note(response)] if note]
    return "\n".join(lines)


def graph_html(svg: str, dot: str, title: str) -> str:
    """The picture (Graphviz's SVG, already rebuilt from an allow-list), or the DOT text when there is none."""
    if svg:
        return (f'<div class="compiler-graph" style="overflow:auto;max-height:720px"><b>{html.escape(title)}</b>'
                f"{svg}</div>")
    return (f"<div><b>{html.escape(title)}</b><p>No picture (see above). The graph in Graphviz's DOT language:</p>"
            f'<pre style="max-height:300px;overflow:auto">{html.escape(dot)}</pre></div>')


def coloured_source(code: str, response: dict) -> str:
    """The user's code with each line in the colour of the nodes it made."""
    colour = {int(line): value for line, value in response["line_colours"].items()}
    lines = code.splitlines()
    return source_pane("Your code (node colours)", lines, list(range(1, len(lines) + 1)), colour, numbered=True)


# -- compare --------------------------------------------------------------------------------------------------------

def compare_table(response: dict) -> str:
    """Both versions' sizes, XLA's estimates and measured times in one table."""
    a, b = response["variants"]

    def row(label: str, get) -> str:
        return f"| {label} | {get(a)} | {get(b)} |"

    ratio = response.get("b_over_a")
    verdict = {True: "the same (to float32's rounding)", False: "**different**",
               None: "not compared"}[response["same_result"]]
    lines = [f"| | A: {md.cell(a['label'])} | B: {md.cell(b['label'])} |", "|---|---|---|",
             row("kernels (ENTRY's operations that do work)", lambda v: v["kernels"]),
             row("HLO instructions", lambda v: v["hlo_instructions"]),
             row("jaxpr equations", lambda v: v["jaxpr_equations"]),
             row("flops (XLA's estimate)", lambda v: _amount(v["cost"].get("flops"))),
             row("bytes accessed (XLA's estimate)", lambda v: _amount(v["cost"].get("bytes_accessed"))),
             row("temporary buffers", lambda v: _amount(v["memory"].get("temp_bytes"), " B")),
             row("arguments + outputs", lambda v: _amount(_sum(v["memory"], "argument_bytes", "output_bytes"), " B")),
             row("output written into a donated argument", lambda v: _amount(v["memory"].get("alias_bytes"), " B")),
             row("compile time", lambda v: seconds(v["compile_s"])),
             row("run time (median, interquartile range, runs)", _run)]
    summary = [f"{OK} Compared on **{md.text(response['device'])}**. B: {md.text(b['what'])}",
               f"- Results: {verdict}" + (f", at most {response['max_abs_diff']:.3g} apart"
                                          if response.get("max_abs_diff") else "") + "."]
    if ratio is not None:
        summary.append(f"- B's median run took **{ratio:.2f}×** A's, timed in turn in the same job.")
    summary += [f"- {md.text(n)}" for n in response["notes"]]
    summary += [f"- {note}" for note in [progress.cache_note(response)] if note]
    return "\n".join(summary) + "\n\n" + "\n".join(lines)


def _run(variant: dict) -> str:
    run = variant.get("run")
    if not run:
        return "not run"
    return f"{seconds(run['median_s'])} ± {seconds(run['iqr_s'])} ({run['runs']} runs)"


def _sum(memory: dict, *keys: str) -> int | None:
    parts = [memory.get(k) for k in keys]
    return None if any(p is None for p in parts) else sum(parts)


def _amount(value, unit: str = "") -> str:
    return "not reported" if value is None else f"{value:,.0f}{unit}"
