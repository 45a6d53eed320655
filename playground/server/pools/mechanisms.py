"""What bounds each job's processes, disk, memory, tasks and time on this host, in words for About.

A pure summary of the layers a fresh worker reported (lockdown.py, namespaces.py,
cgroups) and of the limits; anything that is not in force says why.
"""

from __future__ import annotations

import os

from playground.ipc.limits import Limits


def _on(layers: dict, name: str) -> bool:
    return bool(layers.get(name, {}).get("active"))


def _why(layers: dict, name: str) -> str:
    return layers.get(name, {}).get("detail") or "not reported"


def _through(layers: dict) -> str:
    """How the server's kill reaches a worker, where not through a pidfd: only its parent can name it safely then."""
    return " (sent by the template, the worker's parent: no pidfds here)" if layers.get("pidfd", {}).get(
        "active") is False else ""


def _files(layers: dict) -> tuple[bool, str]:
    """Which files a job may read and write: Landlock's rules; else seccomp's refusal of every write."""
    if _on(layers, "landlock"):
        return True, ("reads: Python, the venv, system libraries and the job's scratch folder; writes: the scratch "
                      "folder alone; no device, no other process's files (Landlock)")
    reads = (f"reads: as {_why(layers, 'own_uid')}" if _on(layers, "own_uid") else
             f"reads: every file the server's user (uid {os.geteuid()}) may read: keep secrets out of its reach"
             + (f" ({_why(layers, 'own_uid')})" if "own_uid" in layers else ""))
    if _on(layers, "seccomp"):
        return False, (f"no Landlock ({_why(layers, 'landlock')}); in its place seccomp refuses every file write: "
                       "a job writes, makes, deletes, renames and links no file anywhere, its scratch folder "
                       f"included, and opens no device for writing; {reads}")
    return False, (f"neither Landlock ({_why(layers, 'landlock')}) nor seccomp ({_why(layers, 'seccomp')}): a job "
                   "can write every file the server's user may write: this checkout (the app's own code), the "
                   f"device owner's compilation cache, /tmp, /dev/shm and its home; {reads}")


def writes_confined(layers: dict) -> bool:
    """Whether a job's writes are kept in its scratch folder (Landlock) or refused outright (seccomp)."""
    return _on(layers, "landlock") or _on(layers, "seccomp")


def _processes(layers: dict) -> tuple[bool, str]:
    """Which processes a job can name, observe or change: a PID namespace, seccomp's rules, or neither."""
    pid_ns, seccomp = _on(layers, "pid_namespace"), _on(layers, "seccomp")
    pid_calls = "seccomp limits every system call that takes a process id to the worker itself"
    seen = ("Landlock keeps every other process's /proc unreadable" if _on(layers, "landlock") else
            "a job can list this host's processes and read their command lines, not the environment, memory or "
            "open files of the app's processes (each is undumpable" + (
                ", and the job runs as a uid of its own)" if _on(layers, "own_uid") else
                "), but those of this user's other processes that are not (the shell that started the app, say): "
                "start the app with no secrets in its environment"))
    if pid_ns and seccomp:
        return True, "each job is process 1 of a PID namespace of its own and sees no other process; " + pid_calls
    if seccomp:
        return True, f"{pid_calls}; no PID namespace ({_why(layers, 'pid_namespace')}): {seen}"
    if pid_ns:
        return True, f"PID namespace per job; seccomp is not active: {_why(layers, 'seccomp')}"
    return False, (f"neither a PID namespace ({_why(layers, 'pid_namespace')}) nor seccomp "
                   f"({_why(layers, 'seccomp')}): a job could reach other processes of this user")


