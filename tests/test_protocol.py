"""playground.ipc.protocol: length-prefixed JSON over a real socket."""

from __future__ import annotations

import dataclasses
import json
import socket
import struct
import threading

import pytest

from playground.ipc.protocol import TYPE_KEY, MessageBuffer, MessageTooLarge, decode, encode, rebuilt, receive, send

MESSAGES = [
    {},
    {"ok": True, "result": "f32[4] [ 0.  3. 14. 39.]", "warnings": []},
    {"unicode": "λ → ∂ … 😀", "nested": {"list": [1, 2.5, None, True, "x"]}},
    {"big": "y" * 100_000},
]


@pytest.mark.parametrize("message", MESSAGES)
def test_encode_layout_is_length_then_json(message):
    data = encode(message)
    (length,) = struct.unpack("!Q", data[:8])
    assert length == len(data) - 8
    assert json.loads(data[8:].decode("utf-8")) == message


@pytest.mark.parametrize("message", MESSAGES)
def test_round_trip_one_chunk(message):
    buffer = MessageBuffer(1 << 20)
    assert buffer.feed(encode(message)) == message


def test_round_trip_byte_by_byte():
    message = MESSAGES[2]
    data = encode(message)
    buffer = MessageBuffer(1 << 20)
    results = [buffer.feed(data[i:i + 1]) for i in range(len(data))]
    assert results[:-1] == [None] * (len(data) - 1)
    assert results[-1] == message


def test_header_split_across_chunks():
    data = encode({"a": 1})
    buffer = MessageBuffer(1024)
    assert buffer.feed(data[:3]) is None
    assert buffer.feed(data[3:8]) is None
    assert buffer.feed(data[8:]) == {"a": 1}


def test_two_messages_in_one_chunk_second_not_lost():
    first, second = {"n": 1}, {"n": 2, "s": "two"}
    buffer = MessageBuffer(1024)
    assert buffer.feed(encode(first) + encode(second)) == first
    # feed returns one message per call: the second waits in the buffer until asked for.
    assert buffer.feed(b"") == second
    assert buffer.feed(b"") is None


def test_message_and_a_half_then_rest():
    first, second = {"n": 1}, {"n": 2}
    data = encode(first) + encode(second)
    cut = len(encode(first)) + 5
    buffer = MessageBuffer(1024)
    assert buffer.feed(data[:cut]) == first
    assert buffer.feed(data[cut:]) == second


def test_too_large_length_is_refused_before_the_body():
    buffer = MessageBuffer(100)
    header = struct.pack("!Q", 101)
    with pytest.raises(MessageTooLarge, match="101 bytes exceeds the limit of 100"):
        buffer.feed(header)  # no body bytes at all yet


def test_huge_announced_length_is_refused():
    buffer = MessageBuffer(16 * 1024 * 1024)
    with pytest.raises(MessageTooLarge):
        buffer.feed(struct.pack("!Q", 2**63) + b"{")


def test_message_at_exact_limit_is_accepted():
    message = {"s": "z" * 50}
    body_len = len(encode(message)) - 8
    assert MessageBuffer(body_len).feed(encode(message)) == message
    with pytest.raises(MessageTooLarge):
        MessageBuffer(body_len - 1).feed(encode(message))


def test_message_too_large_is_a_value_error():
    assert issubclass(MessageTooLarge, ValueError)


def test_invalid_json_body_raises_value_error():
    body = b"{not json"
    with pytest.raises(ValueError):
        MessageBuffer(1024).feed(struct.pack("!Q", len(body)) + body)


def _framed(body: bytes) -> bytes:
    return struct.pack("!Q", len(body)) + body


