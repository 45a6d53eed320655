"""The server's side of the sandbox: a pool of warm, locked-down, single-use workers.

Workers come from a template process (template.py, reached through
template_link.py). Each job takes a warm worker, sends it the job, and watches
it from here: a wall-clock deadline, resident memory, threads, the scratch
folder where the kernel does not bound it, and the reply's size. Whatever
happens, the worker is then killed, its cgroups and scratch folder removed,
and a background thread keeps ``size`` warm workers ready.

A worker is refused (and the template restarted) when its rlimits are not the
ones asked for, by its own report and by the kernel's /proc/<pid>/limits.
"""

from __future__ import annotations

import logging
import os
import queue
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable

from playground.errors import said_error
from playground.messages import piece
from playground.sandbox import mechanisms, protocol, scratch
from playground.sandbox.accelerator import NO_DEVICE, DevicePaths
from playground.sandbox.bootstrap import protect_server_process, worker_environment
from playground.sandbox.cgroups import JobCgroups
from playground.sandbox.handle import LogPipe, WorkerHandle
from playground.sandbox.limits import Limits
from playground.sandbox.template_link import TemplateLink
from playground.sandbox.watch import JobWatch

log = logging.getLogger(__name__)

_REMOVE_BUDGET_S = 30.0
_CGROUP_HEADROOM_MB = 512  # beyond resident memory and scratch: page tables, pipes, kernel memory


class WorkerRefused(RuntimeError):
    """A new worker does not run under the limits it was asked to."""


