"""The server's side of the sandbox: a pool of warm, locked-down, single-use workers.

Workers come from a template process (see template.py). Each job takes a warm
worker, sends it the job, and watches it from here: a wall-clock deadline, a
resident-memory watchdog and a cap on the reply size. Whatever happens, the
worker is then killed and its scratch folder removed; a background thread
keeps ``size`` warm workers ready.
"""

from __future__ import annotations

import ctypes
import json
import logging
import math
import os
import queue
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

from playground.sandbox import protocol
from playground.sandbox.limits import Limits
from playground.usercode import ERROR_KINDS, USER_FILENAME, cap_text, error_dict

log = logging.getLogger(__name__)

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_PR_SET_DUMPABLE = 4
_PASSED_ENV = (
    "PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "JAX_PLATFORMS", "XLA_FLAGS",
    "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
)
_FIXED_ENV = {
    "PYTHONDONTWRITEBYTECODE": "1",
    "TF_CPP_MIN_LOG_LEVEL": "2",
    "XLA_PYTHON_CLIENT_PREALLOCATE": "false",
}
_WATCH_TICK_S = 0.05
_ERROR_EXTRAS = ("title", "explanation", "fix", "doc_url")
_PAGE_MB = os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


def worker_environment(source: dict[str, str], extra: dict[str, str] | None = None) -> dict[str, str]:
    """Only harmless variables reach a worker: no tokens, no keys, no secrets."""
    env = {k: source[k] for k in _PASSED_ENV if k in source}
    env.update(_FIXED_ENV)
    env.update(extra or {})
    return env


def entry_command(module: str, fd: int) -> list[str]:
    """``python -I`` running ``module.main(fd)`` from this checkout: -I keeps the user's site and env paths out."""
    bootstrap = f"import sys; sys.path.insert(0, {_ROOT!r}); from {module} import main; main({fd})"
    return [sys.executable, "-I", "-c", bootstrap]


def protect_server_process() -> None:
    """Non-dumpable: a same-uid process cannot ptrace us or read our /proc/<pid>/environ."""
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


@dataclass
class _Worker:
    pid: int
    pidfd: int
    channel: socket.socket
    scratch: str
    layers: dict

    def exited(self, wait_s: float = 0.0) -> bool:
        return bool(select.select([self.pidfd], [], [], wait_s)[0])

    def signal(self, signum: int) -> None:
        try:
            signal.pidfd_send_signal(self.pidfd, signum)
        except ProcessLookupError:
            pass

    def log_text(self) -> str:
        try:
            with open(os.path.join(self.scratch, protocol.WORKER_LOG_NAME), errors="replace") as f:
                return f.read(1 << 20)
        except OSError:
            return ""

    def rss_mb(self) -> float:
        try:
            with open(f"/proc/{self.pid}/statm") as f:
                return int(f.read().split()[1]) * _PAGE_MB
        except (OSError, IndexError, ValueError):
            return 0.0

    def scratch_mb(self, max_files: int = 10_000) -> float:
        """Disk used in the scratch folder; more than ``max_files`` files counts as full."""
        total, count = 0, 0
        for folder, _dirs, files in os.walk(self.scratch):
            count += len(files)
            if count > max_files:
                return math.inf
            for name in files:
                try:
                    total += os.lstat(os.path.join(folder, name)).st_blocks * 512
                except OSError:
                    pass
        return total / (1024 * 1024)

    def destroy(self) -> None:
        self.signal(signal.SIGKILL)
        self.exited(wait_s=2.0)
        os.close(self.pidfd)
        self.channel.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


def validated(message: object) -> dict:
    """A worker's reply as a well-formed result; user code can write to the channel, so check."""
    refused = error_dict("forbidden", "The worker's reply was not a well-formed result.")
    if not isinstance(message, dict) or not isinstance(message.get("ok"), bool):
        return refused
    if message["ok"]:
        return message
    error = message.get("error")
    if not (isinstance(error, dict) and error.get("kind") in ERROR_KINDS and isinstance(error.get("message"), str)
            and (error.get("line") is None or type(error.get("line")) is int)):
        return refused
    result = error_dict(error["kind"], error["message"], error["line"])
    for key in _ERROR_EXTRAS:  # a tracer error's explanation, fix and documentation link
        if isinstance(error.get(key), str):
            result["error"][key] = cap_text(error[key], 4000)
    return result


