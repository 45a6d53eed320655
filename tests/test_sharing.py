"""playground.sharing: share-link tokens round-trip, and hostile tokens only ever give ValueError."""

from __future__ import annotations

import base64
import json
import random
import string
import zlib

import pytest

from playground.jobs import MAX_ARGS_CHARS, MAX_CODE_CHARS
from playground.sharing import MAX_TOKEN_CHARS, STATE_KEYS, decode_state, encode_state

TYPICAL = {
    "code": "def f(x):\n    return jnp.sin(x) ** 2\n",
    "args": "jnp.arange(4.0)",
    "static_argnums": "",
    "second_args": "jnp.ones(4)",
}


def _pack(data: bytes) -> str:
    """A token around arbitrary bytes, the way encode_state wraps its JSON."""
    return base64.urlsafe_b64encode(zlib.compress(data, 9)).rstrip(b"=").decode()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# -- round trips --------------------------------------------------------------


@pytest.mark.parametrize("state", [
    TYPICAL,
    {"code": "def f(x, n):\n    return x * n\n", "args": "(1.0, 3)", "static_argnums": "1", "second_args": "(2.0, 3)"},
    {key: "" for key in STATE_KEYS},
    {"code": "def f(x):\n    # \u221ax, \u4e2d\u6587, \u00e9t\u00e9, \U0001f680\n    return x ** 0.5\n",
     "args": "'\u00f1'", "static_argnums": "0, 2", "second_args": "\u200b\t\r\n\"'\\"},
    {"code": "x = '\ud800'  # a lone surrogate, as a browser can send\n", "args": "", "static_argnums": "",
     "second_args": ""},
])
def test_round_trip(state):
    token = encode_state(state)
    assert isinstance(token, str) and set(token) <= set(string.ascii_letters + string.digits + "-_")
    assert "=" not in token and len(token) <= MAX_TOKEN_CHARS
    assert decode_state(token) == state


def test_missing_fields_default_to_empty_text():
    assert decode_state(encode_state({"code": "def f(x): return x"})) == {
        "code": "def f(x): return x", "args": "", "static_argnums": "", "second_args": ""}
    assert decode_state(_pack(b'{"args":"1.0"}'))["code"] == ""


def test_token_is_compact_json_compressed():
    token = encode_state(TYPICAL)
    data = zlib.decompress(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    assert json.loads(data) == TYPICAL and b", " not in data and b": " not in data


def test_surrounding_whitespace_of_a_pasted_token_is_ignored():
    assert decode_state(f"  {encode_state(TYPICAL)}\n") == TYPICAL


def test_long_code_round_trips_thanks_to_compression():
    lines = [f"    y = y + jnp.sin(x * {i}) / {i + 1}\n" for i in range(500)]
    code = ("def f(x):\n    y = x\n" + "".join(lines))[:14_990] + "\n    return y\n"
    state = {**TYPICAL, "code": code}
    assert len(code) >= 15_000 - 10
    token = encode_state(state)
    assert len(token) < MAX_TOKEN_CHARS < len(code)
    assert decode_state(token) == state


def test_incompressible_code_over_the_token_cap_is_refused():
    rng = random.Random(0)
    code = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(15_000))
    with pytest.raises(ValueError, match="too long to share"):
        encode_state({**TYPICAL, "code": code})


@pytest.mark.parametrize("state, match", [
    ({**TYPICAL, "code": "x" * (MAX_CODE_CHARS + 1)}, "limit"),
    ({**TYPICAL, "args": "1" * (MAX_ARGS_CHARS + 1)}, "limit"),
    ({**TYPICAL, "extra": "1"}, "Unknown field"),
    ({**TYPICAL, "args": 1.0}, "must be text"),
    (["code"], "dict"),
])
def test_encode_refuses_what_decode_would_refuse(state, match):
    with pytest.raises(ValueError, match=match):
        encode_state(state)


# -- hostile tokens -----------------------------------------------------------


