"""Lock a process down, layer by layer, and say which layers hold: each sandbox worker, and the device owner.

Order: rlimits -> Landlock -> a uid of the job's own -> capabilities ->
seccomp, all while the process is still single-threaded (Landlock binds the
calling thread and the threads it starts later; XLA starts its thread pools
during warm-up, so warm-up comes after this, not before). A layer that cannot
be applied is reported with the reason, never skipped silently.

A job's writes stay in its scratch folder on every host. Where Landlock is in
force it keeps them there. Where it is not (gVisor: Cloud Run, GKE Sandbox, a
TPU VM's sandbox; a kernel without it), nothing else can tell the scratch
folder from the rest of the filesystem (a seccomp filter sees a path only as
a pointer; a private mount namespace leaves device nodes writable), so
seccomp refuses every file write there: the job writes no file at all. A
server run as root also moves such a job to a uid of its own (``JOB_UID``),
so that the files only root may read, and root's other processes, are out of
its reach too.

A sandbox worker gets the layers as they are. The device owner
(playground/owner/main.py) also gets its device's files and, by name, what its
driver needs beyond them (``GRANTS``): which of those it needs, and why each is
safe to give, is the owner's to decide (server/device_owner/device_grants.py); how each is
applied is this module's and seccomp_filter.py's.
"""

from __future__ import annotations

import ctypes
import os
import resource
import site
import sys
from collections.abc import Iterable

from playground.confinement import landlock, seccomp_filter
from playground.ipc.limits import Limits

_MB = 1024 * 1024
_PR_CAPBSET_DROP = 24
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAPABILITY_VERSION_3 = 0x20080522
_PINNED: list[int] = []  # descriptors a process keeps open for its Landlock rules (for its whole life)
_KEEPS_FILES = False  # set by apply(): this process may not delete or rename files in its scratch folder
_WRITES_NO_FILES = False  # set by apply(): this process may write no file at all (no Landlock here)
# Where a job of a server run as root goes when Landlock is missing: the conventional "nobody", which owns nothing.
JOB_UID = 65534

# The grants a driver may be given, by name: each loosens one rule of Landlock's or seccomp's (device_grants.py).
GRANTS = frozenset({"thread_names", "own_sockets", "absent_daemons", "compiler_programs"})
# Applied only with a private scratch folder: XLA deletes the temporary files it hands to ptxas and stops when it
# cannot, and a scratch folder that keeps every file (see ``apply``) lets nothing be deleted.
NEED_PRIVATE_SCRATCH = frozenset({"compiler_programs"})


def scratch_keeps_files() -> bool:
    """Whether this (locked-down) process may not delete or rename files in its scratch folder: for its errors."""
    return _KEEPS_FILES


def writes_no_files() -> bool:
    """Whether this (locked-down) process may write no file at all, its scratch folder included: for its errors."""
    return _WRITES_NO_FILES


def probe() -> dict[str, dict]:
    """What this kernel and machine allow, without changing anything (server side)."""
    abi = landlock.abi_version()
    seccomp_ok, seccomp_why = seccomp_filter.available()
    return {
        "landlock": {"active": abi > 0, "detail": f"ABI {abi}" if abi else "not enabled in this kernel"},
        "seccomp": {"active": seccomp_ok, "detail": seccomp_why},
    }


