"""The server's handle on one spawned worker of the local process mode: its process, its socket, its stderr.

The methods JobWatch (watch.py) calls, as WorkerHandle (handle.py) has them
for the full sandbox, with what any OS offers: the process's exit status
instead of the template's wait report, psutil's figures where there is no
/proc, a reader thread instead of a non-blocking pipe.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
from dataclasses import dataclass, field

from playground.ipc import procfs
from playground.ipc.procfs import Sample


class StderrLog:
    """The worker's stderr (and stdout, which it points there): read by a thread, the last 64 KB kept.

    A worker that writes without pause costs the server one thread's reads and 64 KB, never more.
    """

    KEEP = 64 * 1024

    def __init__(self, stream, echo=None) -> None:
        """``echo``: a binary stream that gets a copy of everything read (the server's own stderr, for its log)."""
        self._stream = stream
        self._echo = echo
        self._kept = bytearray()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, name="worker-stderr", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            while chunk := self._stream.read1(1 << 16):
                with self._lock:
                    self._kept += chunk
                    del self._kept[:-self.KEEP]
                if self._echo is not None:
                    self._echo.write(chunk)
                    self._echo.flush()
        except (OSError, ValueError):  # closed under us: the worker is gone
            return

    def drain(self) -> None:
        """Nothing to do: the thread reads as the worker writes (the same call as LogPipe's)."""

    def text(self) -> str:
        with self._lock:
            return self._kept.decode("utf-8", "replace")

    def close(self) -> None:
        self._reader.join(timeout=1.0)  # the worker is dead: its end is closed, the reader sees EOF
        self._stream.close()


@dataclass
class SpawnedWorker:
    """The server's handle on one spawned worker: the methods JobWatch uses, as WorkerHandle has them."""

    process: subprocess.Popen
    channel: socket.socket
    log: StderrLog
    scratch: str
    hello: dict = field(default_factory=dict)
    last: Sample | None = None
    cgroups: list[str] = field(default_factory=list)  # none: this mode has no cgroups
    private_scratch: bool = False  # never a tmpfs of its own: the server walks the folder

    @property
    def pid(self) -> int:
        return self.process.pid

    def exited(self, wait_s: float = 0.0) -> bool:
        try:
            self.process.wait(timeout=wait_s)
            return True
        except subprocess.TimeoutExpired:
            return False

    def ask_where(self) -> bool:
        if not hasattr(signal, "SIGUSR1") or self.process.poll() is not None:
            return False  # Windows has no such signal: the verdict then names no line
        try:
            os.kill(self.pid, signal.SIGUSR1)
        except ProcessLookupError:  # it ended just now
            return False
        return True

    def kill(self) -> None:
        if self.process.poll() is not None:
            return
        if hasattr(os, "killpg"):
            try:
                os.killpg(self.pid, signal.SIGKILL)  # the worker leads a session of its own: all of it goes
                return
            except (ProcessLookupError, PermissionError):
                pass
        self.process.kill()

    def sample(self) -> Sample | None:
        reading = procfs.sample(self.pid) if self.process.poll() is None else None
        self.last = reading or self.last
        return reading

    def exit_report(self) -> dict | None:
        """How it ended, from the OS's exit status: ``{"code": "exited" | "killed", "status"}``."""
        code = self.process.returncode
        if code is None:
            return None
        return {"code": "killed", "status": -code} if code < 0 else {"code": "exited", "status": code}

    def destroy(self) -> None:
        self.kill()
        self.exited(wait_s=5.0)
        self.channel.close()
        self.log.close()
