"""The host's accelerator as the server sees it, without importing JAX: which one, and which files it needs.

The web server never starts JAX, yet it must decide before the device owner
starts which device it holds (playground/owner/: the one process that opens
it), which files its Landlock rules must open and what its environment needs.
The answers come from the filesystem: the driver's device files (``/dev/nvidia*``
for NVIDIA, ``/dev/accel*`` or ``/dev/vfio`` for a TPU VM) and whether the venv
holds the JAX plugin that drives them (``jax-cuda12-plugin``, ``jax-cuda13-plugin``,
``libtpu``; ``make run`` installs the one the host needs). See docs/deploy.md
("On a GPU or TPU").

>>> Accelerator("cuda", 1, DevicePaths(("/dev/nvidia0",), ())).describe()
'CUDA (1 device)'
"""

from __future__ import annotations

import glob
import importlib.metadata
import os
from dataclasses import dataclass

from playground.ipc.bootstrap import worker_environment

# What CUDA opens read-write: the control device, one file per GPU, unified memory, and MIG's capability files.
_NVIDIA_DEVICES = ("dev/nvidiactl", "dev/nvidia[0-9]*", "dev/nvidia-uvm", "dev/nvidia-uvm-tools",
                   "dev/nvidia-caps/nvidia-cap*")
# What the driver library reads to find the GPUs: its /proc files, its modules' parameters, the list of PCI
# devices, and (found by vendor, below) the sysfs folders of the GPUs themselves, not of any other device; and
# what it reads of the machine at cuInit (as an strace of cuInit shows): the kernel's module and device lists, the
# lowest mappable address, the NUMA nodes and memory blocks.
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


def owner_env(platform: str) -> dict[str, str]:
    """The device owner's environment, made from the server's own: the whitelist every helper process gets
    (bootstrap.worker_environment), JAX pinned to ``platform`` (and, beside an accelerator, the CPU: the Train tab
    races the two, owner/training/race.py; the accelerator, listed first, stays JAX's default), and what its driver
    needs, for it alone.

    TPU: the host's ``TPU_*`` variables and ``LIBTPU_INIT_ARGS`` (without them libtpu asks the cloud's metadata
    server for the chip's topology, waiting out a timeout per key where there is none, and the sandbox has no
    network), no such query where they are missing (``TPU_SKIP_MDS_QUERY``), no log folder in /tmp, and a premapped
    host buffer of 256 MiB instead of 4 GiB (less resident memory, and the chip opens faster: docs/development.md's
    table of costs found). CUDA: the host's choice of GPUs.
    """
    source = dict(os.environ)
    extra = {"JAX_PLATFORMS": platform if platform == "cpu" else f"{platform},cpu"}
    if platform == "tpu":
        extra.update({"TPU_SKIP_MDS_QUERY": "1", "TPU_LOG_DIR": "disabled",
                      "TPU_PREMAPPED_BUFFER_SIZE": str(256 << 20)})
        extra.update({name: value for name, value in source.items()
                      if name.startswith("TPU_") or name == "LIBTPU_INIT_ARGS"})
    elif platform == "cuda":
        extra.update({name: source[name] for name in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES")
                      if name in source})
    return worker_environment(source, extra)


def installed_plugin(platform: str) -> str | None:
    """The JAX plugin package for ``platform`` that this venv holds, if any."""
    for package in _PLUGINS.get(platform, ()):
        try:
            importlib.metadata.version(package)
            return package
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def detect(wanted: bool, root: str = "/") -> tuple[Accelerator | None, str]:
    """The accelerator the device owner is to open, or None, and why, in words for the log and About.

    ``wanted`` is Settings.accelerator: off (``PLAYGROUND_ACCELERATOR=off``, or ``JAX_PLATFORMS=cpu``), every job
    stays on the CPU.
    """
    if not wanted:
        return None, "turned off (PLAYGROUND_ACCELERATOR=off or JAX_PLATFORMS=cpu): every job runs on the CPU"
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
