"""The jit tab's measurement: NumPy vs eager JAX vs jitted JAX, checked against each other before any time counts."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from playground import device_ops, jobs, replies
from playground.gallery import JIT_BENCHMARK_CODE
from playground.measure import numerics
from playground.worker.jobs import jit_speed as jb
from playground.worker.jobs import numpy_side, numpy_stand_in
from playground.worker.measurement import program_size
from tests.device_requests import ops, recording_device
from tests.owner_doubles import local_device

# These tests call the benchmark in pytest's own process, whose resident memory is the whole suite's so far
# (hundreds of compiled programs): a worker's 2 GB limit would leave no room late in a run. The device is the owner's
# session in this process too (tests/owner_doubles.py), on the CPU, with the memory local_device() gives it.
IN_PROCESS_MB = 65_536
RESULT_KEYS = {"ok", "function", "device", "sizes", "skipped", "numpy_s", "eager_s", "jit_s", "compile_s", "spread",
               "min_s", "numpy_unavailable", "jaxpr_ops", "fused_kernels", "checked_sizes", "numpy_checked_sizes",
               "pending_sizes", "faults_per_call", "others_busy"}


@pytest.fixture(scope="module")
def classic():
    job = jobs.build("jit_speed", {"code": JIT_BENCHMARK_CODE, "sizes": [100, 10], "repeats": 3})  # as the API sends it
    return jb.jit_speed(job["code"], job["sizes"], job["repeats"], memory_mb=IN_PROCESS_MB, device=local_device())


def test_classic_result_has_every_key_and_a_time_per_size(classic):
    assert classic["ok"], classic
    assert set(classic) == RESULT_KEYS
    assert classic["function"] == "fn"
    device = jax.devices()[0]  # "cpu", or "gpu: NVIDIA H200" where the kind says more than the platform
    assert classic["device"] in (device.platform, f"{device.platform}: {device.device_kind}")
    assert classic["sizes"] == [10, 100] and classic["skipped"] == []  # sorted by the registry
    assert classic["numpy_unavailable"] is None
    assert classic["checked_sizes"] == classic["numpy_checked_sizes"] == [10, 100]  # every size, not the first
    for key in ("numpy_s", "eager_s", "jit_s", "compile_s"):
        assert len(classic[key]) == 2 and all(0 < v < 5 for v in classic[key]), key
    for engine in ("numpy", "eager", "jit"):
        assert all(v >= 0 for v in classic["spread"][engine])
        assert all(0 < lo <= med for lo, med in zip(classic["min_s"][engine], classic[f"{engine}_s"], strict=True))
        # each engine's page faults per timed call, counted in the process it ran in (the owner's, for JAX)
        assert len(classic["faults_per_call"][engine]) == 2 and all(f >= 0 for f in classic["faults_per_call"][engine])


def test_classic_jaxpr_has_five_equations_and_xla_fuses_them_into_one_kernel(classic):
    # mul a a; add a b; mul a a; mul d a; add c e -- tracing does not merge the two x*x
    jaxpr = jax.make_jaxpr(lambda x: x + x * x + x * x * x)(jnp.ones((10, 10), jnp.float32))
    assert [e.primitive.name for e in jaxpr.eqns] == ["mul", "add", "mul", "mul", "add"]
    assert classic["jaxpr_ops"] == 5
    # the optimised HLO's ENTRY holds one `multiply_add_fusion`: all five ops in one loop
    assert classic["fused_kernels"] == 1


def test_numpy_eager_and_jit_compute_the_same_numbers():
    x = device_ops.uniform((50, 50), np.float32, jb.SEED)
    assert x.dtype == np.float32 and x.min() >= -1 and x.max() < 1
    np.testing.assert_array_equal(x, device_ops.uniform((50, 50), np.float32, jb.SEED))  # a fixed seed
    as_numpy, why = numpy_stand_in.numpy_version(JIT_BENCHMARK_CODE, "fn")
    assert why is None
    by_numpy = as_numpy(x)
    assert type(by_numpy) is np.ndarray and by_numpy.dtype == np.float32
    fn = jb.usercode.load(JIT_BENCHMARK_CODE).function
    xd = jax.device_put(x)
    np.testing.assert_allclose(np.asarray(fn(xd)), by_numpy, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(jax.jit(fn)(xd)), by_numpy, rtol=1e-6, atol=1e-6)


def test_the_owner_makes_the_same_input_the_worker_gives_numpy():
    device = local_device()
    [made] = device.fetch([device.random((50, 50), np.float32, jb.SEED)])
    np.testing.assert_array_equal(made, device_ops.uniform((50, 50), np.float32, jb.SEED))
    assert made.dtype == np.float32


def test_the_device_and_numpy_results_agree_at_every_element_of_a_size():
    device = local_device()
    x = device_ops.uniform((30, 30), np.float32, jb.SEED)
    program = device.export(jax.jit(jb.usercode.load(JIT_BENCHMARK_CODE).function),
                            jax.ShapeDtypeStruct((30, 30), np.float32))
    (by_jit,), _ = device.run(program.call([device.random((30, 30), np.float32, jb.SEED)]))
    as_numpy, _ = numpy_stand_in.numpy_version(JIT_BENCHMARK_CODE, "fn")
    assert numpy_check(as_numpy, x, device, by_jit) is None
    assert "gives other results at n=30" in numpy_check(lambda y: as_numpy(y) + np.float32(1), x, device, by_jit)


def numpy_check(as_numpy, x, device, by_jit) -> str | None:
    """Why NumPy's version is left out at x's size (its host side, then its comparison with jit's), or None."""
    by_numpy, why = numpy_side.result(as_numpy, x)
    return why if by_numpy is None else numpy_side.disagreement(by_numpy, device, by_jit, jb.RTOL, jb.ATOL)


def test_a_numpy_version_that_changes_its_input_in_place_is_left_out():
    def in_place(y):
        y *= 2
        return y
    by_numpy, why = numpy_side.result(in_place, device_ops.uniform((5, 5), np.float32, jb.SEED))
    assert by_numpy is None and "changes its input in place" in why


def test_above_256_squared_numpy_is_compared_at_spread_elements_the_last_among_them():
    n = 300  # 90,000 elements: more than numpy_side.MAX_CHECKED, so only a spread of them come back from the device
    device = local_device()
    x = device_ops.uniform((n, n), np.float32, jb.SEED)
    program = device.export(jax.jit(lambda y: y * 2), jax.ShapeDtypeStruct((n, n), np.float32))
    (by_jit,), _ = device.run(program.call([device.random((n, n), np.float32, jb.SEED)]))

    def last_element_off(y):
        out = y * 2
        out[-1, -1] += 1
        return out
    assert numpy_check(lambda y: y * 2, x, device, by_jit) is None
    assert "gives other results at n=300 (largest difference 1)" in numpy_check(last_element_off, x, device, by_jit)


def test_sizes_that_do_not_fit_the_device_are_skipped_with_a_reason():
    # The device's memory is the owner's: 1 GB here, far less than the ~1.6 GB that n = 10000 needs at least
    # (ARRAYS_FLOOR / 2 arrays of 400 MB on the device; the worker's own memory is NumPy's, checked apart).
    r = jb.jit_speed(JIT_BENCHMARK_CODE, [10000, 10], repeats=1, memory_mb=IN_PROCESS_MB,
                     device=local_device(memory_mb=1024))
    assert r["ok"], r
    assert r["sizes"] == [10] and len(r["jit_s"]) == 1
    [skip] = r["skipped"]
    assert skip["size"] == 10000
    assert skip["reason"].startswith("needs about ") and "on the device, which has 1,024 MB" in skip["reason"]
    needed = int(skip["reason"].split()[2].replace(",", ""))
    assert needed >= jb.ARRAYS_FLOOR / 2 * 10000 * 10000 * 4 / 2**20


def test_when_no_size_fits_the_device_the_answer_is_a_memory_error_with_the_reason():
    r = jb.jit_speed(JIT_BENCHMARK_CODE, [10000], repeats=1, memory_mb=IN_PROCESS_MB, device=local_device(1024))
    assert r["ok"] is False and r["error"]["kind"] == "memory", r
    assert r["error"]["message"].startswith("No size fits in the device's memory: n=10000 needs about ")
    assert "on the device, which has 1,024 MB" in r["error"]["message"]


def test_numpy_stops_at_the_size_the_sandbox_has_no_room_for():
    # The budget counts this process's own memory, which depends on the tests run before: give it 300 MB on top of
    # that (240 MB under HEADROOM), room for NumPy at n = 10 (a few hundred bytes) and not at n = 4000 (about 670 MB:
    # SAFETY times the input, a copy, the result and the function's live values, 64 MB each).
    memory_mb = int(jb._worker_resident_mb() / jb.HEADROOM) + 300
    r = jb.jit_speed(JIT_BENCHMARK_CODE, [10, 4000], repeats=1, memory_mb=memory_mb, device=local_device())
    assert r["ok"], r
    assert r["sizes"] == [10, 4000] and r["skipped"] == []  # the device had room for both
    assert r["numpy_checked_sizes"] == [10]
    assert isinstance(r["numpy_s"][0], float) and r["numpy_s"][1] is None
    assert r["numpy_unavailable"].startswith("NumPy was not timed from n=4,000 on: it needs about ")
    assert f"which allows {memory_mb:,} MB" in r["numpy_unavailable"]
    assert all(v > 0 for v in r["eager_s"] + r["jit_s"])


def test_when_no_size_fits_the_job_says_so():
    r = jb.jit_speed(JIT_BENCHMARK_CODE, [10000], repeats=1, memory_mb=IN_PROCESS_MB,
                     device=local_device(memory_mb=300))
    assert r["error"]["kind"] == "memory"
    assert "device's memory" in r["error"]["message"] and "n=10000 needs about" in r["error"]["message"]


def test_a_function_with_big_temporaries_needs_more_than_the_floor():
    spec = jax.ShapeDtypeStruct((100, 100), jnp.float32)
    classic_peak = program_size.peak_live_bytes(jax.make_jaxpr(lambda x: x + x * x + x * x * x)(spec).jaxpr)
    assert classic_peak == 4 * 100 * 100 * 4  # x, x*x + x, x*x, x*x*x at once
    cube = program_size.peak_live_bytes(jax.make_jaxpr(lambda x: (x[:, :, None] * x[:, None, :]).sum(-1))(spec).jaxpr)
    assert cube >= 100 ** 3 * 4


def test_jax_only_functions_get_no_numpy_time_and_say_why():
    r = jb.jit_speed("def f(x):\n    return lax.cumsum(x, axis=0)\n", [10, 20], repeats=1, memory_mb=IN_PROCESS_MB,
                     device=local_device())
    assert r["ok"], r
    assert r["numpy_s"] == [None, None] and r["spread"]["numpy"] == [None, None]
    assert "lax.cumsum is JAX-only" in r["numpy_unavailable"]
    assert all(v > 0 for v in r["eager_s"] + r["jit_s"])


@pytest.mark.parametrize("code", [
    "import jax.numpy as jnp\ndef f(x):\n    return jnp.sin(x) * jnp.exp(x)\n",
    "from jax import numpy as jnp\ndef f(x):\n    return jnp.tanh(x) @ x\n",
    "@jax.jit\ndef f(x):\n    return x * 2 + 1\n",
])
def test_usual_ways_of_writing_jnp_run_under_numpy(code):
    as_numpy, why = numpy_stand_in.numpy_version(code, "f")
    assert why is None
    assert type(as_numpy(device_ops.uniform((4, 4), np.float32, jb.SEED))) is np.ndarray


@pytest.mark.parametrize(("code", "reason"), [
    ("from jax import lax\ndef f(x):\n    return lax.cummax(x, 0)\n", "cannot import name 'lax'"),
    ("def f(x):\n    return x + jnp.ones(x.shape)\n", "gives float64 of shape (10, 10), JAX float32"),
    ("def f(x):\n    x += 1\n    return x\n", "changes its input in place"),
    ("def f(x):\n    return x + jax.random.uniform(jax.random.key(0), x.shape)\n", "jax.random is JAX-only"),
])
def test_numpy_versions_that_would_mislead_are_left_out(code, reason):
    r = jb.jit_speed(code, [10], repeats=1, memory_mb=IN_PROCESS_MB, device=local_device())
    assert r["ok"], r
    assert r["numpy_s"] == [None] and reason in r["numpy_unavailable"]


@pytest.mark.parametrize(("code", "words"), [
    ("def f(x):\n    return x.sum()\n", "into shape ()"),
    ("def f(x):\n    return x[:2]\n", "into shape (2, 10)"),
    ("def f(x):\n    return x, x\n", "returns a tuple"),
    ("def f(x, y):\n    return x + y\n", "must take exactly one argument"),
    ("def f():\n    return 1.0\n", "must take exactly one argument"),
])
def test_functions_that_do_not_map_an_array_to_one_of_its_shape(code, words):
    r = jb.jit_speed(code, [10], repeats=1, memory_mb=IN_PROCESS_MB, device=local_device())
    assert r["error"]["kind"] == "invalid_input" and words in r["error"]["message"], r


def test_eager_and_jit_must_agree_before_anything_is_timed():
    impure = "import random\ndef f(x):\n    return x * random.random()\n"
    r = jb.jit_speed(impure, [10], repeats=1, memory_mb=IN_PROCESS_MB, device=local_device())
    assert r["error"]["kind"] == "invalid_input" and "eagerly and under jit" in r["error"]["message"]


def test_a_disagreement_of_eager_and_jit_in_the_owner_stops_the_job_before_any_time(monkeypatch):
    compared = []

    def disagrees(a, b, rtol, atol, *rest):
        compared.append((a[0].shape, b[0].shape, rtol, atol))
        return numerics.Comparison(False, 0.5)
    monkeypatch.setattr(numerics, "compare", disagrees)  # the owner's comparison (owner/session.py's compare op)
    device, requests = recording_device()
    r = jb.jit_speed(JIT_BENCHMARK_CODE, [10, 20], repeats=1, memory_mb=IN_PROCESS_MB, device=device)
    assert r["error"]["kind"] == "invalid_input", r
    assert "gives different results eagerly and under jit at n=10 (largest difference 0.5)" in r["error"]["message"]
    assert compared == [((10, 10), (10, 10), jb.RTOL, jb.ATOL)]  # eager's result against jit's, on the device
    assert not {"time", "time_each", "time_together"} & set(ops(requests))  # nothing was timed


def test_user_errors_keep_their_kind_and_line():
    r = jb.jit_speed("def f(x):\n    return x / missing\n", [10], repeats=1, memory_mb=IN_PROCESS_MB,
                     device=local_device())
    assert r["error"]["kind"] == "user_exception" and r["error"]["line"] == 2


def test_count_equations_looks_inside_sub_jaxprs():
    jaxpr = jax.make_jaxpr(jax.nn.relu)(jnp.ones(3))
    # custom_jvp_call -> jit(relu) -> max: three equations, two of them containers
    assert len(jaxpr.jaxpr.eqns) == 1 and program_size.count_equations(jaxpr.jaxpr) == 3
    looped = jax.make_jaxpr(lambda x: jax.lax.fori_loop(0, 3, lambda i, a: a * 2.0, x))(jnp.ones(3))
    assert program_size.count_equations(looped.jaxpr) > len(looped.jaxpr.eqns)


def test_count_kernels_counts_fusions_and_unfused_work_in_entry_only():
    spec = jax.ShapeDtypeStruct((64, 64), jnp.float32)
    assert program_size.count_kernels(jax.jit(lambda x: x + x * x + x * x * x).lower(spec).compile().as_text()) == 1
    # sort stays its own op; the multiply after it is a fusion
    assert program_size.count_kernels(jax.jit(lambda x: jnp.sort(x, axis=1) * 2).lower(spec).compile().as_text()) == 2
    hlo = """HloModule m

%fused_computation (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %m = f32[4]{0} multiply(%p, %p)
}

ENTRY %main (x: f32[4]) -> (f32[4], f32[4]) {
  %x = f32[4]{0} parameter(0)
  %c = f32[] constant(1)
  %f = f32[4]{0} fusion(%x), kind=kLoop, calls=%fused_computation
  %y = f32[4]{0} copy(%f)
  %b = f32[2,2]{1,0} bitcast(%y)
  ROOT %t = (f32[4]{0}, f32[4]{0}) tuple(%f, %y)
}
"""
    assert program_size.count_kernels(hlo) == 2  # the fusion and the copy


def test_each_size_but_the_last_goes_ahead_with_the_rest_pending():
    sent = []
    out = jb.jit_speed(JIT_BENCHMARK_CODE, [10, 20, 30], repeats=1, memory_mb=IN_PROCESS_MB, device=local_device(),
                      early=sent.append)
    assert [reply["sizes"] for reply in sent] == [[10], [10, 20]]
    assert [reply["pending_sizes"] for reply in sent] == [[20, 30], [30]]
    assert all(set(reply) == RESULT_KEYS for reply in sent)
    assert out["pending_sizes"] == [] and sent[1]["jit_s"] == out["jit_s"][:2] and len(sent[1]["compile_s"]) == 2
    assert sent[0]["checked_sizes"] == [10] and sent[0]["numpy_checked_sizes"] == [10]
    assert sent[0]["jit_s"] is not out["jit_s"] and sent[0]["sizes"] is not out["sizes"]  # copies, not growing lists
    for reply in (*sent, out):
        replies.check(jobs.REGISTRY["jit_speed"].reply, reply)  # what the pool lets through, early ones too


def test_a_spent_budget_skips_the_sizes_not_reached():
    out = jb.jit_speed(JIT_BENCHMARK_CODE, [10, 20, 30], repeats=3, memory_mb=4096, device=local_device(),
                      budget_s=0.0)
    assert out["ok"] is True and out["sizes"] == [10]
    assert [s["size"] for s in out["skipped"]] == [20, 30]
    assert all("time budget" in s["reason"] for s in out["skipped"])
    assert len(out["jit_s"]) == 1


def test_numpy_runs_beside_an_accelerator_and_in_turn_with_the_hosts_cpu():
    assert isinstance(numpy_side.host_for(local_device()), numpy_side._InTurn)
    accelerator = type("Accelerator", (), {"about": {"platform": "tpu"}})()
    with numpy_side.host_for(accelerator) as host:
        assert host.submit(lambda: threading.current_thread().name).result().startswith("numpy")


def test_beside_the_device_numpy_is_checked_and_timed_on_its_own_thread(monkeypatch):
    threads, result_on = [], numpy_side.result

    def recorded(*args):
        threads.append(threading.current_thread())
        return result_on(*args)
    monkeypatch.setattr(numpy_side, "result", recorded)
    monkeypatch.setattr(numpy_side, "host_for", lambda device: ThreadPoolExecutor(1, thread_name_prefix="numpy"))
    out = jb.jit_speed(JIT_BENCHMARK_CODE, [10, 20], repeats=2, memory_mb=IN_PROCESS_MB, device=local_device())
    assert out["numpy_checked_sizes"] == [10, 20] and all(t > 0 for t in out["numpy_s"])
    assert all(t > 0 for t in out["eager_s"] + out["jit_s"])
    assert len(threads) == 2 and all(t.name.startswith("numpy") for t in threads)
