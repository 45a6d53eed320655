"""One job's session in the device owner (playground/owner/session.py), asked as a worker asks it
(playground/worker/jobs/device.py), through JSON, on this process's CPU (tests/owner_doubles.py): arrays there and
back, programs loaded, compiled once and kept, the three kinds of call, comparisons, timings, a trace; and every
request that does not fit answered with an error, never an exception of the owner's."""

from __future__ import annotations

import base64

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

from playground import device_ops
from playground.worker.jobs.device import DeviceRefused, exported_call
from playground.worker.jobs.eager_plan import plan
from tests.owner_doubles import local_device


@pytest.fixture
def device():
    return local_device()


@pytest.mark.parametrize("array", [np.arange(6, dtype=np.float32).reshape(2, 3), np.float32(2.5),
                                   np.array([True, False]), np.arange(4, dtype=np.int8),
                                   np.array([1.5, -2.0], dtype=ml_dtypes.bfloat16), np.zeros((0, 3), np.float32),
                                   np.full((4, 5), -0.0, np.float32)],
                         ids=["f32", "scalar", "bool", "int8", "bfloat16", "empty", "a fill of -0.0"])
def test_arrays_go_and_come_back_as_they_were(device, array):
    (back,) = device.fetch(device.put([array]))
    assert back.dtype == array.dtype and back.shape == array.shape
    assert back.tobytes() == np.asarray(array).tobytes()


def test_an_array_of_one_value_travels_as_that_value():
    ones = device_ops.encode_array(np.ones((1000, 1000), np.float32))
    assert set(ones) == {"dtype", "shape", "fill"} and len(ones["fill"]) == 8
    assert set(device_ops.encode_array(np.arange(3.0))) == {"dtype", "shape", "data"}


def test_an_array_larger_than_a_request_goes_in_parts(device, monkeypatch):
    monkeypatch.setattr(device_ops, "MAX_PUT_BYTES", 1000)
    asked = []
    request = device.request
    monkeypatch.setattr(device, "request", lambda op, **fields: asked.append(op) or request(op, **fields))
    array = np.random.default_rng(0).random((30, 20), dtype=np.float32)  # 2,400 bytes: three parts
    (back,) = device.fetch(device.put([array]))
    assert np.array_equal(back, array)
    assert asked[:4] == ["upload", "append", "append", "append"]


@pytest.mark.parametrize(("value", "words"), [
    ({"dtype": "object", "shape": [1], "data": ""}, "cannot travel"),
    ({"dtype": "float32", "shape": [2], "data": base64.b64encode(b"\0" * 4).decode()}, "holds 8 bytes, not 4"),
    ({"dtype": "float32", "shape": [1 << 40], "fill": base64.b64encode(b"\0" * 4).decode()}, "more than"),
    ({"dtype": "float32", "shape": ["1"], "data": ""}, "whole numbers"),
    ({"dtype": "float32", "shape": [1], "data": "not base64!"}, "not base64"),
    ({"dtype": "float32", "shape": [1], "data": "", "more": 1}, "an array is"),
])
def test_an_array_that_does_not_say_what_it_holds_is_refused(device, value, words):
    answer = device._ask({"op": "put", "arrays": [value]})
    assert words in answer["error"], answer


def test_a_program_compiled_once_is_kept_for_the_same_bytes(device):
    spec = jax.ShapeDtypeStruct((8,), jnp.float32)

    def f(x):
        return x * 3 + 1

    first = device.compile(device.export(f, spec))
    again = device.compile(device.export(f, spec))  # the same bytes: a new session of the same owner would find it
    assert not first["kept"] and again["kept"] and again["compile_s"] == first["compile_s"]
    assert "HloModule jit_f" in first["hlo"] and first["cost"]["flops"] == 16.0


def test_a_call_a_plan_and_a_loop_compute_what_jax_does(device):
    def f(x):
        return jnp.tanh(x @ x.T) + x.sum()

    x = np.random.default_rng(1).random((4, 4), dtype=np.float32)
    [x_id] = device.put([x])
    spec = jax.ShapeDtypeStruct(x.shape, x.dtype)
    (by_jit,), _ = device.run(device.export(f, spec).call([x_id]))
    (by_plan,), _ = device.run(plan(device, f, [spec], [x_id]))
    expected = np.asarray(f(x))
    np.testing.assert_allclose(device.fetch([by_jit])[0], expected, rtol=1e-6)
    np.testing.assert_allclose(device.fetch([by_plan])[0], expected, rtol=1e-6)
    one = device.export(lambda row, shift: row * 2 + shift, jax.ShapeDtypeStruct((4,), jnp.float32),
                        jax.ShapeDtypeStruct((), jnp.float32))
    [shift] = device.put([np.float32(0.5)])
    looped, done = device.run({"loop": {"program": one.id, "batch": [x_id, shift], "in_axes": [0, None],
                                        "out_axes": [1], "count": 4, "limit_s": 60.0}})
    assert done == 4
    np.testing.assert_array_equal(device.fetch(looped)[0], (x * 2 + 0.5).T)


def test_a_plan_keeps_keys_as_their_bits_on_the_wire(device):
    def f(key, x):
        return x + jax.random.normal(jax.random.fold_in(key, 3), x.shape)

    key, x = jax.random.key(7), jnp.ones(5)
    (out,), _ = device.run(exported_call(device, f, (key, x)))
    np.testing.assert_allclose(device.fetch([out])[0], np.asarray(f(key, x)), rtol=1e-6)


