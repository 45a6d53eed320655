"""What both pools of single-use workers share: warm workers ahead of time, one job each, then gone.

The full sandbox (pool.py: forked from a locked-down template) and the local
process mode (process_pool.py: freshly spawned interpreters) differ in how a
worker is made, checked and removed. What a job sees is the same: ``run``
takes a warm worker (or answers "busy" after ``acquire_timeout_s``), sends
the job, watches it (watch.py), and always retires the worker afterwards;
spawner threads keep ``size`` workers warm, backing off when starting one
fails. A subclass supplies ``start``, ``close``, ``mechanisms``, ``_spawn``,
``_retire`` and, where it has more to check or to restart, ``_usable``,
``_layers_of`` and ``_after_failed_spawn``. The server sees a WarmPool as a
``JobPool`` (pool_interface.py), which it declares.
"""

from __future__ import annotations

import abc
import logging
import os
import queue
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from playground.errors import said_error
from playground.ipc import protocol
from playground.ipc.bootstrap import worker_environment
from playground.ipc.limits import Limits
from playground.messages import piece
from playground.server.pools.pool_interface import JobPool
from playground.server.pools.watch import Ask, JobWatch

log = logging.getLogger(__name__)

REMOVE_BUDGET_S = 30.0  # how long removing one scratch folder may take before the pool gives up and says so
_MAX_BACKOFF_S = 10.0


class WorkerRefused(RuntimeError):
    """A new worker does not run under the limits it was asked to, or its JAX opened anything but the CPU."""


class WarmUpFailed(RuntimeError):
    """A new worker could not warm up (its reason, from the worker's own report)."""


# Every worker runs on the CPU (the device is the device owner's, playground/owner/): JAX_PLATFORMS pins it, and a
# worker whose JAX reports another backend is refused, never used for a job.
PLATFORM = "cpu"


Worker = TypeVar("Worker")