def apply(limits: Limits, scratch: str, *, devices: dict | None = None, grants: Iterable[str] = (),
          programs: Iterable[str] = (), private_scratch: bool = False, readable: Iterable[str] = (),
          writable: Iterable[str] = (), runs_jobs: bool = True) -> dict[str, dict]:
    """Apply every layer to the current (single-threaded) process; return the report.

    For the device owner only (a sandbox worker gets none of them): ``devices``
    (``{"read_write": [...], "read_only": [...]}``, accelerator.DevicePaths) are
    the accelerator's files; ``grants``, names from ``GRANTS``, what its driver
    needs beyond them; ``programs``, with ``compiler_programs``, the files it may
    execute (the owner finds ptxas, nvlink and their loaders: owner/cuda_programs.py).
    Grants in ``NEED_PRIVATE_SCRATCH`` are left out where the scratch folder is
    not private. ``readable`` and ``writable``: more folders than the system's
    and the scratch folder (the owner's data and kept compiles).

    ``private_scratch``: the scratch folder is a tmpfs of the job's own, whose
    size the kernel counts whole (the owner's: a folder of its own, which no walk
    bounds). Where it is not (no namespaces: a server without root, a Space),
    the server walks it, and so it only grows: the job may not delete or rename
    anything there (Landlock) nor make a file without a name (O_TMPFILE,
    seccomp). A file deleted while still open would hold disk that no walk sees,
    and a folder renamed while the walk goes down would hide what is below it
    from that walk.

    ``runs_jobs``: the process runs a job's code (a sandbox worker). Without
    Landlock such a process may write no file (seccomp), and, under a root
    server, becomes ``JOB_UID``. The device owner runs none and keeps its
    folders writable.
    """
    global _KEEPS_FILES, _WRITES_NO_FILES
    _KEEPS_FILES = not private_scratch
    grants, programs = frozenset(grants), list(programs)
    unknown = grants - GRANTS
    if unknown:
        raise ValueError(f"unknown device grants: {sorted(unknown)}")
    if programs and "compiler_programs" not in grants:
        raise ValueError("programs may be executed only with the compiler_programs grant")
    if not private_scratch:
        grants -= NEED_PRIVATE_SCRATCH
    if "compiler_programs" not in grants:
        programs = []
    layers: dict[str, dict] = {}
    last_cap = _last_capability()  # read before Landlock closes /proc/sys

    def no_landlock() -> bool:
        return runs_jobs and not layers["landlock"]["active"]

    _in_order(layers, (
        ("rlimits", lambda: _set_rlimits(limits)),
        ("landlock", lambda: _landlock(scratch, devices or {}, grants, programs, private_scratch, readable,
                                       writable)),
        ("own_uid", lambda: _own_uid(scratch) if no_landlock() else None),
        ("capabilities", lambda: _drop_capabilities(last_cap)),
        # seccomp lets a process granted compiler_programs run programs; only Landlock says which.
        ("seccomp", lambda: _seccomp(grants if layers["landlock"]["active"] else grants - {"compiler_programs"},
                                     private_scratch, no_file_writes=no_landlock())),
    ))
    _WRITES_NO_FILES = no_landlock() and layers["seccomp"]["active"]
    return layers


def _in_order(layers: dict, steps) -> None:
    """Each step applied in turn, into ``layers``: its report, or why it failed (a step with nothing to do for this
    process says None, and is left out)."""
    for name, step in steps:
        try:
            detail = step()
            if detail is not None:
                layers[name] = {"active": True, "detail": detail}
        except Exception as exc:  # reported to the server and shown in About
            layers[name] = {"active": False, "detail": f"{type(exc).__name__}: {exc}"}


# The rlimits a worker must run under, by the name /proc/<pid>/limits gives each.
RLIMITS = {"cpu": ("RLIMIT_CPU", "Max cpu time"), "file_size": ("RLIMIT_FSIZE", "Max file size"),
           "open_files": ("RLIMIT_NOFILE", "Max open files"), "core": ("RLIMIT_CORE", "Max core file size"),
           "address_space": ("RLIMIT_AS", "Max address space")}


def wanted_rlimits(limits: Limits) -> dict[str, int]:
    """Soft and hard value of each rlimit (resource.RLIM_INFINITY for none) that ``limits`` asks for."""
    return {
        "cpu": limits.cpu_s,
        "file_size": limits.file_size_mb * _MB,
        "open_files": limits.open_files,
        "core": 0,
        "address_space": limits.address_space_mb * _MB if limits.address_space_mb else resource.RLIM_INFINITY,
    }


def rlimits_in_force() -> dict[str, list[int]]:
    """[soft, hard] of each rlimit, as this process has them now (the worker's report to the server)."""
    return {name: list(resource.getrlimit(getattr(resource, which))) for name, (which, _) in RLIMITS.items()}


def _set_rlimits(limits: Limits) -> str:
    for name, value in wanted_rlimits(limits).items():
        resource.setrlimit(getattr(resource, RLIMITS[name][0]), (value, value))
    address_space = f"AS {limits.address_space_mb} MB" if limits.address_space_mb else "AS unlimited"
    return (
        f"{address_space}, CPU {limits.cpu_description()}, file size {limits.file_size_mb} MB, "
        f"{limits.open_files} open files, no core dumps"
    )


def _last_capability() -> int | None:
    """The kernel's highest capability number; None where it cannot be read (then the capabilities layer says so)."""
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def _drop_capabilities(last_cap: int | None) -> str:
    """Without CAP_SYS_RESOURCE a root worker cannot raise its rlimits again, and so on."""
    if os.geteuid() != 0:
        return "not running as root: no capabilities held"
    if last_cap is None:
        raise OSError("/proc/sys/kernel/cap_last_cap could not be read: no capability was dropped")
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in range(last_cap + 1):
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable x 2 words: all zero
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")
    return f"all {last_cap + 1} capabilities dropped (running as root)"


