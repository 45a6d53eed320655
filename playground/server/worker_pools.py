"""Which processes this host gets: the CPU workers' pools and the device owner, and how the owner is set up.

Three kinds of process run jobs (docs/deploy.md, "On a GPU or TPU"):

- the sandbox's CPU workers (``sandbox``): every job's user code, pinned to the CPU (``JAX_PLATFORMS=cpu``);
- the device owner (``device``, playground/owner/): the one process that opens the host's GPU or TPU, or, on a
  host without one, the CPU it measures on. The jobs that measure (jit, vmap, Speed of light, Inspect's and the
  Compiler's "on the accelerator") wait in its line and run in CPU workers of its own that hand it what they
  lowered (device_pool.py);
- the Parallel tab's workers (``parallel``), which see several simulated CPU devices.

The owner of a GPU is started with the smallest set of the reviewed grants its driver needs inside the sandbox
(device_owner/device_grants.py: each set tried is one owner started, in turn). An accelerator the owner cannot open
with any of them (or with none, on a TPU: it has no candidates, so one start) leaves the owner on the CPU: the log,
About and the tabs that would have used it say why (``Pools.unavailable``), and never pass the CPU off as the
device.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass

from playground import messages
from playground.ipc.limits import Limits
from playground.server.config import Settings
from playground.server.device_owner import device_grants
from playground.server.device_owner.handle import DeviceOwner, DeviceUnavailable, OwnerSetup
from playground.server.pools import JobPool
from playground.server.pools.accelerator import NO_DEVICE, Accelerator, detect, owner_env
from playground.server.pools.device_pool import DevicePool

try:
    from resource import RLIM_INFINITY
except ImportError:  # Windows (the local process mode): it has no rlimits, and the owner there sets none
    RLIM_INFINITY = -1

log = logging.getLogger(__name__)

# The module the sandbox's workers run jobs with (the job registry's handlers).
HANDLERS = "playground.worker.jobs.handlers"
_NAMES = {"cuda": "GPU", "rocm": "GPU", "tpu": "TPU"}


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
    owner, unavailable = _started_owner(settings, accelerator, runs)
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


def _started_owner(settings: Settings, accelerator: Accelerator | None, runs: str) -> tuple[DeviceOwner, list | None]:
    """The owner, running: on ``accelerator``, or on the CPU (with why not, as a piece) where it cannot open it."""
    unavailable = None
    if accelerator is not None:
        try:
            return _accelerator_owner(settings, accelerator, runs), None
        except (device_grants.NoneOpens, DeviceUnavailable) as exc:
            name = _NAMES.get(accelerator.platform, accelerator.platform.upper())
            unavailable = messages.piece("accelerator.unavailable", device=name, reason=str(exc))
            log.warning("accelerator: %s; the jobs that measure run on the CPU", messages.render([unavailable]))
    owner = DeviceOwner(owner_setup(settings, None, runs))
    owner.start()  # the CPU: a failure here is the host's, and stops the start
    return owner, unavailable


def _accelerator_owner(settings: Settings, accelerator: Accelerator, runs: str) -> DeviceOwner:
    """The owner of ``accelerator``, started with the smallest set of grants that opens it (device_grants.smallest).

    Each set tried is one owner started, and ended before the next is: two processes never hold the device at once
    (a TPU's chip opens in one process only). The sets tried, each with its outcome, are kept as the owner's
    ``grant_trials``, for About. NoneOpens (JAX's reason) when no set opens it.
    """
    trials: list[dict] = []
    opened: list[DeviceOwner] = []  # the owner of the last set tried, where it opened the device

    def opens(grants: tuple[str, ...]) -> str | None:
        while opened:
            opened.pop().close()
        try:
            opened.append(_started(owner_setup(settings, accelerator, runs, grants)))
        except DeviceUnavailable as exc:
            trials.append({"grants": list(grants), "opened": False, "reason": str(exc)})
            return str(exc)
        trials.append({"grants": list(grants), "opened": True, "reason": None})
        return None

    try:
        grants = device_grants.smallest(device_grants.candidates(accelerator.platform), opens)
        if opened and opened[-1].setup.grants == grants:
            owner = opened.pop()
        else:  # a smaller set, tried after the chosen one had opened the device, failed: the chosen is started again
            owner = _started(owner_setup(settings, accelerator, runs, grants))
    finally:
        while opened:
            opened.pop().close()
    owner.grant_trials = trials
    log.info("accelerator: the driver's grants: %s (%d sets tried)", device_grants.describe(grants), len(trials))
    return owner


def owner_grants(owner: DeviceOwner) -> dict:
    """What the owner's driver was granted beyond its files, in words, and the sets tried to find that, for About
    (none for an owner started otherwise: a test's)."""
    return {"grants": device_grants.describe(getattr(owner.setup, "grants", ())),
            "grants_tried": list(owner.grant_trials)}


def _started(setup: OwnerSetup) -> DeviceOwner:
    """An owner started with ``setup``; DeviceUnavailable (and nothing left running) when it could not open its
    device."""
    owner = DeviceOwner(setup)
    try:
        owner.start()
    except BaseException:
        owner.close()
        raise
    return owner


def owner_setup(settings: Settings, accelerator: Accelerator | None, runs: str,
                grants: tuple[str, ...] = ()) -> OwnerSetup:
    """What the owner of ``accelerator`` (None: the CPU) is started with: its environment (the whitelist, with the
    driver's variables), its rlimits, its memory limit, its files: the device's, the datasets' folders to read
    (the cache's made now, so that Landlock can name it before anything is downloaded) and ``runs`` to write, and
    where the datasets are;
    ``grants``: what its driver needs beyond its files (device_grants.py); and the compile cache's folder, made
    now and writable where it can be made (where not, the owner says so and serves without it)."""
    platform = accelerator.platform if accelerator is not None else "cpu"
    os.makedirs(settings.data.cache, exist_ok=True)
    writable = [runs]
    if settings.compile_cache_mb:
        try:
            os.makedirs(settings.compile_cache, exist_ok=True)
            writable.append(settings.compile_cache)
        except OSError as exc:
            log.warning("the compile cache %s cannot be made (%s): the device owner compiles without it",
                        settings.compile_cache, exc)
    return OwnerSetup(
        platform=platform, sandbox=settings.sandbox, scratch=tempfile.mkdtemp(prefix="jax-playground-owner-"),
        limits=Limits(cpu_s=RLIM_INFINITY, address_space_mb=0, file_size_mb=1024, open_files=4096),
        memory_mb=settings.owner_memory_mb, env=owner_env(platform),
        devices=accelerator.paths if accelerator is not None else NO_DEVICE, grants=tuple(grants),
        readable=tuple(settings.data.read_from()), writable=tuple(writable), compile_cache=settings.compile_cache,
        compile_cache_mb=settings.compile_cache_mb, data=settings.data)


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