class WarmPool(JobPool, abc.ABC, Generic[Worker]):
    """Run jobs in single-use workers kept warm by ``spawners`` threads; ``run`` is safe to call from many threads."""

    worker_kind = "worker"  # how the log names one, e.g. "sandbox worker failed to start: ..."

    def __init__(self, size: int, limits: Limits, handlers: str, *, extra_env: dict[str, str] | None,
                 acquire_timeout_s: float, spawn_timeout_s: float, spawners: int) -> None:
        if size < 1:
            raise ValueError(f"pool size must be at least 1, got {size}")
        self.size, self.limits, self.handlers = size, limits, handlers  # handlers: the module workers run jobs with
        self.acquire_timeout_s, self.spawn_timeout_s = acquire_timeout_s, spawn_timeout_s
        self.layers: dict[str, dict] = {}
        self.backend: dict = {}  # what the newest warm worker's JAX opened: {"backend", "devices"}
        self._env = worker_environment(dict(os.environ), {**(extra_env or {}), "JAX_PLATFORMS": PLATFORM})
        self._idle: queue.Queue[Worker] = queue.Queue()
        self._wake = threading.Event()
        self._closed = threading.Event()
        self._counts_lock = threading.Lock()
        self._counts = {"jobs": 0, "timeouts": 0, "memory_kills": 0, "task_kills": 0, "disk_kills": 0,
                        "crashes": 0, "spawn_failures": 0, "refused_workers": 0}
        self._scratch_root = tempfile.mkdtemp(prefix="jax-playground-")
        self._watch: JobWatch | None = None  # the subclass makes it: it knows how a worker's end is reported
        self._spawners = [threading.Thread(target=self._keep_warm, name=f"{type(self).__name__}-spawner-{n}",
                                           daemon=True) for n in range(spawners)]

    # -- life cycle -------------------------------------------------------

    @abc.abstractmethod
    def start(self) -> None:
        """Start making workers; return once the first is warm (its layers are then known)."""

    def _start_spawning(self, ready_timeout_s: float) -> None:
        """Start the spawner threads and wait until the first worker is warm (its layers are then known)."""
        for spawner in self._spawners:
            spawner.start()
        try:
            first = self._idle.get(timeout=ready_timeout_s)
        except queue.Empty:
            self.close()
            raise RuntimeError(f"no {self.worker_kind} became ready within {ready_timeout_s:g} s") from None
        self._idle.put(first)

    def _stop_spawning(self) -> None:
        """Stop the spawner threads and retire every warm worker."""
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

    @abc.abstractmethod
    def close(self) -> None:
        """Stop every worker; remove every folder (and whatever else) this pool made."""

    @abc.abstractmethod
    def mechanisms(self) -> dict[str, dict]:
        """What bounds each job here, by name, and why anything is missing (mechanisms.py)."""

    def status(self) -> dict:
        """The counts: size, warm workers, whether workers are still made, platform, backend, jobs and their ends."""
        with self._counts_lock:
            counts = dict(self._counts)
        return {"size": self.size, "warm": self._idle.qsize(), "template_alive": self._template_alive(),
                "platform": PLATFORM, **self.backend, **counts}

    # -- running a job ------------------------------------------------------

    def run(self, job: dict, timeout_s: float | None = None, on_early: Callable[[dict], None] | None = None,
            on_ask: Ask | None = None) -> dict:
        """Run one job in a fresh worker; always returns a result dict, never raises for user faults.

        ``timeout_s`` replaces the limits' wall clock for this job (measuring jobs need longer). ``on_early`` is
        called with each reply the worker sends ahead of its final one, ``on_ask`` with each question it asks
        (see JobWatch.watch).
        """
        worker = self._acquire()
        if worker is None:
            return said_error("busy", piece("busy.workers"))
        self._count("jobs")
        try:
            worker.channel.sendall(protocol.encode(job))
            return self._watch.watch(worker, job, timeout_s or self.limits.timeout_s, on_early, on_ask)
        except OSError:
            return self._watch.ended(worker)
        finally:
            self._retire(worker)
            self._wake.set()

    def _acquire(self) -> Worker | None:
        deadline = time.monotonic() + self.acquire_timeout_s
        while (remaining := deadline - time.monotonic()) > 0:
            self._wake.set()
            try:
                worker = self._idle.get(timeout=remaining)
            except queue.Empty:
                return None
            if self._usable(worker):
                return worker
            self._retire(worker)  # died while idle (the OOM killer, its template's end): take the next one
        return None

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
            except Exception as exc:  # keep serving: report, recover where the subclass can, retry
                self._count("refused_workers" if isinstance(exc, WorkerRefused) else "spawn_failures")
                log.warning("%s failed to start: %s", self.worker_kind, exc)
                self._closed.wait(backoff)
                backoff = min(backoff * 2, _MAX_BACKOFF_S)
                self._after_failed_spawn()
                continue
            backoff = 0.5
            if self._closed.is_set():
                self._retire(worker)
                break
            self._keep(worker)

    def _keep(self, worker: Worker) -> None:
        """A new warm worker joins the idle ones; its layers and backend become the pool's report."""
        self.layers = self._layers_of(worker)
        self.backend = dict(worker.hello["backend"])  # said before any user code ran: ours
        self._idle.put(worker)

    def _checked_hello(self, hello: object) -> dict:
        """The worker's hello when it is warm on the CPU; else WarmUpFailed or WorkerRefused."""
        if not isinstance(hello, dict):
            raise RuntimeError("the worker did not say it was ready")
        if not hello.get("ready"):
            raise WarmUpFailed(str(hello.get("warm_up_failed") or "the worker did not say it was ready"))
        opened = (hello.get("backend") or {}).get("backend")
        if opened != PLATFORM:
            raise WorkerRefused(f"its JAX opened {opened!r}, not {PLATFORM!r} (JAX_PLATFORMS={PLATFORM})")
        return hello

    # -- what each kind of pool supplies ------------------------------------

    @abc.abstractmethod
    def _spawn(self) -> Worker:
        """A new warm worker that has said it is ready; raises when none could be made."""

    @abc.abstractmethod
    def _retire(self, worker: Worker) -> None:
        """Kill the worker and remove what it leaves behind (never trusting what is in its scratch folder)."""

    def _usable(self, worker: Worker) -> bool:
        return not worker.exited()

    def _layers_of(self, worker: Worker) -> dict[str, dict]:
        return worker.hello.get("layers", {})

    def _after_failed_spawn(self) -> None:
        """Called after a failed start and its backoff, before the next try."""

    def _template_alive(self) -> bool:
        return any(spawner.is_alive() for spawner in self._spawners)
