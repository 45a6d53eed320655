"""The server's side of the sandbox: a pool of warm, locked-down, single-use workers.

Workers come from a template process (template.py, reached through
template_link.py). Each job takes a warm worker, sends it the job, and watches
it from here: a wall-clock deadline, resident memory, threads, the scratch
folder where the kernel does not bound it, and the reply's size. Whatever
happens, the worker is then killed, its cgroups and scratch folder removed,
and a background thread keeps ``size`` warm workers ready.

A worker is refused (and the template restarted) when its rlimits are not the
ones asked for, by its own report and by the kernel's /proc/<pid>/limits, or
when its JAX opened anything but the CPU (warm_pool.py). Every worker runs on
the CPU alone: the device is the device owner's (playground/owner/).
"""

from __future__ import annotations

import logging
import os
import queue
import socket
import sys
import tempfile
import threading

from playground.ipc import protocol, scratch
from playground.ipc.bootstrap import protect_server_process
from playground.ipc.limits import Limits
from playground.server.pools import mechanisms
from playground.server.pools.cgroups import JobCgroups
from playground.server.pools.handle import LogPipe, WorkerHandle
from playground.server.pools.template_link import TemplateLink
from playground.server.pools.warm_pool import REMOVE_BUDGET_S, WarmPool, WorkerRefused
from playground.server.pools.watch import JobWatch

log = logging.getLogger(__name__)

# A retired worker is dead, so nothing adds to its folder any more: the remover goes on for as long as each round
# removes something (a job's 200,000 empty folders take seconds on an idle disk, and can outlast half a minute on
# a loaded host) and gives up at once where it can remove nothing. This bound is only for a folder that keeps
# growing.
RETIRED_REMOVE_BUDGET_S = 600.0

_CGROUP_HEADROOM_MB = 512  # beyond resident memory and scratch: page tables, pipes, kernel memory


