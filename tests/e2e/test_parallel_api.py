"""/shard and /parallel_demos end to end: a real server (its Parallel pool sees 8 CPU devices), via gradio_client.

Placement maps and results are checked against blocks and values worked out here
with NumPy, never by asking JAX again.
"""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from gradio_client import Client

from playground.gallery import SHARD_EXAMPLE
from tests.conftest import SHARED_CLOCK_S, full_sandbox_only
from tests.e2e.conftest import STRICT_CLOCK_S
from tests.e2e.responses import assert_error, ok

MESH, AXES = [2, 4], ["data", "model"]
ELEMENTWISE = "def f(x):\n    return jnp.sin(x) * 2 + x\n"
ELEMENTWISE_ARGS = "jnp.arange(32.0).reshape(8, 4)"
BOTH_AXES = "('data', 'model')"


def assert_error_message(response: dict, kind: str) -> str:
    return assert_error(response, kind)["message"]


def shard(client: Client, code: str = SHARD_EXAMPLE.code, args: str = SHARD_EXAMPLE.args,
          mesh_shape: list[int] | None = None, axis_names: list[str] | None = None,
          in_specs: str = SHARD_EXAMPLE.in_specs, out_specs: str = SHARD_EXAMPLE.out_specs) -> dict:
    return client.predict(code, args, mesh_shape or MESH, axis_names or AXES, in_specs, out_specs,
                          api_name="/shard")






