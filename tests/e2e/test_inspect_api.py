"""/inspect end to end: every key of its response, through a real server and gradio_client.

The function under test is JAX's own kind of example, three lines that each become
one primitive, so the stages and the source-to-IR line maps can be checked exactly.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from gradio_client import Client

from tests.e2e.responses import ok

THREE_LINES = "def f(x):\n    y = x * x\n    z = jnp.sin(y)\n    return z + x\n"
ARGS = "jnp.arange(4.0)"
RESPONSE_KEYS = {
    "ok", "function", "device", "result", "jaxpr", "stablehlo", "hlo", "trace_s", "lower_s", "compile_s", "run_s",
    "cost", "memory", "pytree", "line_map", "static_argnums", "retrace", "purity", "stdout", "warnings", "jit",
    "hlo_locations", "pending", "cache", "done",
}
UNROLLED = "def f(x, n):\n    for _ in range(n):\n        x = x * 2\n    return x\n"
BRANCH_ON_TRACER = "def f(x):\n    if x > 0:\n        return x\n    return -x\n"


def inspect(client: Client, code: str, args: str, static_argnums: list[int] | None = None,
            second_args: str = "", on_accelerator: bool = False) -> dict:
    return client.predict(code, args, static_argnums, second_args, on_accelerator, api_name="/inspect")




def leaf_paths(tree: dict) -> list[str]:
    return [leaf["key_path"] for leaf in tree["leaves"]]


def lines_of(text: str, line_map: list, pattern: str) -> list[int | None]:
    """The user lines mapped to each line of ``text`` that matches ``pattern``."""
    found = [origin for line, origin in zip(text.splitlines(), line_map, strict=True) if re.search(pattern, line)]
    assert found, f"no line matches {pattern!r} in:\n{text}"
    return found


@pytest.fixture(scope="module")
def three_lines(client) -> dict:
    return ok(inspect(client, THREE_LINES, ARGS))


# -- one successful response, key by key --------------------------------------------


def test_response_has_every_documented_key(three_lines):
    assert set(three_lines) == RESPONSE_KEYS
    assert three_lines["function"] == "f"
    assert three_lines["static_argnums"] == []
    assert three_lines["retrace"] is None  # no second_args, no second call
    assert three_lines["purity"] == []
    assert three_lines["stdout"] == ""
    assert three_lines["warnings"] == []


def test_result_matches_numpy(three_lines):
    x = np.arange(4.0, dtype=np.float32)
    expected = np.sin(x * x) + x
    result = three_lines["result"]
    assert result.startswith("f32[4] "), result
    values = np.array([float(v) for v in re.findall(r"-?\d+\.\d*(?:e[-+]?\d+)?", result.split(" ", 1)[1])])
    np.testing.assert_allclose(values, expected, rtol=1e-5)


def test_each_ir_holds_the_three_operations(three_lines):
    jaxpr = three_lines["jaxpr"]
    for primitive in ("mul", "sin", "add"):
        assert re.search(rf"= {primitive} ", jaxpr), jaxpr
    stablehlo = three_lines["stablehlo"]
    for op in ("stablehlo.multiply", "stablehlo.sine", "stablehlo.add"):
        assert op in stablehlo, stablehlo
    hlo = three_lines["hlo"]
    assert hlo.startswith("HloModule"), hlo[:200]
    assert "fusion" in hlo, hlo  # XLA fuses the three element-wise ops into one kernel


@pytest.mark.parametrize("key", ["trace_s", "lower_s", "compile_s", "run_s"])
def test_stage_times_are_positive_and_small(three_lines, key):
    seconds = three_lines[key]
    assert isinstance(seconds, float), seconds
    assert 0 < seconds < 10, seconds


def test_cost_is_reported_or_explained(three_lines):
    cost = three_lines["cost"]
    for key in ("flops", "bytes_accessed", "transcendentals"):
        value = cost[key]
        if value is None:  # allowed, but only with a reason
            assert cost["unavailable"].get(key), cost
        else:
            assert isinstance(value, float) and math.isfinite(value) and value >= 0, cost
            assert key not in cost["unavailable"], cost
    if cost["flops"] is not None:
        assert cost["flops"] > 0, cost  # a multiply and an add on 4 elements are not free


def test_memory_plan_of_f32_4(three_lines):
    memory = three_lines["memory"]
    assert memory["argument_bytes"] == 16, memory  # 4 float32 in
    assert memory["output_bytes"] == 16, memory  # 4 float32 out
    for key in ("temp_bytes", "generated_code_bytes"):
        assert isinstance(memory[key], int) and memory[key] >= 0, memory


def test_pytree_of_one_array(three_lines):
    inputs, outputs = three_lines["pytree"]["inputs"], three_lines["pytree"]["outputs"]
    assert inputs["leaves"] == [{"key_path": "[0]", "shape": [4], "dtype": "float32"}]
    assert inputs["static"] == []
    assert outputs["leaves"] == [{"key_path": "", "shape": [4], "dtype": "float32"}]


@pytest.mark.parametrize("key", ["jaxpr", "stablehlo", "hlo"])
def test_line_map_has_one_entry_per_line(three_lines, key):
    line_map = three_lines["line_map"][key]
    assert len(line_map) == len(three_lines[key].splitlines()), key
    assert all(origin is None or origin in (2, 3, 4) for origin in line_map), line_map


@pytest.mark.parametrize(("key", "patterns"), [
    ("jaxpr", {r"= mul ": 2, r"= sin ": 3, r"= add ": 4}),
    ("stablehlo", {r"stablehlo\.multiply": 2, r"stablehlo\.sine": 3, r"stablehlo\.add": 4}),
])
def test_line_map_ties_each_operation_to_its_source_line(three_lines, key, patterns):
    for pattern, line in patterns.items():
        assert lines_of(three_lines[key], three_lines["line_map"][key], pattern) == [line], (pattern, three_lines[key])


def test_optimised_hlo_keeps_the_source_lines_inside_the_fusion(three_lines):
    hlo, line_map = three_lines["hlo"], three_lines["line_map"]["hlo"]
    assert 2 in lines_of(hlo, line_map, r" multiply\(")
    assert 3 in lines_of(hlo, line_map, r" sine\(")


# -- pytrees ------------------------------------------------------------------------

NAMED_TUPLE = """\
from typing import NamedTuple

