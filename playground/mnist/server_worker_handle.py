"""The server's handle on one training worker process (worker_main.py): start, talk, stop, replace."""

from __future__ import annotations

import select
import socket
import subprocess
import time

from playground.mnist.catalogue import DATA_VARIABLES
from playground.sandbox import child_channel, protocol
from playground.sandbox.bootstrap import worker_environment

MAX_MESSAGE_BYTES = 16 << 20


class WorkerDied(RuntimeError):
    """The training worker process exited or broke the protocol."""


class TrainingWorkerHandle:
    """A long-lived ``playground.mnist.worker_main`` process on one end of a socket pair, training on ``slot``.

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
        self._buffer = protocol.MessageBuffer(MAX_MESSAGE_BYTES)

    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def ensure_started(self) -> bool:
        """Start the process unless it is running; True when it had to be started."""
        if self.alive():
            return False
        self.kill()
        self._process, server_end = child_channel.start("playground.mnist.worker_main", self._slot, env=self._env)
        self._channel = server_end
        self._buffer = protocol.MessageBuffer(MAX_MESSAGE_BYTES)
        return True

    def send(self, message: dict) -> None:
        try:
            protocol.send(self._channel, message)
        except (OSError, AttributeError) as exc:
            raise WorkerDied(f"cannot reach the training worker ({exc})") from None

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
            if not select.select([self._channel], [], [], remaining)[0]:
                return None
            chunk = self._channel.recv(1 << 20)
            if not chunk:
                raise WorkerDied(f"the training worker exited ({self._exit_text()})")
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

    def _exit_text(self) -> str:
        if self._process is None:
            return "not running"
        try:
            code = self._process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return "closed its channel"
        return f"signal {-code}" if code < 0 else f"exit code {code}"
