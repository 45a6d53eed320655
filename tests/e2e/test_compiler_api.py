"""/passes, /graph and /compare end to end: a real server, driven with gradio_client.

The function is JAX's introduction's ``x + x*x + x*x*x`` on a 1000 x 1000 array, where XLA
fuses the four elementwise operations into one kernel: /passes shows the fusion pass
doing it, /graph boxes the fused operations, /compare with fusion off counts four
kernels instead of one. Each endpoint streams its updates; the last one is the answer.
"""

from __future__ import annotations

import concurrent.futures
import math
import re

import pytest

from playground.gallery import COMPILER_EXAMPLES, EXAMPLES
from tests.e2e.responses import assert_error, ok

CODE = "def f(x):\n    return x + x*x + x*x*x\n"
ARGS = "jnp.ones((1000, 1000))"
HORNER = "def f(x):\n    return x * (1 + x * (1 + x))\n"  # the same polynomial, two multiplies and two adds
BROKEN = "def f(x):\n    return x +\n"
TIMEOUT_S = 240  # a job on a busy 2-core machine, the wait in line included
PASSES_KEYS = {"ok", "function", "device", "passes", "modules", "module_lines", "counts", "exhaustive", "compile_s",
               "dump_bytes", "notices"}
PASS_KEYS = {"index", "pipeline", "name", "nested", "changed", "instructions", "before", "after", "about"}
GRAPH_KEYS = {"ok", "function", "device", "jaxpr_svg", "hlo_svg", "jaxpr_graph", "hlo_graph", "jaxpr_dot", "hlo_dot",
              "fusions", "renderer", "line_colours"}
COMPARE_KEYS = {"ok", "device", "setting", "variants", "diff", "b_over_a", "same_result", "max_abs_diff", "notes"}
VARIANT_KEYS = {"label", "what", "jaxpr", "hlo", "kernels", "hlo_instructions", "jaxpr_equations", "cost", "memory",
                "compile_s", "run", "result"}


def last_update(client, *args, api_name: str) -> dict:
    """The endpoint's last streamed update (its answer); an exception or no answer in time is a failure."""
    job = client.submit(*args, api_name=api_name)
    try:
        result = job.result(timeout=TIMEOUT_S)
    except concurrent.futures.TimeoutError:
        pytest.fail(f"{api_name} gave no answer within {TIMEOUT_S} s")
    except BaseException as exc:  # CancelledError is a BaseException
        pytest.fail(f"{api_name}: the client got {type(exc).__name__}: {exc} instead of a response")
    updates = job.outputs()
    assert updates, f"{api_name} streamed nothing"
    assert updates[-1] == result
    assert isinstance(result, dict), result
    return result


def passes(client, code: str = CODE, args: str = ARGS, static_argnums=None) -> dict:
    return last_update(client, code, args, static_argnums, False, api_name="/passes")


def graph(client, code: str = CODE, args: str = ARGS, static_argnums=None) -> dict:
    return last_update(client, code, args, static_argnums, False, api_name="/graph")


def compare(client, code: str = CODE, args: str = ARGS, second_code: str = "", setting: str = "",
            static_argnums=None) -> dict:
    return last_update(client, code, args, second_code, setting, static_argnums, False, api_name="/compare")


def entry(module: str) -> str:
    """The ENTRY computation of an HLO module's text."""
    found = re.search(r"^ENTRY .*?^}", module, re.MULTILINE | re.DOTALL)
    assert found, module[:2000]
    return found.group(0)


def clusters_in(svg: str) -> int:
    return svg.count('class="cluster"')


@pytest.fixture(scope="module")
def passes_reply(client) -> dict:
    return ok(passes(client))


@pytest.fixture(scope="module")
def graph_reply(client, graphviz) -> dict:
    return ok(graph(client))


@pytest.fixture(scope="module")
def fusion_off(client) -> dict:
    return ok(compare(client, setting="fusion: off"))


# -- /passes --------------------------------------------------------------------------------------------------


def test_passes_lists_each_pass_with_its_pipeline_name_and_change(passes_reply):
    assert set(passes_reply) >= PASSES_KEYS, set(passes_reply) ^ PASSES_KEYS
    assert passes_reply["function"] == "f"
    records = passes_reply["passes"]
    assert isinstance(records, list) and len(records) > 10, records[:3]
    for i, record in enumerate(records):
        assert set(record) == PASS_KEYS, record
        assert record["index"] == i
        assert isinstance(record["pipeline"], str) and record["pipeline"], record
        assert isinstance(record["name"], str) and record["name"], record
        assert isinstance(record["changed"], bool), record
        for key in ("before", "after"):
            assert record[key] is None or 0 <= record[key] < len(passes_reply["modules"]), record
    counts = passes_reply["counts"]
    assert counts["passes"] == len(records)
    assert counts["changed"] == sum(r["changed"] for r in records) > 0
    assert counts["changed"] + counts["unchanged"] == len(records)
    assert counts["pipelines"] == len({r["pipeline"] for r in records})
    assert passes_reply["exhaustive"] is True  # a small program: every pass was recorded
    assert passes_reply["dump_bytes"] > 0 and passes_reply["compile_s"] > 0
    assert len(passes_reply["module_lines"]) == len(passes_reply["modules"])


