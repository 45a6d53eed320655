"""The job registry: every kind's arguments are checked in the server, once, and reach the worker converted."""

from __future__ import annotations

import importlib
import inspect

import pytest

from playground import jobs
from playground.jobs import REGISTRY, arguments, build, named

TANH = "def f(x):\n    return jnp.tanh(x)\n"
CUBIC = "def f(x):\n    return x + x*x + x*x*x\n"


def _invalid(kind: str, **values) -> str:
    result = build(kind, values)
    assert result.get("ok") is False and result["error"]["kind"] == "invalid_input", result
    return result["error"]["message"]


def test_every_handler_exists_and_takes_its_rows_arguments():
    """Each row names a real function that takes ``limits`` and exactly the row's arguments (then ``device`` for
    the rows that reach the device owner, ``early`` for those that send an early reply); a row that may wait in
    the device's line reaches the owner."""
    for kind, row in REGISTRY.items():
        module, _, name = row.handler.partition(":")
        handler = getattr(importlib.import_module(module), name)
        parameters = list(inspect.signature(handler).parameters)
        assert parameters == ["limits", *[a.name for a in row.arguments], *["device"] * row.device,
                              *["early"] * row.early], (kind, parameters)
        assert callable(row.pool) or row.pool in POOLS, kind
        assert row.device or row.pool in ("sandbox", "parallel"), kind


POOLS = ("sandbox", "device", "parallel")


@pytest.mark.parametrize(("kind", "values", "pool"), [
    ("inspect", {"code": CUBIC, "args": "1.0"}, "sandbox"),
    ("inspect", {"code": CUBIC, "args": "1.0", "on_accelerator": True}, "device"),
    ("derivatives", {"code": TANH}, "sandbox"),
    ("vmap", {"code": CUBIC, "args": "jnp.ones(3)"}, "device"),
    ("jit_speed", {"code": CUBIC, "sizes": [10]}, "device"),
    ("shard", {"code": CUBIC, "args": "jnp.ones(8)", "mesh_shape": [8], "axis_names": ["data"],
               "in_specs": "(P('data'),)", "out_specs": "P('data')"}, "parallel"),
])
def test_each_job_names_its_pool(kind, values, pool):
    """The speed comparisons wait in the device owner's line; Inspect only when asked; the rest on CPU workers."""
    job = build(kind, values)
    assert job.get("ok") is not False, job
    assert jobs.pool_of(kind, job) == pool


@pytest.mark.parametrize("value", [1, 0, "yes", None, [True]])
def test_on_accelerator_must_be_a_bool(value):
    if value is None:  # left out: the default, False
        assert build("inspect", {"code": CUBIC, "args": "1.0", "on_accelerator": None})["on_accelerator"] is False
        return
    assert "`on_accelerator` must be true or false" in _invalid("inspect", code=CUBIC, args="1.0",
                                                                on_accelerator=value)


def test_kinds_on_the_device_for_about():
    assert jobs.kinds_on("device") == ["inspect (when asked)", "passes (when asked)", "graph (when asked)",
                                      "compare (when asked)", "vmap", "jit_speed", "speed_of_light",
                                      "device_ceilings"]


@pytest.mark.parametrize(("order", "points", "x_min", "x_max"), [
    (0, 10, -1.0, 1.0), (9, 10, -1.0, 1.0), (2.5, 10, -1.0, 1.0), (True, 10, -1.0, 1.0), ("3", 10, -1.0, 1.0),
    (2, 1, -1.0, 1.0), (2, 2001, -1.0, 1.0),
    (2, 10, 1.0, 1.0), (2, 10, 1.0, -1.0), (2, 10, float("nan"), 1.0), (2, 10, -1.0, float("inf")), (2, 10, "a", 1.0),
])
def test_bad_order_points_or_range_is_invalid_input(order, points, x_min, x_max):
    _invalid("derivatives", code=TANH, order=order, points=points, x_min=x_min, x_max=x_max)


@pytest.mark.parametrize("sizes", [[], [0], [-1], [100_001], [1] * 9, [True], [2.5], "10", [10, "20"]])
def test_bad_batch_sizes_are_invalid_input(sizes):
    _invalid("vmap", code=CUBIC, args="jnp.ones(3)", batch_sizes=sizes)


def test_axes_must_be_text():
    assert "`in_axes` must be text" in _invalid("vmap", code=CUBIC, args="jnp.ones(3)", in_axes=0)


@pytest.mark.parametrize(("sizes", "repeats"), [
    ([], 3), ([10] * 9, 3), ([0], 3), ([10_001], 3), ([10, 2.5], 3), ([True], 3), ("10", 3),
    ([10], 0), ([10], 51), ([10], 2.5),
])
def test_invalid_sizes_or_repeats(sizes, repeats):
    _invalid("jit_speed", code=CUBIC, sizes=sizes, repeats=repeats)


def test_whole_numbers_given_as_floats_reach_the_worker_as_ints():
    """One rule everywhere: 3.0 and [3.0] are whole numbers, and the worker gets ints."""
    job = build("derivatives", {"code": TANH, "order": 3.0, "points": 20.0})
    assert job["order"] == 3 and type(job["order"]) is int and type(job["points"]) is int
    job = build("jit_speed", {"code": CUBIC, "sizes": [100.0, 10, 100], "repeats": 2.0})
    assert job["sizes"] == [10, 100] and all(type(n) is int for n in job["sizes"]) and job["repeats"] == 2
    assert build("vmap", {"code": CUBIC, "args": "1.0", "batch_sizes": [4.0]})["batch_sizes"] == [4]


