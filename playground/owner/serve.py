"""The owner's serving loop: each message answered in turn, sessions kept until the server closes them.

One thing runs on the device at a time: the server opens one session at a time (its device line), and this loop
answers one request at a time. An exception of our own in an op is answered as ``{"error", "internal": True}``
(its traceback on stderr, the server's log) and the owner serves on.
"""

from __future__ import annotations

import socket
import traceback

import jax

from playground.owner.ceilings import Ceilings
from playground.owner.compiled import CompiledCache
from playground.owner.main import MAX_MESSAGE_BYTES
from playground.owner.session import Session, about
from playground.sandbox import protocol


class Owner:
    def __init__(self, channel: socket.socket, setup: dict) -> None:
        self._channel = channel
        self._scratch = setup["scratch"]
        self._device = jax.devices()[0]
        self._compiled = CompiledCache()
        self._memory_mb = setup["memory_mb"]
        self._ceilings = Ceilings(lambda: about(self._device, self._memory_mb)["label"], self._memory_mb)
        self._sessions: dict[int, Session] = {}

    def serve(self) -> None:
        while True:
            try:
                message = protocol.receive(self._channel, MAX_MESSAGE_BYTES)
            except EOFError:
                return  # the server is gone
            protocol.send(self._channel, {"id": message.get("id"), **self._answer(message)})

    def _answer(self, message: dict) -> dict:
        if "open" in message:
            self._sessions[message["open"]] = Session(self._device, self._scratch, self._compiled, self._ceilings,
                                                      self._memory_mb)
            return {}
        if "close" in message:
            session = self._sessions.pop(message["close"], None)
            if session is not None:
                session.close()
            return {}
        session = self._sessions.get(message.get("session"))
        if session is None:
            return {"reply": {"error": "no such session"}}
        try:
            return {"reply": session.handle(message.get("request"))}
        except Exception:  # our bug: said, and the owner serves on
            traceback.print_exc()
            return {"reply": {"error": "the device owner failed on this request (a bug of the playground's)",
                              "internal": True}}
