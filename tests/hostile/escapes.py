"""What a hostile visitor's code tries on a host without Landlock or namespaces, and how to tell that none of it
worked: every kind of file write on the places the app and its owner load from, opening device nodes for writing,
and reading or signalling the app's other processes.

``attempts_code(places, pids)`` is a user function's source: called (once per job, on whichever tab), it makes
every attempt, prints ``ATTEMPTS <json>`` (each attempt's name: "refused <errno name>", "absent" or "DONE"), and
raises where any attempt was done (but LISTING_ONLY). ``Places`` makes the folders and canary files the attempts
aim at and says, afterwards, whether anything there changed. Used by tests/hostile/test_weak_host.py and, on a
lent accelerator, by benchmarks/sandbox_escapes.py.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path

DEVICES = ("/dev/kmsg", "/dev/vfio/vfio", "/dev/vfio/0", "/dev/accel0", "/dev/nvidia0", "/dev/nvidiactl")
ESCAPED = "ESCAPED"
# Said, but no escape where it is done: gVisor lists any same-user process's descriptor numbers (nothing more: the
# links and the files behind them stay closed), which tells how many files it holds and nothing of what they are.
LISTING_ONLY = "descriptor numbers of"

_ATTEMPTS = '''
import ctypes, errno, json, os
_made = []
PLACES = {places!r}
PIDS = {pids!r}
DEVICES = {devices!r}
TAG = {tag!r}

def _try(results, name, action):
    try:
        action()
        results[name] = "DONE"
    except FileNotFoundError:
        results[name] = "absent" if name.startswith("device ") else "refused ENOENT"
    except OSError as exc:
        results[name] = "refused " + errno.errorcode.get(exc.errno, str(exc.errno))

def _writes(results, where, folder, canary):
    new = os.path.join(folder, TAG)
    _try(results, f"create in {{where}}", lambda: open(new, "w").close())
    _try(results, f"mkdir in {{where}}", lambda: os.mkdir(new + "-dir"))
    _try(results, f"symlink in {{where}}", lambda: os.symlink("/etc/hostname", new + "-link"))
    _try(results, f"append to {{where}}", lambda: open(canary, "a").close())
    _try(results, f"write to {{where}}", lambda: os.close(os.open(canary, os.O_WRONLY)))
    _try(results, f"truncate in {{where}}", lambda: os.truncate(canary, 0))
    _try(results, f"rename in {{where}}", lambda: os.rename(canary, new + "-moved"))
    _try(results, f"delete in {{where}}", lambda: os.unlink(canary))
    _try(results, f"hard link in {{where}}", lambda: os.link(canary, new + "-hard"))
    _try(results, f"chmod in {{where}}", lambda: os.chmod(canary, 0o777))
    _try(results, f"chown in {{where}}", lambda: os.chown(canary, os.getuid(), os.getgid()))
    _try(results, f"utime in {{where}}", lambda: os.utime(canary, (0, 0)))

def _peek(pid):
    with open(f"/proc/{{pid}}/maps") as maps:
        start = int(maps.readline().split("-")[0], 16)
    with open(f"/proc/{{pid}}/mem", "rb") as mem:
        mem.seek(start)
        mem.read(1)

def _reopen(pid):
    """Open, to read, what the process holds open (its pipes, its files), through /proc/<pid>/fd."""
    names = [entry for entry in range(3, 64) if os.path.lexists(f"/proc/{{pid}}/fd/{{entry}}")]
    opened = []
    for entry in names:
        try:
            os.close(os.open(f"/proc/{{pid}}/fd/{{entry}}", os.O_RDONLY | os.O_NONBLOCK))
            opened.append(entry)
        except OSError:
            pass
    if not opened:
        raise PermissionError(errno.EACCES, "nothing reopened")

def _links(pid):
    """Where the process's descriptors lead: /proc/<pid>/fd/<n> read as links."""
    for entry in range(64):
        try:
            os.readlink(f"/proc/{{pid}}/fd/{{entry}}")
            return
        except FileNotFoundError:
            continue
    raise PermissionError(errno.EACCES, "no link read")

def _trace(pid):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(16, pid, 0, 0) != 0:  # PTRACE_ATTACH
        raise OSError(ctypes.get_errno(), "ptrace")

