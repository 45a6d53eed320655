"""The Parallel tab's verdict: a sharded result equals the one-device result up to rounding, and no further.

The sharded cases run on 8 simulated CPU devices in one subprocess
(tests/eight_devices.py), each next to plain JAX doing the same on the same
devices; the tolerance's pieces (numerics, rounding) are tested here, on this
process's one device.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from playground.measure import numerics
from playground.worker.jobs import rounding
from tests.eight_devices import MARKER, run_driver

EPS32 = 2.0**-23
MATMUL = "def f(a, b):\n    return a @ b\n"
# A matmul over a grid of devices: rows over one axis, columns over another, a 100-term float32 contraction.
GRID_ARGS = "(jnp.sin(jnp.arange(800.0)).reshape(8, 100), jnp.arange(800.0).reshape(100, 8) / 100)"
GRID_MESH = ([2, 4], ["data", "model"], "(P('data', None), P(None, 'model'))", "P('data', 'model')")
NORMAL = "jax.random.normal(jax.random.key({seed}), {shape})"
SPLIT_ARGS = f"({NORMAL.format(seed=0, shape=(16, 1000))}, {NORMAL.format(seed=1, shape=(1000, 16))})"
SPLIT_MESH = ([8], ["k"], "(P(None, 'k'), P('k', None))", "P()")
WIDE_ARGS = f"({NORMAL.format(seed=0, shape=(64, 2048))}, {NORMAL.format(seed=1, shape=(2048, 64))})"
# Wrong on purpose: the function reads the mesh its input lives on (empty on one device) and computes another result.
OFF_BY_1E3 = "def f(a, b):\n    return (a @ b) * (1 + 1e-3 * (jax.typeof(a).sharding.mesh.size > 1))\n"
MISSING_PSUM = """def f(x):
    mesh = jax.typeof(x).sharding.mesh
    if mesh.empty:
        return x.sum(0)
    spec = jax.sharding.PartitionSpec
    return jax.shard_map(lambda block: block.sum(0), mesh=mesh, in_specs=spec('d'), out_specs=spec(),
                         check_vma=False)(x)  # no lax.psum: device 0's block sum comes back
"""
CUSTOM_VJP = """@jax.custom_vjp
def double(x):
    return 2 * x
double.defvjp(lambda x: (double(x), None), lambda _, g: (2 * g,))
def f(x):
    return double(x).sum(0)
"""
CASES = {
    "grid": [MATMUL, GRID_ARGS, *GRID_MESH],
    "split_contraction": [MATMUL, SPLIT_ARGS, *SPLIT_MESH],
    "squashed": ["def f(a, b):\n    return jnp.tanh(a @ b)\n", WIDE_ARGS, *SPLIT_MESH],
    "off_by_1e-3": [OFF_BY_1E3, GRID_ARGS, *GRID_MESH],
    "missing_psum": [MISSING_PSUM, "jnp.arange(32.0).reshape(8, 4)", [8], ["d"], "P('d')", "P()"],
    "integers": ["def f(x):\n    return (x * 3).sum(0)\n", "jnp.arange(64).reshape(8, 8)", [8], ["d"], "P('d')", "P()"],
    "custom_vjp": [CUSTOM_VJP, "jnp.sin(jnp.arange(800.0)).reshape(100, 8)", [8], ["d"], "P(None, 'd')", "P('d')"],
}
# Plain JAX, beside the module under test: each case's single-device and sharded results, for the cases that
# are honest computations (the wrong ones are checked against what they compute, below).
DRIVER = f"""
import json, sys
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P
from playground.worker.jobs import shard as parallel

cases = json.loads(sys.argv[1])
results = {{name: parallel.shard(*args) for name, args in cases.items()}}

def plain(f, args, shape, names, in_specs, out_spec):
    mesh = jax.make_mesh(tuple(shape), tuple(names), axis_types=(AxisType.Auto,) * len(shape))
    shardings = tuple(NamedSharding(mesh, s) for s in in_specs)
    one = np.asarray(jax.jit(f)(*args), np.float64)
    placed = [jax.device_put(a, s) for a, s in zip(args, shardings)]
    many = np.asarray(jax.jit(f, in_shardings=shardings, out_shardings=NamedSharding(mesh, out_spec))(*placed),
                      np.float64)
    return {{"max_abs_diff": float(np.max(np.abs(many - one))), "largest": float(np.max(np.abs(one))),
             "fixed_tolerance_allclose": bool(np.allclose(many, one, rtol=1e-5, atol=1e-6))}}

