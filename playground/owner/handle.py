"""The server's end of the device owner: start it, relay a session's requests, watch it, kill and restart it.

Runs in the web server (standard library only; no JAX). One ``DeviceOwner`` per
accelerator: the only process that ever opens it. Its watchdog kills the owner
when a request runs past the time its job has left (an endless ``lax.while_loop``,
a compile that never ends: a device cannot be interrupted, only its process ended),
when its resident memory passes its limit (counted without the device's own
mappings: libtpu maps its chip's ~8 GB windows and a CUDA driver its device memory
into the process, which are not RAM; sandbox/procfs.py), or when it dies; a new
owner is then started at once, and the session that was running hears why
(``OwnerLost``, with a catalogue piece for the job's error). Sessions that wait
in the server's line behind it run on the new owner.
"""

from __future__ import annotations

import itertools
import logging
import queue
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field

from playground.sandbox import child_channel, procfs, protocol, scratch
from playground.sandbox.accelerator import NO_DEVICE, DevicePaths
from playground.sandbox.limits import Limits
from playground.sandbox.process_handle import StderrLog

log = logging.getLogger(__name__)

OWNER_MODULE = "playground.owner.main"
MAX_MESSAGE_BYTES = 64 << 20
WATCH_EVERY_S = 0.25
START_TIMEOUT_S = 300.0  # opening a TPU took up to 16 s, and a loaded CPU host imports JAX slowly


class DeviceUnavailable(RuntimeError):
    """The owner could not open its device (JAX's reason), or could not start at all."""


class OwnerLost(RuntimeError):
    """The owner ended while a session's request ran: ``piece`` says why (a catalogue piece), ``kind`` the error's."""

    def __init__(self, kind: str, piece: list) -> None:
        super().__init__(kind)
        self.kind, self.piece = kind, piece


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
    writable: tuple[str, ...] = ()

    def message(self) -> dict:
        sent = asdict(self)
        del sent["env"]
        sent["limits"], sent["devices"] = self.limits.to_dict(), self.devices.to_dict()
        return sent


