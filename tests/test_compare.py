"""playground.worker.jobs.compare: two versions of a program, compiled, measured and run side by side."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from playground.compiler_settings import SETTINGS
from playground.ipc.limits import Limits
from playground.worker.functions import values
from playground.worker.jobs import compare as compare_module
from playground.worker.jobs.compare import DONATE_ON_DEVICE, compare
from tests.owner_doubles import local_device

CUBIC = "def f(x):\n    return x + x*x + x*x*x\n"
FACTORED = "def g(x):\n    return x * (1 + x + x*x)\n"
BIG = "jnp.ones((1000, 1000))"
MB4 = 1000 * 1000 * 4
QUICK = 0.01  # timing budget: the three interleaved runs each version always gets, and hardly more


@pytest.fixture(scope="module")
def by_setting() -> dict:
    return {name: compare(CUBIC, BIG, 200_000, setting=name, timing_budget_s=QUICK) for name in SETTINGS}


@pytest.fixture(scope="module")
def second() -> dict:
    return compare(CUBIC, BIG, 200_000, second_code=FACTORED, timing_budget_s=QUICK)


def _memory(reply: dict, version: int) -> dict:
    return reply["variants"][version]["memory"]


def test_fusion_off_makes_four_kernels_of_one_with_the_same_result(by_setting):
    reply = by_setting["fusion: off"]
    assert reply["ok"] is True, reply
    assert [v["kernels"] for v in reply["variants"]] == [1, 4]
    assert reply["same_result"] is True
    assert reply["max_abs_diff"] == 0.0
    assert reply["setting"] == "fusion: off"
    assert [v["label"] for v in reply["variants"]] == ["as written", SETTINGS["fusion: off"].label]
    assert reply["variants"][1]["what"] == SETTINGS["fusion: off"].what


def test_fusion_off_changes_the_hlo_not_the_jaxpr(by_setting):
    a, b = by_setting["fusion: off"]["variants"]
    assert a["jaxpr"] == b["jaxpr"]
    assert a["jaxpr_equations"] == b["jaxpr_equations"] == 5
    assert a["hlo"] != b["hlo"]
    assert b["hlo_instructions"] > a["hlo_instructions"]
    assert _memory(by_setting["fusion: off"], 1)["temp_bytes"] > _memory(by_setting["fusion: off"], 0)["temp_bytes"]


def test_both_versions_are_timed_together(by_setting):
    for name, reply in by_setting.items():
        runs = [v["run"] for v in reply["variants"]]
        assert all(isinstance(run, dict) for run in runs), name
        assert runs[0]["runs"] == runs[1]["runs"] >= 3, name  # interleaved: as many runs each
        for run in runs:
            assert 0 < run["min_s"] <= run["q1_s"] <= run["median_s"] <= run["q3_s"]
            assert run["iqr_s"] >= 0


@pytest.mark.parametrize("name", list(SETTINGS))
def test_every_setting_works_on_the_fusion_example(by_setting, name):
    reply = by_setting[name]
    assert reply["ok"] is True, reply
    assert reply["same_result"] is True, reply
    assert len(reply["variants"]) == 2
    for variant in reply["variants"]:
        assert variant["function"] == "f"
        assert variant["compile_s"] > 0
        assert variant["result"].startswith(("f32[1000, 1000] [[3. 3.", "f64[1000, 1000] [[3. 3."))


def test_x64_doubles_the_bytes_of_version_b(by_setting):
    reply = by_setting["x64: on"]
    assert _memory(reply, 0)["argument_bytes"] == MB4
    assert _memory(reply, 1)["argument_bytes"] == 2 * MB4
    assert _memory(reply, 1)["output_bytes"] == 2 * MB4
    assert reply["variants"][1]["result"].startswith("f64[1000, 1000]")
    assert "f64[1000,1000]" in reply["variants"][1]["jaxpr"]


def test_x64_is_switched_off_again_afterwards(by_setting):
    assert by_setting["x64: on"]["ok"] is True
    assert jnp.ones(2).dtype == jnp.float32
    assert not jax.config.jax_enable_x64


def test_donation_lets_the_output_reuse_the_arguments_buffer(by_setting):
    reply = by_setting["donate: on"]
    assert _memory(reply, 0)["alias_bytes"] == 0
    assert _memory(reply, 1)["alias_bytes"] == MB4
    assert any("copies its arguments first" in note for note in reply["notes"])


def test_settings_without_donation_have_no_aliased_bytes_and_no_copy_note(by_setting):
    for name, reply in by_setting.items():
        if not SETTINGS[name].donate:
            assert {_memory(reply, i)["alias_bytes"] for i in (0, 1)} == {0}, name
            assert reply["notes"] == [], name


def test_a_second_function_gives_its_own_name_and_the_same_result(second):
    assert second["ok"] is True, second
    assert [v["function"] for v in second["variants"]] == ["f", "g"]
    assert second["variants"][1]["label"] == "second function"
    assert second["setting"] is None
    assert second["same_result"] is True
    assert second["variants"][0]["jaxpr"] != second["variants"][1]["jaxpr"]


def test_a_second_function_with_another_result_is_not_the_same():
    reply = compare(CUBIC, "jnp.arange(4.0)", 200_000, second_code="def g(x):\n    return x * 2\n",
                    timing_budget_s=QUICK)
    assert reply["same_result"] is False
    assert reply["max_abs_diff"] == pytest.approx(33.0)  # 39 - 6 at x = 3


def test_results_of_other_shapes_are_not_the_same():
    reply = compare(CUBIC, "jnp.arange(4.0)", 200_000, second_code="def g(x):\n    return x.sum()\n",
                    timing_budget_s=QUICK)
    assert (reply["same_result"], reply["max_abs_diff"]) == (False, None)


def test_a_syntax_error_in_the_second_function_is_version_bs():
    reply = compare(CUBIC, BIG, 200_000, second_code="def g(x):\n    return x +\n")
    assert reply["ok"] is False
    assert reply["error"]["kind"] == "syntax"
    assert reply["error"]["message"].startswith("Version B")
    assert reply["error"]["line"] == 2


def test_an_error_raised_by_the_second_function_is_version_bs():
    reply = compare(CUBIC, "jnp.arange(4.0)", 200_000, second_code="def g(x):\n    return x @ jnp.ones(3)\n")
    assert reply["ok"] is False
    assert reply["error"]["message"].startswith("Version B (the second function): ")
    assert reply["error"]["kind"] != "internal"


def test_an_error_in_the_first_function_is_not_called_version_bs():
    reply = compare("def f(x):\n    return x +\n", BIG, 200_000, setting="fusion: off")
    assert reply["ok"] is False and reply["error"]["kind"] == "syntax"
    assert not reply["error"]["message"].startswith("Version")


def test_shape_dtype_struct_arguments_are_compiled_not_run():
    reply = compare(CUBIC, "jax.ShapeDtypeStruct((1000, 1000), jnp.float32)", 200_000, setting="fusion: off")
    assert reply["ok"] is True, reply
    assert [v["run"] for v in reply["variants"]] == [None, None]
    assert [v["kernels"] for v in reply["variants"]] == [1, 4]
    assert reply["notes"] == [values.NOT_RUN]
    assert (reply["same_result"], reply["max_abs_diff"]) == (None, None)


def test_static_arguments_are_passed_to_both_versions():
    reply = compare("def f(x, n):\n    return x * n\n", "(jnp.ones(3), 4)", 200_000, setting="donate: on",
                    static_argnums=(1,), timing_budget_s=QUICK)
    assert reply["ok"] is True, reply
    assert reply["same_result"] is True
    assert _memory(reply, 1)["alias_bytes"] == 12


def test_long_texts_are_capped():
    reply = compare(CUBIC, BIG, 100, setting="fusion: off", timing_budget_s=QUICK)
    for variant in reply["variants"]:
        assert "output truncated" in variant["hlo"]
        assert len(variant["hlo"]) < 200


def test_what_the_users_function_prints_is_not_in_the_reply(capsys):
    reply = compare("def f(x):\n    print('hello')\n    return x\n", "1.0", 200_000, setting="cse: off",
                    timing_budget_s=QUICK)
    assert reply["ok"] is True
    assert "hello" not in capsys.readouterr().out


def test_the_job_stops_the_timed_runs_at_a_quarter_of_its_time_limit(monkeypatch):
    seen = {}

    def fake(*args, **kwargs):
        seen.update(args=args, kwargs=kwargs)
        return {"ok": True}

    monkeypatch.setattr(compare_module, "compare", fake)
    device = local_device()
    compare_module.compare_job(Limits(measure_timeout_s=40.0, output_chars=999), CUBIC, "1.0",
                               second_code="", setting="cse: off", static_argnums=[0], on_accelerator=False,
                               device=device)
    assert seen["args"] == (CUBIC, "1.0", 999, "", "cse: off", (0,))
    assert seen["kwargs"] == {"time_limit_s": 10.0, "device": None}  # on this worker's CPU
    compare_module.compare_job(Limits(measure_timeout_s=40.0, output_chars=999), CUBIC, "1.0",
                               second_code="", setting="cse: off", static_argnums=[0], on_accelerator=True,
                               device=device)
    assert seen["kwargs"] == {"time_limit_s": 10.0, "device": device}  # "on the accelerator": the owner's


# --- on the device: both versions exported, compiled, run, timed and compared in the owner -----------------------


@pytest.fixture(scope="module")
def on_device() -> dict:
    return {name: compare(CUBIC, BIG, 200_000, setting=name, timing_budget_s=QUICK, device=local_device())
            for name in SETTINGS if not SETTINGS[name].donate}


def test_on_the_device_every_setting_but_donation_compiles_runs_and_agrees(on_device):
    for name, reply in on_device.items():
        assert reply["ok"] is True, reply
        assert reply["device"] == "cpu" and reply["setting"] == name  # the owner's device, as it names itself
        assert reply["same_result"] is True and reply["max_abs_diff"] == 0.0, name
        assert [v["function"] for v in reply["variants"]] == ["f", "f"]
        runs = [v["run"] for v in reply["variants"]]
        assert runs[0]["runs"] == runs[1]["runs"] >= 3, name  # timed together in the owner, A, B, A, B, ...
        assert all(v["compile_s"] > 0 for v in reply["variants"])
        assert reply["notes"] == [], name


def test_on_the_device_fusion_off_makes_four_kernels_of_one(on_device):
    a, b = on_device["fusion: off"]["variants"]
    assert (a["kernels"], b["kernels"]) == (1, 4) and a["jaxpr"] == b["jaxpr"] and a["hlo"] != b["hlo"]
    assert b["memory"]["temp_bytes"] > a["memory"]["temp_bytes"]


def test_on_the_device_x64_doubles_the_bytes_of_version_b(on_device):
    a, b = on_device["x64: on"]["variants"]
    assert a["memory"]["argument_bytes"] == MB4 and b["memory"]["argument_bytes"] == 2 * MB4
    assert "f64[1000,1000]" in b["jaxpr"] and b["result"].startswith("f64[1000, 1000]")
    assert jnp.ones(2).dtype == jnp.float32 and not jax.config.jax_enable_x64


def test_on_the_device_a_result_that_ran_is_not_called_a_shape_without_values(on_device):
    for reply in on_device.values():
        assert all("ShapeDtypeStruct" not in v["result"] for v in reply["variants"])


def test_on_the_device_a_second_function_is_compared_with_the_first():
    other = compare(CUBIC, "jnp.arange(4.0)", 200_000, second_code="def g(x):\n    return x * 2\n",
                    timing_budget_s=QUICK, device=local_device())
    assert (other["same_result"], other["max_abs_diff"]) == (False, pytest.approx(33.0))  # 39 - 6 at x = 3
    shaped = compare(CUBIC, "jnp.arange(4.0)", 200_000, second_code="def g(x):\n    return x.sum()\n",
                     timing_budget_s=QUICK, device=local_device())
    assert (shaped["same_result"], shaped["max_abs_diff"]) == (False, None)
    factored = compare(CUBIC, BIG, 200_000, second_code=FACTORED, timing_budget_s=QUICK, device=local_device())
    assert factored["same_result"] is True and [v["function"] for v in factored["variants"]] == ["f", "g"]


def test_on_the_device_static_arguments_are_baked_into_both_versions():
    reply = compare("def f(x, n):\n    return x * n\n", "(jnp.ones(3), 4)", 200_000, setting="cse: off",
                    static_argnums=(1,), timing_budget_s=QUICK, device=local_device())
    assert reply["ok"] is True and reply["same_result"] is True, reply


def test_on_the_device_donation_is_refused_with_why():
    reply = compare(CUBIC, BIG, 200_000, setting="donate: on", device=local_device())
    assert reply == {"ok": False, "error": {"kind": "invalid_input", "message": DONATE_ON_DEVICE, "line": None}}


def test_on_the_device_shape_dtype_struct_arguments_are_compiled_not_run():
    reply = compare(CUBIC, "jax.ShapeDtypeStruct((1000, 1000), jnp.float32)", 200_000, setting="fusion: off",
                    device=local_device())
    assert reply["ok"] is True, reply
    assert [v["run"] for v in reply["variants"]] == [None, None] and [v["kernels"] for v in reply["variants"]] == [1, 4]
    assert reply["notes"] == [values.NOT_RUN] and (reply["same_result"], reply["max_abs_diff"]) == (None, None)