grid = eval({GRID_ARGS!r})
split = eval({SPLIT_ARGS!r})
wide = eval({WIDE_ARGS!r})
results["plain"] = {{
    "grid": plain(lambda a, b: a @ b, grid, (2, 4), ("data", "model"), (P("data", None), P(None, "model")),
                  P("data", "model")),
    "split_contraction": plain(lambda a, b: a @ b, split, (8,), ("k",), (P(None, "k"), P("k", None)), P()),
    "squashed": plain(lambda a, b: jnp.tanh(a @ b), wide, (8,), ("k",), (P(None, "k"), P("k", None)), P()),
}}
print({MARKER!r} + json.dumps(results))
"""


@pytest.fixture(scope="module")
def results() -> dict:
    return run_driver(DRIVER, CASES)


def matched(out: dict) -> dict:
    assert out["ok"], out
    assert out["matches_unsharded"] is True and out["mismatch"] is None, out
    assert out["max_abs_diff"] <= out["tolerance"]
    return out


def test_a_matmul_over_a_grid_of_devices_matches_within_float32_rounding(results):
    out, plain = matched(results["grid"]), results["plain"]["grid"]
    assert out["max_abs_diff"] == plain["max_abs_diff"]
    # Whether a block of this contraction rounds differently from the whole depends on the CPU: Eigen picks its
    # kernels by the vector units (on some CPUs the two differ by a few ulps, on others not at all). Where they
    # differ, a fixed rtol 1e-5, atol 1e-6 calls it different, as a plain allclose does; the split contraction
    # below always reorders its sums.
    if plain["max_abs_diff"] > 0:
        assert not plain["fixed_tolerance_allclose"]
    assert out["rounding"]["terms"] == 100 and out["rounding"]["relative"] == pytest.approx(10 * EPS32)
    assert out["tolerance"] < 1e-3 * plain["largest"]  # an error of 1e-3 relative would not pass


def test_a_contraction_split_over_devices_matches(results):
    out, plain = matched(results["split_contraction"]), results["plain"]["split_contraction"]
    assert "all-reduce" in out["collectives"]
    assert out["max_abs_diff"] == plain["max_abs_diff"] > 0
    assert out["rounding"]["terms"] == 1000 and out["tolerance"] < 1e-4 * plain["largest"]


def test_a_squashed_sum_is_judged_by_its_inputs_size_not_its_results(results):
    out, plain = matched(results["squashed"]), results["plain"]["squashed"]
    assert out["max_abs_diff"] == plain["max_abs_diff"]
    assert out["rounding"]["inputs_moved"]
    # tanh keeps results under 1, but the 2048-term sums under it are large: a tolerance from the result alone
    # (4 * rho * its largest magnitude) would call this honest reordering a difference.
    assert out["max_abs_diff"] > 4 * out["rounding"]["relative"] * plain["largest"]


def test_a_result_off_by_1e3_relative_is_reported_as_different(results):
    out, plain = results["off_by_1e-3"], results["plain"]["grid"]
    assert out["ok"] and out["matches_unsharded"] is False, out
    assert out["max_abs_diff"] > out["tolerance"]
    assert out["max_abs_diff"] == pytest.approx(1e-3 * plain["largest"], rel=0.01)
    assert out["mismatch"].endswith("of 64 elements differ by more than the tolerance (the result)")


def test_a_shard_map_without_its_psum_is_reported_as_different(results):
    out = results["missing_psum"]
    assert out["ok"] and out["matches_unsharded"] is False, out
    x = np.arange(32.0).reshape(8, 4)
    assert out["max_abs_diff"] == np.max(np.abs(x.sum(0) - x[0]))  # device 0's block is row 0
    assert out["mismatch"] == "4 of 4 elements differ by more than the tolerance (the result)"


def test_integer_results_must_be_equal(results):
    out = matched(results["integers"])
    assert out["tolerance"] == 0.0 and out["max_abs_diff"] == 0.0


def test_without_a_jvp_the_scale_is_the_results_size(results):
    out = matched(results["custom_vjp"])
    assert out["rounding"]["inputs_moved"] is False
    x = np.sin(np.arange(800.0, dtype=np.float32)).reshape(100, 8)
    assert out["rounding"]["scale"] == pytest.approx(np.max(np.abs((2 * x).sum(0))), rel=1e-5)


# -- the pieces, on one device -------------------------------------------------------------------------------------


def blocked_sum(x: jax.Array) -> jax.Array:
    """The sum as 8 devices would do it: each adds its block, then the blocks are added."""
    return jnp.sum(jnp.sum(x.reshape(8, -1), axis=1))


@pytest.fixture(scope="module")
def numbers() -> jax.Array:
    return jax.random.normal(jax.random.key(0), (1 << 16,)) + 0.5


def test_a_sum_in_another_order_is_within_rounding_and_a_wrong_one_is_not(numbers):
    budget = rounding.rounding_budget(jax.make_jaxpr(jnp.sum)(numbers))
    moved = rounding.input_sensitivity(jnp.sum, (numbers,))
    one, blocked = jnp.sum(numbers), blocked_sum(numbers)
    exact = math.fsum(np.asarray(numbers, np.float64))
    assert budget.terms == numbers.size and budget.relative == pytest.approx(math.sqrt(numbers.size) * EPS32)
    verdict = numerics.compare_within_rounding(blocked, one, budget.relative, moved)
    assert verdict.equal and verdict.largest == abs(float(blocked) - float(one)) <= verdict.tolerance
    assert abs(float(one) - exact) <= verdict.tolerance  # and both are that close to the exact sum
    assert not numerics.compare_within_rounding(one * (1 + 1e-3), one, budget.relative, moved).equal


def test_the_deciding_leaf_is_the_one_out_of_its_tolerance():
    ok, off = np.float32([1.0, 2.0]), np.float32([100.0])
    verdict = numerics.compare_within_rounding((ok, off * np.float32(1.01)), (ok, off))
    assert not verdict.equal and verdict.where == "leaf [1]" and verdict.differing == 1
    assert verdict.tolerance == numerics.rounding_tolerance(np.float32, 0.0, 100.0)
    assert numerics.compare_within_rounding(np.array([np.nan, 1.0]), np.array([np.nan, 1.0])).equal
    assert numerics.compare_within_rounding(np.arange(3), np.arange(3) + np.array([0, 0, 1])).tolerance == 0.0
    assert numerics.compare_within_rounding(np.ones(2), np.ones(3)).reason == "float64[2] vs float64[3]"


def test_the_budget_counts_each_reduction_its_terms():
    def budget(f, *shapes, dtype=jnp.float32):
        return rounding.rounding_budget(jax.make_jaxpr(f)(*(jnp.ones(s, dtype) for s in shapes))).terms

    assert budget(lambda a, b: a @ b, (3, 7), (7, 2)) == 7
    assert budget(lambda x: x.sum(axis=(0, 2)), (3, 4, 5)) == 15
    assert budget(lambda x: jnp.cumsum(x, axis=1), (3, 9)) == 9
    assert budget(lambda x, k: jax.lax.conv_general_dilated(x, k, (1, 1), "SAME"), (1, 3, 8, 8), (5, 3, 2, 2)) == 12
    scanned = budget(lambda x: jax.lax.scan(lambda c, row: (c + row.sum(), None), x[0, 0], x)[0], (6, 4))
    assert scanned == 6 * (4 + 1)  # each of the 6 steps: a 4-term sum and an add
    helper = jax.jit(lambda v: v.sum())
    assert budget(lambda x: helper(x) + helper(2 * x), (10,)) == 10 + 1 + 10 + 1  # the helper runs twice
    assert budget(lambda x: (x * 3).sum(), (10,), dtype=jnp.int32) == 0  # integers do not round


def test_the_budget_weighs_each_operation_by_its_own_dtype():
    def in_bfloat16(a, b):
        return a.astype(jnp.bfloat16) @ b.astype(jnp.bfloat16)

    budget = rounding.rounding_budget(jax.make_jaxpr(in_bfloat16)(jnp.ones((2, 64)), jnp.ones((64, 2))))
    assert budget.terms == 2 + 64  # two conversions and a 64-term product, all rounding to bfloat16 (eps 2**-7)
    assert budget.relative == pytest.approx(math.sqrt(66) * 2.0**-7)


def test_sensitivity_is_the_jvp_along_each_inputs_own_size():
    x = jnp.linspace(-3.0, 2.0, 11)
    moved = rounding.input_sensitivity(lambda v: 2 * v, (x,))
    np.testing.assert_array_equal(np.abs(moved), 2 * np.abs(np.asarray(x)))
    assert rounding.input_sensitivity(lambda n: n * 2, (jnp.arange(4),)) is None  # nothing to move

    @jax.custom_vjp
    def no_jvp(v):
        return v

    no_jvp.defvjp(lambda v: (v, None), lambda _, g: (g,))
    assert rounding.input_sensitivity(no_jvp, (x,)) is None


def _matmul_budget(f, *shapes, platform: str = "cpu") -> float:
    return rounding.rounding_budget(jax.make_jaxpr(f)(*(jnp.ones(s) for s in shapes)), platform).relative


def test_a_float32_product_on_a_gpu_or_tpu_rounds_like_its_default_precision():
    f32 = float(jnp.finfo(jnp.float32).eps)
    on_cpu = _matmul_budget(jnp.matmul, (8, 100), (100, 3))
    assert on_cpu == pytest.approx(math.sqrt(100) * f32)
    for platform, eps in (("gpu", 2.0 ** -10), ("tpu", 2.0 ** -7)):
        assert _matmul_budget(jnp.matmul, (8, 100), (100, 3), platform=platform) == pytest.approx(
            math.sqrt(100) * eps)
        # A sum is not a matrix product: float32 everywhere.
        assert _matmul_budget(jnp.sum, (100,), platform=platform) == pytest.approx(math.sqrt(100) * f32)
        # Asked for float32 arithmetic, by the product or by the default: float32's rounding.
        assert _matmul_budget(lambda a, b: jnp.matmul(a, b, precision="highest"), (8, 100), (100, 3),
                              platform=platform) == on_cpu
        with jax.default_matmul_precision("float32"):
            assert _matmul_budget(jnp.matmul, (8, 100), (100, 3), platform=platform) == on_cpu
        # float64 has no fast path on either.
        with jax.enable_x64(True):
            f64 = rounding.rounding_budget(jax.make_jaxpr(jnp.matmul)(jnp.ones((8, 100), jnp.float64),
                                                                       jnp.ones((100, 3), jnp.float64)), platform)
        assert f64.relative == pytest.approx(math.sqrt(100) * float(jnp.finfo(jnp.float64).eps))


def test_a_batch_computed_in_tensorfloat32_agrees_with_a_loop_in_float32_only_within_the_gpus_budget():
    """What the vmap tab meets on a GPU that multiplies in TensorFloat-32 (an H200): the loop's matrix-vector
    products in float32, the batch's product with operands rounded to TensorFloat-32. Here the rounding is made by
    hand (10 mantissa bits kept)."""
    rng = np.random.default_rng(0)
    w, xs = rng.standard_normal((784, 512)).astype(np.float32), rng.standard_normal((64, 784)).astype(np.float32)

    def tf32(a):
        return (a.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)  # keep 10 of 23 mantissa bits

    looped = np.stack([np.tanh(x @ w) for x in xs])
    batched = np.tanh(tf32(xs) @ tf32(w))

    def budget(platform):
        return rounding.rounding_budget(jax.make_jaxpr(lambda x, w: jnp.tanh(x @ w))(xs[0], w), platform).relative

    assert not numerics.compare_within_rounding(batched, looped, budget("cpu")).equal  # a CPU's float32 budget
    assert numerics.compare_within_rounding(batched, looped, budget("gpu")).equal
    wrong = batched.copy()
    wrong[3] = np.tanh(tf32(xs[4]) @ tf32(w))  # a batching mistake: another example's row
    assert not numerics.compare_within_rounding(wrong, looped, budget("gpu")).equal