class DeviceOwner:
    """One owner process at a time, restarted when it ends; ``ask`` is safe from several threads."""

    def __init__(self, setup: OwnerSetup, start_timeout_s: float = START_TIMEOUT_S) -> None:
        self.setup = setup
        self.start_timeout_s = start_timeout_s
        self.hello: dict = {}
        self.restarts = 0
        self.last_end: str | None = None  # why the last owner ended, for About
        self._ids = itertools.count(1)
        self._lock = threading.Lock()  # one request at a time on the socket
        self._changed = threading.Condition()
        self._process: subprocess.Popen | None = None
        self._channel = None
        self._log: StderrLog | None = None
        self._answers: dict[int, dict] = {}
        self._runs: dict[int, TrainingStream] = {}  # the training runs on the running owner, by number
        self._send_lock = threading.Lock()
        self._generation = 0
        self._ending: OwnerLost | None = None  # why the running owner is being killed (the watchdog's verdict)
        self._closed = False
        self._ready = threading.Event()
        self._wanted = threading.Event()  # set when the owner ended and a new one is to be started
        self._watch: threading.Thread | None = None

    # -- life ---------------------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the owner and wait until its device is open; DeviceUnavailable (JAX's reason) when it cannot be.

        Every owner is started by one thread that lives as long as this handle (``_keep``): an owner dies with the
        thread that started it (``PR_SET_PDEATHSIG`` is the starting thread's, not the server process's).
        """
        first: list = []
        started = threading.Event()
        threading.Thread(target=self._keep, args=(first, started), name="owner-keeper", daemon=True).start()
        started.wait()
        if first:
            raise first[0]
        self._watch = threading.Thread(target=self._watchdog, name="owner-watchdog", daemon=True)
        self._watch.start()

    def close(self) -> None:
        """End the owner; remove its scratch folder (as a job's is removed: never trusting what is in it)."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        self._wanted.set()
        self._kill()
        scratch.remove(self.setup.scratch, 30.0)

    def wait_ready(self, timeout_s: float) -> bool:
        return self._ready.wait(timeout_s)

    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None and self._ready.is_set()

    def status(self) -> dict:
        return {"alive": self.alive(), "pid": self._process.pid if self._process else None,
                "restarts": self.restarts, "last_end": self.last_end,
                "resident_mb": self._resident_mb()}

    # -- sessions -----------------------------------------------------------------------------------------------

    def open_session(self) -> int:
        """A new session on the running owner; its number (OwnerLost when the owner is not running)."""
        session = next(self._ids)
        self._exchange({"open": session}, 60.0)
        return session

    def close_session(self, session: int) -> None:
        try:
            self._exchange({"close": session}, 60.0)
        except OwnerLost:
            pass  # the owner that held it is gone, and with it the session

    def ask(self, session: int, request: dict, timeout_s: float) -> dict:
        """The owner's answer to one of ``session``'s requests; OwnerLost when the owner ended first, killed after
        ``timeout_s`` (the time the job has left) or by the watchdog."""
        return self._exchange({"session": session, "request": request}, timeout_s).get("reply", {})

    # -- training runs ------------------------------------------------------------------------------------------

    def train(self, order: dict) -> TrainingStream:
        """Start a training run (training/runs.py's order, less its number); its stream of messages."""
        with self._changed:
            if not self._ready.is_set() or self._channel is None:
                raise OwnerLost("crashed", ["device.restarting", {}])
            stream = TrainingStream(self, next(self._ids), self._generation)
            self._runs[stream.run] = stream
        self._send({"train": {**order, "run": stream.run}}, stream.generation)
        return stream

    def _stop_run(self, stream: TrainingStream) -> None:
        self._send({"stop": stream.run}, stream.generation)

    def _forget_run(self, stream: TrainingStream) -> None:
        with self._changed:
            self._runs.pop(stream.run, None)

    # -- the socket -------------------------------------------------------------------------------------------

    def _send(self, message: dict, generation: int) -> None:
        with self._send_lock:
            channel = self._channel
            if channel is None or generation != self._generation:
                raise self._lost(generation)
            try:
                protocol.send(channel, message)
            except OSError:
                raise self._lost(generation) from None

    def _exchange(self, message: dict, timeout_s: float) -> dict:
        with self._lock:
            with self._changed:
                if not self._ready.is_set() or self._channel is None:
                    raise OwnerLost("crashed", ["device.restarting", {}])
                generation = self._generation
                number = next(self._ids)
            self._send({"id": number, **message}, generation)
            return self._await(number, generation, timeout_s)

    def _await(self, number: int, generation: int, timeout_s: float) -> dict:
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while number not in self._answers:
                if self._generation != generation or self._closed:
                    raise self._lost(generation)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self._ending = OwnerLost("timeout", ["device.timeout", {"seconds": f"{timeout_s:,.0f}"}])
                    break
                self._changed.wait(min(remaining, WATCH_EVERY_S))
            else:
                return self._answers.pop(number)
        self._kill_and_restart(generation)
        raise self._lost(generation)

    def _lost(self, generation: int) -> OwnerLost:
        """Why the owner of ``generation`` is gone (waiting a moment for the watchdog to say, if it is the one)."""
        with self._changed:
            self._changed.wait_for(lambda: self._generation != generation or self._closed, timeout=5.0)
            return self._ending or OwnerLost("crashed", ["device.crashed", {"why": self.last_end or "?"}])

    # -- the process --------------------------------------------------------------------------------------------

    def _start_one(self) -> None:
        process, channel = child_channel.start(OWNER_MODULE, env=self.setup.env, stdout=subprocess.DEVNULL,
                                               stderr=subprocess.PIPE, connect_s=self.start_timeout_s)
        log_ = StderrLog(process.stderr, echo=getattr(sys.stderr, "buffer", None))
        try:
            channel.settimeout(self.start_timeout_s)
            protocol.send(channel, self.setup.message())
            hello = protocol.receive(channel, 1 << 20)
            channel.settimeout(None)
        except (OSError, EOFError, ValueError) as exc:
            process.kill()
            process.wait()
            raise DeviceUnavailable(f"the device owner did not start ({exc}); its output ends: "
                                    f"{log_.text()[-1500:]!r}") from None
        if not isinstance(hello, dict) or not hello.get("ready"):
            process.kill()
            process.wait()
            reason = hello.get("reason") if isinstance(hello, dict) else None
            raise DeviceUnavailable(str(reason or "the device owner did not say it was ready"))
        with self._changed:
            self._process, self._channel, self._log, self.hello = process, channel, log_, hello
            self._ending = None
            self._ready.set()
        threading.Thread(target=self._read, args=(channel, self._generation), name="owner-reader",
                         daemon=True).start()

    def _read(self, channel, generation: int) -> None:
        buffer = protocol.MessageBuffer(MAX_MESSAGE_BYTES)
        while True:
            try:
                chunk = channel.recv(1 << 20)
                message = buffer.feed(chunk) if chunk else None
            except (OSError, ValueError):
                chunk = b""
            if not chunk:
                self._ended(generation)
                return
            while message is not None:
                with self._changed:
                    if isinstance(message, dict) and isinstance(message.get("id"), int):
                        self._answers[message["id"]] = message
                        self._changed.notify_all()
                    elif isinstance(message, dict) and message.get("run") in self._runs:
                        self._runs[message["run"]].messages.put(message)
                try:
                    message = buffer.feed(b"")
                except ValueError:
                    self._ended(generation)
                    return

    def _ended(self, generation: int) -> None:
        """The owner's socket closed: it died (or was killed). Restart it, unless the server is closing."""
        self._kill_and_restart(generation)

    def _abandon(self, generation: int) -> None:
        with self._changed:
            self._ending = OwnerLost("timeout", ["device.training_hung", {}])
        self._kill_and_restart(generation)

    def _kill_and_restart(self, generation: int) -> None:
        with self._changed:
            if self._generation != generation:
                return  # another thread saw this end first
            process = self._process
            self._ready.clear()
            self._generation += 1
            self._answers.clear()
            for stream in self._runs.values():
                stream.messages.put(None)  # the run ended with its owner
            self._runs.clear()
            self._changed.notify_all()
        if process is not None:
            self.last_end = self._describe_end(process)
            log.warning("device owner ended: %s", self.last_end)
        self._kill()
        self._wanted.set()

    def _keep(self, first: list, started: threading.Event) -> None:
        """Start the first owner (or fail, said in ``first``), then start a new one each time one ends."""
        try:
            self._start_one()
        except DeviceUnavailable as exc:
            first.append(exc)
            return
        finally:
            started.set()
        while True:
            self._wanted.wait()
            self._wanted.clear()
            backoff = 1.0
            while not self._closed:
                try:
                    self._start_one()
                    self.restarts += 1
                    break
                except DeviceUnavailable as exc:
                    log.warning("device owner could not restart: %s", exc)
                    time.sleep(backoff)
                    backoff = min(backoff * 2, 30.0)
            if self._closed:
                return

    def _describe_end(self, process: subprocess.Popen) -> str:
        if self._ending is not None:
            return f"killed ({self._ending.kind})"
        code = process.poll()
        if code is None:
            return "its connection closed"
        if code < 0:
            return f"killed by {signal.Signals(-code).name}" if -code in signal.valid_signals() else f"signal {-code}"
        tail = self._log.text().strip().splitlines()[-1:] if self._log else []
        return f"exited with code {code}" + (f": {tail[0][:300]}" if tail else "")

    def _kill(self) -> None:
        with self._changed:
            process, channel, log_ = self._process, self._channel, self._log
            self._process = self._channel = self._log = None
        if process is not None and process.poll() is None:
            process.kill()
        if process is not None:
            process.wait()
        if channel is not None:
            channel.close()
        if log_ is not None:
            log_.close()

    def _resident_mb(self) -> float | None:
        process = self._process
        return None if process is None else procfs.resident_without_devices_mb(process.pid)

    def _watchdog(self) -> None:
        while not self._closed:
            time.sleep(WATCH_EVERY_S)
            with self._changed:
                process, generation = self._process, self._generation
            if process is None or not self._ready.is_set():
                continue
            held = procfs.resident_without_devices_mb(process.pid)
            if held is not None and held > self.setup.memory_mb:
                with self._changed:
                    self._ending = OwnerLost("memory", ["device.memory", {"held": f"{held:,.0f}",
                                                                          "limit": f"{self.setup.memory_mb:,}"}])
                self._kill_and_restart(generation)


class TrainingStream:
    """One training run's messages from the owner (``receive``), and its stop."""

    def __init__(self, owner: DeviceOwner, run: int, generation: int) -> None:
        self._owner, self.run, self.generation = owner, run, generation
        self.messages: queue.Queue[dict | None] = queue.Queue()

    def receive(self, timeout_s: float) -> dict | None:
        """The run's next message, None when none came within ``timeout_s``; OwnerLost when the owner ended."""
        try:
            message = self.messages.get(timeout=timeout_s)
        except queue.Empty:
            return None
        if message is None:
            raise self._owner._lost(self.generation)
        return message

    def stop(self) -> None:
        self._owner._stop_run(self)

    def close(self) -> None:
        self._owner._forget_run(self)

    def abandon(self) -> None:
        """The run did not stop when asked: its owner is killed and started again (a hung device is the owner's)."""
        self._owner._abandon(self.generation)