def _attempts():
    results = {{}}
    for where, (folder, canary) in PLACES.items():
        _writes(results, where, folder, canary)
    for device in DEVICES:
        _try(results, f"device {{device}}", lambda: os.close(os.open(device, os.O_RDWR)))
    for name, pids in PIDS.items():
        for pid in pids:
            if pid == os.getpid():
                continue
            _try(results, f"environ of {{name}} {{pid}}", lambda: open(f"/proc/{{pid}}/environ", "rb").read())
            _try(results, f"memory of {{name}} {{pid}}", lambda: _peek(pid))
            _try(results, f"descriptor numbers of {{name}} {{pid}}", lambda: os.listdir(f"/proc/{{pid}}/fd"))
            _try(results, f"descriptor links of {{name}} {{pid}}", lambda: _links(pid))
            _try(results, f"reopened descriptors of {{name}} {{pid}}", lambda: _reopen(pid))
            _try(results, f"signal to {{name}} {{pid}}", lambda: os.kill(pid, 0))
            _try(results, f"ptrace of {{name}} {{pid}}", lambda: _trace(pid))
    return results

def f(x):
    if not _made:
        _made.append(_attempts())
        print("ATTEMPTS " + json.dumps(_made[0]))
        done = sorted(name for name, said in _made[0].items()
                      if said == "DONE" and not name.startswith({listing_only!r}))
        if done:
            raise RuntimeError({escaped!r} + ": " + ", ".join(done))
    return x * 2.0
'''


def attempts_code(places: dict[str, tuple[str, str]], pids: dict[str, list[int]], tag: str) -> str:
    """User code whose ``f(x)`` makes every attempt once (see the module's words). ``places``: a name for each
    place -> (its folder, a file in it to change); ``pids``: the app's other processes, by role; ``tag``: the name
    new files would get (unique to the run, so that a shared /tmp tells them apart)."""
    return _ATTEMPTS.format(places=places, pids=pids, devices=DEVICES, tag=tag, escaped=ESCAPED,
                            listing_only=LISTING_ONLY)


def app_processes(root: int) -> dict[str, list[int]]:
    """The app's processes by role (``root``, the server, and every process below it), as a job finds them in /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(parent, []).append(int(entry))
    found: dict[str, list[int]] = {"server": [root]}
    todo = [root]
    while todo:
        for pid in children.get(todo.pop(), []):
            todo.append(pid)
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            role = ("template" if b"playground.worker.life.template" in command else
                    "owner" if b"playground.owner.main" in command else "worker")
            found.setdefault(role, []).append(pid)
    return found


def outcomes(stdout: str) -> dict[str, str]:
    """The attempts' outcomes that ``f`` printed (the last ATTEMPTS line)."""
    import json

    lines = [line for line in stdout.splitlines() if line.startswith("ATTEMPTS ")]
    assert lines, f"the job printed no ATTEMPTS line: {stdout[-2000:]!r}"
    return json.loads(lines[-1][len("ATTEMPTS "):])


def fingerprint(path: Path) -> tuple | None:
    """What a change to a file would change: its kind, size, mode, owner, links, times and contents."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() and not path.is_symlink() else ""
    return (info.st_mode, info.st_size, info.st_uid, info.st_gid, info.st_nlink, info.st_mtime_ns, digest)


@dataclass
class Places:
    """The folders the attempts aim at, each with a canary file made for them (owned by ``uid``), and the names
    that new files there would have; ``changed()`` lists whatever differs from when they were made."""

    folders: dict[str, Path]
    uid: int = -1
    tag: str = field(default_factory=lambda: f"escape-{uuid.uuid4().hex[:12]}")
    extra: dict[str, Path] = field(default_factory=dict)  # files the attempts must leave alone, by name
    _before: dict[Path, tuple | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.canaries = {}
        for name, folder in self.folders.items():
            canary = folder / f"{self.tag}-canary"
            canary.write_text(f"canary of {name}\n")
            if self.uid >= 0:
                os.chown(canary, self.uid, self.uid)
            self.canaries[name] = canary
        for path in self.watched():
            self._before[path] = fingerprint(path)

    def aimed(self) -> dict[str, tuple[str, str]]:
        """For attempts_code: each place's folder and canary, as strings."""
        return {name: (str(self.folders[name]), str(self.canaries[name])) for name in self.folders}

    def watched(self) -> list[Path]:
        suffixes = ("", "-dir", "-link", "-moved", "-hard")
        return [*self.canaries.values(), *self.extra.values(),
                *(folder / f"{self.tag}{suffix}" for folder in self.folders.values() for suffix in suffixes)]

    def changed(self) -> dict[str, tuple]:
        """Each watched path whose fingerprint is not what it was (before, after)."""
        return {str(path): (before, fingerprint(path)) for path, before in self._before.items()
                if fingerprint(path) != before}

    def remove(self) -> None:
        for path in self.watched():
            if path in self.extra.values():
                continue
            try:
                path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
            except FileNotFoundError:
                pass