def _landlock(scratch: str, devices: dict, grants: frozenset[str], programs: list[str], private_scratch: bool,
              readable: Iterable[str], writable: Iterable[str]) -> str:
    device_files, driver_files = devices.get("read_write", []), devices.get("read_only", [])
    existing = []
    if "thread_names" in grants:
        # Resolved here, in the process being locked down, so it is its own task folder. Held open for its life: the
        # folder then stays the one (the same inode, which the rule is bound to) its later threads' files are beneath.
        _PINNED.append(os.open("/proc/self/task", os.O_PATH | os.O_CLOEXEC))
        existing.append("/proc/self/task")
    if programs:
        existing.append("/dev/null")  # posix_spawn gives the program /dev/null, opened read-write, as its stdin
    enforced = landlock.restrict_self([*readable_paths(), *driver_files, *readable],
                                      [*([scratch] if private_scratch else []), *device_files, *writable],
                                      write_existing=existing, keep_files=[] if private_scratch else [scratch],
                                      executable=programs)
    extras = [name for name, on in (("TCP", enforced["tcp_denied"]), ("signals", enforced["signals_scoped"])) if on]
    also = f"; also denies {' and '.join(extras)}" if extras else ""
    device = (f"; the accelerator's {len(device_files)} device files read-write and its "
              f"{len(driver_files)} driver paths read-only" if device_files else "")
    granted = "".join(f"; {path} writable" for path in existing) + "".join(f"; {path} executable" for path in programs)
    kept = "" if private_scratch else " (where nothing may be deleted or renamed)"
    return (f"ABI {enforced['abi']}: filesystem read-only to Python and system libraries, "
            f"write only to the scratch dir{kept}{device}{granted}{also}")


def _seccomp(grants: frozenset[str], private_scratch: bool, no_file_writes: bool) -> str:
    report = seccomp_filter.install(grants, named_files_only=not private_scratch, no_file_writes=no_file_writes)
    relaxed = f"; for the device: {', '.join(report['relaxed'])}" if report["relaxed"] else ""
    writes = "; every file write refused (no Landlock to keep writes in the scratch folder)" if no_file_writes else ""
    return f"{report['denied_syscalls']} system calls denied or narrowed{relaxed}{writes}"


def _own_uid(scratch: str) -> str | None:
    """Run as JOB_UID from now on, where this process is root (None elsewhere: there is no other uid to take).

    First as JOB_UID with root kept as the saved uid, to check that it can still read what a job needs (a venv
    below root's 0700 home cannot be); where it cannot, back to root, and the reason is the layer's. The scratch
    folder becomes JOB_UID's, so that the job can list its own working directory.
    """
    if os.geteuid() != 0:
        return None
    needed = [(path, os.R_OK | (os.X_OK if os.path.isdir(path) else 0)) for path in readable_paths()
              if os.path.exists(path)]  # seen as root: as JOB_UID, a path it cannot reach seems not to exist
    groups = os.getgroups()
    os.setgroups([])
    os.setresgid(JOB_UID, JOB_UID, 0)
    os.setresuid(JOB_UID, JOB_UID, 0)
    unreadable = [path for path, mode in needed if not os.access(path, mode)]
    os.setresuid(0, 0, 0)
    if unreadable:
        os.setresgid(0, 0, 0)
        os.setgroups(groups)
        raise PermissionError(f"uid {JOB_UID} cannot read {unreadable[0]}: the job runs as root, without "
                              "capabilities")
    os.chown(scratch, JOB_UID, JOB_UID)
    os.setresgid(JOB_UID, JOB_UID, JOB_UID)
    os.setresuid(JOB_UID, JOB_UID, JOB_UID)  # and with that, every capability is gone
    return (f"uid {JOB_UID}, no groups: files only root may read, and root's processes, are out of the job's "
            "reach")


def readable_paths() -> list[str]:
    """Where the interpreter, the venv, system libraries and our own package live."""
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return sorted({
        sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable)),
        *site.getsitepackages(), package_dir,
        "/usr", "/lib", "/lib64", "/etc/ld.so.cache", "/etc/localtime",
        "/proc/self", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/sys/devices/system/cpu", "/sys/fs/cgroup",
        "/dev/null", "/dev/urandom",
    })
