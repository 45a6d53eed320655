"""The error vocabulary every layer shares: kinds and their titles, the error dict, capped text.

Standard library only (and the message catalogue, which is too), so that the server, the UI, the
sandbox and the workers can all import it. An error result is always::

    >>> error_dict("timeout", "Time limit: 10 s.", 3)
    {'ok': False, 'error': {'kind': 'timeout', 'message': 'Time limit: 10 s.', 'line': 3}}
"""

from __future__ import annotations

import secrets

from playground import messages

USER_FILENAME = "<playground>"  # what the user's code is compiled as: its frames say this in tracebacks
ARGS_FILENAME = "<args>"  # the same for the arguments expression
MAX_MESSAGE_CHARS = 4000

# Each kind and the title the UI shows for it.
TITLES = {
    "syntax": "Syntax error",
    "user_exception": "Your code raised an exception",
    "timeout": "Too slow",
    "memory": "Out of memory",
    "disk": "Out of disk space",
    "tasks": "Too many threads",
    "crashed": "The sandbox worker crashed",
    "forbidden": "Not allowed",
    "invalid_input": "Invalid input",
    "busy": "Busy, try again",
    "unavailable": "Not available here",
    "internal": "A bug in the playground",
}
ERROR_KINDS = tuple(TITLES)


class UserCodeError(Exception):
    """A failure to report to the user as {"kind", "message", "line"} (raised by the code that checks their input);
    ``said``: the message as a catalogue piece, which the page writes again in its reader's language."""

    def __init__(self, kind: str, message: str, line: int | None = None, said: list | None = None) -> None:
        if kind not in TITLES:
            raise ValueError(f"unknown error kind {kind!r}")
        super().__init__(message)
        self.kind, self.message, self.line, self.said = kind, message, line, said

    @classmethod
    def saying(cls, kind: str, said: list) -> UserCodeError:
        """The error whose message is the catalogue piece ``said`` (its English as the message)."""
        return cls(kind, messages.render([said]), said=said)

    def to_result(self) -> dict:
        return error_dict(self.kind, self.message, self.line) if self.said is None \
            else said_error(self.kind, self.said, self.line)


def error_dict(kind: str, message: str, line: int | None = None) -> dict:
    """``{"ok": False, "error": {"kind", "message", "line"}}``, the message capped."""
    if kind not in TITLES:
        raise ValueError(f"unknown error kind {kind!r}")
    return {"ok": False, "error": {"kind": kind, "message": cap_text(message, MAX_MESSAGE_CHARS), "line": line}}


def said_error(kind: str, said: list, line: int | None = None, *, fix: list | None = None,
               details: str = "") -> dict:
    """An error whose whole message the server wrote: its English text, and the catalogue piece ``said`` (under
    ``words["message"]``) that the UI writes again in the reader's language.

    ``fix`` (a piece) says what to do, under ``fix`` and ``words["fix"]``; ``details`` (English, capped) is
    what a reader rarely needs and the page folds away: paths, each mirror's failure.
    """
    result = error_dict(kind, messages.render([said]), line)
    result["error"]["words"] = {"message": [said]}
    if fix is not None:
        result["error"]["fix"] = messages.render([fix])
        result["error"]["words"]["fix"] = [fix]
    if details:
        result["error"]["details"] = cap_text(details, MAX_MESSAGE_CHARS)
    return result


def internal_error(incident: str) -> dict:
    """What the user reads of our own bug: no traceback, and the id that finds it in the server's log."""
    return said_error("internal", messages.piece("internal.bug", incident=incident))


def reply_refused(reason: str) -> dict:
    """A worker's reply the server would not take (user code can write to the worker's socket). ``reason`` stays as
    written (English): it is the server's own description of what was wrong."""
    return said_error("forbidden", messages.piece("stopped.refused", reason=reason))


def new_incident_id() -> str:
    return secrets.token_hex(4)


def cap_text(text: str, max_chars: int) -> str:
    """Cut long text with a visible notice of how much was left out."""
    if len(text) <= max_chars:
        return text
    return text[:max_chars] + truncation_notice(len(text) - max_chars)


def truncation_notice(dropped: int) -> str:
    return f"\n… [output truncated: {dropped:,} more characters]"
