"""The server's end of the device owner: keep one running, relay sessions' requests and training runs, watch it.

Runs in the web server (standard library only; no JAX). One ``DeviceOwner`` per host: the only process that
ever opens its accelerator (process.py starts one). Its watchdog kills the owner when a request runs past the
time its job has left, counted from when the owner began it (an endless ``lax.while_loop``, a compile that never
ends: a device cannot be interrupted, only its process ended), when its resident memory passes its limit (counted
without the device's own mappings: libtpu maps its chip's ~8 GB windows and a CUDA driver its device memory into
the process, which are not RAM; ipc/procfs.py), or when it dies; a new owner is then started at once, and the
session or training run that was on it hears why (``OwnerLost``, with a catalogue piece for the job's error).
Sessions that wait in the server's line behind it run on the new owner.
"""

from __future__ import annotations

import itertools
import logging
import math
import threading
import time

from playground.ipc import scratch
from playground.mnist.config import TrainOrder
from playground.server.device_owner.process import START_TIMEOUT_S, DeviceUnavailable, OwnerProcess, OwnerSetup
from playground.server.device_owner.sessions import OwnerLost, Session
from playground.server.device_owner.training_stream import TrainingStream

__all__ = ["DeviceOwner", "DeviceUnavailable", "OwnerSetup"]
log = logging.getLogger(__name__)
WATCH_EVERY_S = 0.25
# A job's request waits for the owner's own work (a training run's queued chunk) before the owner takes it up and
# says so (``began``): its clock starts then. An owner that has not begun it after this long is stuck.
TURN_WAIT_S = 60.0
# An owner that ends by itself this soon after it opened the device (one that cannot import what it serves with,
# say) is started again only after a wait, doubling each time up to MAX_BACKOFF_S: not once a second for ever.
# One this side killed (a job's time or memory) is started again at once.
SHORT_LIFE_S = 30.0
MAX_BACKOFF_S = 60.0


