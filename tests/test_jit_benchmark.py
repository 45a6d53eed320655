"""The jit tab's measurement: NumPy vs eager JAX vs jitted JAX, checked against each other before any time counts."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from playground import jobs, replies
from playground.gallery import JIT_BENCHMARK_CODE
from playground.worker import jit_speed as jb
from playground.worker import numpy_stand_in, program_size

# These tests call the benchmark in pytest's own process, whose resident memory is the whole suite's so far
# (hundreds of compiled programs): a worker's 2 GB limit would leave no room late in a run.
IN_PROCESS_MB = 65_536
RESULT_KEYS = {"ok", "function", "device", "sizes", "skipped", "numpy_s", "eager_s", "jit_s", "compile_s", "spread",
               "min_s", "numpy_unavailable", "jaxpr_ops", "fused_kernels", "checked_sizes", "numpy_checked_sizes",
               "pending_sizes"}


@pytest.fixture(scope="module")
def classic():
    job = jobs.build("jit_speed", {"code": JIT_BENCHMARK_CODE, "sizes": [100, 10], "repeats": 3})  # as the API sends it
    return jb.jit_speed(job["code"], job["sizes"], job["repeats"], memory_mb=IN_PROCESS_MB)


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


def test_classic_jaxpr_has_five_equations_and_xla_fuses_them_into_one_kernel(classic):
    # mul a a; add a b; mul a a; mul d a; add c e -- tracing does not merge the two x*x
    jaxpr = jax.make_jaxpr(lambda x: x + x * x + x * x * x)(jnp.ones((10, 10), jnp.float32))
    assert [e.primitive.name for e in jaxpr.eqns] == ["mul", "add", "mul", "mul", "add"]
    assert classic["jaxpr_ops"] == 5
    # the optimised HLO's ENTRY holds one `multiply_add_fusion`: all five ops in one loop
    assert classic["fused_kernels"] == 1


def test_numpy_eager_and_jit_compute_the_same_numbers():
    x = jb._input(50)
    assert x.dtype == np.float32 and x.min() >= -1 and x.max() < 1
    np.testing.assert_array_equal(x, jb._input(50))  # a fixed seed
    as_numpy, why = numpy_stand_in.numpy_version(JIT_BENCHMARK_CODE, "fn")
    assert why is None
    by_numpy = as_numpy(x)
    assert type(by_numpy) is np.ndarray and by_numpy.dtype == np.float32
    fn = jb.usercode.load(JIT_BENCHMARK_CODE).function
    xd = jax.device_put(x)
    np.testing.assert_allclose(np.asarray(fn(xd)), by_numpy, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(jax.jit(fn)(xd)), by_numpy, rtol=1e-6, atol=1e-6)


def test_sizes_that_do_not_fit_are_skipped_with_a_reason():
    # The budget counts this process's own memory, which depends on the tests run before: give it
    # 1 GB on top of that, far less than the ~3 GB that n = 10000 needs.
    memory_mb = int(jb._resident_bytes() / 2**20 / jb.HEADROOM) + 1024
    r = jb.jit_speed(JIT_BENCHMARK_CODE, [10000, 10], repeats=1, memory_mb=memory_mb)
    assert r["ok"], r
    assert r["sizes"] == [10] and len(r["jit_s"]) == 1
    [skip] = r["skipped"]
    assert skip["size"] == 10000
    assert skip["reason"].startswith("needs about ") and f"the sandbox allows {memory_mb:,} MB" in skip["reason"]
    needed = int(skip["reason"].split()[2].replace(",", ""))
    assert needed >= jb.ARRAYS_FLOOR * 10000 * 10000 * 4 / 2**20


def test_when_no_size_fits_the_job_says_so():
    r = jb.jit_speed(JIT_BENCHMARK_CODE, [10000], repeats=1, memory_mb=300)
    assert r["error"]["kind"] == "memory"
    assert "n=10000 needs about" in r["error"]["message"]


def test_a_function_with_big_temporaries_needs_more_than_the_floor():
    spec = jax.ShapeDtypeStruct((100, 100), jnp.float32)
    classic_peak = program_size.peak_live_bytes(jax.make_jaxpr(lambda x: x + x * x + x * x * x)(spec).jaxpr)
    assert classic_peak == 4 * 100 * 100 * 4  # x, x*x + x, x*x, x*x*x at once
    cube = program_size.peak_live_bytes(jax.make_jaxpr(lambda x: (x[:, :, None] * x[:, None, :]).sum(-1))(spec).jaxpr)
    assert cube >= 100 ** 3 * 4


def test_jax_only_functions_get_no_numpy_time_and_say_why():
    r = jb.jit_speed("def f(x):\n    return lax.cumsum(x, axis=0)\n", [10, 20], repeats=1, memory_mb=IN_PROCESS_MB)
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
    assert type(as_numpy(jb._input(4))) is np.ndarray


@pytest.mark.parametrize(("code", "reason"), [
    ("from jax import lax\ndef f(x):\n    return lax.cummax(x, 0)\n", "cannot import name 'lax'"),
    ("def f(x):\n    return x + jnp.ones(x.shape)\n", "computes in float64, JAX in float32"),
    ("def f(x):\n    x += 1\n    return x\n", "changes its input in place"),
    ("def f(x):\n    return x + jax.random.uniform(jax.random.key(0), x.shape)\n", "jax.random is JAX-only"),
])
def test_numpy_versions_that_would_mislead_are_left_out(code, reason):
    r = jb.jit_speed(code, [10], repeats=1, memory_mb=IN_PROCESS_MB)
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
    r = jb.jit_speed(code, [10], repeats=1, memory_mb=IN_PROCESS_MB)
    assert r["error"]["kind"] == "invalid_input" and words in r["error"]["message"], r


def test_eager_and_jit_must_agree_before_anything_is_timed():
    impure = "import random\ndef f(x):\n    return x * random.random()\n"
    r = jb.jit_speed(impure, [10], repeats=1, memory_mb=IN_PROCESS_MB)
    assert r["error"]["kind"] == "invalid_input" and "eagerly and under jit" in r["error"]["message"]


def test_user_errors_keep_their_kind_and_line():
    r = jb.jit_speed("def f(x):\n    return x / missing\n", [10], repeats=1, memory_mb=IN_PROCESS_MB)
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
    out = jb.jit_speed(JIT_BENCHMARK_CODE, [10, 20, 30], repeats=1, memory_mb=IN_PROCESS_MB, early=sent.append)
    assert [reply["sizes"] for reply in sent] == [[10], [10, 20]]
    assert [reply["pending_sizes"] for reply in sent] == [[20, 30], [30]]
    assert all(set(reply) == RESULT_KEYS for reply in sent)
    assert out["pending_sizes"] == [] and sent[1]["jit_s"] == out["jit_s"][:2] and len(sent[1]["compile_s"]) == 2
    assert sent[0]["checked_sizes"] == [10] and sent[0]["numpy_checked_sizes"] == [10]
    assert sent[0]["jit_s"] is not out["jit_s"] and sent[0]["sizes"] is not out["sizes"]  # copies, not growing lists
    for reply in (*sent, out):
        replies.check(jobs.REGISTRY["jit_speed"].reply, reply)  # what the pool lets through, early ones too


def test_a_spent_budget_skips_the_sizes_not_reached():
    out = jb.jit_speed(JIT_BENCHMARK_CODE, [10, 20, 30], repeats=3, memory_mb=4096, budget_s=0.0)
    assert out["ok"] is True and out["sizes"] == [10]
    assert [s["size"] for s in out["skipped"]] == [20, 30]
    assert all("time budget" in s["reason"] for s in out["skipped"])
    assert len(out["jit_s"]) == 1
