"""What the server adds to the compiler jobs' checked replies: pass notes, the pictures, the diffs. Runs in the server.

A worker sends facts (the passes, the graphs as data, two programs); the
words, the SVG and the diffs are made here, from the checked reply, so that
nothing of them passes through user code. The job registry names these as
the ``finish`` of the "passes", "graph" and "compare" rows (finishing.py):
each yields the finished reply alone, and uses nothing of ``server``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from playground import line_colours
from playground.server.compiler import graph_render, pass_notes, text_diff

if TYPE_CHECKING:
    from playground.server.answering.finishing import Finishing


def finish_passes(reply: dict, server: Finishing) -> Iterator[dict]:
    """Each pass with ``about``: one sentence for the passes a learner should know, else None."""
    yield {**reply, "passes": [{**p, "about": pass_notes.about(p["name"])} for p in reply["passes"]]}


def finish_graph(reply: dict, server: Finishing) -> Iterator[dict]:
    """The two graphs drawn: ``jaxpr_svg``, ``hlo_svg`` (empty where Graphviz could not draw, ``renderer`` says
    why), their DOT texts, and ``line_colours``: the colour of each user line, as in Source ↔ IR."""
    colour = line_colours.colours(node["line"] for key in ("jaxpr_graph", "hlo_graph")
                                  for node in reply[key]["nodes"])
    drawn = {key: graph_render.draw(reply[f"{key}_graph"], colour) for key in ("jaxpr", "hlo")}
    problems = list(dict.fromkeys(d["problem"] for d in drawn.values() if d["problem"]))
    yield {**reply, "jaxpr_svg": drawn["jaxpr"]["svg"], "hlo_svg": drawn["hlo"]["svg"],
           "jaxpr_dot": drawn["jaxpr"]["dot"], "hlo_dot": drawn["hlo"]["dot"],
           "renderer": {"available": not problems, "problem": " ".join(problems) or None},
           "line_colours": {str(line): value for line, value in colour.items()}}


def finish_compare(reply: dict, server: Finishing) -> Iterator[dict]:
    """``diff``: the unified diffs of the two versions' jaxpr and optimised HLO (empty text: the same; HLO's
    stack_frame_id numbers left out, as two compiles number the same frames differently); ``diff_rows``: the same
    comparisons as rows for a side-by-side view (text_diff.Diff); ``b_over_a``: B's median run time over A's
    (above 1: B is slower; None without both times)."""
    a, b = reply["variants"]
    labels = (f"A: {a['label']}", f"B: {b['label']}")
    runs = a.get("run"), b.get("run")
    speedup = runs[1]["median_s"] / runs[0]["median_s"] if all(runs) and runs[0]["median_s"] > 0 else None
    diffs = {"jaxpr": text_diff.compare(a["jaxpr"], b["jaxpr"], *labels),
             "hlo": text_diff.compare(*(text_diff.without_frame_ids(v["hlo"]) for v in (a, b)), *labels)}
    yield {**reply, "diff": {key: diff.unified for key, diff in diffs.items()},
           "diff_rows": {key: diff.rows for key, diff in diffs.items()}, "b_over_a": speedup}