class DeviceOwner:
    """One owner process at a time, started again when it ends; its methods are safe from several threads."""

    def __init__(self, setup: OwnerSetup, start_timeout_s: float = START_TIMEOUT_S) -> None:
        self.setup = setup
        self.start_timeout_s = start_timeout_s
        self.hello: dict = {}
        self.restarts = 0
        self.last_end: str | None = None  # why the last owner ended, for About
        self.grant_trials: list[dict] = []  # the driver's sets of grants tried before this owner opened the device
        self._ids = itertools.count(1)
        self._lock = threading.Lock()  # one request at a time: the server's line sends one session's at a time
        self._changed = threading.Condition()
        self._process: OwnerProcess | None = None
        self._generation = 0  # which owner: a request or a run belongs to the one it was sent to
        self._answers: dict[int, dict] = {}
        self._began: dict[int, float] = {}  # when the owner began each request it was sent (time.monotonic())
        self._runs: dict[int, TrainingStream] = {}  # the training runs on the running owner, by number
        self._endings: dict[int, OwnerLost] = {}  # why each owner ended, by generation (the last few)
        self._closed = False
        self._wanted = threading.Event()  # set when the owner ended and a new one is to be started
        self._ended_itself = False  # whether the last owner ended without this side killing it

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
        threading.Thread(target=self._watchdog, name="owner-watchdog", daemon=True).start()

    def close(self) -> None:
        """End the owner; remove its scratch folder (as a job's is removed: never trusting what is in it)."""
        with self._changed:
            self._closed = True
            process, self._process = self._process, None
            self._changed.notify_all()
        self._wanted.set()
        if process is not None:
            process.kill()
        scratch.remove(self.setup.scratch, 30.0)

    def wait_ready(self, timeout_s: float) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self._process is not None or self._closed, timeout_s) \
                and not self._closed

    def alive(self) -> bool:
        process = self._process
        return process is not None and process.alive()

    def status(self) -> dict:
        process = self._process
        return {"alive": self.alive(), "pid": process.pid if process else None, "restarts": self.restarts,
                "last_end": self.last_end, "resident_mb": process.resident_mb() if process else None}

    # -- a job's session ----------------------------------------------------------------------------------------

    def open_session(self) -> Session:
        """A new session on the running owner (OwnerLost when none is running)."""
        session = Session(next(self._ids), self._running()[1])
        self._exchange({"open": session.number}, 60.0, session.generation)
        return session

    def close_session(self, session: Session) -> None:
        try:
            self._exchange({"close": session.number}, 60.0, session.generation)
        except OwnerLost:
            pass  # the owner that held it is gone, and with it the session

    def ask(self, session: Session, request: dict, timeout_s: float) -> dict:
        """The owner's answer to one of ``session``'s requests (``ask_timed``'s, without the wait)."""
        return self.ask_timed(session, request, timeout_s)[0]

    def ask_timed(self, session: Session, request: dict, timeout_s: float) -> tuple[dict, float]:
        """The owner's answer to one of ``session``'s requests, and the seconds it waited before the owner began it
        (the owner's own work: not the job's time). ``timeout_s`` (the time the job has left) counts from when the
        owner began it. OwnerLost when its owner ended first (a later owner knows nothing of it), or was killed:
        past ``timeout_s``, not begun within TURN_WAIT_S, or by the watchdog."""
        answer, waited = self._exchange({"session": session.number, "request": request}, timeout_s,
                                        session.generation, turn=True)
        return answer.get("reply", {}), waited

    def _exchange(self, message: dict, timeout_s: float, owner: int, turn: bool = False) -> tuple[dict, float]:
        """``message`` to the owner of generation ``owner`` (OwnerLost where it is no longer the running one), its
        answer and the seconds before the owner began it (with ``turn``: it says so; ``timeout_s`` counts from then)."""
        with self._lock:
            process, generation = self._running()
            if generation != owner:
                raise self.lost(owner)
            number = next(self._ids)
            sent = time.monotonic()
            self._send(process, generation, {"id": number, **message})
            with self._changed:
                while number not in self._answers:
                    if self._generation != generation or self._closed:
                        raise self.lost(generation)
                    began = self._began.get(number, None if turn else sent)
                    deadline = sent + TURN_WAIT_S if began is None else began + timeout_s
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    self._changed.wait(min(remaining, WATCH_EVERY_S))
                else:
                    began = self._began.pop(number, sent)
                    return self._answers.pop(number), began - sent
                self._began.pop(number, None)
            why = (["device.timeout", {"seconds": f"{timeout_s:,.0f}"}] if began is not None else
                   ["device.turn_hung", {"seconds": f"{TURN_WAIT_S:,.0f}"}])
            self._kill(generation, OwnerLost("timeout" if began is not None else "unavailable", why))
            raise self.lost(generation)

    # -- training runs ------------------------------------------------------------------------------------------

    def train(self, order: TrainOrder) -> TrainingStream:
        """Start a training run in the owner (owner/training/runs.py); its stream of messages."""
        process, generation = self._running()
        stream = TrainingStream(self, next(self._ids), generation)
        with self._changed:
            self._runs[stream.run] = stream
        self._send(process, generation, {"train": order, "run": stream.run})
        return stream

    def stop_run(self, stream: TrainingStream) -> None:
        """Ask ``stream``'s run to stop; OwnerLost where the owner it runs on ended."""
        with self._changed:
            process = self._process if self._generation == stream.generation else None
        if process is None:
            raise self.lost(stream.generation)
        self._send(process, stream.generation, {"stop": stream.run})

    def forget_run(self, stream: TrainingStream) -> None:
        """No more of the run's messages are wanted: its stream is closed."""
        with self._changed:
            self._runs.pop(stream.run, None)

    def abandon_run(self, generation: int) -> None:
        """A run did not stop when asked: the owner of ``generation`` is killed (a hung device) and another started."""
        self._kill(generation, OwnerLost("timeout", ["device.training_hung", {}]))

    # -- the process --------------------------------------------------------------------------------------------

    def _running(self) -> tuple[OwnerProcess, int]:
        with self._changed:
            if self._process is None:
                raise OwnerLost("crashed", ["device.restarting", {}])
            return self._process, self._generation

    def _send(self, process: OwnerProcess, generation: int, message: dict) -> None:
        try:
            process.send(message)
        except OSError:
            raise self.lost(generation) from None

    def lost(self, generation: int) -> OwnerLost:
        """Why the owner of ``generation`` is gone (waiting a moment for its end to be seen, if it is not yet)."""
        with self._changed:
            self._changed.wait_for(lambda: generation in self._endings or self._closed, timeout=5.0)
            return self._endings.get(generation) or OwnerLost("crashed", ["device.crashed", {"why": "?"}])

    def _heard(self, generation: int, message: dict) -> None:
        with self._changed:
            if generation != self._generation:
                return
            if isinstance(message.get("id"), int):
                if message.keys() == {"id", "began"}:
                    self._began[message["id"]] = time.monotonic()
                else:
                    self._answers[message["id"]] = message
                self._changed.notify_all()
            elif message.get("run") in self._runs:
                self._runs[message["run"]].messages.put(message)

    def _kill(self, generation: int, why: OwnerLost | None = None) -> None:
        """End the owner of ``generation`` (``why``: the verdict, where this side ended it) and start another."""
        with self._changed:
            if self._generation != generation:
                return  # another thread saw this end first
            process, self._process = self._process, None
            self._generation += 1
            self._answers.clear()
            self._began.clear()
            for stream in self._runs.values():
                stream.messages.put(None)  # the run ended with its owner
            self._runs.clear()
            self._changed.notify_all()
        if process is not None:
            process.kill()
            self.last_end = f"killed ({why.kind})" if why is not None else process.describe_end()
            log.warning("device owner ended: %s", self.last_end)
        with self._changed:
            self._endings[generation] = why or OwnerLost("crashed", ["device.crashed", {"why": self.last_end}])
            self._ended_itself = why is None
            for old in [g for g in self._endings if g < generation - 16]:
                del self._endings[old]
            self._changed.notify_all()
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
        started_at, wait_s = time.monotonic(), 0.0
        while True:
            self._wanted.wait()
            self._wanted.clear()
            short = time.monotonic() - started_at < SHORT_LIFE_S and self._ended_itself
            wait_s = min(max(2 * wait_s, 1.0), MAX_BACKOFF_S) if short else 0.0
            if wait_s:
                log.warning("device owner ended %.0f s after it started: the next starts in %.0f s",
                            time.monotonic() - started_at, wait_s)
            while True:
                with self._changed:
                    if self._changed.wait_for(lambda: self._closed, wait_s):
                        return
                try:
                    self._start_one()
                    self.restarts += 1
                    started_at = time.monotonic()
                    break
                except DeviceUnavailable as exc:
                    log.warning("device owner could not restart: %s", exc)
                    wait_s = min(max(2 * wait_s, 1.0), MAX_BACKOFF_S)

    def _start_one(self) -> None:
        with self._changed:
            generation = self._generation
        process = OwnerProcess(self.setup, lambda message: self._heard(generation, message),
                               lambda: self._kill(generation), self.start_timeout_s)
        with self._changed:
            if self._closed:
                process.kill()
                return
            self._process, self.hello = process, process.hello
            self._changed.notify_all()

    def _watchdog(self) -> None:
        while not self._closed:
            time.sleep(WATCH_EVERY_S)
            with self._changed:
                process, generation = self._process, self._generation
            held = process.resident_mb(past_mb=self.setup.memory_mb) if process is not None else None
            if held is not None and held > self.setup.memory_mb:
                # Rounded up: a process just past its limit must not read as holding exactly the limit.
                self._kill(generation, OwnerLost("memory", ["device.memory", {
                    "held": f"{math.ceil(held):,}", "limit": f"{self.setup.memory_mb:,}"}]))