def describe(layers: dict, limits: Limits, cgroup_memory_mb: int | None) -> dict[str, dict]:
    seccomp, private = _on(layers, "seccomp"), _on(layers, "namespaces")
    cgroups = _on(layers, "cgroups") and cgroup_memory_mb is not None
    no_writes = seccomp and not _on(layers, "landlock")
    processes = _processes(layers)
    walked = (f"the server walks the scratch folder every 0.25 s, going on where a look stopped, so the whole "
              f"folder is counted ({limits.scratch_mb:,} MB, {limits.scratch_files:,} entries, "
              f"{limits.scratch_depth} levels; watchdog), and each file is at most {limits.file_size_mb} MB "
              f"(rlimit)")
    if no_writes:
        disk = (True, "a job may write no file at all (seccomp; no Landlock to keep its writes in its scratch "
                      "folder), so it holds no disk")
    elif private:
        disk = (True, f"a private tmpfs of {limits.scratch_mb:,} MB and {limits.scratch_files:,} files per job: the "
                      "kernel counts every byte, files deleted while still open too, and frees it all when the job "
                      "ends")
    elif _on(layers, "landlock") and seccomp:
        disk = (True, f"{walked}; the job may not delete or rename a file there (Landlock) nor make one without a "
                      "name (O_TMPFILE, seccomp), so every byte it holds is in a file the walk sees; not covered: "
                      "what it writes between two looks, at the disk's speed; no private tmpfs: "
                      f"{_why(layers, 'namespaces')}")
    else:
        disk = (False, f"{walked}; files deleted while still open are not counted: there is no private tmpfs "
                       f"({_why(layers, 'namespaces')}), and without Landlock and seccomp a job may delete files "
                       f"it keeps open")
    denied = ("memfd_create, SysV shared memory and POSIX message queues are denied (seccomp)" if seccomp
              else "memfd_create and SysV shared memory are not denied (no seccomp)")
    denied += (", /dev/shm is out of reach (Landlock)" if _on(layers, "landlock")
               else ", /dev/shm cannot be written (seccomp)" if no_writes else ", /dev/shm is reachable (no Landlock)")
    watched = f"resident memory {limits.memory_mb:,} MB (watched every 50 ms), address space " + (
        f"{limits.address_space_mb:,} MB (rlimit)" if limits.address_space_mb else "unlimited")
    if cgroups:
        memory = (True, f"{watched}; a cgroup memory limit of {cgroup_memory_mb:,} MB counts everything the job "
                        f"holds (tmpfs, shared and kernel memory); {denied}")
        tasks = (True, f"a cgroup pids.max of {limits.max_tasks:,}: every thread counts, however fast they start; "
                       "new processes are denied")
    else:
        reason = _why(layers, "cgroups")
        memory = (False, f"{watched}; {denied}; not covered: memory the kernel holds for the job (page tables, "
                         f"socket and pipe buffers), which only a cgroup counts; no cgroup memory limit: {reason}")
        if _on(layers, "thread_gate"):
            tasks = (True, f"each new thread waits for the sandbox template's yes, given only below "
                           f"{limits.max_tasks:,} threads (seccomp user notification: the kernel holds the thread "
                           f"until then); threads are also counted every 50 ms; new processes are denied; no cgroup "
                           f"pids limit: {reason}")
        else:
            tasks = (False, f"threads are counted every 50 ms and a job above {limits.max_tasks:,} is stopped, so a "
                            f"burst can pass the limit between two counts ({_why(layers, 'thread_gate')}); new "
                            f"processes are denied; no cgroup pids limit: {reason}")
    time_ = (True, f"wall clock {limits.timeout_s:g} s ({limits.measure_timeout_s:g} s for timing jobs), then SIGKILL "
                   f"from the server{_through(layers)}, whatever else it measures; CPU time {limits.cpu_s} s (rlimit)")
    return {name: {"active": active, "detail": detail} for name, (active, detail) in
            (("files", _files(layers)), ("processes", processes), ("disk", disk), ("memory", memory),
             ("tasks", tasks), ("time", time_))}


def describe_process_mode(layers: dict, limits: Limits) -> dict[str, dict]:
    """The same five rows for the local process mode (process_pool.py): what bounds a job, and what does not."""
    rlimits = layers.get("rlimits", {})
    has_rlimits = bool(rlimits.get("active"))
    processes = (False, "process isolation only: each job is a fresh interpreter of its own, but runs as you, "
                        "sees your other processes and can read your files; new processes are refused by an audit "
                        "hook, which is a guard against accidents, not a boundary")
    disk = (False, f"the server walks the scratch folder every 0.25 s ({limits.scratch_mb:,} MB, "
                   f"{limits.scratch_files:,} entries, {limits.scratch_depth} levels)"
                   + (f" and each file is at most {limits.file_size_mb} MB (rlimit)" if has_rlimits else "")
                   + "; the job can write anywhere you can")
    memory = (False, f"resident memory {limits.memory_mb:,} MB, watched every 50 ms; no kernel memory limit")
    tasks = (False, f"threads are counted every 50 ms and a job above {limits.max_tasks:,} is stopped")
    cpu = f"; {rlimits.get('detail')}" if has_rlimits else f"; {rlimits.get('detail') or 'no rlimits'}"
    time_ = (True, f"wall clock {limits.timeout_s:g} s ({limits.measure_timeout_s:g} s for timing jobs), then the "
                   f"server kills the worker{cpu}")
    files = (False, "the job can read and write every file you can")
    return {name: {"active": active, "detail": detail} for name, (active, detail) in
            (("files", files), ("processes", processes), ("disk", disk), ("memory", memory), ("tasks", tasks),
             ("time", time_))}
