"""Programs crafted by hand, as a compromised worker could send them to the device owner: each must be refused.

Each is a real ``jax.export`` artifact of ``x * 2`` with its StableHLO edited
and serialised again (the owner reads the artifact, never the worker's word
for it), or bytes that are no artifact at all. ``CRAFTED`` names each and the
words the owner's refusal must hold. Used by tests/test_owner_programs.py and
benchmarks/device_check.py (``--hostile``, on a real device).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
from jax import export
from jax._src.export import _export  # its serialiser: the one a worker's JAX would use
from jax.interpreters import mlir

_MULTIPLY = "%1 = stablehlo.multiply %arg0, %0 : tensor<3xf32>"
_EDITS = {
    "a host callback": (
        "%1 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) {api_version = 4 : i32} "
        ": (tensor<3xf32>) -> tensor<3xf32>"),
    "a custom call of the runtime's": (
        "%1 = stablehlo.custom_call @__cpu$xla.cpu.abort(%arg0) : (tensor<3xf32>) -> tensor<3xf32>"),
    "a transfer to the host": (
        '%t = stablehlo.create_token : !stablehlo.token\n    %t2 = "stablehlo.outfeed"(%arg0, %t) '
        '{outfeed_config = ""} : (tensor<3xf32>, !stablehlo.token) -> !stablehlo.token\n    ' + _MULTIPLY),
}
CRAFTED = {"a host callback": "xla_ffi_python_cpu_callback", "a custom call of the runtime's": "not a custom call",
           "a transfer to the host": "between the device and the host", "bytes that are no program": "jax.export made",
           "a program for another platform": "lowered for"}


def crafted(platform: str) -> dict[str, bytes]:
    """Each crafted artifact for a device of ``platform`` ("cpu", "tpu", "cuda"), serialised."""
    spec = jax.ShapeDtypeStruct((3,), jnp.float32)
    real = export.export(jax.jit(lambda x: x * 2), platforms=(platform,))(spec)
    made = {name: _edited(real, edit) for name, edit in _EDITS.items()}
    made["bytes that are no program"] = b"\x00" * 64 + real.serialize()[64:128]
    other = "cpu" if platform != "cpu" else "tpu"
    made["a program for another platform"] = export.export(jax.jit(lambda x: x * 2), platforms=(other,))(
        spec).serialize()
    return made


def _edited(real: export.Exported, edit: str) -> bytes:
    text = real.mlir_module()
    assert _MULTIPLY in text, "the exported module changed: the edits no longer apply"
    with mlir.make_ir_context():
        module = mlir.ir.Module.parse(text.replace(_MULTIPLY, edit))
        serialized = _export._module_to_bytecode(module)
    return dataclasses.replace(real, mlir_module_serialized=serialized).serialize()