def test_a_pass_that_changed_nothing_reads_and_writes_the_same_module(passes_reply):
    unchanged = [r for r in passes_reply["passes"] if not r["changed"] and not r["nested"]]
    assert unchanged, "every pass changed the module"
    for record in unchanged:
        assert record["before"] == record["after"], record


def test_the_fusion_pass_makes_one_fusion_of_the_elementwise_ops(passes_reply):
    fusions = [r for r in passes_reply["passes"] if r["name"] == "fusion"]
    assert fusions, [r["name"] for r in passes_reply["passes"]]
    fusion = fusions[0]
    assert fusion["changed"] is True, fusion
    assert fusion["before"] is not None and fusion["after"] is not None, fusion
    before = entry(passes_reply["modules"][fusion["before"]])
    after_module = passes_reply["modules"][fusion["after"]]
    after = entry(after_module)
    assert " fusion(" not in before, before
    assert len(re.findall(r" multiply\(", before)) >= 2 and len(re.findall(r" add\(", before)) == 2, before
    assert len(re.findall(r" fusion\(", after)) == 1, after
    assert not re.search(r" (multiply|add)\(", after), after  # all four now live in the fused computation
    fused = after_module.split("ENTRY", 1)[0]
    assert re.search(r" multiply\(", fused) and re.search(r" add\(", fused), after_module
    assert fusion["about"], fusion  # a pass a learner should know: it has a sentence


def test_passes_with_static_argnums(client):
    reply = ok(passes(client, "def f(x, n):\n    for _ in range(n):\n        x = x * 2\n    return x\n",
                      "(jnp.ones(3), 3)", static_argnums=[1]))
    assert reply["passes"] and reply["counts"]["changed"] > 0


# -- /graph ---------------------------------------------------------------------------------------------------


def test_graph_draws_both_programs_as_svg(graph_reply):
    assert set(graph_reply) >= GRAPH_KEYS, set(graph_reply) ^ GRAPH_KEYS
    for key in ("jaxpr_svg", "hlo_svg"):
        svg = graph_reply[key]
        assert isinstance(svg, str) and svg.startswith("<svg"), svg[:200]
        assert svg.rstrip().endswith("</svg>"), svg[-200:]
        assert "<script" not in svg.lower()
    for key in ("jaxpr_dot", "hlo_dot"):
        assert graph_reply[key].startswith("digraph program {"), graph_reply[key][:200]
    assert graph_reply["renderer"] == {"available": True, "problem": None}


def test_the_hlo_graph_boxes_the_one_fusion(graph_reply):
    assert clusters_in(graph_reply["hlo_svg"]) == 1, graph_reply["hlo_dot"]
    fusions = graph_reply["fusions"]
    assert len(fusions) == 1, fusions
    assert sorted(fusions[0]["operations"]) == ["add", "add", "multiply", "multiply"], fusions
    assert fusions[0]["label"].startswith("fusion"), fusions


def test_the_jaxpr_graph_has_one_node_per_equation_and_no_cluster(graph_reply):
    jaxpr = graph_reply["jaxpr_graph"]
    ops = [n["label"].split("\n")[0] for n in jaxpr["nodes"] if n["kind"] == "op"]
    assert sorted(ops) == ["add", "add", "mul", "mul", "mul"], ops  # x*x twice: JAX traces what was written
    assert jaxpr["clusters"] == [] and clusters_in(graph_reply["jaxpr_svg"]) == 0
    assert {n["line"] for n in jaxpr["nodes"] if n["kind"] == "op"} == {2}
    assert set(graph_reply["line_colours"]) == {"2"}


NESTED = {
    "lax.cond": (next(e for e in COMPILER_EXAMPLES if e.name == "lax.cond"), "cond", 2),
    "lax.scan": (next(e for e in COMPILER_EXAMPLES if e.name.startswith("lax.scan")), "scan", 1),
    "lax.cond instead of if": (next(e for e in EXAMPLES if e.name == "lax.cond instead of if"), "cond", 2),
}


@pytest.mark.parametrize("name", list(NESTED))
def test_the_jaxpr_graph_nests_the_inner_jaxprs(client, name):
    example, primitive, inner = NESTED[name]
    reply = ok(graph(client, example.code, example.args))
    clusters = reply["jaxpr_graph"]["clusters"]
    outer = [c for c in clusters if c["kind"] == "call" and c["label"] == primitive]
    assert len(outer) == 1, clusters
    children = [c for c in clusters if c["parent"] == outer[0]["id"]]
    assert len(children) == inner and all(c["kind"] == "jaxpr" for c in children), clusters
    nodes_inside = [n for n in reply["jaxpr_graph"]["nodes"] if n["cluster"] in {c["id"] for c in children}]
    assert nodes_inside, reply["jaxpr_graph"]
    if reply["renderer"]["available"]:
        assert reply["jaxpr_svg"].startswith("<svg")
        assert clusters_in(reply["jaxpr_svg"]) == len(clusters), reply["jaxpr_dot"]
        for child in children:  # in the DOT text, each inner jaxpr's box is inside the primitive's box
            dot = reply["jaxpr_dot"]
            start = dot.index(f"subgraph cluster_{outer[0]['id']} {{")
            assert dot.index(f"subgraph cluster_{child['id']} {{") > start


