"""Which workers run which jobs: the CPU pool, the accelerator pool (on a host with a GPU or TPU), the Parallel pool.

Why two pools on an accelerator host: a worker that opens the GPU pays for a
CUDA context before its job arrives, and each warm one holds that context and
device memory. The jit and vmap comparisons exist to show speed on the device,
so they run there ("accelerator"); Inspect, derivatives and the rest stay on
CPU workers, which start in tens of milliseconds ("sandbox"), and Inspect can
ask for the accelerator's compiler with ``on_accelerator``. On a CPU-only host
both names are one pool.

Memory on the device: workers never preallocate (bootstrap.py), and the
workers holding the device (the accelerator pool's, and the Parallel pool's
on a host with several devices) share ``device_memory_fraction`` of it, each
capped by ``XLA_PYTHON_CLIENT_MEM_FRACTION``; a training worker gets what is
left beside them (``training_memory_fraction``), so both fit on one card.
Past its share a job gets XLA's RESOURCE_EXHAUSTED, reported as a ``memory`` error.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from playground.config import Settings
from playground.sandbox.accelerator import Accelerator, detect

if TYPE_CHECKING:  # ProcessPool has WorkerPool's interface
    from playground.sandbox import WorkerPool

HANDLERS = "playground.handlers"  # the module the sandbox's workers run jobs with (the job registry's handlers)
CONTEXT_HEADROOM = 0.1  # of device memory, outside XLA's allocator: each process's CUDA context and libraries


@dataclass
class Pools:
    sandbox: WorkerPool
    accelerator: WorkerPool  # the same object as ``sandbox`` where the host has no accelerator
    parallel: WorkerPool
    device: Accelerator | None
    device_why: str  # why the host's accelerator is or is not used, for the log and About

    def all(self) -> list[WorkerPool]:
        """Each distinct pool once, to start and to close."""
        return list({id(p): p for p in (self.sandbox, self.accelerator, self.parallel)}.values())


def build(settings: Settings, env: dict[str, str]) -> Pools:
    """The pools for this host (not started yet): the full sandbox's, or the local process mode's."""
    device, why = detect(env)
    if settings.sandbox == "process":
        return _process_pools(settings, device, why)
    from playground.sandbox.pool import WorkerPool  # Linux only: imported where it is used

    common = {"namespaces": settings.namespaces}
    # Workers that hold no device are told so: JAX then never tries (and fails, behind Landlock) to open a GPU
    # that is present but not theirs, e.g. with PLAYGROUND_ACCELERATOR=off.
    cpu_only = {"JAX_PLATFORMS": "cpu"}
    if device is None:
        sandbox = WorkerPool(settings.workers, settings.limits, HANDLERS, **common, extra_env=cpu_only)
        parallel = WorkerPool(settings.parallel_workers, settings.limits, HANDLERS, **common,
                              extra_env={**cpu_only, "JAX_NUM_CPU_DEVICES": str(settings.cpu_devices)})
        return Pools(sandbox, sandbox, parallel, None, why)
    # CUDA reserves huge address ranges up front: the RSS watchdog and the cgroup bound these workers instead.
    device_limits = replace(settings.limits, address_space_mb=0)
    parallel_on_device = device.count >= 2  # real devices for the Parallel tab, else simulated CPU ones
    holders = settings.accelerator_workers + (settings.parallel_workers if parallel_on_device else 0)
    share = settings.device_memory_fraction / holders
    on_device = {"devices": device.paths, **common}
    sandbox = WorkerPool(settings.workers, settings.limits, HANDLERS, **common, extra_env=cpu_only)
    accelerator = WorkerPool(settings.accelerator_workers, device_limits, HANDLERS, **on_device,
                             extra_env={"XLA_PYTHON_CLIENT_MEM_FRACTION": f"{share:.3f}"})
    if parallel_on_device:
        parallel = WorkerPool(settings.parallel_workers, device_limits, HANDLERS, **on_device,
                              extra_env={"XLA_PYTHON_CLIENT_MEM_FRACTION": f"{share:.3f}"})
    else:
        parallel = WorkerPool(settings.parallel_workers, settings.limits, HANDLERS, **common,
                              extra_env={**cpu_only, "JAX_NUM_CPU_DEVICES": str(settings.cpu_devices)})
    return Pools(sandbox, accelerator, parallel, device, why)


def _process_pools(settings: Settings, device: Accelerator | None, why: str) -> Pools:
    """Spawned workers (process_pool.py) for every pool; on an accelerator the jit and vmap ones use it."""
    from playground.sandbox.process_pool import ProcessPool

    cpu_only = {"JAX_PLATFORMS": "cpu"}
    simulated = {**cpu_only, "JAX_NUM_CPU_DEVICES": str(settings.cpu_devices)}
    sandbox = ProcessPool(settings.workers, settings.limits, HANDLERS, extra_env=cpu_only)
    parallel = ProcessPool(settings.parallel_workers, settings.limits, HANDLERS, extra_env=simulated)
    if device is None:
        return Pools(sandbox, sandbox, parallel, None, why)
    share = settings.device_memory_fraction / settings.accelerator_workers
    accelerator = ProcessPool(settings.accelerator_workers, replace(settings.limits, address_space_mb=0), HANDLERS,
                              extra_env={"XLA_PYTHON_CLIENT_MEM_FRACTION": f"{share:.3f}"})
    return Pools(sandbox, accelerator, parallel, device, why)


def training_memory_fraction(settings: Settings) -> float:
    """The share of a device's memory a training worker may use: what the sandbox's workers leave, less headroom."""
    return max(0.05, 1.0 - settings.device_memory_fraction - CONTEXT_HEADROOM)


def training_env(settings: Settings, pools: Pools, env: dict[str, str]) -> dict[str, str]:
    """The training workers' environment: on an accelerator host, with their share of device memory."""
    if pools.device is None:
        return dict(env)
    return {**env, "XLA_PYTHON_CLIENT_MEM_FRACTION": f"{training_memory_fraction(settings):.3f}"}


def training_slots(settings: Settings, pools: Pools, env: dict[str, str]) -> int:
    """Training runs at once: ``PLAYGROUND_TRAINING_JOBS`` where set, else one per accelerator device (1 on a CPU)."""
    if env.get("PLAYGROUND_TRAINING_JOBS") or pools.device is None:
        return settings.training_jobs
    return min(pools.device.count, 16)
