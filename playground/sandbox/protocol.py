"""Messages between the server and a worker: an 8-byte big-endian length, then UTF-8 JSON."""

from __future__ import annotations

import json
import socket
import struct

_HEADER = struct.Struct("!Q")
WORKER_LOG_NAME = "worker.log"  # in each job's scratch folder: the worker's stdout and stderr


class MessageTooLarge(ValueError):
    """The peer announced more bytes than the reader accepts."""


def encode(message: dict) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode()
    return _HEADER.pack(len(body)) + body


def send(sock: socket.socket, message: dict) -> None:
    sock.sendall(encode(message))


class MessageBuffer:
    """Collects bytes as they arrive and yields a message once it is whole.

    Non-blocking friendly: the server feeds it from a select loop, so the
    watchdogs keep running while a large result trickles in.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._data = bytearray()

    def feed(self, chunk: bytes) -> dict | None:
        self._data += chunk
        if len(self._data) < _HEADER.size:
            return None
        (length,) = _HEADER.unpack_from(self._data)
        if length > self.max_bytes:
            raise MessageTooLarge(f"message of {length} bytes exceeds the limit of {self.max_bytes}")
        if len(self._data) < _HEADER.size + length:
            return None
        body = bytes(self._data[_HEADER.size:_HEADER.size + length])
        del self._data[:_HEADER.size + length]
        return json.loads(body)


def receive(sock: socket.socket, max_bytes: int) -> dict:
    """Blocking read of exactly one message (never past it); EOFError if the peer closes first."""
    (length,) = _HEADER.unpack(_read_exactly(sock, _HEADER.size))
    if length > max_bytes:
        raise MessageTooLarge(f"message of {length} bytes exceeds the limit of {max_bytes}")
    return json.loads(_read_exactly(sock, length))


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(min(size - len(data), 1 << 20))
        if not chunk:
            raise EOFError("peer closed the connection")
        data += chunk
    return bytes(data)
