"""The system-call filter of each sandbox worker (and of the device owner), built with libseccomp (``pyseccomp``).

Why pyseccomp: libseccomp is the reference implementation (it handles every
architecture's syscall numbers and the x32/i386 escape hatches for us), and
pyseccomp reaches it through ctypes, so it installs from PyPI into any venv.
Debian's python3-seccomp is compiled for the system interpreter only.

Default: allow. Denied with EPERM: new processes (fork, vfork, clone without
CLONE_THREAD, exec), sockets other than AF_UNIX and every connect/bind/listen
(a worker talks to the server over a socket it inherited), ptrace and
cross-process memory access, namespaces, mounts, kernel keyrings, BPF, io_uring
(it would bypass this filter), memory that outlives or escapes the process
(memfd, SysV shared memory and other IPC objects, POSIX message queues),
pipe buffers larger than the default (the kernel counts them per user),
changes of a file's mode, owner or extended attributes, truncation by path,
and more. A job makes its files with the mode it wants (``open``, ``mkdir``);
it may not change one afterwards, its own or anyone's.

Every call that takes a process id is limited to the caller: a worker can
name, observe or change no process but itself. The calls that accept 0 for
"myself" (prlimit64, sched_*, getsid, getpgid, get/setpriority, ioprio_*)
must pass 0; the signal calls must name the worker's own pid. libseccomp
allows one comparison per argument and rule, so "0 or my pid" is not
expressible: glibc and JAX pass 0 (checked with strace), as do Python's
``os.sched_getaffinity(0)``, ``resource.getrlimit`` and ``os.nice``. One
exception: abseil (inside XLA) reads each of its threads' scheduling
parameters by thread id. In a PID namespace of its own every id a worker
can name is one of its own threads, so there the read-only sched_get* calls
take any id; elsewhere they take only 0 (abseil then logs that it could not
read them, and carries on).

Where Landlock cannot keep a job's writes inside its scratch folder (gVisor,
a kernel without it), ``no_file_writes`` refuses every call that writes a
file, since a filter sees a path only as a pointer and so cannot tell the
scratch folder from anywhere else: an open for writing, appending,
truncating or making a file (a device node or /proc/<pid>/mem too), and every
call that makes, removes, renames or links a name or changes a file's
times or flags.
"""

from __future__ import annotations

import errno
import os
import socket

try:  # loaded once, in the template: after Landlock, ctypes cannot find the library
    import pyseccomp as seccomp

    _LOAD_ERROR = ""
except (ImportError, OSError, RuntimeError) as exc:
    seccomp = None
    _LOAD_ERROR = f"libseccomp not loadable: {exc}"

_CLONE_THREAD = 0x00010000
_F_SETPIPE_SZ = 1031
_PRIO_PROCESS = 0
_IOPRIO_WHO_PROCESS = 1

_DENIED = (
    "fork", "vfork", "execve", "execveat",
    "connect", "bind", "listen", "accept", "accept4",
    "tkill", "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "process_mrelease",
    "pidfd_open", "pidfd_getfd", "pidfd_send_signal", "kcmp", "capget",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
    "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr",
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "fanotify_init",
    "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
    "reboot", "swapon", "swapoff", "acct", "quotactl", "syslog",
    "name_to_handle_at", "open_by_handle_at", "personality",
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid",
    "setgroups", "setfsuid", "setfsgid", "capset",
    # Memory a job could hold outside its own address space, or beyond its death.
    "memfd_create", "memfd_secret",
    "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
    "semget", "semop", "semtimedop", "semctl",
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
    # Changes Landlock does not see, to files the worker owns by uid: the server's own files where it runs as the
    # server's uid (no root), the host's where it runs as root without capabilities. One chmod of the scratch root
    # would lock the server out of every later job's folder; one of a system library, out of the host.
    "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
    "setxattr", "lsetxattr", "fsetxattr", "setxattrat", "removexattr", "lremovexattr", "fremovexattr",
    "removexattrat",
    "truncate",  # by path: Landlock sees it only from ABI 3 (Linux 6.2); ftruncate needs a descriptor open to write
)
# (system call, argument index, the only value allowed there): "0" means the calling process.
_ONLY_OUTSIDE_PID_NAMESPACE = (
    ("sched_getaffinity", 0, 0), ("sched_getscheduler", 0, 0), ("sched_getparam", 0, 0),
    ("sched_getattr", 0, 0), ("sched_rr_get_interval", 0, 0), ("get_robust_list", 0, 0),
)
_ONLY = (
    ("prlimit64", 0, 0),
    ("getsid", 0, 0), ("getpgid", 0, 0), ("setpgid", 0, 0),
    ("sched_setaffinity", 0, 0), ("sched_setscheduler", 0, 0), ("sched_setparam", 0, 0), ("sched_setattr", 0, 0),
    ("migrate_pages", 0, 0), ("move_pages", 0, 0),
    ("setpriority", 0, _PRIO_PROCESS), ("setpriority", 1, 0),
    ("getpriority", 0, _PRIO_PROCESS), ("getpriority", 1, 0),
    ("ioprio_set", 0, _IOPRIO_WHO_PROCESS), ("ioprio_set", 1, 0),
    ("ioprio_get", 0, _IOPRIO_WHO_PROCESS), ("ioprio_get", 1, 0),
)
_SIGNALS = ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")  # first argument: a process id
# The denied calls a device grant (the device owner's: lockdown.GRANTS) allows (own_sockets, compiler_programs) or
# answers with another error (absent_daemons).
_RELAXED_BY = {"bind": "own_sockets", "listen": "own_sockets", "connect": "absent_daemons",
               "execve": "compiler_programs"}
