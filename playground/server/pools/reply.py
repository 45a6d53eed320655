"""A worker's reply, checked before the server uses it: user code can write to the worker's socket.

protocol.decode bounded its size and nesting and made its strings valid UTF-8;
here its form is checked (``ok``, and an error's kind, message, line and
extras), and an ``internal`` error (a bug in the playground's own code) is
logged with its traceback under an id that the user is shown instead. What a
successful reply holds is checked against its job kind's schema outside the
sandbox (playground/replies.py), which knows the kinds.
"""

from __future__ import annotations

import logging
import re

from playground.errors import ERROR_KINDS, cap_text, error_dict, internal_error, new_incident_id, reply_refused

log = logging.getLogger(__name__)

_ERROR_EXTRAS = ("title", "explanation", "fix", "doc_url")
_MAX_LINE = 10_000_000  # no code the API accepts has more lines
_DOC_URL = re.compile(r"https://docs\.jax\.dev/[A-Za-z0-9._~/#-]*")
_MAX_LOGGED_TRACEBACK = 20_000


def validated(message: object, kind: str) -> dict:
    """A ``kind`` job's reply as a well-formed result, or a refusal; an internal error is logged, not passed on."""
    refused = reply_refused("it is not a well-formed result")
    if not isinstance(message, dict) or not isinstance(message.get("ok"), bool):
        return refused
    if message["ok"]:
        return message
    error = message.get("error")
    if not (isinstance(error, dict) and error.get("kind") in ERROR_KINDS and isinstance(error.get("message"), str)
            and (error.get("line") is None or (type(error.get("line")) is int and 1 <= error["line"] <= _MAX_LINE))):
        return refused
    if error["kind"] == "internal":
        return _logged(error, kind)
    result = error_dict(error["kind"], error["message"], error["line"])
    for key in _ERROR_EXTRAS:  # a tracer error's explanation, fix and documentation link
        if isinstance(error.get(key), str):
            result["error"][key] = cap_text(error[key], 4000)
    if not _DOC_URL.fullmatch(result["error"].get("doc_url", "https://docs.jax.dev/")):
        del result["error"]["doc_url"]  # a link the UI shows must lead to JAX's documentation, nowhere else
    words = error.get("words")
    worded = {*_ERROR_EXTRAS, "prefix", *(("message",) if _refused_input(error) else ())}
    if isinstance(words, dict) and set(words) <= worded and all(
            isinstance(pieces, list) and len(pieces) <= _MAX_PIECES and all(_is_piece(p, 2) for p in pieces)
            for pieces in words.values()):
        result["error"]["words"] = words  # the same text as catalogue pieces, for the server to translate
    return result


def _refused_input(error: dict) -> bool:
    """Whether the reply's message may come as catalogue pieces: only a refused argument's, in the words of the
    catalogue's "invalid." checks; any other message is the server's to word (a job cannot dress up its text)."""
    pieces = error["words"].get("message") if isinstance(error.get("words"), dict) else None
    return error["kind"] == "invalid_input" and isinstance(pieces, list) and all(
        isinstance(piece, list) and piece and isinstance(piece[0], str) and piece[0].startswith("invalid.")
        for piece in pieces)


_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,63}")
_MAX_PIECES = 8


def _is_piece(value: object, depth: int) -> bool:
    """A string, or ``[key, {name: string or piece}]`` nested at most ``depth`` deep, every string short."""
    if isinstance(value, str):
        return len(value) <= 2000
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and _KEY.fullmatch(value[0])
            and isinstance(value[1], dict) and len(value[1]) <= 12 and depth > 0):
        return False
    return all(isinstance(name, str) and _KEY.fullmatch(name) and _is_piece(v, depth - 1)
               for name, v in value[1].items())


def _logged(error: dict, kind: str) -> dict:
    """Our own bug: its traceback goes to the server's log under a new id, and the user gets the id."""
    incident = new_incident_id()
    trace = error.get("traceback") if isinstance(error.get("traceback"), str) else "(no traceback)"
    log.error("internal error %s in a %r job: %s\n%s", incident, kind, error["message"][:500],
              trace[-_MAX_LOGGED_TRACEBACK:])
    return internal_error(incident)
