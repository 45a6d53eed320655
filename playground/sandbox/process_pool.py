"""The local process mode's pool: single-use workers, each a freshly spawned interpreter, kept warm ahead of time.

For one's own laptop, where the OS has no fork-from-template, Landlock or
seccomp (macOS, Windows), and on Linux when asked (``PLAYGROUND_SANDBOX=process``).
User code still never runs in the server's process: each job gets a new
``python -I`` (process_worker.py) that has imported JAX and warmed up before
the job arrives, runs that one job and is killed. The server watches it with
the same watchdogs as the full sandbox's (watch.py: wall clock, resident memory,
threads, the scratch folder, the reply's size) and the worker sets the rlimits
its OS has. The interface is WorkerPool's (pool.py): start, run, close,
status, mechanisms, layers.

This is process isolation only: a job runs as the user, and can read what the
user can. Hence this mode serves 127.0.0.1 alone unless told otherwise
(config.py), and the page says so.
"""

from __future__ import annotations

import logging
import os
import queue
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable

from playground.errors import said_error
from playground.messages import piece
from playground.sandbox import child_channel, mechanisms, protocol, scratch
from playground.sandbox.bootstrap import worker_environment
from playground.sandbox.limits import Limits
from playground.sandbox.process_handle import SpawnedWorker, StderrLog
from playground.sandbox.watch import JobWatch

log = logging.getLogger(__name__)

_REMOVE_BUDGET_S = 30.0
_WORKER_MODULE = "playground.sandbox.process_worker"


class ProcessPool:
    """Run jobs in single-use spawned workers; ``run`` is safe to call from many threads."""

    def __init__(self, size: int, limits: Limits, handlers: str, *, extra_env: dict[str, str] | None = None,
                 acquire_timeout_s: float = 60.0, spawn_timeout_s: float = 120.0,
                 channel: str = child_channel.DEFAULT) -> None:
        if size < 1:
            raise ValueError(f"pool size must be at least 1, got {size}")
        if channel not in child_channel.KINDS:
            raise ValueError(f"channel must be one of {child_channel.KINDS}, got {channel!r}")
        self.size, self.limits, self.handlers, self.channel = size, limits, handlers, channel
        self.acquire_timeout_s, self.spawn_timeout_s = acquire_timeout_s, spawn_timeout_s
        self.layers: dict[str, dict] = {}
        self._env = worker_environment(dict(os.environ), extra_env)
        self._idle: queue.Queue[SpawnedWorker] = queue.Queue()
        self._wake = threading.Event()
        self._closed = threading.Event()
        self._counts_lock = threading.Lock()
        self._counts = {"jobs": 0, "timeouts": 0, "memory_kills": 0, "task_kills": 0, "disk_kills": 0,
                        "crashes": 0, "spawn_failures": 0, "refused_workers": 0}
        self._scratch_root = tempfile.mkdtemp(prefix="jax-playground-")
        self._watch = JobWatch(limits, None, None, SpawnedWorker.exit_report, self._count)
        self._spawners = [threading.Thread(target=self._keep_warm, name=f"process-spawner-{n}", daemon=True)
                          for n in range(min(size, 2))]  # two at a time: a spawn is mostly JAX's import

    # -- life cycle -------------------------------------------------------

    def start(self, ready_timeout_s: float = 180.0) -> None:
        """Start spawning, and wait until the first worker is warm (its layers are then known)."""
        for spawner in self._spawners:
            spawner.start()
        try:
            first = self._idle.get(timeout=ready_timeout_s)
        except queue.Empty:
            self.close()
            raise RuntimeError(f"no worker process became ready within {ready_timeout_s:g} s") from None
        self._idle.put(first)

    def close(self) -> None:
        """Stop every worker; remove every folder this pool made."""
        self._closed.set()
        self._wake.set()
        for spawner in self._spawners:
            if spawner.is_alive():
                spawner.join(timeout=self.spawn_timeout_s)
        while True:
            try:
                self._retire(self._idle.get_nowait())
            except queue.Empty:
                break
        scratch.remove(self._scratch_root, _REMOVE_BUDGET_S)

    def status(self) -> dict:
        with self._counts_lock:
            counts = dict(self._counts)
        alive = any(spawner.is_alive() for spawner in self._spawners)
        return {"size": self.size, "warm": self._idle.qsize(), "template_alive": alive, **counts}

    def mechanisms(self) -> dict[str, dict]:
        """What bounds each job here: process isolation and watchdogs, and what this mode lacks."""
        return mechanisms.describe_process_mode(self.layers, self.limits)

    # -- running a job ------------------------------------------------------

    def run(self, job: dict, timeout_s: float | None = None, on_early: Callable[[dict], None] | None = None) -> dict:
        """Run one job in a fresh worker; always returns a result dict, never raises for user faults."""
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

    def _acquire(self) -> SpawnedWorker | None:
        deadline = time.monotonic() + self.acquire_timeout_s
        while (remaining := deadline - time.monotonic()) > 0:
            self._wake.set()
            try:
                worker = self._idle.get(timeout=remaining)
            except queue.Empty:
                return None
            if not worker.exited():
                return worker
            self._retire(worker)  # died while idle: take the next one
        return None

    def _retire(self, worker: SpawnedWorker) -> None:
        worker.destroy()
        if not scratch.remove(worker.scratch, _REMOVE_BUDGET_S):
            log.warning("sandbox: could not remove %s within %g s", worker.scratch, _REMOVE_BUDGET_S)

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
            except Exception as exc:  # keep serving: report and retry
                self._count("spawn_failures")
                log.warning("worker process failed to start: %s", exc)
                self._closed.wait(backoff)
                backoff = min(backoff * 2, 10.0)
                continue
            backoff = 0.5
            if self._closed.is_set():
                self._retire(worker)
                break
            self.layers = worker.hello.get("layers", {})
            self._idle.put(worker)

    def _spawn(self) -> SpawnedWorker:
        folder = tempfile.mkdtemp(prefix="job-", dir=self._scratch_root)
        try:
            process, channel = self._start_process()
        except BaseException:
            scratch.remove(folder, _REMOVE_BUDGET_S)
            raise
        worker = SpawnedWorker(process=process, channel=channel, log=StderrLog(process.stderr), scratch=folder)
        try:
            channel.settimeout(self.spawn_timeout_s)
            protocol.send(channel, {"scratch": folder, "limits": self.limits.to_dict()})
            hello = protocol.receive(channel, 1 << 20)
            channel.settimeout(None)
            if not isinstance(hello, dict) or not hello.get("ready"):
                raise RuntimeError("the worker did not say it was ready")
            worker.hello = hello
        except BaseException as exc:
            output = worker.log.text()[-2000:]
            self._retire(worker)
            if isinstance(exc, Exception):
                raise RuntimeError(f"{exc}; its output ends: {output!r}") from exc
            raise
        return worker

    def _start_process(self) -> tuple[subprocess.Popen, socket.socket]:
        """The worker's process and the server's end of its channel."""
        return child_channel.start(_WORKER_MODULE, self.handlers, env=self._env, kind=self.channel,
                                   connect_s=self.spawn_timeout_s, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