def test_a_loop_stopped_by_its_clock_says_how_far_it_got(device):
    one = device.export(lambda row: row + 1, jax.ShapeDtypeStruct((2,), jnp.float32))
    [batch] = device.put([np.zeros((500, 2), np.float32)])
    looped, done = device.run({"loop": {"program": one.id, "batch": [batch], "in_axes": [0], "out_axes": [0],
                                        "count": 500, "limit_s": 0.0}})
    assert done == 1 and device.fetch(looped)[0].shape == (1, 2)  # at least one example, then the clock


def test_comparisons_within_a_tolerance_within_rounding_and_of_the_first_examples(device):
    a, b = device.put([np.float32([1.0, 2.0, 3.0]), np.float32([1.0, 2.0, 3.5])])
    assert device.compare([a], [a], rtol=0, atol=0)["equal"]
    found = device.compare([a], [b], rtol=1e-5, atol=1e-6)
    assert not found["equal"] and found["largest"] == 0.5
    assert device.compare([a], [b], rounding=1e-7)["reason"] == "1 of 3 elements differ by more than the tolerance"
    [batch] = device.put([np.float32([[1.0, 2.0], [9.0, 9.0]])])
    [first] = device.put([np.float32([[1.0, 2.0]])])
    assert device.compare([batch], [first], rtol=0, atol=0, first=([0], 1))["equal"]


def test_a_timing_has_its_runs_and_a_trace_its_kernels(device):
    spec = jax.ShapeDtypeStruct((256, 256), jnp.float32)
    program = device.export(lambda x: jnp.exp(x) * 2, spec)
    module = device.compile(program)["module"]
    [x] = device.put([np.ones((256, 256), np.float32) * 0.5])
    timing = device.time(program.call([x]), min_runs=4, min_total_s=0.0)
    assert timing.runs >= 4 and 0 < timing.min_s <= timing.median_s
    traced = device.trace(program.call([x]), 2, module)
    assert traced["unavailable"] is None and any(events for events in traced["planes"].values())


@pytest.mark.parametrize(("request_", "words"), [
    ({"op": "launch"}, "no device op"),
    ({"op": "call", "call": {"program": 99, "args": []}}, "program must be a whole number below"),
    ({"op": "call", "call": {"spell": 1}}, "a program, a plan or a loop"),
    ({"op": "fetch", "buffers": [12345]}, "there is no array"),
    ({"op": "load", "program": "@@@"}, "base64"),
    ({"op": "compile", "program": 0, "dump": "everything"}, "a compile's dump is one of"),
    ({"op": "compile", "program": 0, "setting": "x64: on"}, "no compiler setting"),
    ({"op": "time_each", "calls": [], "max_total_s": -1}, "max_total_s must be a number of seconds from 0 up"),
    ({"op": "time_each", "calls": [], "min_total_s": "soon"}, "min_total_s must be a number of seconds"),
    ("not a dict", "a JSON object"),
])
def test_a_request_that_does_not_fit_is_answered_with_why(device, request_, words):
    device.export(lambda x: x, jax.ShapeDtypeStruct((2,), jnp.float32))  # program 0 exists
    answer = device._ask(request_)
    assert words in answer["error"], answer


def test_a_call_of_the_wrong_arity_or_types_is_refused_not_raised(device):
    program = device.export(lambda x, y: x + y, *[jax.ShapeDtypeStruct((2,), jnp.float32)] * 2)
    [x] = device.put([np.ones(2, np.float32)])
    with pytest.raises(DeviceRefused, match="does not fit its op"):
        device.run(program.call([x]))
    [wrong] = device.put([np.ones(3, np.float32)])
    with pytest.raises(DeviceRefused, match="does not fit its op"):
        device.run(program.call([x, wrong]))


def test_the_devices_own_out_of_memory_is_a_memory_error(device):
    def f(x):  # a terabyte of random numbers, sorted: a sort's input must be in memory, whole
        return jnp.sort(jax.random.normal(jax.random.key(0), (1 << 18, 1 << 18)) + x)[0, 0]

    big = device.export(f, jax.ShapeDtypeStruct((), jnp.float32))
    [x] = device.put([np.float32(1.0)])
    with pytest.raises(DeviceRefused) as refused:
        device.run(big.call([x]))
    assert refused.value.kind == "memory" and str(refused.value).startswith("Out of device memory: RESOURCE_EXHAUSTED")


def test_the_ceilings_are_measured_once_per_dtype(device):
    first = device.ceilings("float32")
    assert first["ok"] and first["dtype"] == "float32" and first["peak_flops_s"] > 0 and first["bandwidth_bytes_s"] > 0
    assert device.ceilings("float32") == first  # kept for the owner's life
    assert device.ceilings("float32", 0) == first
    again = device.ceilings("float32", 1)  # the server's next round: measured afresh, then kept
    assert again["ok"] and device.ceilings("float32", 1) == again
    assert device.ceilings("float32", 0) == again  # an earlier round finds the newer roofs
    assert "are measured for" in device._ask({"op": "ceilings", "dtype": "int8"})["error"]