def _garbled() -> dict[str, str]:
    good = encode_state(TYPICAL)
    return {
        "random bytes as text": "\x00\xff\u2603 %$#!",
        "random base64 bytes": _b64(random.Random(1).randbytes(300)),
        "truncated token": good[: len(good) // 2],
        "token missing its last character": good[:-1],
        "one character changed": good[:10] + ("A" if good[10] != "A" else "B") + good[11:],
        "one character too many (length 4k+1)": "A" * (4 * 10 + 1),
        "base64 of text, not zlib": _b64(b"hello, this is not compressed"),
        "zlib of non-JSON": _pack(b"def f(x): return x"),
        "zlib of invalid UTF-8": _pack(b'{"code": "\xff\xfe"}'),
        "zlib of a JSON list": _pack(b'["code", "args"]'),
        "zlib of a JSON string": _pack(b'"def f(x): return x"'),
        "zlib of JSON null": _pack(b"null"),
        "wrong key": _pack(b'{"source": "def f(x): return x"}'),
        "non-text value": _pack(b'{"code": ["def f(x): return x"]}'),
        "null value": _pack(b'{"code": null}'),
        "code over the API limit": _pack(json.dumps({"code": "x" * (MAX_CODE_CHARS + 1)}).encode()),
        "args over the API limit": _pack(json.dumps({"args": "1" * (MAX_ARGS_CHARS + 1)}).encode()),
        "deeply nested JSON": _pack(b"[" * 100_000 + b"]" * 100_000),
        "huge number": _pack(b"1" * 100_000),
        "trailing bytes after the zlib stream": _b64(zlib.compress(b"{}") + b"junk"),
        "empty": "",
        "padding characters": good + "==",
        "a whole URL": "https://example.org/?s=" + good,
        "too long": "A" * (MAX_TOKEN_CHARS + 1),
    }


@pytest.mark.parametrize("name", list(_garbled()))
def test_garbled_tokens_raise_value_error_with_a_message(name):
    with pytest.raises(ValueError) as info:
        decode_state(_garbled()[name])
    assert type(info.value) is ValueError and len(str(info.value)) > 20


def test_zlib_bomb_of_100_mb_is_refused():
    token = _pack(b"0" * 100_000_000)  # 100 MB of zeros, about 130 k characters of token
    with pytest.raises(ValueError, match="too long"):
        decode_state(token)


def test_zlib_bomb_within_the_token_cap_stops_at_the_size_limit():
    data = b'{"code":"' + b"0" * 6_000_000  # ~6 MB of zeros that fits in a token of ~8 k characters
    token = _pack(data)
    assert len(token) <= MAX_TOKEN_CHARS
    with pytest.raises(ValueError, match="more text than the playground accepts"):
        decode_state(token)


@pytest.mark.parametrize("value", [None, 123, b"abc", ["x"]])
def test_non_text_tokens_raise_value_error(value):
    with pytest.raises(ValueError):
        decode_state(value)


def test_random_strings_only_ever_raise_value_error():
    """500 random tokens: printable junk, base64url junk, and mutated real tokens."""
    rng = random.Random(20240611)
    good = encode_state(TYPICAL)
    alphabet = string.ascii_letters + string.digits + "-_"
    for i in range(500):
        kind = i % 5
        if kind == 0:
            token = "".join(rng.choice(string.printable) for _ in range(rng.randrange(0, 200)))
        elif kind == 1:
            token = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 400)))
        elif kind == 2:
            token = "".join(chr(rng.randrange(0, 0x110000)) for _ in range(rng.randrange(0, 50)))
        elif kind == 3:
            spot = rng.randrange(len(good))
            token = good[:spot] + rng.choice(alphabet) + good[spot + 1:]
        else:
            token = _pack(rng.randbytes(rng.randrange(0, 300)))
        try:
            state = decode_state(token)
        except ValueError as exc:
            assert str(exc)
        else:  # a mutation can still be a valid state; then it is a proper one
            assert set(state) == set(STATE_KEYS) and all(isinstance(v, str) for v in state.values())
