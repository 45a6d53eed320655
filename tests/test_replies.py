"""Each job kind's reply schema: real replies pass, forged or malformed ones are refused as a whole."""

from __future__ import annotations

import copy
import math
import os

import pytest

from playground import jobs, replies
from playground.ipc.limits import Limits
from playground.server.pools import WorkerPool

JOBS = {
    "inspect": {"kind": "inspect", "code": "def f(x, n):\n    print(n)\n    return {'a': x * n, 'b': [jnp.sin(x)]}\n",
                "args": "(jnp.arange(3.0), 2)", "static_argnums": [1], "second_args": "(jnp.arange(4.0), 2)",
                "on_accelerator": False},
    "derivatives": {"kind": "derivatives", "code": "def f(x):\n    return jnp.tanh(x)\n", "order": 3,
                    "x_min": -1.0, "x_max": 1.0, "points": 9},
    "gradient": {"kind": "gradient", "code": "def f(x):\n    return jnp.sum(jnp.log(x))\n", "point": "jnp.arange(3.0)"},
    "vmap": {"kind": "vmap", "code": "def f(p, x):\n    return p['w'] * x\n",
             "args": "({'w': 2.0, 'b': 1.0}, jnp.ones(3))", "in_axes": "({'w': None, 'b': None}, 0)",
             "out_axes": "0", "batch_sizes": [1, 3]},
    "jit_speed": {"kind": "jit_speed", "code": "def f(x):\n    return x + x*x\n", "sizes": [8, 16], "repeats": 2},
    "about": {"kind": "about"},
}


@pytest.fixture(scope="module")
def real(pool, tmp_path_factory) -> dict:
    """Real replies of real sandboxed workers (the pool checks their framing, not their schema); the kinds that
    measure on the device in the device's line, with a real owner of this host's CPU."""
    from playground.server.device_owner.device_pool import DevicePool
    from tests.conftest import HANDLERS
    from tests.training_owner import running_owner

    with running_owner(os.environ, tmp_path_factory.mktemp("runs")) as owner:
        line = DevicePool(WorkerPool(1, Limits(timeout_s=60.0), HANDLERS), owner)
        line.start()
        try:
            return {kind: (line if jobs.REGISTRY[kind].device else pool).run(job, timeout_s=60)
                    for kind, job in JOBS.items()}
        finally:
            line.close()


def _schema(kind: str):
    return jobs.REGISTRY[kind].reply


@pytest.mark.slow  # a real worker pool
@pytest.mark.parametrize("kind", list(JOBS))
def test_real_replies_fit_their_schema(real, kind):
    assert real[kind]["ok"] is True, real[kind]
    assert replies.check(_schema(kind), real[kind]) is real[kind]


def test_error_replies_pass_through_unchanged():
    error = {"ok": False, "error": {"kind": "syntax", "message": "x", "line": 1}}
    assert replies.check(_schema("inspect"), error) is error


def _refused(kind: str, reply: dict) -> str:
    result = replies.check(_schema(kind), reply)
    assert result["ok"] is False and result["error"]["kind"] == "forbidden", result
    return result["error"]["message"]


@pytest.mark.parametrize(("path", "value", "words"), [
    (("line_map", "jaxpr", 0), '1" onmouseover="alert(1)', "line_map.jaxpr[0]"),
    (("line_map", "jaxpr", 0), 0, "line_map.jaxpr[0]"),
    (("function",), "<img src=x onerror=alert(1)>", "not a Python name"),
    (("jaxpr",), 42, "jaxpr is not text"),
    (("jaxpr",), "x" * 300_000, "longer than"),
    (("trace_s",), "fast", "trace_s"),
    (("trace_s",), -1.0, "trace_s"),
    (("trace_s",), math.inf, "trace_s"),
    (("result",), ["not", "text"], "result"),
    (("purity",), [{"check": "static", "line": 1, "message": "m", "extra": 1}], "unknown field 'extra'"),
    (("purity",), [{"check": "made up", "line": 1, "message": "m"}], "check"),
    (("static_argnums",), [True], "static_argnums[0]"),
    (("warnings",), ["w"] * 2000, "more than 1,000 items"),
    (("pytree", "inputs", "leaves"), [{"key_path": "", "shape": [-1], "dtype": "f32"}], "shape[0]"),
], ids=lambda v: str(v)[:30])
@pytest.mark.slow  # a real worker pool
def test_a_forged_field_refuses_the_whole_reply(real, path, value, words):
    forged = copy.deepcopy(real["inspect"])
    target = forged
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert words in _refused("inspect", forged)