def test_defaults_fill_what_is_missing():
    job = build("inspect", {"code": CUBIC, "args": "1.0"})
    assert job == {"kind": "inspect", "code": CUBIC, "args": "1.0", "static_argnums": [], "second_args": "",
                   "on_accelerator": False}
    assert build("jit_speed", {"code": CUBIC, "sizes": [100, 10]})["repeats"] == 5
    assert "sizes" in build("jit_speed", {"code": CUBIC})["error"]["message"]  # the API fills it from its limits


def test_required_arguments_and_unknown_ones_are_named():
    assert "needs `mesh_shape`" in _invalid("shard", code=CUBIC, args="1.0", axis_names=["data"], in_specs="()",
                                            out_specs="None")
    assert "no argument 'colour'" in _invalid("inspect", code=CUBIC, args="1.0", colour="red")


def test_limits_are_named_in_the_message():
    message = _invalid("inspect", code="x" * (arguments.MAX_CODE_CHARS + 1), args="1.0")
    assert f"{arguments.MAX_CODE_CHARS:,}" in message


# -- the Compiler tab's rows: passes, graph, compare -------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["passes", "graph"])
def test_passes_and_graph_take_the_function_and_its_arguments_with_defaults(kind):
    job = build(kind, {"code": CUBIC, "args": "jnp.ones((1000, 1000))"})
    assert job == {"kind": kind, "code": CUBIC, "args": "jnp.ones((1000, 1000))", "static_argnums": [],
                   "on_accelerator": False}
    assert build(kind, {"code": CUBIC, "args": "(1.0, 2)", "static_argnums": [1.0, 1]})["static_argnums"] == [1]
    assert "`args`" in _invalid(kind, code=CUBIC)
    assert "no argument 'setting'" in _invalid(kind, code=CUBIC, args="1.0", setting="fusion: off")


@pytest.mark.parametrize("kind", ["passes", "graph", "compare"])
def test_compiler_jobs_run_on_the_cpu_workers_unless_asked(kind):
    values = {"code": CUBIC, "args": "1.0", **({"setting": "cse: off"} if kind == "compare" else {})}
    assert jobs.pool_of(kind, build(kind, values)) == "sandbox"
    assert jobs.pool_of(kind, build(kind, {**values, "on_accelerator": True})) == "device"


def test_compiler_rows_are_finished_by_the_server():
    from playground.server.compiler import replies as compiler_replies

    assert named(REGISTRY["passes"].finish) is compiler_replies.finish_passes
    assert named(REGISTRY["graph"].finish) is compiler_replies.finish_graph
    assert named(REGISTRY["compare"].finish) is compiler_replies.finish_compare
    assert not any(REGISTRY[kind].finish_each_answer for kind in ("passes", "graph", "compare"))  # kept
    assert REGISTRY["compare"].timed is True


def test_speed_of_light_is_placed_under_the_ceilings_for_each_answer():
    """Its roofline depends on the ceilings the server holds at the time: placed for each answer, never kept."""
    from playground.server.device_owner import kept_ceilings

    assert named(REGISTRY["speed_of_light"].finish) is kept_ceilings.finish_roofline
    assert REGISTRY["speed_of_light"].finish_each_answer is True


def test_compare_defaults_with_a_setting_or_a_second_function():
    job = build("compare", {"code": CUBIC, "args": "1.0", "setting": "fusion: off"})
    assert job == {"kind": "compare", "code": CUBIC, "args": "1.0", "static_argnums": [], "second_code": "",
                   "setting": "fusion: off", "on_accelerator": False}
    second = "def g(x):\n    return x * 2\n"
    job = build("compare", {"code": CUBIC, "args": "1.0", "second_code": second})
    assert (job["second_code"], job["setting"]) == (second, "")


@pytest.mark.parametrize("values", [
    {},  # neither
    {"second_code": "   \n"},  # only blanks: no second function
    {"setting": ""},
    {"second_code": "def g(x):\n    return x\n", "setting": "fusion: off"},  # both
])
def test_compare_needs_exactly_one_version_b(values):
    assert "Compare needs version B" in _invalid("compare", code=CUBIC, args="1.0", **values)


@pytest.mark.parametrize("setting", ["fusion", "FUSION: OFF", "fusion: off ", "xla_dump_to=/tmp", 3, True,
                                     ["fusion: off"], {"xla_disable_hlo_passes": "fusion"}])
def test_an_unknown_setting_is_refused(setting):
    message = _invalid("compare", code=CUBIC, args="1.0", setting=setting)
    assert "`setting` must be one of 'fusion: off'" in message


def test_every_named_setting_is_accepted():
    from playground.compiler_settings import SETTINGS

    for name in SETTINGS:
        assert build("compare", {"code": CUBIC, "args": "1.0", "setting": name})["setting"] == name


def test_compare_takes_no_compiler_options_of_the_callers():
    assert "no argument 'compiler_options'" in _invalid("compare", code=CUBIC, args="1.0", setting="cse: off",
                                                        compiler_options={"xla_dump_to": "/tmp"})


@pytest.mark.parametrize("second_code", [3, ["def g(x): return x"], "x" * (arguments.MAX_CODE_CHARS + 1)])
def test_a_second_function_must_be_text_within_the_code_limit(second_code):
    _invalid("compare", code=CUBIC, args="1.0", second_code=second_code)
