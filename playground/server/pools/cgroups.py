"""A control group per job, where the host lets us make them: the kernel caps its tasks and all its memory.

``pids.max`` counts every thread and process of the job, so a thread bomb stops at
the limit however fast it is. The memory limit counts what the resident-memory
watchdog cannot see: the job's tmpfs, shared memory, kernel memory and page cache.
cgroup v2 is used where its controllers are delegated to us, else the v1
``pids`` and ``memory`` hierarchies (root on older hosts). Where neither is
writable, ``JobCgroups.detail`` says why and the watchdogs in watch.py remain.

The server makes one folder per job; the worker moves itself in before it is
locked down (writing 0 to ``cgroup.procs`` means "myself", also from inside a
PID namespace) and the server removes the folder once the worker is gone.
"""

from __future__ import annotations

import errno
import itertools
import os
import time

_CONTROLLERS = ("pids", "memory")
_counter = itertools.count()


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, filesystem type, super options) of every cgroup filesystem."""
    found = []
    for line in _read("/proc/self/mountinfo").splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
            found.append((fields[4], tail[0], set(tail[2].split(","))))
    return found


def _own_paths() -> dict[str, str]:
    """Our cgroup per v1 controller name, and "" for the v2 hierarchy."""
    paths = {}
    for line in _read("/proc/self/cgroup").splitlines():
        _, names, path = line.split(":", 2)
        for name in names.split(",") if names else [""]:
            paths[name] = path
    return paths


class JobCgroups:
    """Makes, reads and removes the per-job cgroups of one pool."""

    def __init__(self) -> None:
        self.version: str | None = None
        self.detail = ""
        self._bases: dict[str, str] = {}  # controller (or "" for v2) -> our folder
        try:
            self._setup()
        except OSError as exc:
            self._bases, self.version = {}, None
            self.detail = f"cgroups not writable here ({exc.strerror or exc})"

    @property
    def active(self) -> bool:
        return self.version is not None

    def _setup(self) -> None:
        mounts, own = _mounts(), _own_paths()
        name = f"jax-playground-{os.getpid()}-{next(_counter)}"
        v2 = next((point for point, kind, _ in mounts if kind == "cgroup2"), None)
        if v2 is not None and "" in own:
            parent = os.path.join(v2, own[""].lstrip("/"))
            if set(_CONTROLLERS) <= set(_read(os.path.join(parent, "cgroup.controllers")).split()):
                self._setup_v2(parent, name)
                return
        v1 = {c: point for point, kind, options in mounts if kind == "cgroup" for c in _CONTROLLERS if c in options}
        if set(v1) == set(_CONTROLLERS) and all(c in own for c in _CONTROLLERS):
            for controller in _CONTROLLERS:
                base = os.path.join(v1[controller], own[controller].lstrip("/"), name)
                os.mkdir(base, 0o700)
                self._bases[controller] = base
            self.version = "v1"
            self.detail = "cgroup v1 (pids and memory hierarchies)"
            return
        self.detail = "no cgroup hierarchy with the pids and memory controllers is available to this process"

    def _setup_v2(self, parent: str, name: str) -> None:
        wanted = " ".join(f"+{c}" for c in _CONTROLLERS)
        try:
            _write(os.path.join(parent, "cgroup.subtree_control"), wanted)
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                raise
            # cgroup v2's no-internal-processes rule: our own cgroup holds processes.
            raise OSError(exc.errno, "the server's cgroup v2 holds processes, so its controllers cannot be "
                          "delegated to children") from None
        base = os.path.join(parent, name)
        os.mkdir(base, 0o700)
        self._bases[""] = base
        _write(os.path.join(base, "cgroup.subtree_control"), wanted)
        self.version = "v2"
        self.detail = "cgroup v2 (pids and memory controllers)"

    def create(self, max_tasks: int, memory_bytes: int) -> list[str]:
        """A job's folders with their limits set; the worker joins each."""
        job = f"job-{next(_counter)}"
        folders = []
        try:
            for controller, base in self._bases.items():
                folder = os.path.join(base, job)
                os.mkdir(folder, 0o700)
                folders.append(folder)
                if controller in ("", "pids"):
                    _write(os.path.join(folder, "pids.max"), str(max_tasks))
                if controller == "":
                    _write(os.path.join(folder, "memory.max"), str(memory_bytes))
                    _write(os.path.join(folder, "memory.swap.max"), "0")
                elif controller == "memory":
                    _write(os.path.join(folder, "memory.limit_in_bytes"), str(memory_bytes))
                    swap = os.path.join(folder, "memory.memsw.limit_in_bytes")
                    if os.path.exists(swap):
                        _write(swap, str(memory_bytes))
        except OSError:
            self.remove(folders, wait_s=0)
            raise
        return folders

    def events(self, folders: list[str]) -> dict[str, int]:
        """How often the job hit its task limit, and whether the kernel killed it for memory."""
        counts = {"task_limit_hits": 0, "oom_kills": 0}
        for folder in folders:
            for name, key, field in (("pids.events", "task_limit_hits", "max"),
                                     ("memory.events", "oom_kills", "oom_kill"),
                                     ("memory.oom_control", "oom_kills", "oom_kill")):
                try:
                    for line in _read(os.path.join(folder, name)).splitlines():
                        label, _, value = line.partition(" ")
                        if label == field:
                            counts[key] += int(value)
                except (OSError, ValueError):
                    continue
        return counts

    def remove(self, folders: list[str], wait_s: float = 2.0) -> None:
        """rmdir each (the kernel refuses while a task is still inside: retry until ``wait_s``)."""
        deadline = time.monotonic() + wait_s
        for folder in folders:
            while True:
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() >= deadline:
                        break
                    time.sleep(0.02)

    def close(self) -> None:
        for base in self._bases.values():
            leftovers = [os.path.join(base, name) for name in _subfolders(base)]
            self.remove(leftovers)
            self.remove([base])
        self._bases = {}


def _subfolders(base: str) -> list[str]:
    try:
        return [entry.name for entry in os.scandir(base) if entry.is_dir(follow_symlinks=False)]
    except OSError:
        return []
