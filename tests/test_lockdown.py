"""playground.confinement.lockdown, landlock and seccomp_filter.

The pytest process itself is never locked down: real enforcement is checked in
a subprocess that applies every layer and then tries what a worker must not do.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import playground
from playground.confinement import landlock, lockdown, seccomp_filter

ROOT = Path(__file__).resolve().parent.parent
PROBE = lockdown.probe()
LANDLOCK = PROBE["landlock"]["active"]
SECCOMP = PROBE["seccomp"]["active"]
ABI = landlock.abi_version()
needs_landlock = pytest.mark.skipif(not LANDLOCK, reason=f"Landlock unavailable: {PROBE['landlock']['detail']}")
needs_seccomp = pytest.mark.skipif(not SECCOMP, reason=f"seccomp unavailable: {PROBE['seccomp']['detail']}")


# -- probing, without changing anything ----------------------------------------


def test_probe_shape():
    assert set(PROBE) == {"landlock", "seccomp"}
    for layer in PROBE.values():
        assert set(layer) == {"active", "detail"}
        assert isinstance(layer["active"], bool)
        assert isinstance(layer["detail"], str) and layer["detail"]


def test_probe_agrees_with_abi_version():
    assert isinstance(ABI, int) and ABI >= 0
    assert PROBE["landlock"]["active"] == (ABI > 0)
    if ABI:
        assert PROBE["landlock"]["detail"] == f"ABI {ABI}"


def _libseccomp_loads() -> str:
    """Load libseccomp ourselves, without pyseccomp: '' if it loads and exports seccomp_init, else why not."""
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name)
    except OSError as exc:
        return f"{name} does not load: {exc}"
    return "" if hasattr(lib, "seccomp_init") else f"{name} has no seccomp_init"


def _kernel_has_seccomp_filters() -> bool:
    """The kernel reports a seccomp mode for every process when it was built with CONFIG_SECCOMP(_FILTER)."""
    with open("/proc/self/status") as f:
        return any(line.startswith("Seccomp:") for line in f)


LIBSECCOMP_PROBLEM = _libseccomp_loads()
needs_libseccomp = pytest.mark.skipif(
    bool(LIBSECCOMP_PROBLEM) or not _kernel_has_seccomp_filters(),
    reason=f"no seccomp here: {LIBSECCOMP_PROBLEM or 'the kernel has no seccomp'}",
)


def test_seccomp_available_agrees_with_libseccomp_loading():
    """available() says yes exactly when libseccomp really loads here (checked with ctypes, not pyseccomp)."""
    ok, why = seccomp_filter.available()
    assert ok is (LIBSECCOMP_PROBLEM == ""), (ok, why, LIBSECCOMP_PROBLEM or "libseccomp loads with ctypes")
    if ok:
        assert why == "libseccomp", why
    else:
        assert why.startswith("libseccomp not loadable: "), why


SECCOMP_CHILD = textwrap.dedent(
    """
    import errno, json, os, socket, threading
    from playground.confinement import seccomp_filter

    def attempt(action):
        try:
            action()
            return "ok"
        except OSError as exc:
            return errno.errorcode.get(exc.errno, str(exc.errno))
        except Exception as exc:  # reported, so the test shows what went wrong instead of a crashed child
            return f"{type(exc).__name__}: {exc}"

    def fork():
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)

    def socketpair():
        a, b = socket.socketpair()
        a.sendall(b"x")
        assert b.recv(1) == b"x"
        a.close(); b.close()

    def thread():
        box = []
        t = threading.Thread(target=lambda: box.append(1))
        t.start(); t.join()
        assert box == [1]

    calls = {
        "memfd_create": lambda: os.close(os.memfd_create("probe")),
        "inet_socket": lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close(),
        "fork": fork,
        "unix_socketpair": socketpair,
        "thread": thread,
        "read_file": lambda: open(os.__file__, "rb").close(),
        "kill_self": lambda: os.kill(os.getpid(), 0),
    }
    before = {name: attempt(call) for name, call in calls.items()}
    report = seccomp_filter.install()
    with open("/proc/self/status") as f:
        mode = next(line.split()[1] for line in f if line.startswith("Seccomp:"))
    after = {name: attempt(call) for name, call in calls.items()}
    print(json.dumps({"before": before, "after": after, "report": report, "mode": mode}))
    """
)


@pytest.fixture(scope="module")
def seccomp_only() -> dict:
    """A child process that installs only the seccomp filter, and tries the same calls before and after."""
    done = subprocess.run([sys.executable, "-c", SECCOMP_CHILD], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout)


@needs_libseccomp
def test_seccomp_filter_is_installed_in_the_kernel(seccomp_only):
    assert seccomp_only["mode"] == "2", f"/proc/self/status Seccomp: {seccomp_only['mode']} (2 = filter)"
    assert seccomp_only["report"]["denied_syscalls"] > 0, seccomp_only["report"]


@needs_libseccomp
@pytest.mark.parametrize("call", ["memfd_create", "inet_socket", "fork"])
def test_seccomp_filter_denies_with_eperm(seccomp_only, call):
    assert seccomp_only["before"][call] == "ok", f"{call} failed before the filter: {seccomp_only['before']}"
    assert seccomp_only["after"][call] == "EPERM", f"{call} under the filter: {seccomp_only['after'][call]}"


@needs_libseccomp
@pytest.mark.parametrize("call", ["unix_socketpair", "thread", "read_file", "kill_self"])
def test_seccomp_filter_allows_what_a_worker_needs(seccomp_only, call):
    assert seccomp_only["before"][call] == "ok", seccomp_only["before"]
    assert seccomp_only["after"][call] == "ok", f"{call} under the filter: {seccomp_only['after'][call]}"


def test_handled_fs_access_grows_with_abi():
    rights = [landlock.handled_fs_access(abi) for abi in range(1, 8)]
    assert rights[0] == (1 << 13) - 1  # ABI 1: EXECUTE .. MAKE_SYM
    for older, newer in zip(rights[:-1], rights[1:], strict=True):
        assert older & newer == older, "a newer ABI must handle every right an older one does"
        assert newer >= older
    assert rights[1] == rights[0] | landlock.REFER
    assert rights[2] == rights[1] | landlock.TRUNCATE
    assert rights[3] == rights[2]  # ABI 4 adds network rights, not filesystem ones
    assert rights[4] == rights[3] | landlock.IOCTL_DEV
    assert rights[6] == rights[4]
    assert landlock.handled_fs_access(5) & ~landlock.READ_WRITE == 0


def test_readable_paths_include_python_and_package():
    paths = lockdown.readable_paths()
    assert paths == sorted(set(paths))
    assert sys.prefix in paths
    assert sys.base_prefix in paths
    assert os.path.dirname(os.path.abspath(playground.__file__)) in paths


@pytest.mark.parametrize("forbidden", ["/", "/etc", "/tmp", "/root", "/home", str(ROOT)])
def test_readable_paths_exclude(forbidden):
    assert forbidden not in lockdown.readable_paths()


@pytest.mark.parametrize(
    "secret", ["/etc/passwd", "/etc/shadow", "/tmp/x", "/root/.cache", str(ROOT / "app.py"), str(ROOT / ".env")]
)
def test_no_readable_path_is_an_ancestor_of(secret):
    for path in lockdown.readable_paths():
        assert not (secret == path or secret.startswith(path.rstrip("/") + "/")), (path, secret)


def test_landlock_restrict_self_without_landlock_refuses():
    with pytest.raises(OSError, match="not available"):
        landlock.restrict_self([], [], abi=0)


# -- real enforcement, in a subprocess --------------------------------------------

CHILD = textwrap.dedent(
    """
    import json, os, resource, socket, sys, threading
    import jax, jax.numpy as jnp
    from playground.confinement import lockdown
    from playground.ipc.limits import Limits

    scratch, outside, repo_file, parent = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    layers = lockdown.apply(Limits(), scratch)
    results = {}

    def check(name, action):
        try:
            value = action()
            results[name] = {"ok": True, "value": value}
        except BaseException as exc:
            results[name] = {"ok": False, "error": type(exc).__name__, "message": str(exc)}

    def read(path):
        with open(path) as f:
            return f.read(20)

    def write(path):
        with open(path, "w") as f:
            f.write("hello")
        with open(path) as f:
            return f.read()

    def fork():
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        return pid

    def inet():
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()

    def unix_pair():
        a, b = socket.socketpair()
        a.sendall(b"x")
        value = b.recv(1).decode()
        a.close(); b.close()
        return value

    def thread():
        box = []
        t = threading.Thread(target=lambda: box.append(6 * 7))
        t.start(); t.join()
        return box[0]

    def raise_nofile():
        resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))

    check("read_etc_passwd", lambda: read("/etc/passwd"))
    check("read_repo_file", lambda: read(repo_file))
    check("read_venv_file", lambda: read(os.path.join(sys.prefix, "pyvenv.cfg")))
    check("write_scratch", lambda: write(os.path.join(scratch, "ok.txt")))
    check("write_outside", lambda: write(outside))
    check("write_tmp", lambda: write("/tmp/playground-lockdown-test-" + str(os.getpid())))
    check("fork", fork)
    check("inet_socket", inet)
    check("unix_socketpair", unix_pair)
    check("kill_parent", lambda: os.kill(parent, 0))
    check("kill_self", lambda: os.kill(os.getpid(), 0))
    check("thread", thread)
    check("rlimits", lambda: {
        "core": resource.getrlimit(resource.RLIMIT_CORE),
        "nofile": resource.getrlimit(resource.RLIMIT_NOFILE),
        "as": resource.getrlimit(resource.RLIMIT_AS),
    })
    check("raise_nofile", raise_nofile)
    import ctypes, mmap
    libc = ctypes.CDLL(None, use_errno=True)

    def raw(number, *args):
        if libc.syscall(number, *args) < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))

    check("prlimit_parent", lambda: resource.prlimit(parent, resource.RLIMIT_CPU, (1, 1)))
    check("prlimit_self", lambda: resource.prlimit(0, resource.RLIMIT_CORE))
    check("renice_parent", lambda: os.setpriority(os.PRIO_PROCESS, parent, 19))
    check("renice_user", lambda: os.setpriority(os.PRIO_USER, 0, 19))
    check("renice_group", lambda: os.setpriority(os.PRIO_PGRP, 0, 19))
    check("pin_parent", lambda: os.sched_setaffinity(parent, {0}))
    check("affinity_self", lambda: sorted(os.sched_getaffinity(0)))
    check("getsid_parent", lambda: os.getsid(parent))
    check("getpgid_parent", lambda: os.getpgid(parent))
    check("ioprio_user", lambda: raw(251, 3, 0, 0))  # ioprio_set(IOPRIO_WHO_USER, 0, 0) on x86-64
    check("pidfd_parent", lambda: os.pidfd_open(parent))
    check("memfd", lambda: os.memfd_create("hold"))
    check("sysv_shm", lambda: raw(29, 0, 1 << 20, 0o1600))  # shmget(IPC_PRIVATE, 1 MB, IPC_CREAT | 0600)
    check("kill_everyone", lambda: os.kill(-1, 0))
    # A file the worker may read and owns by uid here (the venv's). Each attempt would leave it as it is even if it
    # were allowed: only the answer differs.
    readable = os.path.join(sys.prefix, "pyvenv.cfg")
    same = os.stat(readable)
    check("chmod_outside", lambda: os.chmod(readable, same.st_mode))
    check("chmod_own", lambda: os.chmod(os.path.join(scratch, "ok.txt"), 0o600))
    check("chown_outside", lambda: os.chown(readable, -1, -1))
    check("truncate_outside", lambda: os.truncate(readable, same.st_size))
    check("remove_attribute_outside", lambda: os.removexattr(readable, "user.playground-absent"))

    def fchmod_read_only():
        fd = os.open(readable, os.O_RDONLY)
        try:
            os.fchmod(fd, same.st_mode)
        finally:
            os.close(fd)

    check("fchmod_outside", fchmod_read_only)

    def remove_kept_files():
        from playground.ipc import scratch as scratch_folder
        folder = os.path.join(scratch, "dump")
        os.mkdir(folder)
        for i in range(50):
            open(os.path.join(folder, f"pass{i}.txt"), "w").close()
        # Landlock keeps what the job made (no private scratch here): removal must give up, not spin for an hour.
        return [scratch_folder.remove(folder, 3600.0), len(os.listdir(folder))]

    check("remove_kept_files", remove_kept_files)
    check("jax", lambda: float(jax.jit(lambda x: (x * x).sum())(jnp.arange(4.0))))
    print(json.dumps({"layers": layers, "results": results}), flush=True)
    try:
        os.execv("/bin/true", ["/bin/true"])
    except OSError as exc:
        print(json.dumps({"execv": type(exc).__name__}), flush=True)
    """
)


@pytest.fixture(scope="module")
def locked(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("lockdown")
    scratch = base / "scratch"
    scratch.mkdir()
    outside = base / "outside.txt"
    repo_file = ROOT / "pyproject.toml"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(scratch), str(outside), str(repo_file), str(os.getpid())],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    lines = done.stdout.strip().splitlines()
    report = json.loads(lines[0])
    report["execv"] = json.loads(lines[1])["execv"] if len(lines) > 1 else "execv ran /bin/true"
    report["outside_exists"] = outside.exists()
    report["scratch_file"] = (scratch / "ok.txt").read_text() if (scratch / "ok.txt").exists() else None
    return report


def _denied(report: dict, name: str) -> None:
    result = report["results"][name]
    assert not result["ok"], f"{name} was allowed: {result}"
    assert result["error"] == "PermissionError", result


def test_apply_reports_every_layer(locked):
    layers = locked["layers"]
    assert list(layers) == ["rlimits", "landlock", "capabilities", "seccomp"]
    assert layers["rlimits"]["active"], layers["rlimits"]
    assert layers["capabilities"]["active"], layers["capabilities"]
    assert layers["landlock"]["active"] == LANDLOCK, layers["landlock"]
    assert layers["seccomp"]["active"] == SECCOMP, layers["seccomp"]
    for layer in layers.values():
        assert layer["detail"]


def test_rlimits_in_force(locked):
    result = locked["results"]["rlimits"]
    assert result["ok"], result
    assert result["value"]["core"] == [0, 0]
    assert result["value"]["nofile"] == [256, 256]
    assert result["value"]["as"] == [4096 * 1024 * 1024] * 2


def test_rlimits_cannot_be_raised_again(locked):
    result = locked["results"]["raise_nofile"]
    assert not result["ok"], result
    assert result["error"] in ("ValueError", "PermissionError"), result


@needs_landlock
def test_cannot_read_etc_passwd(locked):
    _denied(locked, "read_etc_passwd")


@needs_landlock
def test_cannot_read_the_repository(locked):
    _denied(locked, "read_repo_file")


@needs_landlock
def test_can_read_the_venv(locked):
    assert locked["results"]["read_venv_file"]["ok"], locked["results"]["read_venv_file"]


@needs_landlock
def test_a_removal_in_a_scratch_folder_that_keeps_its_files_gives_up_at_once(locked):
    """/passes removes its dump folder when it is done; where Landlock keeps every file (a server without a private
    tmpfs) that removal cannot succeed, and must say so after one round, not retry until its budget is spent (which
    would cost every /passes job on a Space its 2 s budget). Spinning would run past the child's 120 s limit here."""
    assert locked["results"]["remove_kept_files"] == {"ok": True, "value": [False, 50]}


