"""One device owner process, as the server holds it: started, heard, written to, killed, and why it ended.

Runs in the web server (standard library only). handle.py keeps one of these running and starts another when
one ends; this module knows one process: ``python -I`` running owner/main.py, whose first message is its
set-up and whose hello says whether it opened its device (and if not, JAX's reason).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from playground.ipc import child_channel, procfs, protocol
from playground.ipc.limits import Limits
from playground.mnist.places import DataPlaces
from playground.server.device_owner.accelerator import NO_DEVICE, DevicePaths
from playground.server.pools.process_handle import StderrLog

OWNER_MODULE = "playground.owner.main"
START_TIMEOUT_S = 300.0  # opening a TPU takes seconds, and a loaded CPU host imports JAX slowly
# abseil inside XLA logs each time it may not read a thread's scheduling parameters by thread id (the owner's
# seccomp filter lets a process read only its own, by 0): a line per lock contended, which says nothing.
_NOISE = b"RAW: pthread_getschedparam failed"


def _memory_reader(channel: socket.socket) -> int | None:
    """The owner's /proc/self/smaps, open, where it sent one (main.send_memory_reader), else None."""
    if channel.family == getattr(socket, "AF_UNIX", None):
        data, fds, _flags, _address = socket.recv_fds(channel, 1, 1)
    else:
        data, fds = channel.recv(1), []
    if not data:
        raise EOFError("the owner ended before it started")
    return fds[0] if fds else None


class DeviceUnavailable(RuntimeError):
    """The owner could not open its device (JAX's reason), or could not start at all."""


@dataclass(frozen=True)
class OwnerSetup:
    """What an owner is started with (sent as its first message, less ``env``)."""

    platform: str  # JAX_PLATFORMS: "cpu", "tpu", "cuda"
    sandbox: str  # "full": every layer the host has; "process": the rlimits alone (the local mode)
    scratch: str  # its own folder: dumps, traces
    limits: Limits  # its rlimits (no CPU-time or address-space limit: it lives long, and drivers map much)
    memory_mb: int  # resident memory, the device's mappings left out, before the watchdog kills it
    env: dict[str, str] = field(default_factory=dict)
    devices: DevicePaths = NO_DEVICE
    grants: tuple[str, ...] = ()
    readable: tuple[str, ...] = ()
    writable: tuple[str, ...] = ()  # the compile cache's folder among them, where it could be made
    compile_cache: str = ""  # JAX's compilation cache (owner/compile_cache.py); "" for none
    compile_cache_mb: int = 0
    data: DataPlaces | None = None  # where the datasets are, for the warm-up's (None: it trains nothing ahead)

    def message(self) -> dict:
        sent = asdict(self)
        del sent["env"]
        sent["limits"], sent["devices"] = self.limits.to_dict(), self.devices.to_dict()
        sent["data"] = self.data.to_dict() if self.data is not None else None
        return sent


class OwnerProcess:
    """A started owner whose device is open: ``send``, and every message it sends goes to ``on_message``; when
    its socket closes (it died, or was killed), ``on_end`` is called once."""

    def __init__(self, setup: OwnerSetup, on_message: Callable[[dict], None], on_end: Callable[[], None],
                 timeout_s: float = START_TIMEOUT_S) -> None:
        """Start it and wait for its hello; DeviceUnavailable with its reason when it does not open its device."""
        self._process, self._channel = child_channel.start(OWNER_MODULE, env=setup.env, stdout=subprocess.DEVNULL,
                                                           stderr=subprocess.PIPE, connect_s=timeout_s)
        self._log = StderrLog(self._process.stderr, echo=_Quiet(getattr(sys.stderr, "buffer", None)))
        self._send_lock = threading.Lock()
        self._smaps: int | None = None
        self._smaps_lock = threading.Lock()  # the watchdog reads it while another thread may kill and close it
        try:
            self._channel.settimeout(timeout_s)
            protocol.send(self._channel, setup.message())
            self._smaps = _memory_reader(self._channel)
            hello = protocol.receive(self._channel, 1 << 20)
            self._channel.settimeout(None)
        except (OSError, EOFError, ValueError) as exc:
            self.kill()
            raise DeviceUnavailable(f"the device owner did not start ({exc}); its output ends: "
                                    f"{self._log.text()[-1500:]!r}") from None
        if not isinstance(hello, dict) or not hello.get("ready"):
            self.kill()
            reason = hello.get("reason") if isinstance(hello, dict) else None
            raise DeviceUnavailable(str(reason or "the device owner did not say it was ready"))
        self.hello = hello
        self.pid = self._process.pid
        threading.Thread(target=self._read, args=(on_message, on_end), name="owner-reader", daemon=True).start()

    def send(self, message: dict) -> None:
        """OSError when the owner is gone."""
        with self._send_lock:
            protocol.send(self._channel, message)

    def alive(self) -> bool:
        return self._process.poll() is None

    def resident_mb(self, past_mb: float | None = None) -> float | None:
        """Its resident memory, the device's mappings left out (from the smaps it sent; else by its pid). With
        ``past_mb``: where its whole resident set, the device's mappings in it, is at most that, that figure
        (from /proc/<pid>/stat: microseconds to read), for under it with them is under it without them. Reading
        smaps costs milliseconds of CPU for a JAX process's thousands of lines and walks the owner's page tables:
        four times a second, that slows training on a small host by a few % (docs/development.md's
        measurements)."""
        with self._smaps_lock:
            if not self.alive():
                return None
            whole = procfs.sample(self.pid) if past_mb is not None else None
            if whole is not None and whole.rss_mb <= past_mb:
                return whole.rss_mb
            if self._smaps is not None:
                return procfs.resident_in_open_smaps_mb(self._smaps)
            return procfs.resident_without_devices_mb(self.pid)

    def kill(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        self._channel.close()
        with self._smaps_lock:
            if self._smaps is not None:
                os.close(self._smaps)
                self._smaps = None
        self._log.close()

    def describe_end(self) -> str:
        """How it ended: its exit code and last words, or the signal that killed it."""
        code = self._process.poll()
        if code is None:
            return "its connection closed"
        if code < 0:
            return f"killed by {signal.Signals(-code).name}" if -code in signal.valid_signals() else f"signal {-code}"
        tail = [line for line in self._log.text().splitlines() if line.strip() and _NOISE.decode() not in line][-1:]
        return f"exited with code {code}" + (f": {tail[0][:300]}" if tail else "")

    def _read(self, on_message: Callable[[dict], None], on_end: Callable[[], None]) -> None:
        buffer = protocol.MessageBuffer(protocol.OWNER_MESSAGE_BYTES)
        try:
            while chunk := self._channel.recv(1 << 20):
                message = buffer.feed(chunk)
                while message is not None:  # one chunk may hold several messages
                    if isinstance(message, dict):
                        on_message(message)
                    message = buffer.feed(b"")
        except (OSError, ValueError):  # closed under us, or a message past the limit: the owner is not to be heard
            pass
        on_end()


class _Quiet:
    """The owner's output on its way to the server's log, without abseil's scheduling noise."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self._partial = b""

    def write(self, data: bytes) -> None:
        if self._stream is None:
            return
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        kept = [line for line in lines if _NOISE not in line]
        if kept:
            self._stream.write(b"\n".join(kept) + b"\n")

    def flush(self) -> None:
        if self._stream is not None:
            self._stream.flush()
