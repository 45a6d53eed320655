"""Linux namespaces for one job: it sees no other process, and its scratch folder is a tmpfs of its own.

The template forks each worker into a new PID namespace (``fork_into_new_pid_namespace``):
the worker is process 1 there and no other process exists for it, so no system call
can name the server, the template or a sibling. The worker then takes a private mount
table, IPC and network namespace (``enter_private_mounts``) and mounts

- a tmpfs on its scratch folder, sized by the job's limits: the kernel counts every
  byte and every file (files deleted while still open too), says ENOSPC when it is
  full, and frees it all when the worker dies; the server never walks that folder;
- a fresh /proc for its PID namespace, which lists only the worker itself.

Both need CAP_SYS_ADMIN (the server runs as root). Where they are refused the
reason is reported, and the other layers carry the load (see server/pools/watch.py and ipc/scratch.py).
"""

from __future__ import annotations

import ctypes
import os

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
_MS_NOSUID = 0x2
_MS_NODEV = 0x4
_MS_NOEXEC = 0x8
_MS_REC = 0x4000
_MS_PRIVATE = 1 << 18

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str, target: str, fstype: str | None, flags: int, options: str | None = None) -> None:
    _check(_libc.mount(source.encode(), target.encode(), fstype.encode() if fstype else None, flags,
                       options.encode() if options else None), f"mount {fstype or source} on {target}")


class PidNamespaceForker:
    """Forks children into PID namespaces of their own (template side)."""

    def __init__(self) -> None:
        """OSError where this process may not make PID namespaces (it tries once, forking nothing)."""
        self._own = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        try:
            _check(_libc.unshare(CLONE_NEWPID), "unshare(CLONE_NEWPID)")
            self._restore()
        except OSError:
            os.close(self._own)
            raise

    def fork(self) -> int:
        """``os.fork()``, the child being process 1 of a new PID namespace; OSError where refused.

        unshare(CLONE_NEWPID) only sets where the next child goes; setns back to our
        own namespace afterwards, so that the next unshare is allowed again.
        """
        _check(_libc.unshare(CLONE_NEWPID), "unshare(CLONE_NEWPID)")
        try:
            pid = os.fork()
        except BaseException:
            self._restore()
            raise
        if pid:
            self._restore()
        return pid

    def _restore(self) -> None:
        _check(_libc.setns(self._own, CLONE_NEWPID), "setns back to the template's PID namespace")


def enter_private_mounts(scratch: str, scratch_mb: int, scratch_files: int, own_pid_namespace: bool) -> str:
    """Private mounts, IPC and network for this process; a tmpfs scratch and, in a new PID namespace, a fresh /proc.

    Returns what was done, for the report. Raises OSError where the kernel refuses.
    """
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET), "unshare(mount, IPC, network)")
    _mount("none", "/", None, _MS_REC | _MS_PRIVATE)  # nothing we mount reaches the host
    # nr_inodes counts the folder itself too.
    _mount("tmpfs", scratch, "tmpfs", _MS_NOSUID | _MS_NODEV,
           f"size={scratch_mb}m,nr_inodes={scratch_files + 1},mode=0700")
    if own_pid_namespace:
        _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    proc = "a /proc that shows only the job, " if own_pid_namespace else ""
    return (f"scratch folder is a private tmpfs of {scratch_mb} MB and {scratch_files:,} files; {proc}"
            "no network interface, no IPC objects shared with the host")
