"""The device owner's checks on a program (playground/owner/programs.py): what a worker lowered runs; what a
compromised worker could craft does not, and the refusal says why."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from jax import export

from playground.owner import programs
from tests.crafted_programs import CRAFTED, crafted

SPEC = jax.ShapeDtypeStruct((3,), jnp.float32)


def test_a_program_jax_export_made_for_this_platform_passes():
    made = export.export(jax.jit(lambda x: jnp.sin(x) @ x), platforms=("cpu",))(SPEC)
    checked = programs.checked(made.serialize(), "cpu", 1)
    assert checked.in_avals == made.in_avals and checked.out_avals == made.out_avals


def test_a_program_for_several_platforms_passes_on_each():
    made = export.export(jax.jit(lambda x: x * 2), platforms=("cpu", "tpu", "cuda"))(SPEC).serialize()
    for platform in ("cpu", "tpu", "gpu"):  # jax.devices() calls a CUDA device's platform "gpu"
        assert programs.checked(made, platform, 1)


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_each_crafted_program_is_refused_and_says_why(name):
    with pytest.raises(programs.Refused, match=CRAFTED[name]):
        programs.checked(crafted("cpu")[name], "cpu", 1)


def test_a_program_larger_than_the_owner_takes_is_refused_before_it_is_read():
    with pytest.raises(programs.Refused, match="takes at most"):
        programs.checked(b"\0" * (programs.MAX_PROGRAM_BYTES + 1), "cpu", 1)


def test_a_program_for_more_devices_than_there_are_is_refused():
    mesh = jax.sharding.AbstractMesh((2,), ("data",))
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("data"))
    made = export.export(jax.jit(lambda x: x * 2, in_shardings=sharding, out_shardings=sharding),
                         platforms=("cpu",))(jax.ShapeDtypeStruct((4,), jnp.float32))
    with pytest.raises(programs.Refused, match="runs on 2 devices; there are 1"):
        programs.checked(made.serialize(), "cpu", 1)


def test_a_program_with_symbolic_shapes_is_refused():
    (n,) = export.symbolic_shape("n")
    made = export.export(jax.jit(lambda x: x * 2), platforms=("cpu",))(jax.ShapeDtypeStruct((n,), jnp.float32))
    with pytest.raises(programs.Refused, match="symbolic"):
        programs.checked(made.serialize(), "cpu", 1)


def test_inputs_and_outputs_past_their_bound_are_refused(monkeypatch):
    made = export.export(jax.jit(lambda x: x * 2), platforms=("cpu",))(jax.ShapeDtypeStruct((1024,), jnp.float32))
    monkeypatch.setattr(programs, "MAX_ARRAY_BYTES", 1023)
    with pytest.raises(programs.Refused, match="holds 4,096 bytes"):
        programs.checked(made.serialize(), "cpu", 1)


def test_the_stable_list_is_jaxs_less_the_call_out_of_xla():
    from jax._src.export import _export

    assert programs.STABLE_TARGETS == (set(_export._CUSTOM_CALL_TARGETS_GUARANTEED_STABLE) - {"tf.call_tf_function"}
                                       - programs.USER_KERNELS)
    assert not {"xla_python_cpu_callback", "xla_ffi_python_cpu_callback", "xla_python_gpu_callback",
                "xla_ffi_python_gpu_callback"} & programs.STABLE_TARGETS


def test_a_kernel_the_user_wrote_is_refused_though_jax_export_lists_it_as_stable():
    """A Pallas kernel exported for a TPU (which this CPU can lower) is one tpu_custom_call: not run on the device."""
    from jax.experimental import pallas as pl

    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] * 2

    def f(x):
        return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

    made = export.export(jax.jit(f), platforms=("tpu",))(jax.ShapeDtypeStruct((8, 128), jnp.float32))
    with pytest.raises(programs.Refused, match=r"runs a kernel written for the device \(tpu_custom_call"):
        programs.checked(made.serialize(), "tpu", 1)
