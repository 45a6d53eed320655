"""The host's accelerator as the server sees it, without importing JAX: which one, and which files it needs.

The web server never starts JAX, yet it must decide before any worker exists
whether a second, accelerator-holding pool of workers is worth starting, and
which device files those workers' Landlock rules must open. Both answers come
from the filesystem: the driver's device files (``/dev/nvidia*`` for NVIDIA,
``/dev/accel*`` or ``/dev/vfio`` for a TPU VM) and whether the venv holds the
JAX plugin that drives them (``jax-cuda12-plugin``, ``jax-cuda13-plugin``,
``libtpu``; ``make run`` installs the one the host needs).

A fresh worker that opens the device pays for a CUDA context (or a TPU
client) before its job arrives; the pool warms workers ahead of time, but each
warm one holds that context and its share of device memory. So only the jobs
whose point is speed on the device (jit, vmap) run there; see docs/deploy.md ("On a GPU or TPU").

>>> Accelerator("cuda", 1, DevicePaths(("/dev/nvidia0",), ())).describe()
'CUDA (1 device)'
"""

from __future__ import annotations

import glob
import importlib.metadata
import os
from dataclasses import dataclass

# What CUDA opens read-write: the control device, one file per GPU, unified memory, and MIG's capability files.
_NVIDIA_DEVICES = ("dev/nvidiactl", "dev/nvidia[0-9]*", "dev/nvidia-uvm", "dev/nvidia-uvm-tools",
                   "dev/nvidia-caps/nvidia-cap*")
# What the driver library reads to find the GPUs: its /proc files, its modules' parameters, the list of PCI
# devices, and (found by vendor, below) the sysfs folders of the GPUs themselves, not of any other device; and
# what it reads of the machine at cuInit (an strace of it, NVIDIA/cuda-checkpoint#10; canonical/snapd's CUDA
# rules): the kernel's module and device lists, the lowest mappable address, the NUMA nodes and memory blocks.
_NVIDIA_READ = ("proc/driver/nvidia", "proc/driver/nvidia-uvm", "sys/module/nvidia", "sys/module/nvidia_uvm",
                "sys/bus/pci/devices", "proc/modules", "proc/devices", "proc/sys/vm/mmap_min_addr",
                "sys/devices/system/node", "sys/devices/system/memory/block_size_bytes")
_TPU_DEVICES = ("dev/accel[0-9]*", "dev/vfio")
_TPU_READ = ("sys/class/accel", "sys/bus/pci/devices")
_PCI_VENDORS = {"cuda": "0x10de", "tpu": "0x1ae0"}  # NVIDIA, Google
_PLUGINS = {"cuda": ("jax-cuda13-plugin", "jax-cuda12-plugin"), "tpu": ("libtpu",)}


@dataclass(frozen=True)
class DevicePaths:
    """The files a worker holding the accelerator may open: device files read-write, driver files read-only."""

    read_write: tuple[str, ...]
    read_only: tuple[str, ...]

    def to_dict(self) -> dict:
        return {"read_write": list(self.read_write), "read_only": list(self.read_only)}


NO_DEVICE = DevicePaths((), ())


@dataclass(frozen=True)
class Accelerator:
    platform: str  # "cuda" or "tpu"
    count: int  # devices (GPUs, or TPU chips) the driver shows
    paths: DevicePaths

    def describe(self) -> str:
        return f"{self.platform.upper()} ({self.count} device{'s' if self.count != 1 else ''})"


def device_paths(platform: str, root: str = "/") -> DevicePaths:
    """The device and driver paths of ``platform`` that exist on this host (none for ``"cpu"``)."""
    patterns = {"cuda": (_NVIDIA_DEVICES, _NVIDIA_READ), "tpu": (_TPU_DEVICES, _TPU_READ)}.get(platform)
    if patterns is None:
        return NO_DEVICE
    found = [{path for pattern in group for path in glob.glob(os.path.join(root, pattern))} for group in patterns]
    found[1].update(_pci_folders(root, _PCI_VENDORS[platform]))
    return DevicePaths(tuple(sorted(found[0])), tuple(sorted(found[1])))