@pytest.mark.parametrize(("body", "words"), [
    (b"[" * 200_000 + b"]" * 200_000, "nested too deeply"),
    (b"[" * 40 + b"]" * 40, "nested more than 32 deep"),
    (b'{"a": "\xff\xfe"}', "not UTF-8"),
    (b'{"n": ' + b"9" * 5000 + b"}", "not JSON"),
    (b'{"a": 1', "not JSON"),
], ids=["200,000 deep", "40 deep", "not UTF-8", "a 5,000-digit number", "cut short"])
def test_hostile_bodies_are_a_value_error_not_a_crash(body, words):
    with pytest.raises(ValueError, match=words):
        MessageBuffer(1 << 20).feed(_framed(body))


def test_lone_surrogates_become_replacement_characters():
    message = decode(b'{"text": "a\\ud800b", "\\udcffkey": ["\\udfff"], "pair": "\\ud83d\\ude00"}')
    assert message == {"text": "a\ufffdb", "\ufffdkey": ["\ufffd"], "pair": "😀"}
    json.dumps(message, ensure_ascii=False).encode("utf-8")  # a lone surrogate would raise here


@pytest.fixture
def pair():
    a, b = socket.socketpair()
    a.settimeout(10)
    b.settimeout(10)
    yield a, b
    a.close()
    b.close()


def test_send_receive_over_socketpair(pair):
    a, b = pair
    send(a, MESSAGES[1])
    assert receive(b, 1 << 20) == MESSAGES[1]
    send(b, {"reply": True})
    assert receive(a, 1 << 20) == {"reply": True}


def test_large_message_over_socketpair_from_a_thread(pair):
    a, b = pair
    message = {"data": "q" * (3 * 1024 * 1024)}  # larger than the socket buffer and one recv
    sender = threading.Thread(target=send, args=(a, message))
    sender.start()
    assert receive(b, 8 * 1024 * 1024) == message
    sender.join(10)


def test_receive_refuses_too_large(pair):
    a, b = pair
    send(a, {"s": "x" * 1000})
    with pytest.raises(MessageTooLarge):
        receive(b, 100)


def test_receive_eof_on_close(pair):
    a, b = pair
    a.close()
    with pytest.raises(EOFError):
        receive(b, 1024)


def test_receive_eof_mid_message(pair):
    a, b = pair
    a.sendall(encode({"partial": "message"})[:12])
    a.shutdown(socket.SHUT_WR)
    with pytest.raises(EOFError):
        receive(b, 1024)


def test_receive_twice_when_both_messages_arrived_together(pair):
    a, b = pair
    a.sendall(encode({"n": 1}) + encode({"n": 2}))
    assert receive(b, 1024) == {"n": 1}
    b.settimeout(0.5)
    assert receive(b, 1024) == {"n": 2}



@dataclasses.dataclass(frozen=True)
class _Point:
    x: int
    label: str = ""

    def __post_init__(self) -> None:
        if self.x < 0:
            raise ValueError("x must not be negative")


def _through_a_socket(message: dict, types: tuple[type, ...]) -> object:
    left, right = socket.socketpair()
    with left, right:
        send(left, message)
        return rebuilt(receive(right, 1 << 20), *types)


def test_a_dataclass_the_reader_names_crosses_as_itself_and_others_as_their_fields():
    message = {"points": [_Point(1, "a"), _Point(2)], "one": _Point(3)}
    assert _through_a_socket(message, (_Point,)) == message
    plain = _through_a_socket(message, ())
    assert plain["one"] == {TYPE_KEY: "_Point", "x": 3, "label": ""}  # a reader that names no type gets the fields


def test_a_dataclass_is_made_by_its_constructor_where_it_arrives():
    forged = {"one": {TYPE_KEY: "_Point", "x": -1}}  # its checks run on the reader's side too
    with pytest.raises(ValueError, match="x must not be negative"):
        _through_a_socket(forged, (_Point,))
    with pytest.raises(ValueError, match="fields of a _Point were not its own"):
        _through_a_socket({"one": {TYPE_KEY: "_Point", "x": 1, "y": 2}}, (_Point,))
    with pytest.raises(TypeError, match="a set does not travel"):
        encode({"one": {1, 2}})
