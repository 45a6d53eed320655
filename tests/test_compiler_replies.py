"""playground.server.compiler.replies: what the server adds to the compiler jobs' checked replies."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from playground import line_colours, replies
from playground.jobs import REGISTRY
from playground.server.compiler import graph_render, pass_notes, text_diff
from playground.server.compiler.replies import finish_compare, finish_graph, finish_passes
from playground.worker.jobs import graph
from playground.worker.jobs import passes as pass_pipeline
from playground.worker.jobs.compare import compare

CUBIC = "def f(x):\n    return x + x*x + x*x*x\n"
SCAN = ("def f(xs):\n    def step(total, x):\n        total = total + x\n        return total, total\n"
        "    return lax.scan(step, 0.0, xs)\n")
needs_dot = pytest.mark.usefixtures("graphviz")


def only_update(finish, reply: dict) -> dict:
    """What a compiler finish yields: the finished reply, its one update (it runs no job: no Finishing)."""
    [finished] = finish(reply, None)
    return finished


@pytest.fixture(scope="module")
def passes_reply(tmp_path_factory) -> dict:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path_factory.mktemp("scratch"))
        return pass_pipeline.passes(CUBIC, "jnp.ones((1000, 1000))", 200_000, 32 << 20)


@pytest.fixture(scope="module")
def graph_reply() -> dict:
    return graph.graphs(SCAN, "jnp.arange(5.0)")


@pytest.fixture(scope="module")
def compare_reply() -> dict:
    return compare(CUBIC, "jnp.ones((1000, 1000))", 200_000, setting="fusion: off", timing_budget_s=0.01)


def test_finish_passes_adds_a_sentence_about_every_pass(passes_reply):
    finished = only_update(finish_passes, passes_reply)
    assert [{k: v for k, v in p.items() if k != "about"} for p in finished["passes"]] == passes_reply["passes"]
    about = {p["name"]: p["about"] for p in finished["passes"]}
    assert about["fusion"] == pass_notes.about("fusion") and all(about.values())  # every pass has its sentence
    assert all(p["about"] == pass_notes.about(p["name"]) for p in finished["passes"])
    assert "apply-xla-transforms" in about and "JAX registers none" in about["apply-xla-transforms"]
    assert {k: v for k, v in finished.items() if k != "passes"} == {k: v for k, v in passes_reply.items()
                                                                    if k != "passes"}


def test_finish_passes_leaves_the_checked_reply_unchanged(passes_reply):
    before = repr(passes_reply)
    only_update(finish_passes, passes_reply)
    assert repr(passes_reply) == before
    assert replies.check(REGISTRY["passes"].reply, passes_reply) is passes_reply


@needs_dot
def test_finish_graph_draws_both_graphs_with_the_line_colours(graph_reply):
    finished = only_update(finish_graph, graph_reply)
    for key in ("jaxpr", "hlo"):
        root = ET.fromstring(finished[f"{key}_svg"])
        clusters = [g for g in root.iter() if g.get("class") == "cluster"]
        assert len(clusters) == len(graph_reply[f"{key}_graph"]["clusters"]) > 0
        assert finished[f"{key}_dot"] == graph_render.to_dot(graph_reply[f"{key}_graph"],
                                                             line_colours.colours([3, 5]))
    assert finished["renderer"] == {"available": True, "problem": None}
    assert finished["line_colours"] == {"3": line_colours.PALETTE[0], "5": line_colours.PALETTE[1]}
    assert f'fill="{line_colours.PALETTE[0]}"' in finished["jaxpr_svg"]
    assert {k: finished[k] for k in graph_reply} == graph_reply


def test_finish_graph_without_graphviz_keeps_the_dot_and_says_why_once(graph_reply, monkeypatch):
    monkeypatch.setattr(graph_render, "renderer", lambda: None)
    finished = only_update(finish_graph, graph_reply)
    assert finished["jaxpr_svg"] == finished["hlo_svg"] == ""
    assert finished["jaxpr_dot"].startswith("digraph program {") and finished["hlo_dot"].startswith("digraph")
    assert finished["renderer"] == {"available": False, "problem": graph_render.INSTALL_HINT}


def test_finish_graph_with_two_different_problems_gives_both(graph_reply, monkeypatch):
    problems = iter(["first problem", "second problem"])
    monkeypatch.setattr(graph_render, "render", lambda dot: ("", next(problems)))
    finished = only_update(finish_graph, graph_reply)
    assert finished["renderer"] == {"available": False, "problem": "first problem second problem"}


def test_finish_compare_diffs_the_two_versions(compare_reply):
    finished = only_update(finish_compare, compare_reply)
    a, b = compare_reply["variants"]
    assert finished["diff"]["jaxpr"] == ""  # a setting changes the compile, not the trace
    hlo = finished["diff"]["hlo"]
    assert hlo.startswith("--- A: as written\n+++ B: fusion off\n")
    assert "stack_frame_id" not in hlo
    assert hlo == text_diff.compare(text_diff.without_frame_ids(a["hlo"]), text_diff.without_frame_ids(b["hlo"]),
                                    "A: as written", "B: fusion off").unified
    assert finished["b_over_a"] == pytest.approx(b["run"]["median_s"] / a["run"]["median_s"])
    assert {k: finished[k] for k in compare_reply} == compare_reply


def _variant(label: str, jaxpr: str, hlo: str, median: float | None) -> dict:
    run = None if median is None else {"median_s": median}
    return {"label": label, "jaxpr": jaxpr, "hlo": hlo, "run": run}


def test_finish_compare_ignores_frame_numbers_and_computes_the_ratio():
    reply = {"ok": True, "variants": [
        _variant("as written", "{ lambda ; a. let b = mul a a in (b,) }",
                 'add(a), metadata={op_name="add" stack_frame_id=1}', 2.0),
        _variant("second function", "{ lambda ; a. let b = add a a in (b,) }",
                 'add(a), metadata={op_name="add" stack_frame_id=9}', 3.0)]}
    finished = only_update(finish_compare, reply)
    assert finished["diff"]["hlo"] == ""
    assert "-{ lambda ; a. let b = mul a a in (b,) }" in finished["diff"]["jaxpr"]
    assert "+++ B: second function" in finished["diff"]["jaxpr"]
    assert finished["b_over_a"] == 1.5


@pytest.mark.parametrize(("a", "b"), [(None, 1.0), (1.0, None), (None, None), (0.0, 1.0)])
def test_finish_compare_without_both_times_has_no_ratio(a, b):
    reply = {"ok": True, "variants": [_variant("A", "", "", a), _variant("B", "", "", b)]}
    assert only_update(finish_compare, reply)["b_over_a"] is None
