"""playground.worker.jobs.shard: sharded runs equal one device, placement maps, collectives in the HLO, input errors.

The functions need 8 devices, so they run in ONE subprocess on 8 simulated CPU
devices (tests/eight_devices.py); it prints every result as JSON. Spec parsing
is tested in test_partition_specs.py, the verdict's tolerance in
test_parallel_verdicts.py.
"""

from __future__ import annotations

import pytest

from playground.worker.jobs import shard as parallel
from tests.eight_devices import MARKER, run_driver

TIMES_TWO = "def f(x):\n    return x * 2\n"
ELEMENTWISE = "def f(x, y):\n    return jnp.sin(x) * y + 1.0\n"
MATMUL = "def f(a, b):\n    return a @ b\n"
ARRAY_8x4 = "jnp.arange(32.0).reshape(8, 4)"

# name -> (function, positional arguments); run in the subprocess.
CALLS = {
    "devices": ("devices", []),
    "elementwise": ("shard", [ELEMENTWISE, f"({ARRAY_8x4}, jnp.linspace(-1.0, 1.0, 32).reshape(8, 4))", [2, 4],
                              ["data", "model"], "(P('data', 'model'), ('data', None))", "P('data', 'model')"]),
    "matmul": ("shard", [MATMUL, "(jnp.arange(64.0).reshape(8, 8) / 10, jnp.arange(32.0).reshape(8, 4))", [8],
                         ["model"], "((None, 'model'), ('model', None))", "(None, None)"]),
    "placement": ("shard", [TIMES_TWO, ARRAY_8x4, [2, 4], ["data", "model"], "PartitionSpec('data', 'model')",
                            "jax.sharding.PartitionSpec('data', 'model')"]),
    "placement_tuples": ("shard", [TIMES_TWO, ARRAY_8x4, [2, 4], ["data", "model"], "('data', 'model')",
                                   "('data', 'model')"]),
    "tuple_output": ("shard", ["def f(x):\n    return x + 1, x.sum(axis=0)\n", ARRAY_8x4, [8], ["data"], "P('data')",
                               "(P('data'), P(None))"]),
    "printing": ("shard", ["def f(x):\n    print('tracing', x.shape)\n    return x\n", ARRAY_8x4, [8], ["data"],
                           "('data',)", "('data',)"]),
    "err_lengths": ("shard", [TIMES_TWO, ARRAY_8x4, [2, 4], ["data"], "('data',)", "('data',)"]),
    "err_duplicate": ("shard", [TIMES_TWO, ARRAY_8x4, [2, 4], ["data", "data"], "('data',)", "('data',)"]),
    "err_unknown_axis": ("shard", [TIMES_TWO, ARRAY_8x4, [2, 4], ["data", "model"], "('data', 'modle')",
                                   "('data', None)"]),
    "err_not_divisible": ("shard", [TIMES_TWO, "jnp.ones((8, 6))", [2, 4], ["data", "model"], "('data', 'model')",
                                    "('data', None)"]),
    "err_not_divisible_two_axes": ("shard", [TIMES_TWO, "jnp.ones((12, 4))", [2, 4], ["data", "model"],
                                             "((('data', 'model'), None),)", "()"]),
    "err_out_not_divisible": ("shard", ["def f(x):\n    return x[:3]\n", ARRAY_8x4, [8], ["data"], "('data',)",
                                        "('data',)"]),
    "err_too_many_entries": ("shard", [TIMES_TWO, "jnp.ones(8)", [2, 4], ["data", "model"], "('data', 'model')",
                                       "('data',)"]),
    "err_too_many_devices": ("shard", [TIMES_TWO, ARRAY_8x4, [4, 4], ["data", "model"], "('data', 'model')",
                                       "('data', 'model')"]),
    "err_bad_literal": ("shard", [TIMES_TWO, ARRAY_8x4, [8], ["data"], "('data',", "('data',)"]),
    "err_not_a_literal": ("shard", [TIMES_TWO, ARRAY_8x4, [8], ["data"], "__import__('os').getcwd()",
                                    "('data',)"]),
    "err_spec_count": ("shard", [MATMUL, "(jnp.ones((8, 8)), jnp.ones((8, 8)))", [8], ["data"],
                                 "(('data', None),)", "()"]),
    "err_two_specs_one_argument": ("shard", [TIMES_TWO, ARRAY_8x4, [8], ["data"], "(P('data', None), P(None))",
                                             "P()"]),
    "err_out_spec_count": ("shard", ["def f(x):\n    return x, x\n", ARRAY_8x4, [8], ["data"], "P('data')",
                                     "(P('data'), P(), P())"]),
    "err_empty_specs": ("shard", [TIMES_TWO, ARRAY_8x4, [8], ["data"], "  ", "P()"]),
    "err_user_exception": ("shard", ["def f(x):\n    return x @ x\n", "jnp.ones((8, 3))", [8], ["data"], "('data',)",
                                     "()"]),
    "collectives": ("collectives_demo", []),
    "collectives_4": ("collectives_demo", [[4]]),
    "collectives_too_many": ("collectives_demo", [[16]]),
    "data_parallel": ("data_parallel_step", []),
    "pmap_vs_shard_map": ("pmap_vs_shard_map", []),
}

