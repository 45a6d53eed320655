"""The owner's checks on a program before it compiles it: a ``jax.export`` artifact that can only compute.

A sandboxed worker lowers the user's function with ``jax.export`` for this
owner's platform and sends the serialised artifact. The worker runs user code,
so the artifact may have been crafted by hand, and JAX's maintainers treat
``jax.export.deserialize`` as reading trusted input: the owner is locked down
(lockdown.py) and, before compiling anything, refuses an artifact that

- is larger than ``MAX_PROGRAM_BYTES``, or is not one (deserialisation fails);
- was not lowered for this owner's platform, or wants more devices than it has;
- declares effects (an ordered effect is I/O with the host, in order);
- has more than ``MAX_VALUES`` inputs or outputs, or an input or output of more than ``MAX_ARRAY_BYTES``;
- calls a custom call outside the targets ``jax.export`` treats as stable (``STABLE_TARGETS``): a custom
  call is a function of the runtime's, found by name, and a host callback is one (it would run code the
  worker named, in this process);
- runs a kernel of the user's own (``USER_KERNELS``: Pallas lowers to them on a TPU and a GPU): jax.export lists
  them as stable, but a kernel reads and writes device memory as its code says, not as XLA plans it;
- contains an operation that moves data between the device and the host (``HOST_TRANSFERS``: send, recv,
  infeed, outfeed), which is how a TPU runs a host callback.

A program that passes computes on its inputs and returns its outputs, nothing else; how long it runs and how
much device memory it takes are bounded by the owner's watchdog and the device.

>>> import jax, jax.numpy as jnp
>>> art = jax.export.export(jax.jit(lambda x: x * 2), platforms=("cpu",))(jax.ShapeDtypeStruct((3,), jnp.float32))
>>> checked(art.serialize(), "cpu", 1).in_avals
(ShapedArray(float32[3]),)
>>> checked(art.serialize(), "tpu", 1)
Traceback (most recent call last):
...
playground.owner.programs.Refused: the program was lowered for cpu, not for this device's platform (tpu)
"""

from __future__ import annotations

import math

import numpy as np
from jax import export
from jax._src.export import _export  # the stable list itself: the rule is JAX's, not ours
from jax.interpreters import mlir

MAX_PROGRAM_BYTES = 8 << 20
MAX_VALUES = 1024
MAX_ARRAY_BYTES = 16 << 30
# What jax.export treats as stable, less two that call out of XLA: TensorFlow's function runner (jax2tf) and the
# Sharding annotations are kept, Python callbacks were never on the list.
# The user's own kernels, which jax.export lists too (Mosaic on a TPU, Mosaic GPU): the owner runs none; the
# /pallas job runs a kernel in TPU interpret mode, in the CPU sandbox.
USER_KERNELS = frozenset({"tpu_custom_call", "mosaic_gpu", "mosaic_gpu_v2"})
STABLE_TARGETS = (frozenset(_export._CUSTOM_CALL_TARGETS_GUARANTEED_STABLE) - {"tf.call_tf_function"}) - USER_KERNELS
HOST_TRANSFERS = frozenset({"stablehlo.send", "stablehlo.recv", "stablehlo.infeed", "stablehlo.outfeed",
                            "mhlo.send", "mhlo.recv", "mhlo.infeed", "mhlo.outfeed"})
_PLATFORMS = {"gpu": "cuda"}  # jax.devices()'s name -> jax.export's


class Refused(ValueError):
    """The artifact is not a program the owner runs; the message says why, for the job's error."""


def checked(serialized: bytes, platform: str, devices: int) -> export.Exported:
    """The deserialised program, once every check above passed; else Refused."""
    if len(serialized) > MAX_PROGRAM_BYTES:
        raise Refused(f"the program is {len(serialized):,} bytes; the device takes at most {MAX_PROGRAM_BYTES:,}")
    try:
        program = export.deserialize(bytearray(serialized))
    except Exception as exc:  # flatbuffers and MLIR's own errors: any of them means "not an artifact"
        raise Refused(f"it is not a program jax.export made ({type(exc).__name__})") from None
    wanted = _PLATFORMS.get(platform, platform)
    if wanted not in program.platforms:
        raise Refused(f"the program was lowered for {', '.join(program.platforms)}, not for this device's "
                      f"platform ({wanted})")
    if program.nr_devices > devices:
        raise Refused(f"the program runs on {program.nr_devices} devices; there are {devices}")
    if program.ordered_effects or program.unordered_effects:
        raise Refused("the program has effects (it would talk to the host); only pure computations run here")
    _check_values(program)
    _check_operations(program)
    return program


def _check_values(program: export.Exported) -> None:
    values = (*program.in_avals, *program.out_avals)
    if len(values) > MAX_VALUES:
        raise Refused(f"the program has {len(values):,} inputs and outputs; at most {MAX_VALUES:,} are taken")
    for aval in values:
        if not all(isinstance(d, int) for d in aval.shape):
            raise Refused("the program's shapes are symbolic; the device takes programs of fixed shapes")
        size = math.prod(aval.shape) * np.dtype(aval.dtype).itemsize
        if size > MAX_ARRAY_BYTES:
            raise Refused(f"an input or output of the program holds {size:,} bytes; at most {MAX_ARRAY_BYTES:,}")


def _check_operations(program: export.Exported) -> None:
    with mlir.make_ir_context():
        module = program.mlir_module(serialized=False)
        found = _operations(module.operation)
    targets = {target for name, target in found if name == "stablehlo.custom_call"}
    if kernels := sorted(targets & USER_KERNELS):
        raise Refused(f"the program runs a kernel written for the device ({kernels[0]}, as Pallas makes one): this "
                      "server's device runs no user-written kernel; a Pallas kernel runs in interpret mode in the "
                      "CPU sandbox (/pallas)")
    calls = sorted(targets - STABLE_TARGETS)
    if calls:
        raise Refused(f"the program calls {', '.join(map(repr, calls[:5]))}, which is not a custom call jax.export "
                      "treats as stable (a host callback is one such)")
    transfers = sorted({name for name, _ in found} & HOST_TRANSFERS)
    if transfers:
        raise Refused(f"the program moves data between the device and the host ({', '.join(transfers)})")


def _operations(root) -> set[tuple[str, str | None]]:
    """Every operation's name below ``root`` (with a custom call's target), walked without recursion."""
    found = set()
    stack = [root]
    while stack:
        op = stack.pop()
        name = op.name
        target = None
        if name == "stablehlo.custom_call" and "call_target_name" in op.attributes:
            target = mlir.ir.StringAttr(op.attributes["call_target_name"]).value
        found.add((name, target))
        for region in op.regions:
            for block in region:
                stack.extend(child.operation for child in block)
    return found
