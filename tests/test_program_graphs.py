"""playground.worker.jobs.graph: the jaxpr and the optimised HLO as graphs, checked on programs whose shape we know."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import pytest

from playground import gallery
from playground.worker.jobs import graph as program_graphs
from playground.worker.jobs.graph import GraphBuilder, fusion_boxes, graphs, hlo_graph, jaxpr_graph
from tests.owner_doubles import local_device

CUBIC = "def f(x):\n    return x + x*x + x*x*x\n"
BIG = "jnp.ones((1000, 1000))"
EXAMPLES = {example.name: example for example in gallery.COMPILER_EXAMPLES}
COND = EXAMPLES["lax.cond"]
SCAN = EXAMPLES["lax.scan: a running sum"]


@pytest.fixture(scope="module")
def cubic() -> dict:
    return graphs(CUBIC, BIG)


@pytest.fixture(scope="module")
def cond() -> dict:
    return graphs(COND.code, COND.args)


@pytest.fixture(scope="module")
def scan() -> dict:
    return graphs(SCAN.code, SCAN.args)


@pytest.fixture(scope="module")
def every_example() -> dict:
    return {e.name: graphs(e.code, e.args, tuple(int(n) for n in e.static_argnums.split(",") if n.strip()))
            for e in (*gallery.COMPILER_EXAMPLES, *gallery.EXAMPLES) if e.pure}


def _check_consistent(graph: dict) -> None:
    """Every id is one made here; every edge, node and cluster refers to things that exist."""
    nodes = {n["id"] for n in graph["nodes"]}
    clusters = {c["id"] for c in graph["clusters"]}
    assert len(nodes) == len(graph["nodes"]) and len(clusters) == len(graph["clusters"])
    assert all(re.fullmatch(r"n\d+", i) for i in nodes) and all(re.fullmatch(r"c\d+", i) for i in clusters)
    for edge in graph["edges"]:
        assert edge["from"] in nodes and edge["to"] in nodes, edge
        assert type(edge["dashed"]) is bool
    for node in graph["nodes"]:
        assert node["cluster"] is None or node["cluster"] in clusters, node
        assert node["line"] is None or (type(node["line"]) is int and node["line"] > 0)
        assert len(node["label"]) <= program_graphs.MAX_LABEL
    for cluster in graph["clusters"]:
        assert cluster["parent"] is None or cluster["parent"] in clusters, cluster
    assert type(graph["left_out"]) is int and graph["left_out"] >= 0


def _ops(graph: dict, cluster: str | None = "any") -> list[str]:
    return [n["label"].split("\n")[0] for n in graph["nodes"]
            if n["kind"] == "op" and (cluster == "any" or n["cluster"] == cluster)]


def _clusters(graph: dict, kind: str) -> list[dict]:
    return [c for c in graph["clusters"] if c["kind"] == kind]


# -- the fusion example ---------------------------------------------------------------------------------------------

def test_the_reply_names_the_function_and_device(cubic):
    assert cubic["ok"] is True, cubic
    assert cubic["function"] == "f"
    assert isinstance(cubic["device"], str) and cubic["device"]


def test_the_hlo_graph_has_one_fusion_around_the_four_elementwise_operations(cubic):
    hlo = cubic["hlo_graph"]
    [fusion] = hlo["clusters"]
    assert fusion["kind"] == "fusion" and fusion["parent"] is None
    assert fusion["label"].startswith("fusion: ")
    assert _ops(hlo, fusion["id"]) == ["multiply", "add", "multiply", "add"]
    assert _ops(hlo, None) == []  # nothing computed outside the kernel
    assert [n["kind"] for n in hlo["nodes"] if n["cluster"] is None] == ["input", "output"]


def test_fusions_list_the_operations_in_each_box(cubic):
    assert cubic["fusions"] == [{"label": cubic["hlo_graph"]["clusters"][0]["label"],
                                 "operations": ["multiply", "add", "multiply", "add"]}]
    assert fusion_boxes(cubic["hlo_graph"]) == cubic["fusions"]


def test_the_hlo_graph_flows_from_the_input_through_the_fusion_to_the_output(cubic):
    hlo = cubic["hlo_graph"]
    by_id = {n["id"]: n for n in hlo["nodes"]}
    [source] = [n["id"] for n in hlo["nodes"] if n["kind"] == "input"]
    [sink] = [n["id"] for n in hlo["nodes"] if n["kind"] == "output"]
    assert {by_id[e["to"]]["kind"] for e in hlo["edges"] if e["from"] == source} == {"op"}
    [into_output] = [e["from"] for e in hlo["edges"] if e["to"] == sink]
    assert by_id[into_output]["label"].startswith("add\n")
    assert by_id[into_output]["cluster"] == hlo["clusters"][0]["id"]


def test_the_jaxpr_graph_has_one_node_per_equation_and_no_clusters(cubic):
    jaxpr = cubic["jaxpr_graph"]
    assert jaxpr["clusters"] == []
    assert _ops(jaxpr) == ["mul", "add", "mul", "mul", "add"]
    assert [n["kind"] for n in jaxpr["nodes"]] == ["input", "op", "op", "op", "op", "op", "output"]
    assert jaxpr["nodes"][0]["label"] == "a:f32[1000,1000]"
    assert jaxpr["nodes"][-1]["label"] == "out 0: f32[1000,1000]"
    assert jaxpr["left_out"] == 0


def test_a_variable_read_twice_by_one_equation_is_one_arrow(cubic):
    edges = [(e["from"], e["to"]) for e in cubic["jaxpr_graph"]["edges"]]
    assert len(edges) == len(set(edges))
    first_mul = cubic["jaxpr_graph"]["nodes"][1]["id"]
    assert edges.count(("n0", first_mul)) == 1


def test_every_op_node_has_the_users_return_line(cubic):
    for key in ("jaxpr_graph", "hlo_graph"):
        ops = [n for n in cubic[key]["nodes"] if n["kind"] == "op"]
        assert ops and {n["line"] for n in ops} == {2}, key
        assert all(n["line"] is None for n in cubic[key]["nodes"] if n["kind"] != "op")


def test_graphs_are_consistent(cubic, cond, scan):
    for reply in (cubic, cond, scan):
        _check_consistent(reply["jaxpr_graph"])
        _check_consistent(reply["hlo_graph"])


# -- nested jaxprs: cond and scan -----------------------------------------------------------------------------------

def test_a_cond_is_a_call_cluster_around_one_jaxpr_cluster_per_branch(cond):
    jaxpr = cond["jaxpr_graph"]
    [call] = _clusters(jaxpr, "call")
    assert call["label"] == "cond" and call["parent"] is None
    branches = _clusters(jaxpr, "jaxpr")
    assert [(b["label"], b["parent"]) for b in branches] == [("branches[0]", call["id"]), ("branches[1]", call["id"])]
    assert _ops(jaxpr, call["id"]) == ["cond"]
    assert _ops(jaxpr, branches[0]["id"]) == ["neg"]  # the false branch first, as lax.cond orders them
    assert _ops(jaxpr, branches[1]["id"]) == ["mul"]


def test_the_cond_node_feeds_each_branchs_inputs_with_dashed_arrows(cond):
    jaxpr = cond["jaxpr_graph"]
    [cond_node] = [n["id"] for n in jaxpr["nodes"] if n["label"].startswith("cond\n")]
    by_id = {n["id"]: n for n in jaxpr["nodes"]}
    dashed = [e for e in jaxpr["edges"] if e["dashed"]]
    assert dashed and all(e["from"] == cond_node for e in dashed)
    assert sorted(by_id[e["to"]]["kind"] for e in dashed) == ["inner_input", "inner_input"]
    assert {by_id[e["to"]]["cluster"] for e in dashed} == {c["id"] for c in _clusters(jaxpr, "jaxpr")}


def test_the_cond_in_the_hlo_is_a_conditional_around_its_branch_computations(cond):
    hlo = cond["hlo_graph"]
    [conditional] = [c for c in _clusters(hlo, "call") if c["label"] == "conditional"]
    branches = [c for c in _clusters(hlo, "computation") if c["parent"] == conditional["id"]]
    assert len(branches) == 2
    assert all(c["label"].startswith("branch_computations: ") for c in branches)
    assert {n["kind"] for n in hlo["nodes"] if n["label"].split("\n")[0] in ("tuple", "get-tuple-element")} == {
        "plumbing"}


def test_a_scan_is_a_call_cluster_around_its_body_jaxpr(scan):
    jaxpr = scan["jaxpr_graph"]
    [call] = _clusters(jaxpr, "call")
    assert call["label"] == "scan"
    [body] = _clusters(jaxpr, "jaxpr")
    assert (body["label"], body["parent"]) == ("jaxpr", call["id"])
    assert "add" in _ops(jaxpr, body["id"])
    assert [n["kind"] for n in jaxpr["nodes"] if n["cluster"] == body["id"] and "input" in n["kind"]] == [
        "inner_input", "inner_input"]


def test_scan_nodes_carry_the_lines_they_came_from(scan):
    lines = {n["label"].split("\n")[0]: n["line"] for n in scan["jaxpr_graph"]["nodes"] if n["kind"] == "op"}
    assert lines["scan"] == 5  # return lax.scan(step, 0.0, xs)
    assert lines["add"] == 3  # total = total + x


def test_a_scan_in_the_hlo_is_a_while_with_its_condition_and_body(scan):
    hlo = scan["hlo_graph"]
    [loop] = [c for c in _clusters(hlo, "call") if c["label"] == "while"]
    inside = sorted(c["label"].split(":")[0] for c in hlo["clusters"] if c["parent"] == loop["id"])
    assert inside == ["body", "condition"]


def test_every_example_gives_consistent_graphs(every_example):
    for name, reply in every_example.items():
        assert reply["ok"] is True, (name, reply)
        _check_consistent(reply["jaxpr_graph"])
        _check_consistent(reply["hlo_graph"])
        assert reply["fusions"] == fusion_boxes(reply["hlo_graph"])


# -- caps -----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("most", [0, 1, 3, 5])
def test_max_nodes_caps_both_graphs_and_counts_what_it_left_out(cubic, most):
    capped = graphs(CUBIC, BIG, max_nodes=most)
    for key in ("jaxpr_graph", "hlo_graph"):
        graph, full = capped[key], cubic[key]
        assert len(graph["nodes"]) == min(most, len(full["nodes"]))
        assert len(graph["nodes"]) + graph["left_out"] == len(full["nodes"])
        assert graph["left_out"] > 0
        assert graph["nodes"] == full["nodes"][:most]
        _check_consistent(graph)


def test_the_builder_stops_at_max_nodes_and_counts_each_refused_node():
    builder = GraphBuilder(2)
    a, b, c, d = (builder.node(name, "op") for name in "abcd")
    assert (a, b, c, d) == ("n0", "n1", None, None)
    builder.edge(a, b)
    builder.edge(b, c)  # to a node left out: no edge
    builder.edge(a, b)  # the same arrow again: once
    assert builder.to_dict()["edges"] == [{"from": "n0", "to": "n1", "dashed": False}]
    assert builder.to_dict()["left_out"] == 2


def test_the_builder_caps_labels_and_keeps_only_positive_whole_lines():
    builder = GraphBuilder(10)
    builder.node("x" * 1000, "op", line=True)
    builder.node("y", "op", line=0)
    builder.node("z", "op", line=7)
    nodes = builder.to_dict()["nodes"]
    assert len(nodes[0]["label"]) == program_graphs.MAX_LABEL
    assert [n["line"] for n in nodes] == [None, None, 7]


def test_the_builder_caps_edges_at_four_per_node_allowed():
    builder = GraphBuilder(2)
    for i in range(50):
        builder.edge(f"n{i}", f"n{i + 1}")
    assert [e["from"] for e in builder.to_dict()["edges"]] == ["n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"]


# -- jaxpr_graph and hlo_graph on their own -------------------------------------------------------------------------

def test_jaxpr_graph_names_variables_as_jax_prints_them():
    closed = jax.make_jaxpr(lambda x, y: jnp.sin(x) * y + 1.0)(jnp.ones(3), jnp.ones(3))
    graph = jaxpr_graph(closed, 100)
    assert [n["label"] for n in graph["nodes"] if n["kind"] == "input"] == ["a:f32[3]", "b:f32[3]"]
    assert [n["label"] for n in graph["nodes"] if n["kind"] == "op"] == ["sin\nc:f32[3]", "mul\nd:f32[3]",
                                                                         "add\ne:f32[3]"]
    assert [n["label"] for n in graph["nodes"] if n["kind"] == "literal"] == ["1.0"]
    _check_consistent(graph)


def test_jaxpr_graph_of_code_outside_the_users_file_has_no_lines():
    graph = jaxpr_graph(jax.make_jaxpr(lambda x: x * 2)(1.0), 100)
    assert all(n["line"] is None for n in graph["nodes"])


def test_jaxpr_graph_draws_constants():
    table = jnp.arange(3.0)
    closed = jax.make_jaxpr(lambda x: x + table)(jnp.ones(3))
    graph = jaxpr_graph(closed, 100)
    kinds = [n["kind"] for n in graph["nodes"]]
    assert kinds.count("constant") == len(closed.jaxpr.constvars)
    _check_consistent(graph)


def test_deeply_nested_jits_stop_being_drawn_inside_at_the_depth_limit():
    def nest(depth):
        if depth == 0:
            return lambda x: x + 1.0
        inner = nest(depth - 1)
        return jax.jit(lambda x: inner(x) * 2.0)

    graph = jaxpr_graph(jax.make_jaxpr(nest(10))(1.0), 1000)
    calls = _clusters(graph, "call")
    assert 0 < len(calls) <= program_graphs._MAX_DEPTH + 1
    _check_consistent(graph)


HAND_WRITTEN = """HloModule jit_f