def _pci_folders(root: str, vendor: str) -> set[str]:
    """The sysfs folders (links resolved, as Landlock sees them) of the PCI devices made by ``vendor``."""
    folders = set()
    for link in glob.glob(os.path.join(root, "sys/bus/pci/devices/*")):
        try:
            with open(os.path.join(link, "vendor")) as f:
                if f.read().strip() == vendor:
                    folders.add(os.path.realpath(link))
        except OSError:
            continue
    return folders


def worker_env(platform: str) -> dict[str, str]:
    """What a worker holding ``platform`` needs in its environment, beyond JAX_PLATFORMS.

    CUDA: the driver's cache of compiled kernels off (each worker is new, so it
    would only fill the scratch folder). XLA compiles with NVIDIA's ptxas and
    nvlink programs (the ``compiler_programs`` grant, cuda_programs.py): the
    pip plugins have no compiler built in, and XLA's flag to fall back to the
    driver's (``--xla_gpu_unsafe_fallback_to_driver_on_ptxas_not_found``) is
    not honoured on the JIT path that JAX takes (measured on an H200: "Stream
    executor provided: 0"), so it is not set. TPU (not yet tried on one): no
    query of the cloud's metadata server (the sandbox has no network), no lock
    file in /tmp (libtpu's guard against a second process on the chips;
    Landlock keeps /tmp read-only), and no log folder there.
    """
    if platform == "cuda":
        return {"CUDA_CACHE_DISABLE": "1"}
    if platform == "tpu":
        return {"TPU_SKIP_MDS_QUERY": "1", "ALLOW_MULTIPLE_LIBTPU_LOAD": "1", "TPU_LOG_DIR": "disabled"}
    return {}


def installed_plugin(platform: str) -> str | None:
    """The JAX plugin package for ``platform`` that this venv holds, if any."""
    for package in _PLUGINS.get(platform, ()):
        try:
            importlib.metadata.version(package)
            return package
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def detect(env: dict[str, str], root: str = "/") -> tuple[Accelerator | None, str]:
    """The accelerator the sandbox can give workers, or None, and why, in words for the log and About.

    ``PLAYGROUND_ACCELERATOR=off`` keeps every job on the CPU; ``JAX_PLATFORMS=cpu`` does too.
    """
    if (env.get("PLAYGROUND_ACCELERATOR") or "").strip().lower() in ("0", "off", "no", "false"):
        return None, "turned off (PLAYGROUND_ACCELERATOR=off): every job runs on the CPU"
    if (env.get("JAX_PLATFORMS") or "").strip().lower() == "cpu":
        return None, "JAX_PLATFORMS=cpu: every job runs on the CPU"
    reasons = []
    # One device file per GPU; per TPU chip, /dev/accel<N> (v2-v4) or a VFIO group /dev/vfio/<N> (v5e and later).
    for platform, counted in (("cuda", ("dev/nvidia[0-9]*",)), ("tpu", ("dev/accel[0-9]*", "dev/vfio/[0-9]*"))):
        paths = device_paths(platform, root)
        if not paths.read_write:
            continue
        count = max(1, sum(len(glob.glob(os.path.join(root, pattern))) for pattern in counted))
        plugin = installed_plugin(platform)
        if plugin is None:
            reasons.append(f"{platform.upper()} device files exist, but this venv has no JAX plugin for them "
                           f"(make run installs it; or JAX_ACCELERATOR={'cuda12' if platform == 'cuda' else 'tpu'})")
            continue
        accelerator = Accelerator(platform, count, paths)
        return accelerator, f"{accelerator.describe()} through {plugin}"
    return None, "; ".join(reasons) or "no GPU or TPU device files on this host: every job runs on the CPU"