class WorkerPool(WarmPool[WorkerHandle]):
    """Run jobs in single-use sandboxed workers; ``run`` is safe to call from many threads."""

    worker_kind = "sandbox worker"

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
    ) -> None:
        # One spawner: the template forks one worker at a time anyway.
        super().__init__(size, limits, handlers, extra_env=extra_env, acquire_timeout_s=acquire_timeout_s,
                         spawn_timeout_s=spawn_timeout_s, spawners=1)
        self.namespaces = namespaces
        self._link_lock = threading.Lock()
        self._link: TemplateLink | None = None
        self._cgroups: JobCgroups | None = None
        self._removals: queue.Queue[str | None] = queue.Queue()
        self._remover = threading.Thread(target=self._remove_folders, name="sandbox-remover", daemon=True)

    # -- life cycle -------------------------------------------------------

    def start(self, ready_timeout_s: float = 120.0) -> None:
        """Start the template and wait until the first worker is warm (its layers are then known)."""
        if not sys.platform.startswith("linux"):
            raise RuntimeError(
                "the sandbox needs Linux (forking from a template; Landlock and seccomp where the kernel "
                f"has them), not {sys.platform}; on macOS or Windows, use the local process mode (process_pool.py, "
                "the default there) or run it in Docker or WSL 2"
            )
        protect_server_process()
        self._cgroups = JobCgroups()
        self._watch = JobWatch(self.limits, self._cgroups, self._cgroup_memory_mb(), WorkerHandle.exit_report,
                               self._count)
        self._link = TemplateLink(self._env, self._scratch_root, self.spawn_timeout_s, self.handlers)
        self._remover.start()
        self._start_spawning(ready_timeout_s)

    def close(self) -> None:
        """Stop every worker and the template; remove every folder and cgroup this pool made."""
        self._stop_spawning()
        with self._link_lock:
            if self._link is not None:
                self._link.close()
        if self._remover.is_alive():
            self._removals.put(None)
            self._remover.join(timeout=REMOVE_BUDGET_S)
        scratch.remove(self._scratch_root, REMOVE_BUDGET_S)
        if self._cgroups is not None:
            self._cgroups.close()

    def mechanisms(self) -> dict[str, dict]:
        """What bounds processes, disk, memory, tasks and time for each job here, and why anything is missing."""
        return mechanisms.describe(self.layers, self.limits, self._cgroup_memory_mb())

    # -- the sandbox's own checks ---------------------------------------------

    def _usable(self, worker: WorkerHandle) -> bool:
        # A dead template takes its workers with it (PR_SET_PDEATHSIG), a moment after it: none of them is used.
        return not worker.exited() and self._template_alive()

    def _retire(self, worker: WorkerHandle) -> None:
        """Kill the worker, then remove its cgroups and its scratch folder (never trusting what is in it)."""
        worker.destroy()  # and the template has reaped it: its cgroups are empty now
        if self._cgroups is not None:
            self._cgroups.remove(worker.cgroups)
        self._remove_scratch(worker.scratch)

    def _remove_scratch(self, folder: str) -> None:
        try:
            os.rmdir(folder)  # a private tmpfs left nothing on the host: the mount point is empty
        except FileNotFoundError:
            pass
        except OSError:
            self._removals.put(folder)

    def _remove_folders(self) -> None:
        while (folder := self._removals.get()) is not None:
            try:
                if not scratch.remove(folder, RETIRED_REMOVE_BUDGET_S):
                    log.warning("sandbox: could not remove %s (a round removed nothing, or %g s ran out)",
                                folder, RETIRED_REMOVE_BUDGET_S)
            finally:
                self._removals.task_done()

    def status(self) -> dict:
        """WarmPool's counts, and how many retired workers' folders are still being removed."""
        return {**super().status(), "removing": self._removals.unfinished_tasks}

    def _cgroup_memory_mb(self) -> int | None:
        if self._cgroups is None or not self._cgroups.active:
            return None
        return self.limits.memory_mb + self.limits.scratch_mb + _CGROUP_HEADROOM_MB

    # -- keeping workers warm -----------------------------------------------

    def _layers_of(self, worker: WorkerHandle) -> dict[str, dict]:
        link = worker.process.link
        layers = {**worker.hello.get("layers", {}), "pid_namespace": link.pid_namespaces, "pidfd": link.pidfds}
        if self._cgroups is not None and not self._cgroups.active:  # the worker knows only that it got none
            layers["cgroups"] = {"active": False, "detail": self._cgroups.detail}
        return layers

    def _spawn(self) -> WorkerHandle:
        """A new warm worker, locked down, that has said it is ready on the CPU."""
        folder = tempfile.mkdtemp(prefix="job-", dir=self._scratch_root)
        log_pipe = LogPipe()
        server_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        cgroups: list[str] = []
        try:
            if self._cgroups is not None and self._cgroups.active:
                cgroups = self._cgroups.create(self.limits.max_tasks, self._cgroup_memory_mb() * 2**20)
            request = {"scratch": folder, "limits": self.limits.to_dict(), "cgroups": cgroups,
                       "namespaces": self.namespaces}
            with self._link_lock:
                link = self._link
            # A worker whose warm-up fails may have ended, and been reaped, by the time this returns: its handle
            # still says so (a pidfd opened before the template reaped it, or the template's report), and what it
            # said before it ended is still in its socket.
            child = link.spawn(request, [worker_end.fileno(), log_pipe.write_fd])
        except BaseException:
            server_end.close()
            log_pipe.close()
            if self._cgroups is not None:
                self._cgroups.remove(cgroups, wait_s=0)
            self._remove_scratch(folder)
            raise
        finally:
            worker_end.close()
            log_pipe.close_write_end()
        worker = WorkerHandle(process=child, channel=server_end, log=log_pipe, scratch=folder, cgroups=cgroups)
        try:
            server_end.settimeout(self.spawn_timeout_s)
            hello = protocol.receive(server_end, 1 << 20)
            server_end.settimeout(None)
            worker.hello = self._checked_hello(hello)
            problem = worker.limits_problem(self.limits)
            if problem:
                raise WorkerRefused(f"worker {worker.pid} refused: {problem}")
        except BaseException:
            self._retire(worker)
            raise
        return worker

    def _after_failed_spawn(self) -> None:
        """A refused or failed worker may be the template's fault: start a new template."""
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