@pytest.mark.slow  # a real worker pool
def test_missing_and_unknown_fields_are_refused(real):
    assert "lacks 'jaxpr'" in _refused("inspect", {k: v for k, v in real["inspect"].items() if k != "jaxpr"})
    assert "unknown field 'html'" in _refused("inspect", {**real["inspect"], "html": "<b>x</b>"})
    assert "lacks" in _refused("inspect", {"ok": True})


@pytest.mark.slow  # a real worker pool
def test_forged_numbers_and_axes_are_refused(real):
    vmap = copy.deepcopy(real["vmap"])
    vmap["in_axes"] = [{"w": "<script>"}]
    assert "in_axes" in _refused("vmap", vmap)
    jit = copy.deepcopy(real["jit_speed"])
    jit["jit_s"] = [1e300]
    assert "jit_s[0]" in _refused("jit_speed", jit)
    derivatives = copy.deepcopy(real["derivatives"])
    derivatives["orders"][0]["reference"] = "<b>trust me</b>"
    assert "reference" in _refused("derivatives", derivatives)


@pytest.mark.slow  # a real worker pool
def test_nested_arrays_are_bounded(real):
    gradient = copy.deepcopy(real["gradient"])
    gradient["hessian"] = [[[[[[1.0]]]]]]
    assert "nested too deeply" in _refused("gradient", gradient)
    gradient["hessian"] = [["1.0"]]
    assert "hessian" in _refused("gradient", gradient)


def test_shard_placement_must_be_numbers():
    placement = [[{"device": 0, "index": [[0, 4]]}]]
    reply = {"ok": True, "function": "f", "n_devices": 1, "mesh": {"shape": [1], "axis_names": ["data"],
                                                                    "devices": [0]},
             "placement": placement, "shapes": [[4]], "result": "f32[4]", "out_placement": placement[0],
             "matches_unsharded": True, "max_abs_diff": 0.0, "tolerance": 1e-6, "mismatch": None,
             "rounding": {"terms": 1, "relative": 1e-7, "scale": 4.0, "inputs_moved": True}, "collectives": [],
             "hlo_collective_lines": [], "stdout": ""}
    assert replies.check(_schema("shard"), reply) is reply
    forged = copy.deepcopy(reply)
    forged["placement"][0][0]["index"] = [["0</span><script>", 4]]
    assert "index" in _refused("shard", forged)
    forged = copy.deepcopy(reply)
    forged["mesh"]["axis_names"] = ["data onmouseover=x"]
    assert "axis_names" in _refused("shard", forged)


# -- the Compiler tab's replies: passes, graph, compare ----------------------------------------------------------------

COMPILER_CODE = "def f(x):\n    return lax.cond(x.sum() > 0, lambda v: v * 2, lambda v: -v, x)\n"


@pytest.fixture(scope="module")
def compiler_real(tmp_path_factory) -> dict:
    """Real replies of the compiler handlers, made in this process (their schema is what is tested, not the pool)."""
    from playground.worker.jobs import compare
    from playground.worker.jobs import graph as program_graphs
    from playground.worker.jobs import passes as pass_pipeline

    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path_factory.mktemp("scratch"))  # the pass dump goes below the working directory
        return {
            "passes": pass_pipeline.passes(COMPILER_CODE, "jnp.arange(4.0)", 200_000, 32 << 20),
            "graph": program_graphs.graphs(COMPILER_CODE, "jnp.arange(4.0)"),
            "compare": compare.compare(COMPILER_CODE, "jnp.arange(4.0)", 200_000, setting="fusion: off",
                                       timing_budget_s=0.01),
        }


@pytest.mark.parametrize("kind", ["passes", "graph", "compare"])
def test_real_compiler_replies_fit_their_schema(compiler_real, kind):
    assert compiler_real[kind]["ok"] is True, compiler_real[kind]
    assert replies.check(_schema(kind), compiler_real[kind]) is compiler_real[kind]


@pytest.mark.parametrize(("kind", "field"), [
    ("graph", "jaxpr_svg"), ("graph", "hlo_svg"), ("graph", "jaxpr_dot"), ("graph", "renderer"),
    ("graph", "line_colours"), ("compare", "diff"), ("compare", "b_over_a"),
])
def test_what_only_the_server_adds_is_refused_from_a_worker(compiler_real, kind, field):
    forged = {**compiler_real[kind], field: '<svg onload="alert(1)"/>'}
    assert f"unknown field '{field}'" in _refused(kind, forged)


