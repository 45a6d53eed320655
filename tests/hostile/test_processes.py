"""Hostile: a worker can reach other processes.

Everything runs as one uid, so only the sandbox stands between a worker and
the server, the template that forks the workers, and the sibling worker that
runs another visitor's job. A worker must not be able to name, observe or
change any process but itself.

How each case is judged:

* The attack runs as an ``/inspect`` job and prints one verdict line per probe:
  ``LEAKED <probe> on <target>`` when a call that acts on another process
  succeeded, ``SEEN <probe> ...`` when a call revealed that a target
  exists: it either succeeded or failed differently than the same call on a pid
  that surely does not exist (an EPERM-versus-ESRCH oracle is as good as an
  answer). The reply must be ``ok`` with none of these lines (and the attack's
  ``PROBES-DONE`` line, so a broken attack cannot pass), or a ``forbidden``
  error.
* From this test process (root, outside the sandbox) the targets' rlimits,
  niceness, affinity, policy, I/O priority, run state and tracer are recorded
  before and after; they must be unchanged. Whatever an attack did change is put
  back afterwards, so one hole does not spill into the next case.
* A victim job runs in a sibling worker all along, checks its own process at
  the end, and must give its normal answer.
* The server and the next job are fine, and no job folder is left behind.

Calls that would reach every process of the uid on this machine (PRIO_USER,
IOPRIO_WHO_USER, kill(-1)) are never made where they could reach past the
sandbox: the attack first asks the matching read-only question (getpriority /
ioprio_get for the whole uid, signal 0) and reports ``REACH`` when that shows
processes beyond itself, which is the hole; the effective call is made only
once the read-only one has shown that nothing else is in reach.
"""

from __future__ import annotations

import contextlib
import ctypes
import difflib
import os
import re
import resource
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.hostile import support
from tests.hostile.support import (
    Victim,
    assert_still_healthy,
    children,
    descendants,
    limits_of,
    scheduling_of,
    start_time,
    templates,
)

# No case here is about the clock: it only has to stay out of the way, of an attack that scans every pid (seconds
# on a loaded machine) and of the victim, which waits beside it until the test lets it go (VICTIM_HOLD_S).
TIMEOUT_S = 60.0
# A signal that was let through lands at its target's next scheduling (well under a second, even on a loaded
# machine); how long the test waits for that before it looks at what the signal did.
SIGNAL_S = 30.0
_SYS_IOPRIO_SET, _SYS_IOPRIO_GET = 251, 252
_IOPRIO_WHO_PROCESS = 1
_IOPRIO_CLASS_RT = 1
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


# -- the server under attack ----------------------------------------------------


class Target(support.Target):
    """One server for the module, with a TMPDIR of its own; replaced if an attack kills it or leaves it changed."""

    def __init__(self, base: Path, unprivileged: bool = False) -> None:
        self.tainted: list[str] = []
        super().__init__(base, unprivileged=unprivileged, PLAYGROUND_WORKERS="2", PLAYGROUND_TIMEOUT_S=f"{TIMEOUT_S:g}")

    def taint(self, why: str) -> None:
        """An attack left the server or template changed beyond repair: replace the server before the next case."""
        self.tainted.append(why)

    def live(self):
        """The server, started afresh if an attack killed it or left it changed (its leftovers removed first)."""
        if self.server.alive() and not self.tainted:
            return self.server
        why, self.tainted = f"; {self.tainted}", []
        self.restart(why)
        return self.server


def predict(server, code: str, args: str = "1.0", timeout_s: float = TIMEOUT_S + support.HANG_S) -> dict:
    """One /inspect call that gives up (failing the test) instead of hanging on a stuck server."""
    return support.timed_predict(server, code, args, timeout_s)[0]


target = Target.fixture("processes")


@pytest.fixture
def server(target):
    return target.live()


@pytest.fixture(autouse=True)
def nothing_left_behind(target):
    """After every case, even one that failed early: no job folder left on disk."""
    yield
    if target.server is not None and target.server.alive():
        target.assert_tidy()


# -- a victim that knows its own state, and the state of processes seen from outside -------------------


VICTIM_HOLD_S = 40.0  # a ceiling only: the test lets the victim go once it has attacked and looked
VICTIM_CODE = f"""
import ctypes, os, resource, time
_libc = ctypes.CDLL(None, use_errno=True)
def _own_state():
    limits = [resource.getrlimit(r) for r in (resource.RLIMIT_NOFILE, resource.RLIMIT_AS, resource.RLIMIT_CPU,
                                              resource.RLIMIT_FSIZE, resource.RLIMIT_CORE)]
    return (os.getpriority(os.PRIO_PROCESS, 0), sorted(os.sched_getaffinity(0)), os.sched_getscheduler(0),
            _libc.syscall({_SYS_IOPRIO_GET}, {_IOPRIO_WHO_PROCESS}, 0), limits)
def f(x):
    if not os.path.exists("victim-waiting"):  # the first call waits for the attack; later calls do not
        before = _own_state()
        open("victim-waiting", "w").close()
        deadline = time.monotonic() + {VICTIM_HOLD_S}
        while time.monotonic() < deadline and not os.path.exists("victim-release"):
            time.sleep(0.02)
        after = _own_state()
        if after != before:
            raise RuntimeError(f"the victim's own process was changed: {{before}} -> {{after}}")
    return x + x*x + x*x*x
"""