%fused_computation (param_0.1: f32[4], param_1: f32[4]) -> f32[4] {
  %param_0.1 = f32[4]{0} parameter(0)
  %param_1 = f32[4]{0} parameter(1)
  %mul = f32[4]{0} multiply(%param_0.1, %param_1)
  ROOT %add = f32[4]{0} add(%mul, %param_1)
}

ENTRY %main (x: f32[4], y: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %y = f32[4]{0} parameter(1)
  %neg = f32[4]{0} negate(%y)
  ROOT %fusion = f32[4]{0} fusion(%x, %neg), kind=kLoop, calls=%fused_computation
}
"""


def test_hlo_graph_connects_a_fusions_parameters_to_the_outer_operands_by_number():
    lines = HAND_WRITTEN.splitlines()
    user_lines = [3 if "%mul =" in line else 4 if "%neg =" in line else None for line in lines]
    graph = hlo_graph(HAND_WRITTEN, user_lines, 100)
    labels = {n["id"]: n["label"].split("\n")[0] for n in graph["nodes"]}
    edges = {(labels[e["from"]], labels[e["to"]]) for e in graph["edges"]}
    assert edges == {("x", "multiply"), ("negate", "multiply"), ("y", "negate"), ("multiply", "add"),
                     ("negate", "add"), ("add", "output")}
    [fusion] = graph["clusters"]
    assert fusion == {"id": "c0", "label": "fusion: fusion", "kind": "fusion", "parent": None}
    assert {n["label"].split("\n")[0]: n["line"] for n in graph["nodes"] if n["kind"] == "op"} == {
        "negate": 4, "multiply": 3, "add": None}
    _check_consistent(graph)


def test_hlo_graph_without_an_entry_is_empty():
    assert hlo_graph("HloModule m\n", [], 100) == {"nodes": [], "edges": [], "clusters": [], "left_out": 0}


def test_a_reductions_tiny_computation_is_not_drawn_inside_it():
    reply = graphs("def f(x):\n    return jnp.sum(x)\n", "jnp.ones(8)")
    hlo = reply["hlo_graph"]
    assert not _clusters(hlo, "computation")
    assert "reduce" in _ops(hlo)


@pytest.mark.parametrize(("code", "args", "kind"), [
    ("def f(x:\n    return x\n", "1.0", "syntax"),
    ("def f(x):\n    return x\n", "(1.0, 2.0)", "invalid_input"),
])
def test_a_user_error_is_an_error_dict(code, args, kind):
    reply = graphs(code, args)
    assert reply["ok"] is False and reply["error"]["kind"] == kind


def test_graph_job_passes_the_static_argnums():
    from playground.ipc.limits import Limits

    for on_accelerator in (False, True):
        reply = program_graphs.graph_job(Limits(), "def f(x, n):\n    return x * n\n", "(jnp.ones(2), 3)", [1],
                                         on_accelerator, local_device())
        assert reply["ok"] is True, reply
        assert [n["label"] for n in reply["jaxpr_graph"]["nodes"] if n["kind"] == "input"] == ["a:f32[2]"]


def test_the_graph_job_compiles_on_the_device_only_when_asked(monkeypatch):
    from playground.ipc.limits import Limits

    seen = []
    monkeypatch.setattr(program_graphs, "graphs", lambda *args, **kwargs: seen.append(kwargs["device"]))
    device = local_device()
    program_graphs.graph_job(Limits(), CUBIC, "1.0", [], False, device)
    program_graphs.graph_job(Limits(), CUBIC, "1.0", [], True, device)
    assert seen == [None, device]


# -- on the device: the HLO the owner compiled, drawn here ---------------------------------------------------------


@pytest.mark.parametrize("example", [e for e in (*gallery.COMPILER_EXAMPLES, *gallery.EXAMPLES) if e.pure],
                         ids=lambda e: e.name)
def test_on_the_device_every_example_draws_the_graphs_of_the_program_the_owner_compiled(example):
    """The owner here is this process's CPU: its compile of the exported program is the one made here, fused alike."""
    static = tuple(int(n) for n in example.static_argnums.split(",") if n.strip())
    here = graphs(example.code, example.args, static)
    there = graphs(example.code, example.args, static, device=local_device())
    assert there["ok"] is True, there
    assert there["device"] == "cpu" and there["function"] == here["function"]
    assert there["jaxpr_graph"] == here["jaxpr_graph"]  # traced in the worker either way
    assert there["fusions"] == here["fusions"] and _ops(there["hlo_graph"]) == _ops(here["hlo_graph"])
    _check_consistent(there["hlo_graph"])


def test_on_the_device_shape_dtype_struct_arguments_are_compiled():
    reply = graphs(CUBIC, "jax.ShapeDtypeStruct((1000, 1000), jnp.float32)", device=local_device())
    assert reply["ok"] is True, reply
    assert reply["fusions"] == graphs(CUBIC, "jax.ShapeDtypeStruct((1000, 1000), jnp.float32)")["fusions"]
