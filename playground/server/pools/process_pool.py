"""The local process mode's pool: single-use workers, each a freshly spawned interpreter, kept warm ahead of time.

For one's own laptop, where the OS has no fork-from-template, Landlock or
seccomp (macOS, Windows), and on Linux when asked (``PLAYGROUND_SANDBOX=process``).
User code still never runs in the server's process: each job gets a new
``python -I`` (worker/life/spawned.py) that has imported JAX and warmed up before
the job arrives, runs that one job and is killed. The server watches it with
the same watchdogs as the full sandbox's (watch.py: wall clock, resident memory,
threads, the scratch folder, the reply's size) and the worker sets the rlimits
its OS has. What a job sees is WarmPool's (warm_pool.py), as in the full
sandbox: start, run, close, status, mechanisms, layers.

This is process isolation only: a job runs as the user, and can read what the
user can. Hence this mode serves 127.0.0.1 alone unless told otherwise
(server/config.py), and the page says so.
"""

from __future__ import annotations

import logging
import socket
import subprocess
import tempfile

from playground.ipc import child_channel, protocol, scratch
from playground.ipc.limits import Limits
from playground.server.pools import mechanisms
from playground.server.pools.process_handle import SpawnedWorker, StderrLog
from playground.server.pools.warm_pool import REMOVE_BUDGET_S, WarmPool, WarmUpFailed, WorkerRefused
from playground.server.pools.watch import JobWatch

log = logging.getLogger(__name__)

_WORKER_MODULE = "playground.worker.life.spawned"


class ProcessPool(WarmPool[SpawnedWorker]):
    """Run jobs in single-use spawned workers; ``run`` is safe to call from many threads."""

    worker_kind = "worker process"

    def __init__(self, size: int, limits: Limits, handlers: str, *, extra_env: dict[str, str] | None = None,
                 acquire_timeout_s: float = 60.0, spawn_timeout_s: float = 120.0,
                 channel: str = child_channel.DEFAULT) -> None:
        if channel not in child_channel.KINDS:
            raise ValueError(f"channel must be one of {child_channel.KINDS}, got {channel!r}")
        super().__init__(size, limits, handlers, extra_env=extra_env, acquire_timeout_s=acquire_timeout_s,
                         spawn_timeout_s=spawn_timeout_s,
                         spawners=min(size, 2))  # two at a time: a spawn is mostly JAX's import
        self.channel = channel
        self._watch = JobWatch(limits, None, None, SpawnedWorker.exit_report, self._count)

    def start(self, ready_timeout_s: float = 180.0) -> None:
        """Start spawning, and wait until the first worker is warm (its layers are then known)."""
        self._start_spawning(ready_timeout_s)

    def close(self) -> None:
        """Stop every worker; remove every folder this pool made."""
        self._stop_spawning()
        scratch.remove(self._scratch_root, REMOVE_BUDGET_S)

    def mechanisms(self) -> dict[str, dict]:
        """What bounds each job here: process isolation and watchdogs, and what this mode lacks."""
        return mechanisms.describe_process_mode(self.layers, self.limits)

    def _retire(self, worker: SpawnedWorker) -> None:
        worker.destroy()
        if not scratch.remove(worker.scratch, REMOVE_BUDGET_S):
            log.warning("sandbox: could not remove %s within %g s", worker.scratch, REMOVE_BUDGET_S)

    def _spawn(self) -> SpawnedWorker:
        folder = tempfile.mkdtemp(prefix="job-", dir=self._scratch_root)
        try:
            process, channel = self._start_process()
        except BaseException:
            scratch.remove(folder, REMOVE_BUDGET_S)
            raise
        worker = SpawnedWorker(process=process, channel=channel, log=StderrLog(process.stderr), scratch=folder)
        try:
            channel.settimeout(self.spawn_timeout_s)
            protocol.send(channel, {"scratch": folder, "limits": self.limits.to_dict()})
            hello = protocol.receive(channel, 1 << 20)
            channel.settimeout(None)
            worker.hello = self._checked_hello(hello)
        except BaseException as exc:
            output = worker.log.text()[-2000:]
            self._retire(worker)
            if isinstance(exc, (WarmUpFailed, WorkerRefused)):
                raise
            if isinstance(exc, Exception):
                raise RuntimeError(f"{exc}; its output ends: {output!r}") from exc
            raise
        return worker

    def _start_process(self) -> tuple[subprocess.Popen, socket.socket]:
        """The worker's process and the server's end of its channel."""
        return child_channel.start(_WORKER_MODULE, self.handlers, env=self._env, kind=self.channel,
                                   connect_s=self.spawn_timeout_s, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
