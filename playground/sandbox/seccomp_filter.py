"""The worker's system-call filter, built with libseccomp (through ``pyseccomp``).

Why pyseccomp: libseccomp is the reference implementation (it handles every
architecture's syscall numbers and the x32/i386 escape hatches for us), and
pyseccomp reaches it through ctypes, so it installs from PyPI into any venv.
Debian's python3-seccomp is compiled for the system interpreter only.

Default: allow. Denied with EPERM: new processes (fork, vfork, clone without
CLONE_THREAD, exec), sockets other than AF_UNIX and every connect/bind/listen
(a worker talks to the server over a socket it inherited), signals to any
process but itself, ptrace and cross-process memory access, namespaces,
mounts, kernel keyrings, BPF, io_uring (it would bypass this filter), and more.
"""

from __future__ import annotations

import errno
import os
import socket

try:  # loaded once, in the template: after Landlock, ctypes could no longer find the library
    import pyseccomp as seccomp

    _LOAD_ERROR = ""
except (ImportError, OSError, RuntimeError) as exc:
    seccomp = None
    _LOAD_ERROR = f"libseccomp not loadable: {exc}"

_CLONE_THREAD = 0x00010000

_DENIED = (
    "fork", "vfork", "execve", "execveat",
    "connect", "bind", "listen", "accept", "accept4",
    "tkill", "ptrace", "process_vm_readv", "process_vm_writev",
    "pidfd_open", "pidfd_getfd", "pidfd_send_signal", "kcmp",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
    "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick",
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open",
    "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
    "reboot", "swapon", "swapoff", "acct", "quotactl", "syslog",
    "name_to_handle_at", "open_by_handle_at", "personality",
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid",
    "setgroups", "setfsuid", "setfsgid", "capset",
)


def available() -> tuple[bool, str]:
    """Whether libseccomp can be loaded here, with a reason when it cannot."""
    return (seccomp is not None), (_LOAD_ERROR or "libseccomp")


def install() -> dict:
    """Load the filter into this process (all its threads). Needs no_new_privs or CAP_SYS_ADMIN."""
    if seccomp is None:
        raise RuntimeError(_LOAD_ERROR)
    deny = seccomp.ERRNO(errno.EPERM)
    me = os.getpid()
    filt = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    filt.set_attr(seccomp.Attr.CTL_TSYNC, 1)
    for name in _DENIED:
        filt.add_rule(deny, name)
    # glibc falls back to clone() when clone3 says ENOSYS; clone's flags can be inspected.
    filt.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    filt.add_rule(deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, _CLONE_THREAD, 0))
    filt.add_rule(deny, "socket", seccomp.Arg(0, seccomp.NE, socket.AF_UNIX))
    filt.add_rule(deny, "kill", seccomp.Arg(0, seccomp.NE, me))
    filt.add_rule(deny, "tgkill", seccomp.Arg(0, seccomp.NE, me))
    filt.add_rule(deny, "rt_sigqueueinfo", seccomp.Arg(0, seccomp.NE, me))
    filt.add_rule(deny, "rt_tgsigqueueinfo", seccomp.Arg(0, seccomp.NE, me))
    filt.load()
    return {"denied_syscalls": len(_DENIED) + 7}
