"""Which workers run which jobs: the CPU pool, the accelerator pool (on a host with a GPU or TPU), the Parallel pool.

Why two pools on an accelerator host: a worker that opens the GPU pays for a
CUDA context before its job arrives, and each warm one holds that context and
device memory. The jit and vmap comparisons exist to show speed on the device,
so they run there ("accelerator"); Inspect, derivatives and the rest stay on
CPU workers, which start in tens of milliseconds ("sandbox"), and Inspect can
ask for the accelerator's compiler with ``on_accelerator``. On a CPU-only host
both names are one pool.

Every pool pins its workers to one JAX platform (``JAX_PLATFORMS``): a worker
given the GPU that cannot open it inside the sandbox fails its warm-up with
JAX's reason, never runs on the CPU unnoticed. ``start`` then keeps those jobs
on the CPU pool and says why, once: in the log, in About, and on the tabs whose
jobs would have run on the device (``Pools.unavailable``).

Memory on the device: workers never preallocate (bootstrap.py), and the
workers holding the device (the accelerator pool's, and the Parallel pool's
on a host with several devices) share ``device_memory_fraction`` of it, each
capped by ``XLA_PYTHON_CLIENT_MEM_FRACTION``; a training worker gets what is
left beside them (``training_memory_fraction``), so both fit on one card.
Past its share a job gets XLA's RESOURCE_EXHAUSTED, reported as a ``memory`` error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from playground import messages
from playground.sandbox.accelerator import Accelerator, detect, worker_env
from playground.sandbox.warm_pool import DeviceUnavailable
from playground.server.config import Settings

if TYPE_CHECKING:
    from playground.sandbox import JobPool

log = logging.getLogger(__name__)

HANDLERS = "playground.worker.handlers"  # the module the sandbox's workers run jobs with (the job registry's handlers)
CONTEXT_HEADROOM = 0.1  # of device memory, outside XLA's allocator: each process's CUDA context and libraries
_NAMES = {"cuda": "GPU", "rocm": "GPU", "tpu": "TPU"}


@dataclass
class Pools:
    sandbox: JobPool
    accelerator: JobPool  # the same object as ``sandbox`` where the host has no accelerator (or it failed)
    parallel: JobPool
    device: Accelerator | None  # the accelerator the jobs use; None when there is none, or it could not be opened
    device_why: str  # why the host's accelerator is or is not used, for the log and About
    # Set when the host has an accelerator that the sandbox's workers could not open: the catalogue piece "the GPU
    # could not be opened inside the sandbox: <JAX's reason>". Its jobs then run on the CPU, and say so.
    unavailable: list | None = None

    def all(self) -> list[JobPool]:
        """Each distinct pool once, to start and to close."""
        return list({id(p): p for p in (self.sandbox, self.accelerator, self.parallel)}.values())


def build(settings: Settings, env: dict[str, str]) -> Pools:
    """The pools for this host (not started yet): the full sandbox's, or the local process mode's."""
    device, why = detect(env)
    if device is None:
        return _cpu_pools(settings, why)
    make = _process_pool if settings.sandbox == "process" else _sandbox_pool
    cpu = make(settings, settings.workers, settings.limits)
    # CUDA reserves huge address ranges up front: the RSS watchdog and the cgroup bound these workers instead.
    device_limits = replace(settings.limits, address_space_mb=0)
    # Real devices for the Parallel tab where there are several (the full sandbox only), else simulated CPU ones.
    parallel_on_device = device.count >= 2 and settings.sandbox != "process"
    holders = settings.accelerator_workers + (settings.parallel_workers if parallel_on_device else 0)
    device_env = {"XLA_PYTHON_CLIENT_MEM_FRACTION": f"{settings.device_memory_fraction / holders:.3f}",
                  **worker_env(device.platform)}
    accelerator = make(settings, settings.accelerator_workers, device_limits, device, device_env)
    parallel = (make(settings, settings.parallel_workers, device_limits, device, device_env) if parallel_on_device
                else _simulated_parallel(settings))
    return Pools(cpu, accelerator, parallel, device, why)


def start(settings: Settings, env: dict[str, str],
          started: Callable[[JobPool], object] = lambda pool: None) -> Pools:
    """Build this host's pools and start them, the accelerator's first; ``started(pool)`` after each has started.

    An accelerator that the sandbox's workers cannot open leaves every job on
    the CPU pools; the returned Pools say why (``unavailable``), and the log does.
    """
    pools = build(settings, env)
    if pools.device is not None:
        on_device = [pool for pool in (pools.accelerator, pools.parallel) if pool.platform != "cpu"]
        try:
            for pool in on_device:
                pool.start()
                started(pool)
        except DeviceUnavailable as exc:
            for pool in on_device:
                pool.close()
            name = _NAMES.get(pools.device.platform, pools.device.platform.upper())
            unavailable = messages.piece("accelerator.unavailable", device=name, reason=str(exc))
            log.warning("accelerator: %s; its jobs run on the CPU", messages.render([unavailable]))
            cpu_parallel = pools.parallel if pools.parallel.platform == "cpu" else _simulated_parallel(settings)
            pools = Pools(pools.sandbox, pools.sandbox, cpu_parallel, None,
                          f"{messages.render([unavailable])}; every job runs on the CPU", unavailable)
    for pool in pools.all():
        if pool.platform == "cpu":
            pool.start()
            started(pool)
    return pools


def _cpu_pools(settings: Settings, why: str) -> Pools:
    make = _process_pool if settings.sandbox == "process" else _sandbox_pool
    cpu = make(settings, settings.workers, settings.limits)
    return Pools(cpu, cpu, _simulated_parallel(settings), None, why)


def _simulated_parallel(settings: Settings) -> JobPool:
    make = _process_pool if settings.sandbox == "process" else _sandbox_pool
    return make(settings, settings.parallel_workers, settings.limits, None,
                {"JAX_NUM_CPU_DEVICES": str(settings.cpu_devices)})


def _sandbox_pool(settings: Settings, size: int, limits, device: Accelerator | None = None,
                  env: dict[str, str] | None = None) -> JobPool:
    """A full sandbox's pool; on ``device``, pinned to it and given its files (and the grants found at start)."""
    from playground.sandbox.pool import WorkerPool  # Linux only: imported where it is used

    if device is None:
        return WorkerPool(size, limits, HANDLERS, namespaces=settings.namespaces, extra_env=env)
    return WorkerPool(size, limits, HANDLERS, namespaces=settings.namespaces, extra_env=env, devices=device.paths,
                      platform=device.platform)