class HeldVictim(Victim):
    """support.Victim, but its job waits (up to VICTIM_HOLD_S, well within TIMEOUT_S) until the test has attacked
    and looked."""

    code = VICTIM_CODE
    marker = "victim-waiting"

    def release(self) -> None:
        try:
            Path(f"/proc/{self.pid}/cwd/victim-release").touch()
        except OSError:
            pass  # it already finished

    def finish(self) -> None:
        """Let the victim go and wait for its answer (it checks its own process first)."""
        self.release()
        self.thread.join(timeout=TIMEOUT_S + support.HANG_S)

    def __exit__(self, *exc) -> None:
        self.release()
        super().__exit__(*exc)


def _ioprio(pid: int) -> int:
    return _libc.syscall(_SYS_IOPRIO_GET, _IOPRIO_WHO_PROCESS, pid)


def _run_state(pid: int) -> dict:
    """Stopped (by a signal or a tracer) or not, and who traces it; running versus sleeping is noise."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    tracer = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                  if line.startswith("TracerPid:"))
    return {"stopped": stat.rsplit(")", 1)[1].split()[0] in "tT", "tracer": int(tracer.split()[1])}


def signals_landed(pids: dict[str, int]) -> bool:
    """No thread of these processes has a signal pending that it will take (one it does not block), unless it is
    stopped (then it takes none but SIGCONT and SIGKILL): what was let through has done what it does."""
    for pid in pids.values():
        for status in Path(f"/proc/{pid}/task").glob("*/status"):
            try:
                fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
            except OSError:
                continue  # a thread or a process that is gone
            if fields.get("State", "").split()[:1] in (["T"], ["t"], ["Z"], ["X"]):
                continue
            pending = int(fields["SigPnd"], 16) | int(fields["ShdPnd"], 16)
            if pending & ~int(fields["SigBlk"], 16):
                return False
    return True


def snapshot(pids: dict[str, int]) -> dict[str, dict]:
    """What the attacks would change, per process, read from outside the sandbox."""
    seen = {}
    for name, pid in pids.items():
        try:
            seen[name] = {
                "limits": limits_of(pid),
                "scheduling": scheduling_of(pid),
                "ioprio": _ioprio(pid),
                "state": _run_state(pid),
                "rlimits": rlimits_of(pid),
                "pid": pid,
            }
        except (OSError, StopIteration):
            seen[name] = {"gone": True, "pid": pid}
    return seen


def differences(before: dict, after: dict) -> list[str]:
    found = []
    for name, was in before.items():
        now = after.get(name, {})
        if was.get("gone") or now.get("gone"):
            continue  # a worker that finished; its own check covers it
        for key in ("limits", "scheduling", "ioprio", "state"):
            if was[key] != now[key]:
                found.append(f"{name} (pid {was['pid']}) {key}: {was[key]!r} -> {now[key]!r}")
    return found


def restore(target: Target, before: dict) -> None:
    """Undo whatever an attack changed (this test process is root), so the next case starts clean.

    Root may lack CAP_SYS_RESOURCE (where the bounding set drops it, as a container's may), so a hard rlimit that an
    attack lowered cannot always be raised again: then the server is started afresh before the next case.
    """
    for name, was in before.items():
        if was.get("gone"):
            continue
        stuck = _restore_one(was["pid"], was)
        if stuck and name not in ("victim", "canary"):
            target.taint(f"{name}: could not put back {', '.join(stuck)}")


def _restore_one(pid: int, was: dict) -> list[str]:
    nice, affinity, policy = was["scheduling"]
    steps = [("SIGCONT", os.kill, pid, signal.SIGCONT),
             ("policy", os.sched_setscheduler, pid, policy, os.sched_param(0)),
             ("nice", os.setpriority, os.PRIO_PROCESS, pid, nice), ("affinity", os.sched_setaffinity, pid, affinity)]
    try:
        now = rlimits_of(pid)
    except OSError:
        return []  # gone
    # Only the rlimits that differ: prlimit on another uid's process (an unprivileged server's) needs
    # CAP_SYS_RESOURCE even to set the values it has, and without it every case ended in a restart of the server.
    steps += [(f"rlimit {which}", resource.prlimit, pid, which, value) for which, value in was["rlimits"].items()
              if now.get(which) != value]
    stuck = []
    for what, call, *args in steps:
        try:
            call(*args)
        except ProcessLookupError:
            return []
        except OSError:
            stuck.append(what)
    if _libc.syscall(_SYS_IOPRIO_SET, _IOPRIO_WHO_PROCESS, pid, was["ioprio"]) != 0:
        stuck.append("ioprio")
    try:
        if snapshot({"p": pid})["p"].get("limits") != was["limits"]:
            stuck.append("limits")
    except KeyError:
        pass
    return stuck


def project_pids(server, victim: HeldVictim | None) -> dict[str, int]:
    pids = {"server": server.process.pid}
    for i, pid in enumerate(templates(server)):
        pids["template" if i == 0 else f"template{i + 1}"] = pid
    if victim is not None:
        pids["victim"] = victim.pid
    return pids


def absent_pid() -> int:
    """A pid nobody has: free now, and just behind the allocator, so it will not be handed out meanwhile."""
    last = int(Path("/proc/sys/kernel/ns_last_pid").read_text())
    for pid in [*range(last - 100, 300, -1), *range(last + 20000, 1 << 22)]:
        if not os.path.exists(f"/proc/{pid}"):
            return pid
    raise AssertionError("no free pid")


def verdicts(reply: dict) -> list[str]:
    """The attack's LEAKED / SEEN / REACH lines; the reply must be ok (and complete) or forbidden."""
    if not reply.get("ok"):
        assert reply.get("error", {}).get("kind") == "forbidden", reply
        assert reply["error"]["message"], reply
        return []
    out = reply["stdout"]
    assert "PROBES-DONE" in out, f"the attack did not run to its end:\n{out[-3000:]}"
    return [line for line in out.splitlines() if line.split(" ", 1)[0] in ("LEAKED", "SEEN", "REACH", "UNSAFE")]


# -- the attack code (runs in the worker) ---------------------------------------------------------------


PRELUDE = r'''
import ctypes, errno, fcntl, os, resource, signal, time
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.capget.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
_ran = []
HI = 1 << 32  # the kernel reads pid_t/id_t arguments as 32 bits; a filter comparing all 64 would miss these

def sys_(number, *args):
    result = _libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) for a in args])
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result

def outcome(call, pid):
    try:
        call(pid)
    except OSError as exc:
        return ("error", exc.errno)
    except BaseException as exc:
        return ("raised", type(exc).__name__)
    return ("ok", None)

# Buffers the kernel reads or writes live as long as the module: a temporary could be freed mid-call.
_SIGINFO = (ctypes.c_int * 32)()  # si_signo 0 (just the permission check), si_code SI_QUEUE as sigqueue sends
_SIGINFO[2] = -1
_OUT16 = ctypes.create_string_buffer(16)
_HEAD_PTR, _HEAD_LEN = ctypes.c_void_p(), ctypes.c_size_t()
_LIMIT_PAIR = (ctypes.c_uint64 * 2)()

def _capget(pid):
    header = (ctypes.c_uint32 * 2)(0x20080522, pid)
    data = (ctypes.c_uint32 * 6)()
    if _libc.capget(header, data) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))

_local = ctypes.create_string_buffer(64)
class _iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]

def _vm_readv(pid):
    local = _iovec(ctypes.addressof(_local), 8)
    remote = _iovec(id(os), 8)  # the template's module object sits at the same address in its forks
    try:
        sys_(310, pid, ctypes.addressof(local), 1, ctypes.addressof(remote), 1, 0)
    except OSError as exc:
        if exc.errno != errno.EFAULT:  # EFAULT: allowed in, only the address was wrong
            raise

def _sched_getattr(pid):
    attr = ctypes.create_string_buffer(56)
    sys_(315, pid, ctypes.addressof(attr), 56, 0)

def _move_pages_query(pid):
    pages = (ctypes.c_void_p * 1)(id(os) & ~4095)
    status = (ctypes.c_int * 1)()
    sys_(279, pid, 1, ctypes.addressof(pages), 0, ctypes.addressof(status), 0)

def _open_pidfd(pid):
    os.close(sys_(434, pid, 0))

def _f_setown(pid):
    r, w = os.pipe()
    try:
        fcntl.fcntl(r, fcntl.F_SETOWN, pid)
    finally:
        os.close(r); os.close(w)

def _read(path):
    with open(path, "rb") as f:
        f.read(64)

OBSERVE = {
    "getsid": os.getsid,
    "getsid-hi32": lambda pid: sys_(124, HI | pid),
    "getpgid": os.getpgid,
    "getpgid-hi32": lambda pid: sys_(121, HI | pid),
    "sched_getaffinity": os.sched_getaffinity,
    "getpriority": lambda pid: os.getpriority(os.PRIO_PROCESS, pid),
    "sched_getscheduler": os.sched_getscheduler,
    "sched_getparam": os.sched_getparam,
    "sched_rr_get_interval": os.sched_rr_get_interval,
    "sched_getattr": _sched_getattr,
    "prlimit-get": lambda pid: resource.prlimit(pid, resource.RLIMIT_NOFILE),
    "prlimit64-get-hi32": lambda pid: sys_(302, HI | pid, resource.RLIMIT_NOFILE, 0, ctypes.addressof(_OUT16)),
    "ioprio_get": lambda pid: sys_(252, 1, pid),
    "capget": _capget,
    "get_robust_list": lambda pid: sys_(274, pid, ctypes.addressof(_HEAD_PTR), ctypes.addressof(_HEAD_LEN)),
    "kcmp": lambda pid: sys_(312, os.getpid(), pid, 1, 0, 0),
    "pidfd_open": _open_pidfd,
    "kill-0": lambda pid: os.kill(pid, 0),
    "tgkill-0": lambda pid: sys_(234, pid, pid, 0),
    "migrate_pages-probe": lambda pid: sys_(256, pid, 0, 0, 0),
    "move_pages-query": _move_pages_query,
    "process_vm_readv": _vm_readv,
    "F_SETOWN": _f_setown,
    "stat /proc/<pid>": lambda pid: os.stat(f"/proc/{pid}"),
    "readlink /proc/<pid>/exe": lambda pid: os.readlink(f"/proc/{pid}/exe"),
    **{f"open /proc/<pid>/{name}": (lambda pid, name=name: _read(f"/proc/{pid}/{name}"))
       for name in ("status", "limits", "environ", "cmdline", "stat")},
}

def observe(targets, absent):
    """SEEN when a call on the target succeeds, or fails otherwise than on a pid that does not exist."""
    for probe, call in OBSERVE.items():
        nobody = outcome(call, absent)
        seen = {}
        for name, pid in targets.items():
            got = outcome(call, pid)
            if got[0] == "ok" or got != nobody:
                seen[name] = got
        if seen:
            print(f"SEEN {probe}: {seen} (on a pid that does not exist: {nobody})")

def own_tids():
    return {int(t) for t in os.listdir("/proc/self/task")} | {os.getpid()}
'''

OBSERVE_CODE = PRELUDE + r'''
TARGETS = __TARGETS__
ABSENT = __ABSENT__
PID_MAX = __PID_MAX__

def f(x):
    if _ran:
        return x
    _ran.append(1)
    targets = dict(TARGETS)
    ppid = os.getppid()
    print(f"PPID {ppid}")
    if ppid not in (0, os.getpid()):
        targets["ppid"] = ppid
    observe(targets, ABSENT)
    # The whole pid range, with the cheapest probes: how many other processes can this worker tell apart?
    mine = own_tids()
    cheap = {"getsid": os.getsid, "getpriority": lambda p: os.getpriority(os.PRIO_PROCESS, p),
             "sched_getaffinity": os.sched_getaffinity, "stat /proc": lambda p: os.stat(f"/proc/{p}"),
             "ioprio_get": lambda p: sys_(252, 1, p)}
    visible = set()
    for probe, call in cheap.items():
        nobody = outcome(call, ABSENT)
        for pid in range(1, PID_MAX + 1):
            if pid not in mine and outcome(call, pid) != nobody:
                visible.add(pid)
    print(f"VISIBLE {len(visible)} {sorted(visible)[:30]}")
    if visible:
        print(f"SEEN scan {len(visible)} other pids")
    try:
        listed = {int(e) for e in os.listdir("/proc") if e.isdigit()} - mine
        print(f"LISTED {len(listed)}")
        if listed:
            print(f"SEEN listdir /proc shows {len(listed)} other pids")
    except OSError as exc:
        print(f"listdir /proc refused: {exc}")
    print("PROBES-DONE")
    return x
'''

CHANGE_CODE = PRELUDE + r'''
TARGET = __TARGET__
ABSENT = __ABSENT__
NOFILE = __NOFILE__      # the target's RLIMIT_NOFILE, as the test read it

def _lowered_soft(pid):
    """The target's NOFILE with the soft limit one lower: allowed to the owner, and the test can undo it."""
    try:
        soft, hard = resource.prlimit(pid, resource.RLIMIT_NOFILE)
    except OSError:
        soft, hard = NOFILE
    return soft - 1, hard
DELIVER = __DELIVER__    # the signal F_SETSIG would deliver (SIGSTOP where the test can undo it)

def _sched_setattr(pid):
    attr = (ctypes.c_uint32 * 14)()
    attr[0], attr[1] = 48, 3  # size (VER0), SCHED_BATCH
    ctypes.c_int32.from_buffer(attr, 16).value = 15  # sched_nice
    sys_(314, pid, ctypes.addressof(attr), 0)

def _ptrace(request):
    def call(pid):
        sys_(101, request, pid, 0, 0)
        try:
            sys_(101, 17, pid, 0, 0)  # PTRACE_DETACH at once
        except OSError:
            pass
    return call

def _pidfd_calls(pid):
    fd = sys_(434, pid, 0)
    try:
        for name, call in (("pidfd_send_signal-0", lambda: sys_(424, fd, 0, 0, 0)),
                           ("pidfd_getfd", lambda: os.close(sys_(438, fd, 0, 0))),
                           ("process_madvise", lambda: sys_(440, fd, 0, 0, 0, 0))):
            got = outcome(lambda _pid: call(), 0)
            if got[0] == "ok":
                print(f"LEAKED {name} {pid}")
    finally:
        os.close(fd)

def _prlimit64_hi32(pid):
    _LIMIT_PAIR[0], _LIMIT_PAIR[1] = _lowered_soft(pid)
    sys_(302, HI | pid, resource.RLIMIT_NOFILE, ctypes.addressof(_LIMIT_PAIR), 0)

def _migrate_noop(pid):
    nodes = (ctypes.c_ulong * 1)(1)  # node 0 to node 0: allowed in means allowed, nothing moves
    sys_(256, pid, 64, ctypes.addressof(nodes), ctypes.addressof(nodes))

def _sigio(pid):
    r, w = os.pipe()
    fcntl.fcntl(r, fcntl.F_SETOWN, pid)
    fcntl.fcntl(r, 10, DELIVER)  # F_SETSIG
    fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_ASYNC)
    os.write(w, b"x")  # the kernel now signals the owner, if the sandbox lets it
    time.sleep(0.05)
    os.close(r); os.close(w)

CHANGE = {
    "setpriority": lambda pid: os.setpriority(os.PRIO_PROCESS, pid, 19),
    "setpriority-hi32": lambda pid: sys_(141, 0, HI | pid, 19),
    "sched_setaffinity": lambda pid: os.sched_setaffinity(pid, {0}),
    "sched_setscheduler": lambda pid: os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0)),
    "sched_setattr": _sched_setattr,
    "ioprio_set": lambda pid: sys_(251, 1, pid, 3 << 13),  # IOPRIO_CLASS_IDLE
    "prlimit-set": lambda pid: resource.prlimit(pid, resource.RLIMIT_NOFILE, _lowered_soft(pid)),
    "prlimit64-set-hi32": _prlimit64_hi32,
    "kill-0": lambda pid: os.kill(pid, 0),  # signal 0: the permission check of any signal, sending none
    "kill-0-hi32": lambda pid: sys_(62, HI | pid, 0),
    "tgkill-0": lambda pid: sys_(234, pid, pid, 0),
    "rt_sigqueueinfo-0": lambda pid: sys_(129, pid, 0, ctypes.addressof(_SIGINFO)),
    "rt_tgsigqueueinfo-0": lambda pid: sys_(297, pid, pid, 0, ctypes.addressof(_SIGINFO)),
    "killpg-0": lambda pid: os.killpg(pid, 0),  # the template's and the workers' groups are their pids
    "ptrace-attach": _ptrace(16),
    "ptrace-seize": _ptrace(0x4206),
    "process_vm_readv": _vm_readv,
    "migrate_pages": _migrate_noop,
    "move_pages-query": _move_pages_query,
    "pidfd_open": _open_pidfd,
}

def f(x):
    if _ran:
        return x
    _ran.append(1)
    targets = {"target": TARGET}
    ppid = os.getppid()
    if ppid not in (0, 1, os.getpid(), TARGET):
        targets["ppid"] = ppid  # whatever getppid() names, acting on it must fail too
    for probe, call in CHANGE.items():
        nobody = outcome(call, ABSENT)
        for name, pid in targets.items():
            got = outcome(call, pid)
            if got[0] == "ok":
                print(f"LEAKED {probe} on {name}")
            elif got != nobody:
                print(f"SEEN {probe} on {name}: {got} (on a pid that does not exist: {nobody})")
    for name, pid in targets.items():
        try:
            _pidfd_calls(pid)
        except OSError:
            pass
        try:
            _sigio(pid)
        except OSError as exc:
            print(f"F_SETOWN/F_SETSIG on {name} refused: {exc}")
    print("PROBES-DONE")
    return x
'''

BROADCAST_CODE = PRELUDE + r'''
GROUPS = __GROUPS__  # process groups of other processes: the template's, the victim's

def _ioprio_class(value):
    return value >> 13

def f(x):
    if _ran:
        return x
    _ran.append(1)
    me_nice = os.getpriority(os.PRIO_PROCESS, 0)
    # PRIO_USER: getpriority answers for exactly the processes setpriority would change.
    try:
        best = os.getpriority(os.PRIO_USER, 0)
    except OSError as exc:
        best = None
        print(f"getpriority(PRIO_USER) refused: {exc}")
    if best is not None and best < me_nice:
        print(f"REACH PRIO_USER: a process of this uid at nice {best} is in reach (mine is {me_nice})")
    elif best is not None:
        try:
            os.setpriority(os.PRIO_USER, 0, 19)  # only this worker is in reach: harmless
        except OSError as exc:
            print(f"setpriority(PRIO_USER) refused: {exc}")
    else:
        try:
            os.setpriority(os.PRIO_USER, 0x7FFFFFF0, 19)  # a uid nobody has: EPERM means the call is filtered
            print("UNSAFE PRIO_USER: getpriority is refused but setpriority is not; cannot test it harmlessly")
        except PermissionError:
            pass
        except OSError as exc:
            print(f"UNSAFE PRIO_USER: setpriority on an unused uid gave {exc}, not EPERM")
    # IOPRIO_WHO_USER: the test keeps a process of this uid in the real-time I/O class, which no worker can be.
    try:
        best_io = sys_(252, 3, 0)
    except OSError as exc:
        best_io = None
        print(f"ioprio_get(IOPRIO_WHO_USER) refused: {exc}")
    if best_io is not None and _ioprio_class(best_io) == 1:
        print(f"REACH IOPRIO_WHO_USER: a real-time I/O process of this uid is in reach ({best_io:#x})")
    elif best_io is not None:
        try:
            sys_(251, 3, 0, 3 << 13)
        except OSError as exc:
            print(f"ioprio_set(IOPRIO_WHO_USER) refused: {exc}")
    else:
        try:
            sys_(251, 3, 0x7FFFFFF0, 3 << 13)
            print("UNSAFE IOPRIO_WHO_USER: ioprio_get is refused but ioprio_set is not")
        except PermissionError:
            pass
        except OSError as exc:
            print(f"UNSAFE IOPRIO_WHO_USER: ioprio_set on an unused uid gave {exc}, not EPERM")
    # kill(-1): signal 0 succeeds when any other process could be signalled; nothing is sent.
    try:
        os.kill(-1, 0)
        print("REACH kill(-1): another process of this uid could be signalled (SIGSTOP would stop them all)")
    except OSError as exc:
        print(f"kill(-1, 0) refused: {exc}")
    # Other processes' groups, by pgid.
    for name, pgid in GROUPS.items():
        for probe, call in (("setpriority PRIO_PGRP", lambda: os.setpriority(os.PRIO_PGRP, pgid, 19)),
                            ("getpriority PRIO_PGRP", lambda: os.getpriority(os.PRIO_PGRP, pgid)),
                            ("ioprio_set IOPRIO_WHO_PGRP", lambda: sys_(251, 2, pgid, 3 << 13)),
                            ("ioprio_get IOPRIO_WHO_PGRP", lambda: sys_(252, 2, pgid)),
                            ("killpg-0", lambda: os.killpg(pgid, 0))):
            got = outcome(lambda _pid: call(), 0)
            if got[0] == "ok":
                print(f"LEAKED {probe} {name}")
    os.setpriority(os.PRIO_PGRP, 0, 19)  # its own group: allowed, and nobody else's business
    print("PROBES-DONE")
    return x
'''


def fill(code: str, **values) -> str:
    for key, value in values.items():
        code = code.replace(f"__{key}__", repr(value))
    assert not re.search(r"= __[A-Z_]+__", code), "a placeholder was left unfilled"
    return code


def attack(target: Target, server, victim: HeldVictim | None, code: str,
           also: dict[str, int] | None = None) -> tuple[dict, list[str]]:
    """Run the attack beside the victim; return the reply and what changed in any project process.

    The victim is let go (so it checks its own process) before anything is put back.
    """
    pids = {**project_pids(server, victim), **(also or {})}
    before = snapshot(pids)
    try:
        reply = predict(server, code)
        deadline = time.monotonic() + SIGNAL_S  # a signal sent by the attack (F_SETSIG, ptrace) lands first
        while not signals_landed(pids) and time.monotonic() < deadline:
            time.sleep(0.02)
        changed = differences(before, snapshot(pids))
        if victim is not None:
            victim.finish()
    finally:
        restore(target, before)
    return reply, changed


def assert_contained(reply: dict, changed: list[str], victim: HeldVictim | None, server, target: Target,
                     extra: list[str] = ()) -> None:
    lines = [*extra, *verdicts(reply)]
    if victim is not None:
        victim.finish()
    assert not lines, "the worker reached other processes:\n" + "\n".join(lines)
    assert not changed, "processes outside the worker were changed:\n" + "\n".join(changed)
    if victim is not None:
        victim.assert_unaffected()
    assert_still_healthy(server, server.client())
    target.assert_tidy()


# -- the cases ------------------------------------------------------------------------------------


# /proc/<pid>/limits' row of each rlimit (what is read here: this root may lack CAP_SYS_RESOURCE, and then prlimit
# on another uid's process, an unprivileged server's, is refused).
_LIMIT_ROWS = {"RLIMIT_CPU": "Max cpu time", "RLIMIT_FSIZE": "Max file size", "RLIMIT_DATA": "Max data size",
               "RLIMIT_STACK": "Max stack size", "RLIMIT_CORE": "Max core file size",
               "RLIMIT_RSS": "Max resident set", "RLIMIT_NPROC": "Max processes", "RLIMIT_NOFILE": "Max open files",
               "RLIMIT_MEMLOCK": "Max locked memory", "RLIMIT_AS": "Max address space",
               "RLIMIT_LOCKS": "Max file locks", "RLIMIT_SIGPENDING": "Max pending signals",
               "RLIMIT_MSGQUEUE": "Max msgqueue size", "RLIMIT_NICE": "Max nice priority",
               "RLIMIT_RTPRIO": "Max realtime priority", "RLIMIT_RTTIME": "Max realtime timeout"}


def rlimits_of(pid: int) -> dict[int, tuple[int, int]]:
    """Every rlimit of ``pid`` as (soft, hard), read from /proc/<pid>/limits, which anyone may read."""
    rows = support.limits_of(pid).splitlines()
    found = {}
    for name, label in _LIMIT_ROWS.items():
        row = next((line for line in rows if line.startswith(label)), None)
        if row is not None and hasattr(resource, name):
            soft, hard = (resource.RLIM_INFINITY if v == "unlimited" else int(v)
                          for v in row[len(label):].split()[:2])
            found[getattr(resource, name)] = (soft, hard)
    return found


def nofile_of(pid: int) -> tuple[int, int]:
    """The process's open-file rlimit (soft, hard)."""
    return rlimits_of(pid)[resource.RLIMIT_NOFILE]


def test_worker_cannot_observe_other_processes(server, target):
    """getsid, getpgid, sched_get*, getpriority, prlimit, ioprio_get, capget, /proc, ... tell nothing."""
    support.skip_unless_in_force(server.client(), "a worker sees no other process only in a PID namespace with a "
                                 "/proc of its own", layers=("pid_namespace", "namespaces"))
    with HeldVictim(server) as victim:
        pids = project_pids(server, victim)
        pid_max = min(int(Path("/proc/sys/kernel/pid_max").read_text()), 1 << 17)
        code = fill(OBSERVE_CODE, TARGETS=pids, ABSENT=absent_pid(), PID_MAX=pid_max)
        reply, changed = attack(target, server, victim, code)
        named = []
        if reply.get("ok"):
            ppid = int(reply["stdout"].split("PPID ", 1)[1].split()[0])
            if ppid in {server.process.pid, *descendants(server.process.pid)}:
                named.append(f"os.getppid() names a real process outside the worker: pid {ppid}")
        assert_contained(reply, changed, victim, server, target, extra=named)


@pytest.mark.parametrize("which", ["server", "template", "victim"])
def test_worker_cannot_change_another_process(which, server, target):
    """Renice, pin, reschedule, re-prioritise I/O, lower rlimits, signal, trace, read memory: all refused."""
    with HeldVictim(server) as victim:
        pids = project_pids(server, victim)
        pid = pids[which]
        deliver = signal.SIGWINCH if which == "server" else signal.SIGSTOP  # SIGSTOP only where it is undone
        code = fill(CHANGE_CODE, TARGET=pid, ABSENT=absent_pid(), NOFILE=nofile_of(pid), DELIVER=int(deliver))
        reply, changed = attack(target, server, victim, code)
        assert_contained(reply, changed, victim, server, target)


def test_calls_on_a_whole_uid_or_group_reach_nobody(server, target):
    """PRIO_USER, PRIO_PGRP, IOPRIO_WHO_USER/PGRP and kill(-1) from a worker touch nothing but the worker."""
    canary = subprocess.Popen(["sleep", "120"])  # this uid, at nice -20 and in the real-time I/O class
    try:
        try:
            os.setpriority(os.PRIO_PROCESS, canary.pid, -20)
            assert _libc.syscall(_SYS_IOPRIO_SET, _IOPRIO_WHO_PROCESS, canary.pid, _IOPRIO_CLASS_RT << 13) == 0
        except (OSError, AssertionError):
            pytest.skip("needs CAP_SYS_NICE to set up the canary process")
        with HeldVictim(server) as victim:
            pids = project_pids(server, victim)
            groups = {name: os.getpgid(pid) for name, pid in pids.items() if name != "server"}
            # (The server's group is pytest's own: not even a probe goes there.)
            reply, changed = attack(target, server, victim, fill(BROADCAST_CODE, GROUPS=groups),
                                    also={"canary": canary.pid})
            assert_contained(reply, changed, victim, server, target)
    finally:
        canary.kill()
        canary.wait()


TEMPLATE_LIMITS = {
    # Lower the template's hard limit below what each worker sets: setrlimit then fails in every new worker.
    "RLIMIT_NOFILE": (resource.RLIMIT_NOFILE, 200),
    "RLIMIT_AS": (resource.RLIMIT_AS, 3 << 30),
}
BIG_ALLOCATION = ("import numpy, resource\n"
                  "def f(x):\n"
                  "    print('AS', resource.getrlimit(resource.RLIMIT_AS))\n"
                  "    block = numpy.empty(5 << 30, numpy.uint8)  # 5 GB of address space, never touched\n"
                  "    print('ALLOCATED', block.nbytes)\n"
                  "    return x\n")


def _limits_diff(expected: str, got: str) -> str:
    return "\n".join(line for line in difflib.unified_diff(expected.splitlines(), got.splitlines(), "before the attack",
                                                           "after it", lineterm="", n=0))


def _time_marker() -> int:
    """Now, as a start time: a process that started later than this was forked after this moment."""
    marker = subprocess.Popen(["sleep", "0.2"])
    try:
        return start_time(marker.pid)
    finally:
        marker.wait()


def _warm_workers_forked_after(server, marker: int, timeout_s: float = 90.0) -> dict[int, str]:
    """Run trivial jobs until the main pool's warm workers are all forked after ``marker``; their limits."""
    client = server.client()
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pool = client.predict(api_name="/about")["sandbox"]["pool"]
        workers = {}
        for pid in children(templates(server)[0]):
            with contextlib.suppress(OSError):
                workers[pid] = start_time(pid)
        if pool["warm"] >= 2 and len(workers) >= 2 and all(started > marker for started in workers.values()):
            return {pid: limits_of(pid) for pid in workers}
        if pool["warm"] >= 2 and any(started <= marker for started in workers.values()):
            predict(server, "def f(x):\n    return x\n")  # uses up the oldest warm worker
        else:
            time.sleep(0.2)
    raise AssertionError("the pool did not warm up again with workers forked after the attack")


@pytest.mark.parametrize("limit", list(TEMPLATE_LIMITS))
def test_template_limits_cannot_be_lowered_for_later_workers(limit, server, target):
    """prlimit on the template would give every later worker wrong limits; every new worker's must still be right."""
    which, value = TEMPLATE_LIMITS[limit]
    template = templates(server)[0]
    baseline = predict(server, BIG_ALLOCATION)
    assert baseline.get("ok") is False and baseline["error"]["kind"] == "memory", (
        f"before any attack, 5 GB of address space should already be refused: {baseline}")
    expected = set(_warm_workers_forked_after(server, 0).values())
    assert len(expected) == 1, expected
    code = PRELUDE + (
        "def f(x):\n"
        "    if _ran:\n        return x\n"
        "    _ran.append(1)\n"
        f"    ppid, targets = os.getppid(), [{template}]\n"
        f"    if ppid not in (0, 1, os.getpid(), {template}):\n"
        "        targets.append(ppid)  # what getppid() names, unless that is nobody, this worker or init\n"
        "    for pid in targets:\n"
        "        try:\n"
        f"            resource.prlimit(pid, {which}, ({value}, {value}))\n"
        "            print('LEAKED prlimit', pid)\n"
        "        except OSError as exc:\n"
        "            print('refused', pid, exc)\n"
        "    print('PROBES-DONE')\n"
        "    return x\n")
    with HeldVictim(server) as victim:
        pids = project_pids(server, victim)
        before = snapshot(pids)
        try:
            reply = predict(server, code)
            marker = _time_marker()
            changed = differences(before, snapshot(pids))
            victim.release()
            victim.thread.join(timeout=TIMEOUT_S + support.HANG_S)
            fresh = _warm_workers_forked_after(server, marker)
            after = [predict(server, BIG_ALLOCATION) for _ in range(2)]  # on those fresh workers
        finally:
            restore(target, before)
        try:
            problems = []
            wrong = {pid: text for pid, text in fresh.items() if text not in expected}
            if wrong:
                problems.append("workers forked after the attack have other limits than before it:\n"
                                + _limits_diff(next(iter(expected)), next(iter(wrong.values()))))
            for result in after:
                if not (result.get("ok") is False and result["error"]["kind"] == "memory"):
                    problems.append("after the attack a worker could reserve 5 GB of address space: "
                                    + result.get("stdout", str(result.get("error")))[-300:])
            assert not problems, "\n".join(problems) + "\n" + "\n".join(changed)
            assert_contained(reply, changed, victim, server, target)
        finally:
            _warm_workers_forked_after(server, _time_marker())  # no worker forked with the attacker's limits stays


def test_server_cpu_rlimit_cannot_be_set(target):
    """prlimit(server, RLIMIT_CPU, (1, 1)): if it worked the kernel would kill the server within a second.

    Whether it worked is the server's RLIMIT_CPU itself, which /proc shows at once (the snapshot's limits): the
    test waits for no SIGXCPU, which may or may not have come yet.

    Last in the module on purpose: where the hole is open this kills the server (the fixture then
    removes what the dead server left, and starts a new one for any later case).
    """
    server = target.live()
    with HeldVictim(server) as victim:
        pids = project_pids(server, victim)
        before = snapshot(pids)
        code = PRELUDE + (
            "def f(x):\n"
            "    if _ran:\n        return x\n"
            "    _ran.append(1)\n"
            "    _LIMIT_PAIR[0] = _LIMIT_PAIR[1] = 1\n"
            "    for name, call in (('prlimit', lambda: resource.prlimit(SERVER, resource.RLIMIT_CPU, (1, 1))),\n"
            "                       ('prlimit64-hi32', lambda: sys_(302, HI | SERVER, resource.RLIMIT_CPU,\n"
            "                                                       ctypes.addressof(_LIMIT_PAIR), 0))):\n"
            "        try:\n"
            "            call()\n"
            "            print('LEAKED', name, 'server RLIMIT_CPU')\n"
            "        except OSError as exc:\n"
            "            print('refused', name, exc)\n"
            "    print('PROBES-DONE')\n"
            "    return x\n").replace("SERVER", str(server.process.pid))
        try:
            reply = predict(server, code)
        except AssertionError:
            reply = {"ok": False, "error": {"kind": "no reply", "message": "the server gave no reply"}}
        alive = server.alive()
        changed = differences(before, snapshot(pids)) if alive else []
        if alive:
            restore(target, before)
        assert alive, (f"the server died after a worker set its RLIMIT_CPU (exit status "
                       f"{server.process.returncode}); the attack's reply: {reply}")
        assert_contained(reply, changed, victim, server, target)
