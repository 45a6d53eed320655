"""Share links for the Inspect tab: the tab's text fields packed into one URL-safe token.

A token is base64url (no padding) of zlib-compressed compact JSON, so it fits in a
query string (``?s=<token>``) and needs no server-side storage::

    >>> token = encode_state({"code": "def f(x):\\n    return x * 2\\n", "args": "1.0"})
    >>> decode_state(token)
    {'code': 'def f(x):\\n    return x * 2\\n', 'args': '1.0', 'static_argnums': '', 'second_args': ''}

Anyone can craft a link, so ``decode_state`` treats the token as hostile: it bounds
the work done at every step (length before decoding, size while decompressing, so a
zlib bomb stops at the limit) and turns every failure into a ValueError with a message
meant for the person who clicked the link.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib

# api.py does not import gradio (only ui/ does), so this import makes no cycle.
from playground.jobs import MAX_ARGS_CHARS, MAX_CODE_CHARS

MAX_TOKEN_CHARS = 8192
STATE_KEYS = ("code", "args", "static_argnums", "second_args")
_LIMITS = {"code": MAX_CODE_CHARS, "args": MAX_ARGS_CHARS, "static_argnums": MAX_ARGS_CHARS,
           "second_args": MAX_ARGS_CHARS}
# The longest JSON a valid state can take: every character escaped as a surrogate
# pair (12 bytes) is the worst case, plus keys and punctuation.
_MAX_JSON_BYTES = 12 * sum(_LIMITS.values()) + 1024
_TOKEN = re.compile(r"[A-Za-z0-9_-]*")
_DAMAGED = "the link is damaged or incomplete; copy the whole link again."


def encode_state(state: dict) -> str:
    """The Inspect tab's fields as a URL-safe token; missing fields are stored as "".

    Raises ValueError for unknown fields, non-text values, text over the API's limits,
    or a token longer than MAX_TOKEN_CHARS (code that does not compress well enough).
    """
    if not isinstance(state, dict):
        raise ValueError(f"A share state is a dict of text fields, not {type(state).__name__}.")
    full = _checked(state)
    # surrogatepass: text from a browser may hold a lone surrogate, which plain UTF-8 refuses.
    data = json.dumps(full, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    token = base64.urlsafe_b64encode(zlib.compress(data, 9)).rstrip(b"=").decode("ascii")
    if len(token) > MAX_TOKEN_CHARS:
        raise ValueError(f"This code is too long to share as a link ({len(token):,} characters of link, the limit "
                         f"is {MAX_TOKEN_CHARS:,}). Shorten it, or share the code as a file.")
    return token


def decode_state(token: str) -> dict:
    """The state in ``token``: {"code", "args", "static_argnums", "second_args"}, all text.

    Raises ValueError, and only ValueError, for anything that is not a token made by
    ``encode_state`` within today's limits.
    """
    if not isinstance(token, str):
        raise ValueError(f"A share link token is text, not {type(token).__name__}.")
    token = token.strip()
    if len(token) > MAX_TOKEN_CHARS:
        raise ValueError(f"The share link is too long ({len(token):,} characters; at most {MAX_TOKEN_CHARS:,}).")
    if not token:
        raise ValueError("The share link is empty.")
    if not _TOKEN.fullmatch(token):
        raise ValueError("The share link holds characters that no share link has: " + _DAMAGED)
    try:
        packed = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("The share link is not valid base64url: " + _DAMAGED) from None
    data = _inflate(packed)
    try:
        state = json.loads(data.decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise ValueError("The share link does not hold a playground state: " + _DAMAGED) from None
    if not isinstance(state, dict):
        raise ValueError("The share link does not hold a playground state (expected an object of text fields).")
    return _checked(state)


def _inflate(packed: bytes) -> bytes:
    """zlib-decompress at most _MAX_JSON_BYTES; a bomb stops there instead of filling memory."""
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(packed, _MAX_JSON_BYTES)
    except zlib.error:
        raise ValueError("The share link is not compressed data: " + _DAMAGED) from None
    if inflater.unconsumed_tail:
        raise ValueError("The share link unpacks to more text than the playground accepts.")
    if not inflater.eof or inflater.unused_data:
        raise ValueError("The share link's data is cut short or has extra bytes: " + _DAMAGED)
    return data


def _checked(state: dict) -> dict:
    """The four fields in order, with "" for missing ones; ValueError for anything else."""
    unknown = [str(k)[:40] for k in state if k not in STATE_KEYS]
    if unknown:
        raise ValueError(f"Unknown field(s) in the share state: {', '.join(map(repr, unknown[:5]))}; "
                         f"expected {', '.join(STATE_KEYS)}.")
    full = {key: state.get(key, "") for key in STATE_KEYS}
    for key, value in full.items():
        if not isinstance(value, str):
            raise ValueError(f"The share state's `{key}` must be text, not {type(value).__name__}.")
        if len(value) > _LIMITS[key]:
            raise ValueError(f"The share state's `{key}` is {len(value):,} characters long; the limit is "
                             f"{_LIMITS[key]:,}.")
    return full