def _process_pool(settings: Settings, size: int, limits, device: Accelerator | None = None,
                  env: dict[str, str] | None = None) -> JobPool:
    """The local process mode's pool: spawned workers; on ``device``, pinned to it."""
    from playground.sandbox.process_pool import ProcessPool

    return ProcessPool(size, limits, HANDLERS, extra_env=env, platform=device.platform if device else "cpu")


def training_memory_fraction(settings: Settings) -> float:
    """The share of a device's memory a training worker may use: what the sandbox's workers leave, less headroom."""
    return max(0.05, 1.0 - settings.device_memory_fraction - CONTEXT_HEADROOM)


def training_env(settings: Settings, pools: Pools, env: dict[str, str]) -> dict[str, str]:
    """The training workers' environment: on an accelerator host, with their share of device memory."""
    if pools.device is None and pools.unavailable is None:
        return dict(env)
    return {**env, "XLA_PYTHON_CLIENT_MEM_FRACTION": f"{training_memory_fraction(settings):.3f}"}


def training_slots(settings: Settings, pools: Pools, env: dict[str, str]) -> int:
    """Training runs at once: ``PLAYGROUND_TRAINING_JOBS`` where set, else one per accelerator device (1 on a CPU)."""
    if env.get("PLAYGROUND_TRAINING_JOBS") or pools.device is None:
        return settings.training_jobs
    return min(pools.device.count, 16)
