"""The owner's serving: the jobs' sessions answered one request at a time, the training runs beside them.

Messages from the server (ipc/protocol.py framing): ``{"id", "open": session}``, ``{"id", "session",
"request"}`` (device_ops.py's ops), ``{"id", "close": session}``, each answered with its ``id``, in turn, on one
thread; a session's request is first acknowledged with ``{"id", "began": True}`` once the owner takes it up, after
the device's turn (the job's clock starts there: server/device_owner/handle.py). ``{"train": TrainOrder, "run":
n}`` and ``{"stop": run}`` for the training runs (training/runs.py), each on a thread of its own. A session has
the device to itself from its first op that uses it to its close (turns.py): the training runs pause meanwhile.
An exception of our own in an op is answered as ``{"error", "internal": True}`` (its traceback on stderr, the
server's log) and the owner serves on.
"""

from __future__ import annotations

import queue
import socket
import threading
import traceback

import jax

from playground.ipc import protocol
from playground.mnist.config import TrainConfig, TrainOrder
from playground.mnist.places import DataPlaces
from playground.owner import free_memory
from playground.owner.ceilings import Ceilings
from playground.owner.compiled import CompiledCache
from playground.owner.device_about import about
from playground.owner.session import Session
from playground.owner.training.runs import TrainingRuns
from playground.owner.turns import DeviceTurns

_NO_TURN = frozenset({"about"})  # ops that do not touch the device: they do not pause the training


class Owner:
    def __init__(self, channel: socket.socket, setup: dict, compile_cache: dict) -> None:
        """``compile_cache``: compile_cache.configure's report (its folder is the training's index's too)."""
        self._channel = channel
        self._send_lock = threading.Lock()
        self._scratch = setup["scratch"]
        self._device = jax.devices()[0]
        self._compiled = CompiledCache()
        self._memory_mb = setup["memory_mb"]
        self._ceilings = Ceilings(lambda: about(self._device, self._memory_mb)["label"], self._memory_mb)
        self._sessions: dict[int, Session] = {}
        self._holding: set[int] = set()  # the sessions that have the device (one at a time, by the server's line)
        self._turns = DeviceTurns()
        self._training = TrainingRuns(self._send, self._turns,
                                      DataPlaces.from_dict(setup["data"]) if setup["data"] is not None else None,
                                      compile_cache["folder"] if compile_cache["active"] else None)
        self._requests: queue.Queue[dict | None] = queue.Queue()

    def serve(self) -> None:
        threading.Thread(target=self._answer_requests, name="owner-sessions", daemon=True).start()
        self._training.warm_up()  # after the hello: the jobs need not wait for it
        while True:
            try:
                message = protocol.receive(self._channel, protocol.OWNER_MESSAGE_BYTES)
            except EOFError:
                return  # the server is gone
            if not isinstance(message, dict):
                continue
            if "train" in message:
                self._training.start(message["run"], protocol.rebuilt(message["train"], TrainOrder, TrainConfig))
            elif "stop" in message:
                self._training.stop(message["stop"])
            else:
                self._requests.put(message)

    def _send(self, message: dict) -> None:
        with self._send_lock:
            protocol.send(self._channel, message)

    def _answer_requests(self) -> None:
        while True:
            message = self._requests.get()
            self._send({"id": message.get("id"), **self._answer(message)})

    def _answer(self, message: dict) -> dict:
        if "open" in message:
            self._sessions[message["open"]] = Session(self._device, self._scratch, self._compiled, self._ceilings,
                                                      self._memory_mb)
            return {}
        if "close" in message:
            session = self._sessions.pop(message["close"], None)
            if session is not None:
                session.close()
            if message["close"] in self._holding:
                self._holding.discard(message["close"])
                self._turns.give_back()
            if not self._sessions:
                free_memory.give_back()  # between jobs, not while one times its calls
            return {}
        number = message.get("session")
        session = self._sessions.get(number)
        if session is None:
            return {"reply": {"error": "no such session"}}
        request = message.get("request")
        if number not in self._holding and not (isinstance(request, dict) and request.get("op") in _NO_TURN):
            self._turns.take()
            self._holding.add(number)
        self._send({"id": message.get("id"), "began": True})  # the job's clock starts now, not while it waited
        try:
            return {"reply": session.handle(request)}
        except Exception:  # our bug: said, and the owner serves on
            traceback.print_exc()
            return {"reply": {"error": "the device owner failed on this request (a bug of the playground's)",
                              "internal": True}}