_CLONE_VM, _CLONE_VFORK = 0x00000100, 0x00004000
_O_TMPFILE = getattr(os, "O_TMPFILE", 0o20200000) & ~os.O_DIRECTORY  # the bit itself (O_TMPFILE adds O_DIRECTORY)
# An open with any of these bits may change a file (O_RDWR | O_WRONLY carries both).
_WRITING_OPEN_BITS = (os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_TRUNC, os.O_APPEND, _O_TMPFILE)
# The calls that make, remove, rename or link a name, or change a file's times, by path or by descriptor.
_FILE_WRITES = ("creat", "mkdir", "mkdirat", "mknod", "mknodat", "unlink", "unlinkat", "rmdir",
                "rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat",
                "utime", "utimes", "utimensat", "futimesat", "ftruncate", "fallocate")
# ioctls that change a file through a descriptor opened only to read it: its flags (FS_IOC_SETFLAGS, also as the
# 32-bit FS_IOC32_SETFLAGS) and its extended attributes (FS_IOC_FSSETXATTR).
_FILE_CHANGING_IOCTLS = (0x40086602, 0x40046602, 0x401C5820)


def available() -> tuple[bool, str]:
    """Whether libseccomp can be loaded here, with a reason when it cannot."""
    return (seccomp is not None), (_LOAD_ERROR or "libseccomp")


