"""Which processes this host gets: the CPU workers' pools and the device owner (started by device_owner/starting.py).

Three kinds of process run jobs (docs/deploy.md, "On a GPU or TPU"):

- the sandbox's CPU workers (``sandbox``): every job's user code, pinned to the CPU (``JAX_PLATFORMS=cpu``);
- the device owner (``device``, playground/owner/): the one process that opens the host's GPU or TPU, or, on a
  host without one, the CPU it measures on. The jobs that measure (jit, vmap, Speed of light, Inspect's and the
  Compiler's "on the accelerator") wait in its line and run in CPU workers of its own that hand it what they
  lowered (device_pool.py);
- the Parallel tab's workers (``parallel``), which see several simulated CPU devices.

An accelerator the owner cannot open leaves it on the CPU: the log, About and the tabs that would have used it say
why (``Pools.unavailable``), and never pass the CPU off as the device.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from playground import messages
from playground.ipc.limits import Limits
from playground.server.config import Settings
from playground.server.device_owner import starting
from playground.server.device_owner.accelerator import Accelerator, detect
from playground.server.device_owner.device_pool import DevicePool
from playground.server.device_owner.handle import DeviceOwner
from playground.server.pools import JobPool

# The module the sandbox's workers run jobs with (the job registry's handlers).
HANDLERS = "playground.worker.jobs.handlers"


@dataclass
class Pools:
    sandbox: JobPool
    device: DevicePool  # the device owner's line, over CPU workers of its own
    parallel: JobPool
    accelerator: Accelerator | None  # the GPU or TPU the owner holds; None: it holds the CPU
    device_why: str  # why the host's accelerator is or is not used, for the log and About
    # Set when the host has an accelerator that the owner could not open: the catalogue piece "the GPU could not be
    # opened inside the sandbox: <JAX's reason>". The owner then measures on the CPU, and the tabs say so.
    unavailable: list | None = None

    def all(self) -> list[JobPool]:
        """Each pool once, to start and to close."""
        return [self.sandbox, self.device, self.parallel]

    @property
    def owner(self) -> DeviceOwner:
        return self.device.owner


def start(settings: Settings, runs: str, started: Callable[[object], object] = lambda pool: None) -> Pools:
    """The owner started on the host's accelerator (on the CPU where there is none, or it cannot be opened), then
    the pools; ``started(each)`` after each, with the owner first (its ``close`` ends it). ``runs``: the folder the
    training runs' weights go into, which the owner may write to."""
    accelerator, why = detect(settings.accelerator)
    owner, unavailable = starting.started_owner(settings, accelerator, runs)
    started(owner)
    if unavailable is not None:
        why = f"{messages.render([unavailable])}; the jobs that measure run on the CPU"
        accelerator = None
    make = _process_pool if settings.sandbox == "process" else _sandbox_pool
    pools = Pools(make(settings, settings.workers, settings.limits),
                  DevicePool(make(settings, 1, settings.limits), owner),
                  make(settings, settings.parallel_workers, settings.limits,
                       {"JAX_NUM_CPU_DEVICES": str(settings.cpu_devices)}),
                  accelerator, why, unavailable)
    for pool in pools.all():
        pool.start()
        started(pool)
    return pools


def _sandbox_pool(settings: Settings, size: int, limits: Limits, env: dict[str, str] | None = None) -> JobPool:
    """A full sandbox's pool of CPU workers."""
    from playground.server.pools.pool import WorkerPool  # Linux only: imported where it is used

    return WorkerPool(size, limits, HANDLERS, namespaces=settings.namespaces, extra_env=env)


def _process_pool(settings: Settings, size: int, limits: Limits, env: dict[str, str] | None = None) -> JobPool:
    """The local process mode's pool: spawned CPU workers."""
    from playground.server.pools.process_pool import ProcessPool

    return ProcessPool(size, limits, HANDLERS, extra_env=env)


def training_slots(settings: Settings, accelerator: Accelerator | None) -> int:
    """Training runs at once: ``PLAYGROUND_TRAINING_JOBS`` where set, else one per device of the ``accelerator`` the
    owner holds (1 on the CPU)."""
    if settings.training_jobs is not None:
        return settings.training_jobs
    return 1 if accelerator is None else min(accelerator.count, 16)
