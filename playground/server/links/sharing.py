"""Share links: one tab's whole state (and a teacher's class options) packed into one URL-safe token.

A token is base64url (no padding) of zlib-compressed compact JSON, so it fits in a
query string (``?s=<token>``) and needs no server-side storage::

    >>> from playground.server.links.fields import Number
    >>> schemas = {"jit": TabSchema({"code": Text(100), "repeats": Number(1, 50, whole=True)}, ("repeats",))}
    >>> token = encode_link(Link("jit", {"code": "def f(x):\\n    return x * 2\\n", "repeats": 5}), schemas)
    >>> decode_link(token, schemas).state
    {'code': 'def f(x):\\n    return x * 2\\n', 'repeats': 5}

The JSON is ``{"v": 1, "tab": ..., "state": {...}}``, plus ``hide``, ``read_only``
and ``exercise`` for a class link. ``v`` is the format's version: a link keeps
loading after the app changes (a field the tab no longer has is ignored, one it
did not have yet keeps the tab's default), and the Inspect links made before
the version existed (its four text fields at the top level) are read as version 0.

Anyone can craft a link, so ``decode_link`` treats the token as hostile: it bounds
the work done at every step (length before decoding, size while decompressing, so a
zlib bomb stops at the limit), checks every value against the tab's schema, and turns
every failure into a BrokenLink (a ValueError) with a message meant for the person who clicked the link, in
their language.
What a visitor's browser kept of their edits to a link (``kept_edits``) is read with the
same distrust, against the same schema.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

from markdown_it import MarkdownIt

from playground import messages
from playground.server.links.fields import BrokenLink, Flag, TabSchema, Text, quoted

FORMAT_VERSION = 1
MAX_TOKEN_CHARS = 8192
MAX_EXERCISE_CHARS = 2_000
# More than any valid state unpacks to: two code fields of 20,000 characters with every character escaped as a
# surrogate pair (12 bytes) are 480 KB; everything else is far smaller.
_MAX_JSON_BYTES = 1 << 20
_TOKEN = re.compile(r"[A-Za-z0-9_-]*")
_DAMAGED = messages.piece("link.damaged")
# The Inspect tab's fields in the links made before the format had a version.
_VERSION_0_KEYS = ("code", "args", "static_argnums", "second_args")


@dataclass(frozen=True)
class Link:
    """One tab's state; ``hide``, ``read_only`` and ``exercise`` make it a class link."""

    tab: str
    state: dict
    hide: tuple[str, ...] = ()
    read_only: bool = False
    exercise: str = ""

    @property
    def for_class(self) -> bool:
        """Made with "Make the class link": a teacher's, where a plain link is anyone's."""
        return bool(self.hide or self.read_only or self.exercise)


def encode_link(link: Link, schemas: Mapping[str, TabSchema]) -> str:
    """``link`` as a URL-safe token, after the same checks ``decode_link`` makes.

    Raises BrokenLink for a value the tab's schema refuses, or a token longer than
    MAX_TOKEN_CHARS (code that does not compress well enough).
    """
    checked = _checked(link.tab, link.state, link.hide, link.read_only, link.exercise, schemas)
    document: dict = {"v": FORMAT_VERSION, "tab": checked.tab, "state": checked.state}
    if checked.hide:
        document["hide"] = list(checked.hide)
    if checked.read_only:
        document["read_only"] = True
    if checked.exercise:
        document["exercise"] = checked.exercise
    # surrogatepass: text from a browser may hold a lone surrogate, which plain UTF-8 refuses.
    data = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    token = base64.urlsafe_b64encode(zlib.compress(data, 9)).rstrip(b"=").decode("ascii")
    if len(token) > MAX_TOKEN_CHARS:
        raise BrokenLink("link.too_long_to_make", length=float(len(token)), limit=float(MAX_TOKEN_CHARS))
    return token


def decode_link(token: str, schemas: Mapping[str, TabSchema]) -> Link:
    """The link in ``token``; its state holds the fields it has that the tab's schema knows.

    Raises BrokenLink, and only BrokenLink, for anything that is not a link
    ``encode_link`` could have made, by this version or an earlier one.
    """
    document = _document(token)
    if "v" not in document:  # an Inspect link from before the format had a version
        unknown = [str(k)[:40] for k in document if k not in _VERSION_0_KEYS]
        if unknown:
            raise BrokenLink("link.unknown_old_fields", names=", ".join(map(repr, unknown[:5])), damaged=_DAMAGED)
        return _checked("inspect", {k: document.get(k, "") for k in _VERSION_0_KEYS}, (), False, "", schemas)
    version = document["v"]
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise BrokenLink("link.bad_version", damaged=_DAMAGED)
    if version > FORMAT_VERSION:
        raise BrokenLink("link.newer", version=version, newest=FORMAT_VERSION)
    state = document.get("state", {})
    if not isinstance(state, dict):
        raise BrokenLink("link.state_not_fields", damaged=_DAMAGED)
    hide = document.get("hide", [])
    if not isinstance(hide, list):
        raise BrokenLink("link.hide_not_list", damaged=_DAMAGED)
    return _checked(document.get("tab"), state, tuple(hide), document.get("read_only", False),
                    document.get("exercise", ""), schemas, ignore_unknown=True)