def test_can_write_in_scratch(locked):
    assert locked["results"]["write_scratch"] == {"ok": True, "value": "hello"}
    assert locked["scratch_file"] == "hello"


@needs_landlock
def test_cannot_write_outside_scratch(locked):
    _denied(locked, "write_outside")
    _denied(locked, "write_tmp")
    assert not locked["outside_exists"]


@needs_seccomp
def test_cannot_fork(locked):
    _denied(locked, "fork")


@needs_seccomp
def test_cannot_exec(locked):
    assert locked["execv"] == "PermissionError"


@needs_seccomp
def test_cannot_open_inet_socket(locked):
    _denied(locked, "inet_socket")


def test_unix_socketpair_still_works(locked):
    assert locked["results"]["unix_socketpair"] == {"ok": True, "value": "x"}


@pytest.mark.skipif(not SECCOMP and ABI < 6, reason="needs seccomp, or Landlock ABI >= 6 signal scoping")
def test_cannot_signal_parent(locked):
    _denied(locked, "kill_parent")


@needs_seccomp
@pytest.mark.parametrize("attack", ["prlimit_parent", "renice_parent", "renice_user", "renice_group", "pin_parent",
                                    "getsid_parent", "getpgid_parent", "ioprio_user", "pidfd_parent",
                                    "kill_everyone"])
