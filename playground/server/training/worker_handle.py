"""The server's handle on one training worker process (worker_main.py): start, talk, stop, replace."""

from __future__ import annotations

import select
import signal
import socket
import subprocess
import sys
import time

from playground.mnist.catalogue import DATA_VARIABLES
from playground.sandbox import child_channel, protocol
from playground.sandbox.bootstrap import worker_environment
from playground.sandbox.process_handle import StderrLog

MAX_MESSAGE_BYTES = 16 << 20
WORKER_MODULE = "playground.worker.training.main"


class WorkerDied(RuntimeError):
    """The training worker process exited or broke the protocol."""


class TrainingWorkerHandle:
    """A long-lived ``playground.worker.training.main`` process on one end of a socket pair, training on ``slot``.

    Started lazily, kept between runs (datasets stay loaded, JAX stays warm),
    killed and started afresh when it dies or does not stop in time. Its
    environment is the whitelisted one plus where the data lives: it reads the
    files the server has already fetched and checked.
    """

    def __init__(self, env: dict[str, str], slot: int = 0) -> None:
        self._env = worker_environment(env, {name: env[name] for name in DATA_VARIABLES if env.get(name)})
        self._slot = slot
        self._process: subprocess.Popen | None = None
        self._channel: socket.socket | None = None
        self._log: StderrLog | None = None
        self._buffer = protocol.MessageBuffer(MAX_MESSAGE_BYTES)

    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def ensure_started(self) -> bool:
        """Start the process unless it is running; True when it had to be started."""
        if self.alive():
            return False
        self.kill()
        # Its output still reaches the server's log; the last of it is kept, to name why it died.
        self._process, server_end = child_channel.start(WORKER_MODULE, self._slot, env=self._env,
                                                        stderr=subprocess.PIPE)
        self._log = StderrLog(self._process.stderr, echo=getattr(sys.stderr, "buffer", None))
        self._channel = server_end
        self._buffer = protocol.MessageBuffer(MAX_MESSAGE_BYTES)
        return True

    def send(self, message: dict) -> None:
        try:
            protocol.send(self._channel, message)
        except (OSError, AttributeError):
            raise WorkerDied(self._death()) from None

    def receive(self, timeout_s: float) -> dict | None:
        """The next message, or None when none arrived within ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while True:
            message = self._buffer.feed(b"")
            if message is not None:
                return message
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                if not select.select([self._channel], [], [], remaining)[0]:
                    return None
                chunk = self._channel.recv(1 << 20)
            except (OSError, ValueError, AttributeError):  # reset, or closed under us
                chunk = b""
            if not chunk:
                raise WorkerDied(self._death())
            message = self._buffer.feed(chunk)
            if message is not None:
                return message

    def kill(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def _death(self) -> str:
        """What ended the worker, in words: its exit code or signal, and the last line it wrote (its exception)."""
        if self._process is None:
            return "The training worker is not running."
        try:
            code = self._process.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            return "The training worker closed its connection to the server but did not exit."
        if code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else f"signal {-code}"
            how = f"was killed by {name}" + (" (the kernel's out-of-memory killer sends it when memory runs out, and "
                                              "so does anyone who ends the process)" if -code == signal.SIGKILL else "")
        else:
            how = f"exited with code {code}"
        self._log.close()  # the process is gone: the reader has all it wrote
        last = next((line.strip() for line in reversed(self._log.text().splitlines()) if line.strip()), "")
        return f"The training worker {how}" + (f"; its last words: {last[:500]}" if last else ".")
