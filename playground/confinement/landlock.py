"""Landlock (Linux >= 5.13) via its three system calls, through ctypes.

Why our own binding: the PyPI ``landlock`` package (1.0.0.dev5) handles only
filesystem rules. We also want what later ABIs add: deny TCP bind/connect
(ABI 4) and scope signals and abstract UNIX sockets to the sandbox (ABI 6), so
a worker cannot signal the server or reach its abstract sockets. The UAPI is
small and stable; the constants below are from ``linux/landlock.h``.

Landlock restricts the calling thread and the threads it creates later, so it
must be applied while the process is still single-threaded.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterable

_SYS_CREATE_RULESET = 444  # same number on x86-64 and arm64
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5

NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1

SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1

FILE_ACCESS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
READ_ONLY = READ_FILE | READ_DIR
WRITE_EXISTING = READ_ONLY | WRITE_FILE | TRUNCATE
RUN = READ_FILE | EXECUTE
READ_WRITE = (1 << 16) - 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _syscall(number: int, *args) -> int:
    result = _libc.syscall(number, *args)
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"landlock syscall {number}: {os.strerror(err)}")
    return result


def abi_version() -> int:
    """The kernel's Landlock ABI version, or 0 where Landlock is off or absent."""
    try:
        return _syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION)
    except OSError:
        return 0


def handled_fs_access(abi: int) -> int:
    """Every filesystem right this ABI knows, so that all of them are denied by default."""
    access = (1 << 13) - 1
    if abi >= 2:
        access |= REFER
    if abi >= 3:
        access |= TRUNCATE
    if abi >= 5:
        access |= IOCTL_DEV
    return access


def restrict_self(
    read_only: Iterable[str], read_write: Iterable[str], abi: int | None = None, write_existing: Iterable[str] = (),
    keep_files: Iterable[str] = (), executable: Iterable[str] = (),
) -> dict:
    """Deny the whole filesystem but these paths; deny TCP and foreign signals where the ABI can.

    ``write_existing``: paths beneath which files that exist may be read and
    written, but nothing made, removed or renamed. ``keep_files``: read-write,
    but nothing (file or folder) may be removed or renamed: what is made there
    stays where it was made. ``executable``: files that may be read and run
    (nothing else may be executed). Paths that do not exist are skipped.
    Returns what was enforced, for the report.
    """
    abi = abi_version() if abi is None else abi
    if abi < 1:
        raise OSError("Landlock is not available on this kernel")
    handled_fs = handled_fs_access(abi)
    attr = _RulesetAttr(
        handled_access_fs=handled_fs,
        handled_access_net=(NET_BIND_TCP | NET_CONNECT_TCP) if abi >= 4 else 0,
        scoped=(SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL) if abi >= 6 else 0,
    )
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    ruleset_fd = _syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    try:
        for paths, access in ((read_only, READ_ONLY), (read_write, READ_WRITE), (write_existing, WRITE_EXISTING),
                              (keep_files, READ_WRITE & ~(REMOVE_FILE | REMOVE_DIR)), (executable, RUN)):
            for path in paths:
                _allow(ruleset_fd, path, access & handled_fs)
        _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        _syscall(_SYS_RESTRICT_SELF, ruleset_fd, 0)
    finally:
        os.close(ruleset_fd)
    return {"abi": abi, "tcp_denied": abi >= 4, "signals_scoped": abi >= 6}


def _allow(ruleset_fd: int, path: str, access: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        if not os.path.isdir(path):
            access &= FILE_ACCESS
        rule = _PathBeneathAttr(allowed_access=access, parent_fd=fd)
        _syscall(_SYS_ADD_RULE, ruleset_fd, _RULE_PATH_BENEATH, ctypes.byref(rule), 0)
    finally:
        os.close(fd)