DRIVER = f"""
import json, sys
import jax
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P
from playground.worker.jobs import shard, parallel_demos

calls = json.loads(sys.argv[1])
module = {{fn: parallel_demos if hasattr(parallel_demos, fn) else shard for _, (fn, _a) in calls.items()}}
results = {{name: getattr(module[fn], fn)(*args) for name, (fn, args) in calls.items()}}
# JAX's own view of the 2x4 placement, to check ours against (not computed by the module under test).
mesh = jax.make_mesh((2, 4), ('data', 'model'), axis_types=(AxisType.Auto,) * 2)
indices = NamedSharding(mesh, P('data', 'model')).devices_indices_map((8, 4))
results['jax_view'] = {{
    'mesh_ids': [[d.id for d in row] for row in mesh.devices],
    'indices': {{d.id: [[s.start, s.stop] for s in index] for d, index in indices.items()}},
}}
print({MARKER!r} + json.dumps(results))
"""


@pytest.fixture(scope="module")
def results() -> dict:
    return run_driver(DRIVER, CALLS)


def expected_2x4_placement() -> list[dict]:
    """Device d holds rows [4*(d//4), 4*(d//4)+4) and column d%4 (jax's mesh puts ids row by row: checked below)."""
    return [{"device": d, "index": [[4 * (d // 4), 4 * (d // 4) + 4], [d % 4, d % 4 + 1]]} for d in range(8)]


def test_devices_are_the_eight_simulated_cpus(results):
    out = results["devices"]
    assert out == {"ok": True, "platform": "cpu", "count": 8,
                   "devices": [{"id": i, "kind": "cpu"} for i in range(8)]}


def test_elementwise_sharded_equals_unsharded_without_collectives(results):
    out = results["elementwise"]
    assert out["ok"], out
    assert set(out) == {"ok", "function", "n_devices", "mesh", "placement", "shapes", "result", "out_placement",
                        "matches_unsharded", "max_abs_diff", "tolerance", "rounding", "mismatch", "collectives",
                        "hlo_collective_lines", "stdout"}
    assert out["matches_unsharded"] and out["max_abs_diff"] <= out["tolerance"] and out["mismatch"] is None
    # sin, mul, add: 3 roundings before the result's own, so 4 * sqrt(3 + 1) * eps * scale.
    assert out["rounding"]["terms"] == 3 and out["rounding"]["inputs_moved"]
    assert out["tolerance"] == pytest.approx(8 * 2.0**-23 * out["rounding"]["scale"], rel=1e-12)
    assert out["n_devices"] == 8 and out["shapes"] == [[8, 4], [8, 4]]
    assert out["collectives"] == [] and out["hlo_collective_lines"] == []
    # The second argument is split on 'data' only: each row block is held by all four 'model' devices.
    assert out["placement"][1] == [{"device": d, "index": [[4 * (d // 4), 4 * (d // 4) + 4], [0, 4]]}
                                   for d in range(8)]
    assert out["out_placement"] == expected_2x4_placement()
    assert out["result"].startswith("f32[8, 4] [[1.  ")  # sin(0) * -1 + 1


def test_matmul_with_split_contracting_dimension_needs_an_all_reduce(results):
    out = results["matmul"]
    assert out["ok"], out
    assert out["matches_unsharded"] and out["max_abs_diff"] < 1e-3
    assert "all-reduce" in out["collectives"]
    assert any("all-reduce(" in line for line in out["hlo_collective_lines"])
    assert all(len(line) <= parallel.MAX_HLO_LINE_CHARS and "metadata=" not in line
               for line in out["hlo_collective_lines"])
    # Replicated output: every device holds all of the (8, 4) product.
    assert out["out_placement"] == [{"device": d, "index": [[0, 8], [0, 4]]} for d in range(8)]
    assert out["mesh"] == {"shape": [8], "axis_names": ["model"], "devices": list(range(8))}


def test_placement_of_an_8x4_array_on_a_2x4_mesh(results):
    out, jax_view = results["placement"], results["jax_view"]
    assert out["ok"], out
    assert out["mesh"] == {"shape": [2, 4], "axis_names": ["data", "model"], "devices": [[0, 1, 2, 3], [4, 5, 6, 7]]}
    assert jax_view["mesh_ids"] == out["mesh"]["devices"]
    assert {str(p["device"]): p["index"] for p in out["placement"][0]} == jax_view["indices"]
    assert out["placement"] == [[
        {"device": 0, "index": [[0, 4], [0, 1]]}, {"device": 1, "index": [[0, 4], [1, 2]]},
        {"device": 2, "index": [[0, 4], [2, 3]]}, {"device": 3, "index": [[0, 4], [3, 4]]},
        {"device": 4, "index": [[4, 8], [0, 1]]}, {"device": 5, "index": [[4, 8], [1, 2]]},
        {"device": 6, "index": [[4, 8], [2, 3]]}, {"device": 7, "index": [[4, 8], [3, 4]]},
    ]]
    assert out["placement"][0] == expected_2x4_placement()
    assert out["matches_unsharded"] and out["max_abs_diff"] == 0.0


def test_jax_spelling_and_tuples_place_the_same(results):
    spelled, tuples = results["placement"], results["placement_tuples"]
    assert tuples["ok"], tuples
    assert spelled["placement"] == tuples["placement"] and spelled["out_placement"] == tuples["out_placement"]


def test_tuple_outputs_take_one_spec_each(results):
    out = results["tuple_output"]
    assert out["ok"], out
    assert out["matches_unsharded"]
    assert out["out_placement"] == [{"device": d, "index": [[d, d + 1], [0, 4]]} for d in range(8)]


def test_prints_are_captured(results):
    out = results["printing"]
    assert out["ok"] and "tracing (8, 4)" in out["stdout"]


@pytest.mark.parametrize(("case", "words"), [
    ("err_lengths", ["mesh_shape has 2 sizes", "axis_names has 1 names"]),
    ("err_duplicate", ["Duplicate axis names", "'data'"]),
    ("err_unknown_axis", ["argument 0", "'modle'", "not in the mesh", "'data', 'model'"]),
    ("err_not_divisible", ["argument 0", "dimension 1", "size 6", "not divisible by 4", "'model'"]),
    ("err_not_divisible_two_axes", ["dimension 0", "size 12", "not divisible by 8", "'data' x 'model' (2 x 4)"]),
    ("err_out_not_divisible", ["out_specs", "dimension 0", "size 3", "not divisible by 8"]),
    ("err_too_many_entries", ["argument 0", "2 entries", "1 dimension(s)", "(8,)"]),
    ("err_too_many_devices", ["the mesh needs 16 devices, this host has 8"]),
    ("err_bad_literal", ["in_specs", "is not Python that reads as specs"]),
    ("err_not_a_literal", ["in_specs", "`__import__('os').getcwd()` is none of these"]),
    ("err_spec_count", ["in_specs has 1 spec for 2 arguments"]),
    ("err_two_specs_one_argument", ["in_specs has 2 specs for 1 argument"]),
    ("err_out_spec_count", ["out_specs has 3 specs for 2 outputs"]),
    ("err_empty_specs", ["in_specs is empty"]),
    ("collectives_too_many", ["the mesh needs 16 devices, this host has 8"]),
])
def test_bad_inputs_are_invalid_input_with_clear_words(results, case, words):
    out = results[case]
    assert out["ok"] is False and out["error"]["kind"] == "invalid_input", out
    for word in words:
        assert word in out["error"]["message"], (word, out["error"]["message"])


def test_errors_in_the_users_function_keep_their_kind_and_line(results):
    out = results["err_user_exception"]
    assert out["ok"] is False and out["error"]["kind"] == "user_exception"
    assert "TypeError" in out["error"]["message"] and out["error"]["line"] == 2


@pytest.mark.parametrize("case", ["collectives", "collectives_4"])
def test_collectives_demo_psum_and_all_gather(results, case):
    out = results[case]
    assert out["ok"], out
    n = 8 if case == "collectives" else 4
    assert out["n_devices"] == n and out["input"] == [float(i) for i in range(2 * n)]
    # psum: every device ends with block 0 + block 1 + ... (blocks of 2): [sum of evens, sum of odds].
    assert out["psum"]["result"] == out["psum"]["expected"] == [float(n * (n - 1)), float(n * n)]
    assert out["psum"]["matches"] and out["psum"]["collectives"] == ["all-reduce"]
    assert out["all_gather"]["result"] == out["all_gather"]["expected"] == out["input"]
    assert out["all_gather"]["matches"] and out["all_gather"]["collectives"] == ["all-gather"]
    for key, call in (("psum", "jax.lax.psum("), ("all_gather", "jax.lax.all_gather(")):
        assert call in out[key]["code"] and "jax.shard_map(" in out[key]["code"]
        assert f"jax.make_mesh(({n},), ('data',)" in out[key]["code"]
        assert out[key]["hlo_lines"]


def test_data_parallel_step_matches_one_device_and_sums_gradients(results):
    out = results["data_parallel"]
    assert out["ok"], out
    assert out["n_devices"] == 8 and out["layer_sizes"] == [784, 64, 10] and out["batch_size"] == 64
    assert out["matches_single_device"] and out["max_abs_diff"] < 1e-5
    assert "all-reduce" in out["collectives"] and out["hlo_collective_lines"]
    assert out["batch_placement"] == [{"device": d, "index": [[8 * d, 8 * d + 8], [0, 784]]} for d in range(8)]
    assert out["params_placement"] == [{"device": d, "index": [[0, 784], [0, 64]]} for d in range(8)]
    assert out["loss_after"] < out["loss_before"]


def test_pmap_and_shard_map_agree(results):
    out = results["pmap_vs_shard_map"]
    assert out["ok"], out
    assert out["equal"] and out["n_devices"] == 8
    assert len(out["pmap_result"]) == 8 and len(out["shard_map_result"]) == 16
    assert [v for row in out["pmap_result"] for v in row] == out["shard_map_result"]
    total = sum(range(1, 17))
    assert out["shard_map_result"] == pytest.approx([i / total for i in range(1, 17)], rel=1e-6)
    assert "jax.pmap(" in out["pmap_code"] and "jax.shard_map(" in out["shard_map_code"]
    assert "maintenance mode" in out["why"] and "0.8" in out["why"]