class WorkerPool:
    """Run jobs in single-use sandboxed workers; ``run`` is safe to call from many threads."""

    def __init__(
        self,
        size: int,
        limits: Limits,
        handlers: str,
        *,
        extra_env: dict[str, str] | None = None,
        acquire_timeout_s: float = 30.0,
        spawn_timeout_s: float = 60.0,
        namespaces: bool = True,
        devices: DevicePaths = NO_DEVICE,
    ) -> None:
        if size < 1:
            raise ValueError(f"pool size must be at least 1, got {size}")
        self.size = size
        self.limits = limits
        self.acquire_timeout_s = acquire_timeout_s
        self.spawn_timeout_s = spawn_timeout_s
        self.namespaces = namespaces
        self.devices = devices  # the accelerator's files, which these workers' Landlock rules open (else none)
        self.handlers = handlers  # the module the template imports and the workers run jobs with
        self.layers: dict[str, dict] = {}
        self._env = worker_environment(dict(os.environ), extra_env)
        self._idle: queue.Queue[WorkerHandle] = queue.Queue()
        self._link_lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = threading.Event()
        self._counts_lock = threading.Lock()
        self._counts = {
            "jobs": 0, "timeouts": 0, "memory_kills": 0, "task_kills": 0, "disk_kills": 0, "crashes": 0,
            "spawn_failures": 0, "refused_workers": 0,
        }
        self._link: TemplateLink | None = None
        self._cgroups: JobCgroups | None = None
        self._scratch_root = tempfile.mkdtemp(prefix="jax-playground-")
        self._removals: queue.Queue[str | None] = queue.Queue()
        self._remover = threading.Thread(target=self._remove_folders, name="sandbox-remover", daemon=True)
        self._spawner = threading.Thread(target=self._keep_warm, name="sandbox-spawner", daemon=True)

    # -- life cycle -------------------------------------------------------

    def start(self, ready_timeout_s: float = 120.0) -> None:
        """Start the template and wait until the first worker is warm (its layers are then known)."""
        if not sys.platform.startswith("linux"):
            raise RuntimeError(
                "the sandbox needs Linux (process control with pidfds; Landlock and seccomp where the kernel "
                f"has them), not {sys.platform}; on macOS or Windows, run it in Docker or WSL 2"
            )
        protect_server_process()
        self._cgroups = JobCgroups()
        self._watch = JobWatch(self.limits, self._cgroups, self._cgroup_memory_mb(), self._exit_report, self._count)
        self._link = TemplateLink(self._env, self._scratch_root, self.spawn_timeout_s, self.handlers)
        self._remover.start()
        self._spawner.start()
        try:
            first = self._idle.get(timeout=ready_timeout_s)
        except queue.Empty:
            self.close()
            raise RuntimeError(f"no sandbox worker became ready within {ready_timeout_s:g} s") from None
        self._idle.put(first)

    def close(self) -> None:
        """Stop every worker and the template; remove every folder and cgroup this pool made."""
        self._closed.set()
        self._wake.set()
        if self._spawner.is_alive():
            self._spawner.join(timeout=self.spawn_timeout_s)
        while True:
            try:
                self._retire(self._idle.get_nowait())
            except queue.Empty:
                break
        with self._link_lock:
            if self._link is not None:
                self._link.close()
        if self._remover.is_alive():
            self._removals.put(None)
            self._remover.join(timeout=_REMOVE_BUDGET_S)
        scratch.remove(self._scratch_root, _REMOVE_BUDGET_S)
        if self._cgroups is not None:
            self._cgroups.close()

    def status(self) -> dict:
        with self._counts_lock:
            counts = dict(self._counts)
        return {"size": self.size, "warm": self._idle.qsize(), "template_alive": self._template_alive(), **counts}

    def mechanisms(self) -> dict[str, dict]:
        """What bounds processes, disk, memory, tasks and time for each job here, and why anything is missing."""
        return mechanisms.describe(self.layers, self.limits, self._cgroup_memory_mb())

    # -- running a job ------------------------------------------------------

    def run(self, job: dict, timeout_s: float | None = None, on_early: Callable[[dict], None] | None = None) -> dict:
        """Run one job in a fresh worker; always returns a result dict, never raises for user faults.

        ``timeout_s`` replaces the limits' wall clock for this job (measuring jobs need longer). ``on_early`` is
        called with each reply the worker sends ahead of its final one (see JobWatch.watch).
        """
        worker = self._acquire()
        if worker is None:
            return said_error("busy", piece("busy.workers"))
        self._count("jobs")
        try:
            worker.channel.sendall(protocol.encode(job))
            return self._watch.watch(worker, job, timeout_s or self.limits.timeout_s, on_early)
        except OSError:
            return self._watch.ended(worker)
        finally:
            self._retire(worker)
            self._wake.set()

    def _acquire(self) -> WorkerHandle | None:
        deadline = time.monotonic() + self.acquire_timeout_s
        while (remaining := deadline - time.monotonic()) > 0:
            self._wake.set()
            try:
                worker = self._idle.get(timeout=remaining)
            except queue.Empty:
                return None
            # A dead template takes its workers with it (PR_SET_PDEATHSIG), a moment after it: none of them is used.
            if not worker.exited() and self._template_alive():
                return worker
            self._retire(worker)  # died while idle (the OOM killer, its template's end): take the next one
        return None

    def _exit_report(self, worker: WorkerHandle) -> dict | None:
        if not worker.exit_known:
            link = self._link
            worker.exit = link.exit_report(worker.pid, wait_s=1.0) if link is not None else None
            worker.exit_known = True
        return worker.exit

    def _retire(self, worker: WorkerHandle) -> None:
        """Kill the worker, then remove its cgroups and its scratch folder (never trusting what is in it)."""
        worker.destroy()
        self._exit_report(worker)  # the template has reaped it: its cgroups are empty now
        if self._cgroups is not None:
            self._cgroups.remove(worker.cgroups)
        try:
            os.rmdir(worker.scratch)  # a private tmpfs left nothing on the host: the mount point is empty
        except FileNotFoundError:
            pass
        except OSError:
            self._removals.put(worker.scratch)

    def _remove_folders(self) -> None:
        while (folder := self._removals.get()) is not None:
            if not scratch.remove(folder, _REMOVE_BUDGET_S):
                log.warning("sandbox: could not remove %s within %g s", folder, _REMOVE_BUDGET_S)

    def _cgroup_memory_mb(self) -> int | None:
        if self._cgroups is None or not self._cgroups.active:
            return None
        return self.limits.memory_mb + self.limits.scratch_mb + _CGROUP_HEADROOM_MB

    def _count(self, key: str) -> None:
        with self._counts_lock:
            self._counts[key] += 1

    # -- keeping workers warm -----------------------------------------------

    def _keep_warm(self) -> None:
        backoff = 0.5
        while not self._closed.is_set():
            if self._idle.qsize() >= self.size:
                self._wake.wait(timeout=1.0)
                self._wake.clear()
                continue
            try:
                worker = self._spawn()
            except Exception as exc:  # keep serving: report, restart the template, retry
                self._count("refused_workers" if isinstance(exc, WorkerRefused) else "spawn_failures")
                log.warning("sandbox worker failed to start: %s", exc)
                self._closed.wait(backoff)
                backoff = min(backoff * 2, 10.0)
                self._restart_template()
                continue
            backoff = 0.5
            if self._closed.is_set():
                self._retire(worker)
                break
            self.layers = {**worker.hello.get("layers", {}), "pid_namespace": self._link.pid_namespaces}
            self._idle.put(worker)

    def _spawn(self) -> WorkerHandle:
        folder = tempfile.mkdtemp(prefix="job-", dir=self._scratch_root)
        log_pipe = LogPipe()
        server_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        cgroups: list[str] = []
        try:
            if self._cgroups is not None and self._cgroups.active:
                cgroups = self._cgroups.create(self.limits.max_tasks, self._cgroup_memory_mb() * 2**20)
            request = {"scratch": folder, "limits": self.limits.to_dict(), "cgroups": cgroups,
                       "namespaces": self.namespaces, "devices": self.devices.to_dict()}
            with self._link_lock:
                link = self._link
            pid = link.spawn(request, [worker_end.fileno(), log_pipe.write_fd])
            pidfd = os.pidfd_open(pid)
        except BaseException:
            server_end.close()
            log_pipe.close()
            if self._cgroups is not None:
                self._cgroups.remove(cgroups, wait_s=0)
            os.rmdir(folder)
            raise
        finally:
            worker_end.close()
            log_pipe.close_write_end()
        worker = WorkerHandle(pid=pid, pidfd=pidfd, channel=server_end, log=log_pipe, scratch=folder, cgroups=cgroups)
        try:
            server_end.settimeout(self.spawn_timeout_s)
            hello = protocol.receive(server_end, 1 << 20)
            server_end.settimeout(None)
            if not isinstance(hello, dict) or not hello.get("ready"):
                raise RuntimeError("the worker did not say it was ready")
            worker.hello = hello
            problem = worker.limits_problem(self.limits)
            if problem:
                raise WorkerRefused(f"worker {pid} refused: {problem}")
        except BaseException:
            self._retire(worker)
            raise
        return worker

    def _restart_template(self) -> None:
        if self._closed.is_set():
            return
        with self._link_lock:
            if self._link is not None:
                self._link.close()
            try:
                self._link = TemplateLink(self._env, self._scratch_root, self.spawn_timeout_s, self.handlers)
            except Exception as exc:
                log.warning("sandbox template failed to start: %s", exc)

    def _template_alive(self) -> bool:
        return self._link is not None and self._link.alive()
