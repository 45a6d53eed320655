"""One reading of a process's resident memory, address space and threads.

The server reads its workers' with it (the watchdogs), and a worker its own
(the jit benchmark's memory plan): one reader, one meaning of "resident".
On Linux from /proc/<pid>/stat; where there is no /proc (macOS, Windows: the
local process mode) from psutil, which asks the OS for the same figures.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_MB = 1024 * 1024
_HAS_PROC = os.path.isdir("/proc/self")


@dataclass(frozen=True)
class Sample:
    rss_mb: float  # resident set: anonymous, file-backed and shared pages in memory
    address_space_mb: float  # virtual size (what RLIMIT_AS bounds)
    threads: int


def sample(pid: int | str = "self") -> Sample | None:
    """The process's figures now; None once it is gone (or its figures cannot be read)."""
    if not _HAS_PROC:
        return _from_psutil(os.getpid() if pid == "self" else int(pid))
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()  # the name before ")" may hold spaces and ")"
        return Sample(rss_mb=int(fields[21]) * _PAGE / _MB, address_space_mb=int(fields[20]) / _MB,
                      threads=int(fields[17]))
    except (OSError, IndexError, ValueError):
        return None


def _from_psutil(pid: int) -> Sample | None:
    import psutil

    try:
        process = psutil.Process(pid)
        with process.oneshot():
            memory = process.memory_info()
            return Sample(rss_mb=memory.rss / _MB, address_space_mb=memory.vms / _MB, threads=process.num_threads())
    except (psutil.Error, OSError):
        return None


# Mappings of a device's memory or registers into the process, which are not RAM: a TPU chip's VFIO windows
# (two of 4 GiB on a v5e), NVIDIA's device files. libtpu's own premapped host buffer is RAM, and counts.
DEVICE_MAPPINGS = ("anon_inode:[vfio-device]", "/dev/vfio/", "/dev/accel", "/dev/nvidia")


def resident_without_devices_mb(pid: int) -> float | None:
    """Resident memory of ``pid`` without the device mappings above (from /proc/<pid>/smaps); where there is no
    /proc, what the OS calls resident (psutil); None once it is gone."""
    if not _HAS_PROC:
        found = _from_psutil(pid)
        return None if found is None else found.rss_mb
    try:
        with open(f"/proc/{pid}/smaps", "rb") as f:
            return resident_in_smaps(f) / 1024
    except (OSError, ValueError, IndexError):
        return None


def resident_in_open_smaps_mb(fd: int) -> float | None:
    """``resident_without_devices_mb`` from an smaps file the process opened itself and handed over (read from
    its start each time); None where it cannot be read (the process is gone)."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return resident_in_smaps(b"".join(chunks).splitlines()) / 1024
    except (OSError, ValueError, IndexError):
        return None


def resident_in_smaps(lines) -> int:
    """The kB resident in an smaps listing's mappings, less the device's (DEVICE_MAPPINGS).

    >>> resident_in_smaps([b"7f00-7f10 rw-p 00000000 00:00 0 [heap]", b"Rss: 100 kB",
    ...                    b"7f20-7f30 rw-s 00000000 00:0e 12 anon_inode:[vfio-device]", b"Rss: 4194304 kB"])
    100
    """
    total_kb = 0
    device = False
    for line in lines:
        if line[:1].isdigit() or line[:1] in b"abcdef":  # a mapping's first line: "start-end perms ... path"
            device = any(name.encode() in line for name in DEVICE_MAPPINGS)
        elif line.startswith(b"Rss:") and not device:
            total_kb += int(line.split()[1])
    return total_kb