def blocks_2x4(rows: int, cols: int) -> list[dict]:
    """Device d of a 2x4 mesh, ('data', 'model') over both dimensions: row block d // 4, column block d % 4."""
    r, c = rows // 2, cols // 4
    return [{"device": d, "index": [[r * (d // 4), r * (d // 4) + r], [c * (d % 4), c * (d % 4) + c]]}
            for d in range(8)]


@pytest.fixture(scope="module")
def example(client) -> dict:
    return ok(shard(client))


# -- the gallery's example: x @ w with the contracted dimension split ----------------------------------


def test_example_runs_on_eight_devices_and_matches_one(example):
    assert example["function"] == "f"
    assert example["n_devices"] == 8
    assert example["mesh"] == {"shape": [2, 4], "axis_names": ["data", "model"],
                               "devices": [[0, 1, 2, 3], [4, 5, 6, 7]]}
    assert example["shapes"] == [[8, 4], [4, 4]]
    assert example["matches_unsharded"] is True
    assert example["max_abs_diff"] is not None and example["max_abs_diff"] <= 1e-6


def test_example_placement_of_input_0_is_the_2x4_grid(example):
    assert example["placement"][0] == [
        {"device": d, "index": [[4 * (d // 4), 4 * (d // 4) + 4], [d % 4, d % 4 + 1]]} for d in range(8)]
    assert example["placement"][0] == blocks_2x4(8, 4)


def test_example_placement_of_w_and_the_output(example):
    # w: ('model', None) splits its 4 rows over 'model' and is copied along 'data'
    assert example["placement"][1] == [{"device": d, "index": [[d % 4, d % 4 + 1], [0, 4]]} for d in range(8)]
    # out_specs ('data', None): rows split on 'data', whole rows everywhere along 'model'
    assert example["out_placement"] == [{"device": d, "index": [[4 * (d // 4), 4 * (d // 4) + 4], [0, 4]]}
                                        for d in range(8)]


def test_example_contracting_over_model_needs_an_all_reduce(example):
    assert "all-reduce" in example["collectives"], example["collectives"]
    assert any("all-reduce" in line for line in example["hlo_collective_lines"]), example["hlo_collective_lines"]
    assert all("metadata=" not in line for line in example["hlo_collective_lines"])


def test_example_result_is_tanh_of_x_times_w(example):
    x = np.arange(32.0).reshape(8, 4) / 32
    expected = np.tanh(x @ np.ones((4, 4)))
    text = example["result"]
    assert text.startswith("f32[8, 4]"), text
    first_row = [float(v) for v in re.search(r"\[\[([^\]]+)\]", text).group(1).split()]
    np.testing.assert_allclose(first_row, expected[0], rtol=1e-5)
    last_row = [float(v) for v in re.findall(r"\[([^\[\]]+)\]\]$", text)[0].split()]
    np.testing.assert_allclose(last_row, expected[-1], rtol=1e-5)


# -- an elementwise function: nothing to communicate -----------------------------------------------------


def test_elementwise_with_matching_specs_has_no_collectives(client):
    response = ok(shard(client, ELEMENTWISE, ELEMENTWISE_ARGS, in_specs=BOTH_AXES, out_specs=BOTH_AXES))
    assert response["n_devices"] == 8
    assert response["collectives"] == [] and response["hlo_collective_lines"] == []
    assert response["matches_unsharded"] is True
    assert response["placement"] == [blocks_2x4(8, 4)]
    assert response["out_placement"] == blocks_2x4(8, 4)  # each device keeps its own block


# -- bad input: invalid_input, saying what is wrong ---------------------------------------------------------


def test_axis_not_in_the_mesh(client):
    message = assert_error_message(shard(client, in_specs="(('data', 'batch'), ('model', None))"), "invalid_input")
    assert "'batch'" in message and "not in the mesh" in message, message
    assert "'data', 'model'" in message, message  # the axes there are


def test_dimension_not_divisible_by_the_mesh_axis(client):
    response = shard(client, ELEMENTWISE, "jnp.ones((6, 4))", mesh_shape=[4, 2], in_specs="('data', None)",
                     out_specs="('data', None)")
    message = assert_error_message(response, "invalid_input")
    assert "size 6" in message and "not divisible by 4" in message and "'data'" in message, message


def test_too_many_devices(client):
    message = assert_error_message(shard(client, mesh_shape=[4, 4]), "invalid_input")
    assert "too many devices" in message and "16" in message and "8" in message, message


# -- hostile functions meet the sandbox limits; the next call still works ---------------------------------


# Room beyond a wall clock for the answer to come back, which takes a fraction of a second.
WAIT_S = 60


HOSTILE = {
    "read /etc/passwd": ("def f(x):\n    open('/etc/passwd').read()\n    return x * 2\n", "forbidden"),
    "python infinite loop": ("def f(x):\n    import time\n    while True:\n        time.sleep(0.01)\n", "timeout"),
    "jitted infinite loop": ("def f(x):\n    return lax.while_loop(lambda c: True, lambda c: c + 1, x)\n", "timeout"),
}


@pytest.mark.parametrize("name", [pytest.param(name, marks=full_sandbox_only) if "passwd" in name else name
                                  for name in HOSTILE])
def test_hostile_function_meets_the_sandbox_limits(request, sandbox_mode, name):
    # sandbox_mode: the variant, named here since the server is picked below (the strict one or the shared one)
    code, kind = HOSTILE[name]
    server = request.getfixturevalue("strict_server" if kind == "timeout" else "server")
    clock_s = STRICT_CLOCK_S if kind == "timeout" else int(SHARED_CLOCK_S)
    client = server.client()
    started = time.monotonic()
    assert_error(shard(client, code, ELEMENTWISE_ARGS, in_specs=BOTH_AXES, out_specs=BOTH_AXES), kind)
    assert time.monotonic() - started < clock_s + WAIT_S, f"the server's {clock_s} s wall clock did not hold"
    assert server.alive(), server.log_path.read_text()
    after = ok(shard(client))
    assert after["matches_unsharded"] is True and after["placement"][0] == blocks_2x4(8, 4)


# -- the fixed demos -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demos(client) -> dict:
    return ok(client.predict(api_name="/parallel_demos"))


def test_demos_see_eight_devices(demos):
    devices = ok(demos["devices"])
    assert devices["count"] == 8
    assert [d["id"] for d in devices["devices"]] == list(range(8))
    assert devices["platform"] == "cpu"


def test_psum_and_all_gather_match(demos):
    collectives = ok(demos["collectives"])
    assert collectives["n_devices"] == 8
    x = np.arange(16.0)
    assert collectives["input"] == x.tolist()
    psum, gather = collectives["psum"], collectives["all_gather"]
    assert psum["matches"] is True and psum["result"] == x.reshape(8, 2).sum(axis=0).tolist() == [56.0, 64.0]
    assert gather["matches"] is True and gather["result"] == x.tolist()
    assert psum["collectives"] == ["all-reduce"] and gather["collectives"] == ["all-gather"]
    assert "jax.lax.psum" in psum["code"] and "jax.lax.all_gather" in gather["code"]


def test_data_parallel_step_matches_one_device(demos):
    step = ok(demos["data_parallel"])
    assert step["n_devices"] == 8 and step["batch_size"] == 64
    assert step["matches_single_device"] is True
    assert "all-reduce" in step["collectives"], step["collectives"]
    assert step["loss_after"] < step["loss_before"]
    assert step["batch_placement"] == [{"device": d, "index": [[8 * d, 8 * d + 8], [0, 784]]} for d in range(8)]
    assert step["params_placement"] == [{"device": d, "index": [[0, 784], [0, 64]]} for d in range(8)]


def test_pmap_equals_shard_map(demos):
    both = ok(demos["pmap_vs_shard_map"])
    assert both["equal"] is True
    x = np.arange(1.0, 17.0)
    expected = x / x.sum()
    np.testing.assert_allclose(np.asarray(both["pmap_result"]).reshape(-1), expected, rtol=1e-6)
    np.testing.assert_allclose(both["shard_map_result"], expected, rtol=1e-6)
    assert np.asarray(both["pmap_result"]).shape == (8, 2)
    assert "jax.pmap" in both["pmap_code"] and "jax.shard_map" in both["shard_map_code"]