def kept_edits(text: object, tab: str, shown: Mapping, schemas: Mapping[str, TabSchema]) -> dict:
    """The edits a browser kept for a link of ``tab``, as far as the tab's schema accepts them: the fields of
    ``text`` (``{"tab": ..., "state": {...}}`` as JSON, what the page stored for the link) that differ from
    ``shown``, the state the page shows for the link.

    The browser's storage is anyone's to change, so it is read like a link: within a size, field by field
    against the schema. A field the schema refuses (a number box left empty) keeps the link's value; text
    that is not such an object, or is for another tab, keeps none::

        >>> from playground.server.links.fields import Number
        >>> schemas = {"jit": TabSchema({"sizes": Text(100), "repeats": Number(1, 50, whole=True)})}
        >>> shown = {"sizes": "64", "repeats": 5}
        >>> kept_edits('{"tab": "jit", "state": {"sizes": "16, 32", "repeats": null}}', "jit", shown, schemas)
        {'sizes': '16, 32'}
        >>> kept_edits('{"tab": "vmap", "state": {"sizes": "16, 32"}}', "jit", shown, schemas)
        {}
    """
    if not isinstance(text, str) or not text or len(text) > _MAX_JSON_BYTES:
        return {}
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(document, dict) or document.get("tab") != tab or not isinstance(document.get("state"), dict):
        return {}
    fields = schemas[tab].fields
    edits = {}
    for name, value in document["state"].items():
        if name not in fields:
            continue
        try:
            checked = fields[name].check(name, value)
        except ValueError:
            continue
        if name not in shown or shown[name] != checked:
            edits[name] = checked
    return edits


def exercise_html(text: str) -> str:
    """A class link's exercise text (Markdown) as HTML that cannot carry HTML, images or links but http(s).

    A real CommonMark parser renders it, so no bracket trick hides a link from
    the check: raw HTML is escaped (it shows as typed), images are off (their
    syntax shows as typed), and a link to anything but http(s) stays plain text.
    """
    return _EXERCISE_RENDERER.render(text[:MAX_EXERCISE_CHARS])


def _exercise_renderer() -> MarkdownIt:
    renderer = MarkdownIt("commonmark", {"html": False}).disable("image")
    renderer.validateLink = lambda url: re.match(r"https?://", url.strip(), re.IGNORECASE) is not None
    return renderer


_EXERCISE_RENDERER = _exercise_renderer()


def _document(token: object) -> dict:
    """The JSON object in ``token``, within the size limits; BrokenLink otherwise."""
    if not isinstance(token, str):
        raise BrokenLink("link.not_text", type=type(token).__name__)
    token = token.strip()
    if len(token) > MAX_TOKEN_CHARS:
        raise BrokenLink("link.too_long", length=float(len(token)), limit=float(MAX_TOKEN_CHARS))
    if not token:
        raise BrokenLink("link.empty")
    if not _TOKEN.fullmatch(token):
        raise BrokenLink("link.characters", damaged=_DAMAGED)
    try:
        packed = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise BrokenLink("link.not_base64", damaged=_DAMAGED) from None
    data = _inflate(packed)
    try:
        document = json.loads(data.decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise BrokenLink("link.not_state", damaged=_DAMAGED) from None
    if not isinstance(document, dict):
        raise BrokenLink("link.not_fields")
    return document


def _inflate(packed: bytes) -> bytes:
    """zlib-decompress at most _MAX_JSON_BYTES; a bomb stops there instead of filling memory."""
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(packed, _MAX_JSON_BYTES)
    except zlib.error:
        raise BrokenLink("link.not_compressed", damaged=_DAMAGED) from None
    if inflater.unconsumed_tail:
        raise BrokenLink("link.unpacks_too_big")
    if not inflater.eof or inflater.unused_data:
        raise BrokenLink("link.cut_short", damaged=_DAMAGED)
    return data


def _checked(tab: object, state: dict, hide: tuple, read_only: object, exercise: object,
             schemas: Mapping[str, TabSchema], ignore_unknown: bool = False) -> Link:
    """A Link whose every part the tab's schema accepts; BrokenLink for anything else."""
    if not isinstance(tab, str) or tab not in schemas:
        raise BrokenLink("link.unknown_tab", tab=quoted(str(tab)))
    schema = schemas[tab]
    unknown = [str(k)[:40] for k in state if k not in schema.fields]
    if unknown and not ignore_unknown:
        raise BrokenLink("link.unknown_fields", tab=tab, names=", ".join(map(repr, unknown[:5])),
                         expected=", ".join(schema.fields))
    checked = {name: kind.check(name, state[name]) for name, kind in schema.fields.items() if name in state}
    for name in hide:
        if name not in schema.hideable:
            raise BrokenLink("link.not_hideable", name=quoted(str(name)), tab=tab)
    Flag().check("read_only", read_only)
    Text(MAX_EXERCISE_CHARS).check("exercise", exercise)
    return Link(tab, checked, tuple(dict.fromkeys(hide)), read_only, exercise)