class Pair(NamedTuple):
    first: jax.Array
    second: jax.Array

def f(x):
    return Pair(x * 2, jnp.sum(x))
"""
DATACLASS = """\
from dataclasses import dataclass

@jax.tree_util.register_dataclass
@dataclass
class Params:
    w: jax.Array
    b: jax.Array

def f(p, x):
    return Params(w=p.w * x, b=p.b + 1)
"""


def test_dict_and_list_inputs_and_a_tuple_output(client):
    code = "def f(p, xs):\n    return (p['w'] * xs[0], p['b'] + xs[1])\n"
    args = "({'w': jnp.ones(2), 'b': jnp.zeros(3)}, [jnp.ones(2), jnp.ones(3)])"
    pytree = ok(inspect(client, code, args))["pytree"]
    inputs = {leaf["key_path"]: leaf["shape"] for leaf in pytree["inputs"]["leaves"]}
    assert inputs == {"[0]['w']": [2], "[0]['b']": [3], "[1][0]": [2], "[1][1]": [3]}, pytree
    assert leaf_paths(pytree["outputs"]) == ["[0]", "[1]"], pytree
    assert pytree["outputs"]["treedef"] == "PyTreeDef((*, *))", pytree


def test_named_tuple_defined_in_user_code(client):
    response = ok(inspect(client, NAMED_TUPLE, "jnp.ones(3)"))
    outputs = response["pytree"]["outputs"]
    assert leaf_paths(outputs) == [".first", ".second"], outputs
    assert [leaf["shape"] for leaf in outputs["leaves"]] == [[3], []], outputs
    assert "Pair" in outputs["treedef"], outputs
    assert ".first: f32[3]" in response["result"], response["result"]


def test_registered_dataclass_defined_in_user_code(client):
    response = ok(inspect(client, DATACLASS, "(Params(w=jnp.ones(2), b=jnp.zeros(())), 2.0)"))
    pytree = response["pytree"]
    assert leaf_paths(pytree["inputs"]) == ["[0].w", "[0].b", "[1]"], pytree
    assert leaf_paths(pytree["outputs"]) == [".w", ".b"], pytree
    assert "Params" in pytree["outputs"]["treedef"], pytree
    assert ".w: f32[2] [2. 2.]" in response["result"], response["result"]


# -- static_argnums and retracing ---------------------------------------------------


@pytest.mark.parametrize("n", [2, 5])
def test_static_loop_count_unrolls_into_n_multiplies(client, n):
    response = ok(inspect(client, UNROLLED, f"(jnp.ones(3), {n})", [1]))
    assert response["static_argnums"] == [1]
    assert len(re.findall(r"= mul ", response["jaxpr"])) == n, response["jaxpr"]
    assert response["pytree"]["inputs"]["static"] == [{"position": 1, "value": str(n)}]
    assert leaf_paths(response["pytree"]["inputs"]) == ["[0]"]


def test_new_static_value_retraces(client):
    retrace = ok(inspect(client, UNROLLED, "(jnp.ones(3), 3)", [1], "(jnp.ones(3), 4)"))["retrace"]
    assert retrace["retraced"] is True, retrace
    explanation = retrace["explanation"]
    assert "TRACING CACHE MISS" in explanation, explanation
    assert "4" in explanation and "3" in explanation, explanation  # the new and the old static value
    assert re.search(r"val=4\b", explanation), explanation
    assert "<playground>:1" in explanation, explanation  # the user's file, not the worker's
    assert not re.search(r"/work/|staging\.py| id=\d", explanation), explanation


def test_same_shapes_reuse_the_compiled_program(client):
    retrace = ok(inspect(client, UNROLLED, "(jnp.ones(3), 3)", [1], "(jnp.zeros(3), 3)"))["retrace"]
    assert retrace["retraced"] is False, retrace
    assert "without tracing again" in retrace["explanation"], retrace


def test_new_shape_retraces_and_names_both_shapes(client):
    code = "def f(x):\n    return jnp.sum(x ** 2)\n"
    retrace = ok(inspect(client, code, "jnp.ones(3)", None, "jnp.ones(5)"))["retrace"]
    assert retrace["retraced"] is True, retrace
    assert "f32[5]" in retrace["explanation"], retrace
    assert "f32[3]" in retrace["explanation"], retrace


def test_static_argnums_out_of_range_is_invalid_input(client):
    response = inspect(client, THREE_LINES, ARGS, [1])
    assert response["ok"] is False, response
    assert response["error"]["kind"] == "invalid_input", response
    assert "out of range" in response["error"]["message"], response


def test_static_argnums_of_wrong_type_is_invalid_input(client):
    response = inspect(client, THREE_LINES, ARGS, ["one"])
    assert response["ok"] is False, response
    assert response["error"]["kind"] == "invalid_input", response


# -- errors that teach, and purity ----------------------------------------------------


def test_tracer_error_names_the_line(client):
    response = inspect(client, BRANCH_ON_TRACER, "2.0")
    assert response["ok"] is False, response
    error = response["error"]
    assert error["kind"] == "user_exception", error
    assert error["line"] == 2, error
    assert "TracerBoolConversionError" in error["message"], error
    assert "Traceback" not in error["message"], error


def test_tracer_error_explains_and_suggests_jnp_where(client):
    error = inspect(client, BRANCH_ON_TRACER, "2.0")["error"]
    assert {"title", "explanation", "fix", "doc_url"} <= set(error), error
    assert error["title"].startswith("TracerBoolConversionError"), error
    assert "tracer" in error["explanation"], error
    assert "jnp.where" in error["fix"], error
    assert error["doc_url"].startswith("https://docs.jax.dev/"), error


def test_print_is_a_purity_finding_on_its_line(client):
    code = "def f(x):\n    print('x is', x)\n    return x * 2\n"
    response = ok(inspect(client, code, "jnp.arange(3.0)"))
    findings = [p for p in response["purity"] if p["line"] == 2]
    assert findings, response["purity"]
    assert any("jax.debug.print" in p["message"] for p in findings), findings
    assert "Tracer" in response["stdout"], response["stdout"]  # print saw a tracer, not values
    assert any("jax.debug.print" in w for w in response["warnings"]), response["warnings"]


def test_compile_for_the_accelerator_is_the_cpu_where_there_is_none(client, three_lines):
    """On this CPU-only host ``on_accelerator`` runs in the one pool there is, and says where it compiled."""
    asked = ok(inspect(client, THREE_LINES, ARGS, on_accelerator=True))
    assert asked["device"] == three_lines["device"] == "cpu"
    assert asked["result"] == three_lines["result"]
    # The same instructions under the same names (the owner compiled the exported program, a function of the
    # arguments' leaves: its numbering and its parameters' names, args[0] for x, differ)
    instructions = re.compile(r"= \S+ (\w+)\(.*?op_name=\"([^\"]*)\"")

    def computed(hlo: str) -> list:
        return [found for found in instructions.findall(hlo) if found[0] != "parameter"]
    assert computed(asked["hlo"]) == computed(three_lines["hlo"]) != []
