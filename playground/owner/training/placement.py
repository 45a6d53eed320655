"""Where a training run's arrays live: one device, or every local device on a 1-D mesh (data-parallel)."""

from __future__ import annotations

from dataclasses import dataclass

import jax
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding, Sharding, SingleDeviceSharding
from jax.sharding import PartitionSpec as P

GPU_BLOCK_STEPS = 16  # steps per compiled block on a GPU: a call queues 16 steps of work


def device_name(device: jax.Device) -> str:
    """E.g. ``"CPU · cpu"`` or ``"GPU · NVIDIA H200"``."""
    return f"{device.platform.upper()} · {device.device_kind}"


@dataclass(frozen=True)
class Placement:
    """Where one run's arrays live: on one device, or on a 1-D mesh (axis "data") of every local device.

    ``replicated`` keeps a whole copy on each device: the parameters, the
    optimiser state and the dataset (uint8, small enough to copy; each step
    gathers its batch locally). ``batch`` splits each training batch along
    "data" (``steps.batch_of``), or is None on one device.
    """

    devices: tuple[jax.Device, ...]
    replicated: Sharding
    batch: NamedSharding | None

    @classmethod
    def on(cls, device: jax.Device) -> Placement:
        return cls((device,), SingleDeviceSharding(device), None)

    @classmethod
    def data_parallel(cls) -> Placement:
        """Every local device; Auto axes, so XLA's partitioner places what the shardings leave open."""
        mesh = Mesh(np.asarray(jax.local_devices()), ("data",), axis_types=(AxisType.Auto,))
        return cls(tuple(mesh.devices.flat), NamedSharding(mesh, P()), NamedSharding(mesh, P("data")))

    def replicate(self, tree: object) -> object:
        return jax.device_put(tree, self.replicated)

    @property
    def whole_epochs(self) -> bool:
        """Whether a whole epoch runs as one program of its own (epochs.make_train_epoch): on an accelerator, where
        permuting the epoch's images once beats gathering each batch; a CPU gathers as fast step by step."""
        return self.devices[0].platform != "cpu"

    def describe(self) -> str:
        """The banner's text: ``"GPU · NVIDIA H200"``, or ``"CPU · cpu × 8 (data-parallel)"``."""
        name = device_name(self.devices[0])
        return name if self.batch is None else f"{name} × {len(self.devices)} (data-parallel)"


def block_steps(placement: Placement) -> int:
    """Steps per compiled block on a GPU (steps.compile_blocks), or 1 on a CPU or a TPU: one call per chunk, a
    loop of any length (steps.compile_chunks). A CPU runs a loop on the host anyway, and a TPU's loop runs on
    the chip without asking the host between turns: on a TPU v5e one call a chunk trained 10 M samples/s, blocks
    of 16 steps 3.5 M (a call costs the host more than 16 steps take the chip). A GPU copies a loop's condition
    back to the host at every turn where its length is not known when it is compiled."""
    return GPU_BLOCK_STEPS if placement.devices[0].platform == "gpu" else 1