class WorkerPool:
    """Run jobs in single-use sandboxed workers; ``run`` is safe to call from many threads."""

    def __init__(
        self,
        size: int,
        limits: Limits,
        *,
        extra_env: dict[str, str] | None = None,
        acquire_timeout_s: float = 30.0,
        spawn_timeout_s: float = 60.0,
    ) -> None:
        if size < 1:
            raise ValueError(f"pool size must be at least 1, got {size}")
        self.size = size
        self.limits = limits
        self.acquire_timeout_s = acquire_timeout_s
        self.spawn_timeout_s = spawn_timeout_s
        self.layers: dict[str, dict] = {}
        self._env = worker_environment(dict(os.environ), extra_env)
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._control_lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = threading.Event()
        self._counts_lock = threading.Lock()
        self._counts = {
            "jobs": 0, "timeouts": 0, "memory_kills": 0, "disk_kills": 0, "crashes": 0, "spawn_failures": 0,
        }
        self._template: subprocess.Popen | None = None
        self._control: socket.socket | None = None
        self._scratch_root = tempfile.mkdtemp(prefix="jax-playground-")
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
        self._start_template()
        self._spawner.start()
        try:
            first = self._idle.get(timeout=ready_timeout_s)
        except queue.Empty:
            self.close()
            raise RuntimeError(f"no sandbox worker became ready within {ready_timeout_s:g} s") from None
        self._idle.put(first)

    def close(self) -> None:
        self._closed.set()
        self._wake.set()
        if self._spawner.is_alive():
            self._spawner.join(timeout=self.spawn_timeout_s)
        while True:
            try:
                self._idle.get_nowait().destroy()
            except queue.Empty:
                break
        self._stop_template()
        shutil.rmtree(self._scratch_root, ignore_errors=True)

    def status(self) -> dict:
        with self._counts_lock:
            counts = dict(self._counts)
        return {"size": self.size, "warm": self._idle.qsize(), "template_alive": self._template_alive(), **counts}

    # -- running a job ------------------------------------------------------

    def run(self, job: dict, timeout_s: float | None = None) -> dict:
        """Run one job in a fresh worker; always returns a result dict, never raises for user faults.

        ``timeout_s`` replaces the limits' wall clock for this job (measuring jobs need longer).
        """
        worker = self._acquire()
        if worker is None:
            return error_dict("busy", "All sandbox workers are busy. Please try again in a moment.")
        self._count("jobs")
        try:
            worker.channel.sendall(protocol.encode(job))
            return self._await_result(worker, timeout_s or self.limits.timeout_s)
        except OSError:
            return self._crash_result(worker)
        finally:
            worker.destroy()
            self._wake.set()

    def _acquire(self) -> _Worker | None:
        deadline = time.monotonic() + self.acquire_timeout_s
        while (remaining := deadline - time.monotonic()) > 0:
            self._wake.set()
            try:
                worker = self._idle.get(timeout=remaining)
            except queue.Empty:
                return None
            if not worker.exited():
                return worker
            worker.destroy()  # died while idle (e.g. the OOM killer): take the next one
        return None

    def _await_result(self, worker: _Worker, timeout_s: float) -> dict:
        limits = self.limits
        buffer = protocol.MessageBuffer(limits.message_bytes)
        deadline = time.monotonic() + timeout_s
        while (remaining := deadline - time.monotonic()) > 0:
            if select.select([worker.channel], [], [], min(_WATCH_TICK_S, remaining))[0]:
                chunk = worker.channel.recv(1 << 20)
                if not chunk:
                    return self._crash_result(worker)
                try:
                    message = buffer.feed(chunk)
                except (protocol.MessageTooLarge, ValueError) as exc:
                    return error_dict("forbidden", f"The worker's reply was refused: {exc}.")
                if message is not None:
                    return validated(message)
            if worker.rss_mb() > limits.memory_mb:
                self._count("memory_kills")
                return error_dict("memory", f"Out of memory: the job used more than {limits.memory_mb} MB "
                                  "and was stopped.", self._last_user_line(worker))
            if worker.scratch_mb() > limits.scratch_mb:
                self._count("disk_kills")
                return error_dict("memory", f"Out of space: the job wrote more than {limits.scratch_mb} MB "
                                  "to its scratch folder and was stopped.", self._last_user_line(worker))
        self._count("timeouts")
        line = self._last_user_line(worker)
        where = f" It was at line {line} of your code." if line else ""
        return error_dict(
            "timeout",
            f"Time limit: your code ran longer than {timeout_s:g} s and was stopped.{where} "
            "Look for a loop that never ends (a jitted lax.while_loop cannot be interrupted, only killed).",
            line,
        )

    def _last_user_line(self, worker: _Worker) -> int | None:
        """Ask the worker's faulthandler where it is, before it is killed."""
        worker.signal(signal.SIGUSR1)
        time.sleep(0.15)
        lines = re.findall(rf'File "{re.escape(USER_FILENAME)}", line (\d+)', worker.log_text())
        return int(lines[0]) if lines else None

    def _crash_result(self, worker: _Worker) -> dict:
        self._count("crashes")
        worker.exited(wait_s=1.0)
        text = worker.log_text()
        log.warning("sandbox worker %d ended without a result; its log ends:\n%s", worker.pid, text[-2000:])
        if re.search(r"bad_alloc|[Oo]ut of memory|RESOURCE_EXHAUSTED|Cannot allocate memory", text):
            return error_dict("memory", "Out of memory: the worker ran out of memory and stopped.")
        fatal = re.search(r"Fatal Python error: ([^\n]+)", text)
        reason = fatal.group(1).strip() if fatal else "it exited without a result"
        return error_dict(
            "crashed",
            f"The worker running your code crashed ({reason}). It was replaced; nothing else was affected.",
        )

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
                self._count("spawn_failures")
                log.warning("sandbox worker failed to start: %s", exc)
                self._closed.wait(backoff)
                backoff = min(backoff * 2, 10.0)
                self._restart_template()
                continue
            backoff = 0.5
            if self._closed.is_set():
                worker.destroy()
                break
            self.layers = worker.layers
            self._idle.put(worker)

    def _spawn(self) -> _Worker:
        scratch = tempfile.mkdtemp(prefix="job-", dir=self._scratch_root)
        server_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with self._control_lock:
                request = json.dumps({"scratch": scratch, "limits": self.limits.to_dict()}).encode()
                socket.send_fds(self._control, [request], [worker_end.fileno()])
                reply = json.loads(self._control.recv(1 << 16) or b"{}")
            pid = reply["pid"]
            pidfd = os.pidfd_open(pid)
        except BaseException:
            server_end.close()
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        finally:
            worker_end.close()
        worker = _Worker(pid=pid, pidfd=pidfd, channel=server_end, scratch=scratch, layers={})
        try:
            server_end.settimeout(self.spawn_timeout_s)
            hello = protocol.receive(server_end, 1 << 20)
            server_end.settimeout(None)
            worker.layers = hello["layers"]
        except BaseException:
            worker.destroy()
            raise
        return worker

    def _start_template(self) -> None:
        parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._template = subprocess.Popen(
            entry_command("playground.sandbox.template", child_end.fileno()),
            env=self._env, pass_fds=[child_end.fileno()], start_new_session=True,
            stdin=subprocess.DEVNULL, cwd=self._scratch_root,
        )
        child_end.close()
        parent_end.settimeout(self.spawn_timeout_s)
        hello = json.loads(parent_end.recv(1 << 16) or b"{}")
        if not hello.get("ready"):
            raise RuntimeError("the sandbox template process failed to start")
        parent_end.settimeout(self.spawn_timeout_s)
        self._control = parent_end

    def _stop_template(self) -> None:
        with self._control_lock:
            if self._control is not None:
                self._control.close()
                self._control = None
            if self._template is not None:
                self._template.kill()
                self._template.wait()

    def _restart_template(self) -> None:
        if self._closed.is_set():
            return
        self._stop_template()
        try:
            self._start_template()
        except Exception as exc:
            log.warning("sandbox template failed to start: %s", exc)

    def _template_alive(self) -> bool:
        return self._template is not None and self._template.poll() is None