def test_a_pass_note_sent_by_a_worker_is_refused(compiler_real):
    forged = copy.deepcopy(compiler_real["passes"])
    forged["passes"][0]["about"] = "<b>made up</b>"
    assert "unknown field 'about'" in _refused("passes", forged)


@pytest.mark.parametrize("bad_id", ["n0; evil", 'n0" [label="x', "n 0", "", "0n", 7, None, "n" * 201])
@pytest.mark.parametrize("where", ["node", "edge_from", "edge_to", "cluster", "node_cluster", "cluster_parent"])
def test_a_graph_id_that_is_not_a_python_name_is_refused(compiler_real, bad_id, where):
    forged = copy.deepcopy(compiler_real["graph"])
    graph = forged["jaxpr_graph"]
    if where == "node":
        graph["nodes"][0]["id"] = bad_id
    elif where == "edge_from":
        graph["edges"][0]["from"] = bad_id
    elif where == "edge_to":
        graph["edges"][0]["to"] = bad_id
    elif where == "cluster":
        graph["clusters"][0]["id"] = bad_id
    elif where == "node_cluster":
        graph["nodes"][0]["cluster"] = bad_id
    else:
        graph["clusters"][0]["parent"] = bad_id
    if bad_id is None and where in ("node_cluster", "cluster_parent"):  # no cluster: allowed
        assert replies.check(_schema("graph"), forged) is forged
        return
    assert "jaxpr_graph" in _refused("graph", forged)


@pytest.mark.parametrize(("kind", "path", "value", "words"), [
    ("graph", ("hlo_graph", "nodes"), [{"id": "n0", "label": "x", "kind": "op", "line": None, "cluster": None}] * 1001,
     "more than 1,000 items"),
    ("graph", ("hlo_graph", "edges"), [{"from": "n0", "to": "n1", "dashed": False}] * 4001, "more than 4,000 items"),
    ("graph", ("fusions",), [{"label": "f", "operations": []}] * 1001, "more than 1,000 items"),
    ("graph", ("hlo_graph", "nodes", 0, "kind"), "script", "kind"),
    ("graph", ("hlo_graph", "clusters", 0, "kind"), "iframe", "kind"),
    ("graph", ("hlo_graph", "nodes", 0, "label"), "x" * 201, "longer than"),
    ("graph", ("hlo_graph", "nodes", 0, "line"), 0, "line"),
    ("graph", ("hlo_graph", "edges", 0, "dashed"), "yes", "dashed"),
    ("graph", ("hlo_graph", "left_out"), -1, "left_out"),
    ("graph", ("function",), "<img src=x>", "not a Python name"),
    ("passes", ("passes",), [], None),  # an empty list is fine
    ("passes", ("notices",), ["n"] * 101, "more than 100 items"),
    ("passes", ("passes", 0, "before"), -1, "before"),
    ("passes", ("passes", 0, "after"), "0", "after"),
    ("passes", ("passes", 0, "changed"), "yes", "changed"),
    ("passes", ("passes", 0, "name"), "x" * 301, "longer than"),
    ("passes", ("counts", "passes"), 1.5, "counts.passes"),
    ("passes", ("module_lines", 0), ["2"], "module_lines[0][0]"),
    ("compare", ("variants",), None, "variants"),
    ("compare", ("variants", 0, "kernels"), -1, "kernels"),
    ("compare", ("variants", 0, "run"), {"median_s": 1.0}, "run"),
    ("compare", ("variants", 0, "function"), "f()", "not a Python name"),
    ("compare", ("variants", 1, "memory", "alias_bytes"), "4 MB", "alias_bytes"),
    ("compare", ("same_result",), "true", "same_result"),
    ("compare", ("max_abs_diff",), -1.0, "max_abs_diff"),
    ("compare", ("setting",), "x" * 101, "setting"),
], ids=lambda v: str(v)[:30])
def test_a_forged_compiler_field_refuses_the_whole_reply(compiler_real, kind, path, value, words):
    forged = copy.deepcopy(compiler_real[kind])
    target = forged
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    if words is None:
        assert replies.check(_schema(kind), forged) is forged
        return
    assert words in _refused(kind, forged)


def test_three_variants_are_refused(compiler_real):
    forged = copy.deepcopy(compiler_real["compare"])
    forged["variants"].append(forged["variants"][0])
    assert "more than 2 items" in _refused("compare", forged)