def test_no_call_reaches_another_process(locked, attack):
    _denied(locked, attack)


@needs_seccomp
@pytest.mark.parametrize("attack", ["chmod_outside", "chmod_own", "fchmod_outside", "chown_outside",
                                    "truncate_outside", "remove_attribute_outside"])
def test_no_file_changes_what_landlock_cannot_see(locked, attack):
    """Mode, owner, attributes and truncation by path: a worker owns by uid the files it could change."""
    _denied(locked, attack)
    assert "[Errno 1]" in locked["results"][attack]["message"], locked["results"][attack]  # EPERM: seccomp's answer


@needs_seccomp
@pytest.mark.parametrize("attack", ["memfd", "sysv_shm"])
def test_no_memory_outside_the_process(locked, attack):
    _denied(locked, attack)


def test_calls_on_itself_still_work(locked):
    assert locked["results"]["prlimit_self"]["ok"], locked["results"]["prlimit_self"]
    assert locked["results"]["affinity_self"]["ok"], locked["results"]["affinity_self"]


def test_can_signal_itself(locked):
    assert locked["results"]["kill_self"]["ok"], locked["results"]["kill_self"]


def test_threads_still_start(locked):
    assert locked["results"]["thread"] == {"ok": True, "value": 42}


def test_jax_still_computes(locked):
    result = locked["results"]["jax"]
    assert result["ok"], result
    assert result["value"] == 0.0 + 1.0 + 4.0 + 9.0