def install(grants: frozenset[str] = frozenset(), named_files_only: bool = False, no_file_writes: bool = False) -> dict:
    """Load the filter into this process (all its threads). Needs no_new_privs or CAP_SYS_ADMIN.

    ``grants`` (lockdown.GRANTS) narrow it for the device owner, whose driver needs them:
    ``own_sockets`` allows bind and listen; ``absent_daemons`` makes ``connect``
    fail with ENOENT, not EPERM; ``compiler_programs`` allows ``execve`` (which
    programs, Landlock decides) and a new process made the way ``posix_spawn``
    makes one (``clone`` with CLONE_VM and CLONE_VFORK; fork and every other
    new process stay denied). ``named_files_only`` refuses files made without
    a name (``O_TMPFILE``) with EOPNOTSUPP, as a filesystem without them would
    (Python's tempfile then makes a named one), and ``openat2``, whose flags a
    filter cannot read, with ENOSYS (callers fall back to ``openat``).
    ``no_file_writes`` refuses every file write with EPERM (see the module's
    words; O_TMPFILE among them), ``openat2`` with ENOSYS.
    """
    if seccomp is None:
        raise RuntimeError(_LOAD_ERROR)
    deny = seccomp.ERRNO(errno.EPERM)
    me = os.getpid()
    filt = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    filt.set_attr(seccomp.Attr.CTL_TSYNC, 1)
    rules = 0
    relaxed = []
    for name in _DENIED:
        if name in _RELAXED_BY and _RELAXED_BY[name] in grants:
            continue
        rules += _add(filt, deny, name)
    if "own_sockets" in grants:
        relaxed.append("bind and listen allowed")
    if "absent_daemons" in grants:
        rules += _add(filt, seccomp.ERRNO(errno.ENOENT), "connect")
        relaxed.append("connect answers ENOENT")
    if "compiler_programs" in grants:
        relaxed.append("execve and posix_spawn's clone allowed")
    if no_file_writes:  # O_TMPFILE comes with O_WRONLY or O_RDWR: refused with the other writes
        rules += _deny_file_writes(filt, deny)
    elif named_files_only:
        unsupported = seccomp.ERRNO(errno.EOPNOTSUPP)
        for name, flags_at in (("open", 1), ("openat", 2)):
            rules += _add(filt, unsupported, name, seccomp.Arg(flags_at, seccomp.MASKED_EQ, _O_TMPFILE, _O_TMPFILE))
        rules += _add(filt, seccomp.ERRNO(errno.ENOSYS), "openat2")
    # glibc falls back to clone() when clone3 says ENOSYS; clone's flags can be inspected.
    rules += _add(filt, seccomp.ERRNO(errno.ENOSYS), "clone3")
    if "compiler_programs" in grants:  # a process only with both CLONE_VM and CLONE_VFORK: deny either one missing
        for lacking in (_CLONE_VM, _CLONE_VFORK):
            rules += _add(filt, deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, _CLONE_THREAD | lacking, 0))
    else:
        rules += _add(filt, deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, _CLONE_THREAD, 0))
    rules += _add(filt, deny, "socket", seccomp.Arg(0, seccomp.NE, socket.AF_UNIX))
    # Pipe buffers are counted per user, not per process: larger ones would starve the other workers' pipes.
    rules += _add(filt, deny, "fcntl", seccomp.Arg(1, seccomp.EQ, _F_SETPIPE_SZ))
    own_pid_namespace = me == 1
    for name, index, allowed in _ONLY + (() if own_pid_namespace else _ONLY_OUTSIDE_PID_NAMESPACE):
        rules += _add(filt, deny, name, seccomp.Arg(index, seccomp.NE, allowed))
    for name in _SIGNALS:
        rules += _add(filt, deny, name, seccomp.Arg(0, seccomp.NE, me))
    filt.load()
    return {"denied_syscalls": rules, "relaxed": relaxed}


def _deny_file_writes(filt, deny) -> int:
    rules = 0
    for name, flags_at in (("open", 1), ("openat", 2)):
        for bit in _WRITING_OPEN_BITS:
            rules += _add(filt, deny, name, seccomp.Arg(flags_at, seccomp.MASKED_EQ, bit, bit))
    # Its flags are behind a pointer: refused as unknown, so that callers fall back to openat.
    rules += _add(filt, seccomp.ERRNO(errno.ENOSYS), "openat2")
    for name in _FILE_WRITES:
        rules += _add(filt, deny, name)
    for request in _FILE_CHANGING_IOCTLS:
        rules += _add(filt, deny, "ioctl", seccomp.Arg(1, seccomp.EQ, request))
    return rules


def install_thread_gate() -> int:
    """A second filter that hands every ``clone`` of a thread to a supervisor (thread_gate.py); its listener.

    Filters stack, and the strictest answer wins, so this one adds a question and
    takes nothing away. Installed while the process is single-threaded: nothing
    waits for an answer before the listener has reached the template. The caller
    sends the listener away and closes its own copy.
    """
    if seccomp is None:
        raise RuntimeError(_LOAD_ERROR)
    gate = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    gate.add_rule(seccomp.NOTIFY, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, _CLONE_THREAD, _CLONE_THREAD))
    gate.load()
    # pyseccomp 0.1.2 has no public call for the listener; libseccomp's own (seccomp_notify_fd) gives it.
    listener = seccomp._libseccomp.seccomp_notify_fd(gate._filter)
    if listener < 0:
        raise OSError(-listener, "seccomp_notify_fd: no listener")
    return listener


def _add(filt, action, name: str, *conditions) -> int:
    """Add one rule; a call this architecture does not have is skipped (there is nothing to deny)."""
    try:
        filt.add_rule(action, name, *conditions)
    except (ValueError, RuntimeError, OSError) as exc:
        if _known(name):
            raise RuntimeError(f"seccomp rule for {name} refused: {exc}") from exc
        return 0
    return 1


def _known(name: str) -> bool:
    try:
        return seccomp.resolve_syscall(seccomp.Arch.NATIVE, name) >= 0
    except (ValueError, RuntimeError, OSError, AttributeError):
        return False
