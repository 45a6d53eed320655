"""What bounds each job's processes, disk, memory, tasks and time on this host, in words for About.

A pure summary of the layers a fresh worker reported (lockdown.py, namespaces.py,
cgroups) and of the limits; anything that is not in force says why.
"""

from __future__ import annotations

from playground.sandbox.limits import Limits


def _on(layers: dict, name: str) -> bool:
    return bool(layers.get(name, {}).get("active"))


def _why(layers: dict, name: str) -> str:
    return layers.get(name, {}).get("detail") or "not reported"


def describe(layers: dict, limits: Limits, cgroup_memory_mb: int | None) -> dict[str, dict]:
    pid_ns, seccomp, private = _on(layers, "pid_namespace"), _on(layers, "seccomp"), _on(layers, "namespaces")
    cgroups = _on(layers, "cgroups") and cgroup_memory_mb is not None
    pid_calls = "seccomp limits every system call that takes a process id to the worker itself"
    if pid_ns and seccomp:
        processes = (True, "each job is process 1 of a PID namespace of its own and sees no other process; "
                           + pid_calls)
    elif seccomp:
        processes = (True, f"{pid_calls}; no PID namespace: {_why(layers, 'pid_namespace')}")
    elif pid_ns:
        processes = (True, f"PID namespace per job; seccomp is not active: {_why(layers, 'seccomp')}")
    else:
        processes = (False, f"neither a PID namespace ({_why(layers, 'pid_namespace')}) nor seccomp "
                            f"({_why(layers, 'seccomp')}): a job could reach other processes of this user")
    if private:
        disk = (True, f"a private tmpfs of {limits.scratch_mb:,} MB and {limits.scratch_files:,} files per job: the "
                      "kernel counts every byte, files deleted while still open too, and frees it all when the job "
                      "ends")
    else:
        disk = (False, f"the server walks the scratch folder every 0.25 s ({limits.scratch_mb:,} MB, "
                       f"{limits.scratch_files:,} entries, {limits.scratch_depth} levels) and each file is at most "
                       f"{limits.file_size_mb} MB; files deleted while still open are not counted, because the "
                       f"job has no private tmpfs: {_why(layers, 'namespaces')}")
    denied = ("memfd_create, SysV shared memory and POSIX message queues are denied (seccomp)" if seccomp
              else "memfd_create and SysV shared memory are not denied (no seccomp)")
    denied += (", /dev/shm is out of reach (Landlock)" if _on(layers, "landlock")
               else ", /dev/shm is reachable (no Landlock)")
    watched = f"resident memory {limits.memory_mb:,} MB (watched every 50 ms), address space " + (
        f"{limits.address_space_mb:,} MB (rlimit)" if limits.address_space_mb else "unlimited")
    if cgroups:
        memory = (True, f"{watched}; a cgroup memory limit of {cgroup_memory_mb:,} MB counts everything the job "
                        f"holds (tmpfs, shared and kernel memory); {denied}")
        tasks = (True, f"a cgroup pids.max of {limits.max_tasks:,}: every thread counts, however fast they start; "
                       "new processes are denied")
    else:
        reason = _why(layers, "cgroups")
        memory = (False, f"{watched}; {denied}; no cgroup memory limit: {reason}")
        tasks = (False, f"threads are counted every 50 ms and a job above {limits.max_tasks:,} is stopped; new "
                        f"processes are denied; no cgroup pids limit: {reason}")
    time_ = (True, f"wall clock {limits.timeout_s:g} s ({limits.measure_timeout_s:g} s for timing jobs), then SIGKILL "
                   f"from the server, whatever else it is measuring; CPU time {limits.cpu_s} s (rlimit)")
    return {name: {"active": active, "detail": detail} for name, (active, detail) in
            (("processes", processes), ("disk", disk), ("memory", memory), ("tasks", tasks), ("time", time_))}


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
    return {name: {"active": active, "detail": detail} for name, (active, detail) in
            (("processes", processes), ("disk", disk), ("memory", memory), ("tasks", tasks), ("time", time_))}
