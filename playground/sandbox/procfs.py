"""One reading of a process's /proc/<pid>/stat: resident memory, address space, threads.

The server reads its workers' with it (the watchdogs), and a worker its own
(the jit benchmark's memory plan): one reader, one meaning of "resident".
"""

from __future__ import annotations

import os
from dataclasses import dataclass

_PAGE = os.sysconf("SC_PAGE_SIZE")
_MB = 1024 * 1024


@dataclass(frozen=True)
class Sample:
    rss_mb: float  # resident set: anonymous, file-backed and shared pages in memory
    address_space_mb: float  # virtual size (what RLIMIT_AS bounds)
    threads: int


def sample(pid: int | str = "self") -> Sample | None:
    """The process's figures now; None once it is gone (or its stat cannot be read)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()  # the name before ")" may hold spaces and ")"
        return Sample(rss_mb=int(fields[21]) * _PAGE / _MB, address_space_mb=int(fields[20]) / _MB,
                      threads=int(fields[17]))
    except (OSError, IndexError, ValueError):
        return None
