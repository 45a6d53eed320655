"""The device owner started as this host needs it: on its accelerator with the smallest set of grants that opens it,
or on the CPU, and with what (``owner_setup``). worker_pools.py starts it first, before the CPU workers' pools.

The owner of a GPU is started with the smallest set of the reviewed grants its driver needs inside the sandbox
(device_grants.py: each set tried is one owner started, in turn). An accelerator the owner cannot open with any of
them (or with none, on a TPU: it has no candidates, so one start) leaves the owner on the CPU, with why (a catalogue
piece) for the log, About and the tabs that would have used it.
"""

from __future__ import annotations

import logging
import os
import tempfile

from playground import messages
from playground.ipc.limits import Limits
from playground.server.config import Settings
from playground.server.device_owner import device_grants
from playground.server.device_owner.accelerator import NO_DEVICE, Accelerator, owner_env
from playground.server.device_owner.handle import DeviceOwner, DeviceUnavailable, OwnerSetup

try:
    from resource import RLIM_INFINITY
except ImportError:  # Windows (the local process mode): it has no rlimits, and the owner there sets none
    RLIM_INFINITY = -1

log = logging.getLogger(__name__)

_NAMES = {"cuda": "GPU", "rocm": "GPU", "tpu": "TPU"}


def started_owner(settings: Settings, accelerator: Accelerator | None, runs: str) -> tuple[DeviceOwner, list | None]:
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