# -- /compare -------------------------------------------------------------------------------------------------


def test_compare_with_fusion_off_counts_four_kernels_instead_of_one(fusion_off):
    assert set(fusion_off) >= COMPARE_KEYS, set(fusion_off) ^ COMPARE_KEYS
    assert fusion_off["setting"] == "fusion: off"
    a, b = fusion_off["variants"]
    for variant in (a, b):
        assert set(variant) >= VARIANT_KEYS, set(variant) ^ VARIANT_KEYS
    assert (a["kernels"], b["kernels"]) == (1, 4), (a["kernels"], b["kernels"])
    assert b["hlo_instructions"] > a["hlo_instructions"]
    assert a["jaxpr_equations"] == b["jaxpr_equations"] == 5
    assert fusion_off["same_result"] is True and fusion_off["max_abs_diff"] == 0.0


def test_compare_times_both_versions(fusion_off):
    for variant in fusion_off["variants"]:
        run = variant["run"]
        assert run is not None, variant
        assert run["median_s"] > 0 and math.isfinite(run["median_s"]), run
        assert run["runs"] >= 3, run
    assert isinstance(fusion_off["b_over_a"], float) and fusion_off["b_over_a"] > 0


def test_compare_diffs_the_hlo_not_the_jaxpr(fusion_off):
    diff = fusion_off["diff"]
    assert diff["hlo"], diff
    assert diff["hlo"].startswith("--- A: as written\n+++ B: fusion off"), diff["hlo"][:200]
    assert diff["jaxpr"] == "", diff["jaxpr"]  # one function: the same jaxpr


def test_compare_with_a_second_function(client):
    reply = ok(compare(client, second_code=HORNER))
    assert reply["setting"] is None
    a, b = reply["variants"]
    assert a["label"] == "as written" and b["label"] == "second function"
    assert a["jaxpr_equations"] == 5 and b["jaxpr_equations"] == 4, (a["jaxpr"], b["jaxpr"])
    assert reply["diff"]["jaxpr"] and reply["diff"]["hlo"]
    assert reply["same_result"] is True
    assert all(v["run"] and v["run"]["median_s"] > 0 for v in reply["variants"])


# -- errors are answers ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("endpoint", ["/passes", "/graph", "/compare"])
def test_a_syntax_error_is_an_error_dict(client, endpoint):
    if endpoint == "/compare":
        reply = compare(client, BROKEN, setting="fusion: off")
    else:
        reply = last_update(client, BROKEN, ARGS, None, False, api_name=endpoint)
    assert_error(reply, "syntax", line=2)


@pytest.mark.parametrize("endpoint", ["/passes", "/graph", "/compare"])
@pytest.mark.parametrize("args", ["jnp.ones((", "undefined_name + 1", "jnp.ones(3), jnp.ones(3)"])
def test_bad_arguments_are_an_error_dict(client, endpoint, args):
    if endpoint == "/compare":
        reply = compare(client, CODE, args, setting="fusion: off")
    else:
        reply = last_update(client, CODE, args, None, False, api_name=endpoint)
    assert_error(reply, "invalid_input")


@pytest.mark.parametrize(("second_code", "setting"), [
    ("", "turbo: on"),  # no such setting
    (HORNER, "fusion: off"),  # both
    ("", ""),  # neither: no version B
    ("   \n", ""),  # blank is neither
])
def test_compare_needs_exactly_one_version_b(client, second_code, setting):
    error = assert_error(compare(client, second_code=second_code, setting=setting), "invalid_input")
    assert "setting" in error["message"], error


def test_an_error_in_version_b_says_so(client):
    error = assert_error(compare(client, second_code=BROKEN), "syntax")
    assert error["message"].startswith("Version B (the second function): "), error


def test_an_error_in_the_function_is_the_users(client):
    code = "def f(x):\n    raise ValueError('no')\n"
    for endpoint in ("/passes", "/graph"):
        assert_error(last_update(client, code, ARGS, None, False, api_name=endpoint), "user_exception", line=2)
    assert_error(compare(client, code, setting="fusion: off"), "user_exception", line=2)


@pytest.mark.parametrize("static_argnums", [[5], [-1]])
def test_bad_static_argnums_are_an_error_dict(client, static_argnums):
    assert_error(passes(client, static_argnums=static_argnums), "invalid_input")
