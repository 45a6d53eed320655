"""Messages between the server and a worker: an 8-byte big-endian length, then UTF-8 JSON.

The worker's side of the socket is reachable from user code, so whatever the
server reads is untrusted: ``decode`` bounds its size and nesting, refuses
what is not strict UTF-8 JSON, and makes every string valid UTF-8 (a lone
surrogate, which JSON's ``\\ud800`` escapes can carry, breaks every encoder
downstream).

A dataclass crosses as itself: ``encode`` writes its fields beside its
class's name (``TYPE_KEY``), and the reader makes it again with ``rebuilt``,
naming the class and those of the dataclasses in its fields (``rebuilt(order,
TrainOrder, TrainConfig)``): its own constructor makes it, so its checks run
where it arrives too. Until then it is the dict of its fields.
"""

from __future__ import annotations

import dataclasses
import json
import re
import secrets
import socket
import struct

from playground.errors import UserCodeError

_HEADER = struct.Struct("!Q")
MAX_DEPTH = 32  # no result of ours nests deeper than about six
# The largest message between the server and the device owner, either way: programs and arrays travel in them.
OWNER_MESSAGE_BYTES = 64 << 20
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
TYPE_KEY = "__type__"


class MessageTooLarge(ValueError):
    """The peer announced more bytes than the reader accepts."""


def encode(message: dict) -> bytes:
    body = json.dumps(message, separators=(",", ":"), default=_fields).encode()
    return _HEADER.pack(len(body)) + body


def _fields(value: object) -> dict:
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        raise TypeError(f"a {type(value).__name__} does not travel in a message")
    return {TYPE_KEY: type(value).__name__, **{f.name: getattr(value, f.name) for f in dataclasses.fields(value)}}


def send(sock: socket.socket, message: dict) -> None:
    sock.sendall(encode(message))


def decode(body: bytes, max_depth: int = MAX_DEPTH) -> object:
    """Strict UTF-8 JSON, nested at most ``max_depth`` deep, every string valid UTF-8; ValueError otherwise."""
    try:
        value = json.loads(body.decode("utf-8"))
    except RecursionError:
        raise ValueError("it is nested too deeply") from None
    except UnicodeDecodeError:
        raise ValueError("it is not UTF-8") from None
    except ValueError as exc:  # JSONDecodeError, and integers too long to convert
        raise ValueError(f"it is not JSON ({exc})") from None
    return clean(value, max_depth)


def clean(value: object, max_depth: int = MAX_DEPTH) -> object:
    """A copy of a JSON value with lone surrogates replaced by U+FFFD; ValueError past ``max_depth``.

    Iterative, so that depth is checked before anything recurses on it.
    """
    root: list = [value]
    stack = [(root, 0, 0)]
    while stack:
        container, key, depth = stack.pop()
        item = container[key]
        if isinstance(item, str):
            container[key] = _LONE_SURROGATE.sub("\ufffd", item)
        elif isinstance(item, (list, dict)):
            if depth >= max_depth:
                raise ValueError(f"it is nested more than {max_depth} deep")
            if isinstance(item, list):
                copy = list(item)
                stack.extend((copy, i, depth + 1) for i in range(len(copy)))
            else:
                copy = {_LONE_SURROGATE.sub("\ufffd", k): v for k, v in item.items()}
                stack.extend((copy, k, depth + 1) for k in copy)
            container[key] = copy
    return root[0]


class MessageBuffer:
    """Collects bytes as they arrive and yields a message once it is whole.

    Non-blocking friendly: the server feeds it from a select loop, so the
    watchdogs keep running while a large result trickles in.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._data = bytearray()

    def feed(self, chunk: bytes) -> object | None:
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
        return decode(body)


def receive(sock: socket.socket, max_bytes: int) -> object:
    """Blocking read of exactly one message (never past it); EOFError if the peer closes first."""
    (length,) = _HEADER.unpack(_read_exactly(sock, _HEADER.size))
    if length > max_bytes:
        raise MessageTooLarge(f"message of {length} bytes exceeds the limit of {max_bytes}")
    return decode(_read_exactly(sock, length))


def rebuilt(value: object, *types: type) -> object:
    """``value`` (a decoded message, or a part of one) with each dict that ``encode`` wrote for one of ``types``
    made that type again, innermost first; ValueError where its fields do not make one."""
    return _rebuilt(value, {kind.__name__: kind for kind in types})


def _rebuilt(value: object, types: dict[str, type]) -> object:
    if isinstance(value, list):
        return [_rebuilt(item, types) for item in value]
    if not isinstance(value, dict):
        return value
    value = {key: _rebuilt(item, types) for key, item in value.items()}
    name = value.get(TYPE_KEY)
    kind = types.get(name) if isinstance(name, str) else None
    if kind is None:
        return value
    try:
        return kind(**{key: item for key, item in value.items() if key != TYPE_KEY})
    except TypeError as exc:
        raise ValueError(f"the fields of a {kind.__name__} were not its own ({exc})") from None


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(min(size - len(data), 1 << 20))
        if not chunk:
            raise EOFError("peer closed the connection")
        data += chunk
    return bytes(data)


def asker(sock: socket.socket, max_bytes: int):
    """A worker's ``ask(request) -> answer``: ``{"ask": request, "tag": tag}`` to the server, then its
    ``{"answer": ..., "tag": tag}``.

    The tag is fresh for each question: an answer with another tag answers a question the user's code wrote on
    this socket and left unread, so the worker's own exchange is out of step. That ends the job as the user's
    doing (``forbidden``) instead of reading the wrong answer as the right one.
    """
    def ask(request: object) -> object:
        tag = secrets.token_hex(8)
        send(sock, {"ask": request, "tag": tag})
        reply = receive(sock, max_bytes)
        if not isinstance(reply, dict) or "answer" not in reply:
            raise EOFError("the server answered a question with something else")
        if reply.get("tag") != tag:
            raise UserCodeError("forbidden", "the job's own code asked the server a question on the worker's "
                                             "connection and left the answer unread, so the job's questions are "
                                             "out of step with their answers")
        return reply["answer"]
    return ask
