"""The rlimits any OS offers a child process: what the local process mode's workers and a device owner without the
full sandbox get (the full sandbox sets its own, with more layers, in lockdown.py)."""

from __future__ import annotations

import sys

from playground.ipc.limits import Limits

_MB = 1024 * 1024


def set_rlimits(limits: Limits) -> dict:
    """The rlimits this OS offers: CPU time, file size, open files, no core dumps; address space on Linux only
    (macOS does not enforce it). Windows has none of them."""
    try:
        import resource
    except ImportError:
        return {"active": False, "detail": "this OS has no rlimits: the server's watchdogs are the only limits"}
    wanted = {"RLIMIT_CPU": limits.cpu_s, "RLIMIT_FSIZE": limits.file_size_mb * _MB,
              "RLIMIT_NOFILE": limits.open_files, "RLIMIT_CORE": 0}
    if sys.platform.startswith("linux") and limits.address_space_mb:
        wanted["RLIMIT_AS"] = limits.address_space_mb * _MB
    set_ = []
    for name, value in wanted.items():
        which = getattr(resource, name)
        _soft, hard = resource.getrlimit(which)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        try:
            resource.setrlimit(which, (value, value))
            set_.append(name)
        except (ValueError, OSError):
            continue
    address = f"address space {limits.address_space_mb:,} MB, " if "RLIMIT_AS" in set_ else ""
    return {"active": len(set_) == len(wanted),
            "detail": f"{address}CPU {limits.cpu_description()}, file size {limits.file_size_mb} MB, "
                      f"{limits.open_files} open files, no core dumps (rlimits set: {', '.join(set_) or 'none'})"}
