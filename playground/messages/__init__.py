"""The one catalogue of the app's words (the page's and what the server writes), in English, German and Chinese.

A message is a key and its parameters; ``say`` writes it in a language, and a
parameter may itself be a message (``[key, params]``), written in the same
language. Work that runs in a sandbox worker returns such pieces next to its
English text, so the server can write them again in the reader's language
(the worker never needs to know it)::

    >>> say("verdict.error", "de")
    'Fehler'
    >>> render([["where.line", {"line": "2", "code": "if x > 0:"}]], "zh")
    '第 2 行（`if x > 0:`）'
    >>> choose("de-CH,de;q=0.9,en;q=0.8")
    'de'

JAX's own error text is never translated: it is quoted as JAX wrote it.
The static page's words are here too (ui_texts.py, keys "pg.*"): Gradio's
frontend writes those in the browser's language (playground/server/ui/translations.py).
Standard library only: the workers, the server and the UI all import it.
"""

from __future__ import annotations

import re

from playground.messages import (
    derivative_texts,
    field_texts,
    lesson_texts,
    link_texts,
    narrative_texts,
    numbers,
    pallas_texts,
    pass_texts,
    plot_texts,
    speed_texts,
    status_texts,
    tab_texts,
    tracer_texts,
    ui_texts,
    verdict_texts,
)
from playground.messages.numbers import number  # noqa: F401  (messages.number: the catalogue's users write numbers)

LANGUAGES = ("en", "de", "zh")
DEFAULT = "en"
CATALOGUE: dict[str, dict[str, str]] = {**tracer_texts.TEXTS, **status_texts.TEXTS, **narrative_texts.TEXTS,
                                    **tab_texts.TEXTS, **lesson_texts.TEXTS, **verdict_texts.TEXTS,
                                    **plot_texts.TEXTS, **speed_texts.TEXTS, **ui_texts.TEXTS,
                                    **derivative_texts.TEXTS, **field_texts.TEXTS,
                                    **pass_texts.TEXTS, **link_texts.TEXTS, **pallas_texts.TEXTS}
UI_PREFIX = "pg."  # the page's static keys (ui_texts.py), which Gradio's frontend writes (server/ui/translations.py)
_TAG = re.compile(r"\s*([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)\s*(?:;\s*q\s*=\s*([0-9.]+))?\s*")


def choose(accept_language: str | None) -> str:
    """The language to write in, from an HTTP ``Accept-Language`` header (q-values count); English by default.

    >>> choose("fr-FR,fr;q=0.9,zh-CN;q=0.8,de;q=0.7")
    'zh'
    >>> choose(None), choose("en-GB;q=0, de;q=0.1")
    ('en', 'de')
    """
    ranked = []
    for order, item in enumerate((accept_language or "")[:500].split(",")):
        match = _TAG.fullmatch(item)
        if not match:
            continue
        try:
            q = float(match.group(2)) if match.group(2) is not None else 1.0
        except ValueError:
            continue
        if q > 0:
            ranked.append((-q, order, match.group(1).split("-")[0].lower()))
    for _, _, primary in sorted(ranked):
        if primary in LANGUAGES:
            return primary
        if primary == "*":
            return DEFAULT
    return DEFAULT


def say(key: str, language: str = DEFAULT, /, **params: object) -> str:
    """The message ``key`` in ``language`` (English where it has no translation), its parameters filled in.

    Raises KeyError for a key the catalogue lacks or a parameter the text needs and was not given.
    """
    texts = CATALOGUE[key]
    text = texts.get(language) or texts[DEFAULT]
    return text.format_map({name: _written(value, language) for name, value in params.items()})


def listed(words: list[str], language: str = DEFAULT) -> str:
    """"1, 10 and 100" (or its German, its Chinese).

    >>> listed(["1", "10", "100"], "de"), listed(["7"])
    ('1, 10 und 100', '7')
    """
    if len(words) == 1:
        return words[0]
    return say("list.and", language, rest=say("list.comma", language).join(words[:-1]), last=words[-1])


def render(pieces: list, language: str = DEFAULT) -> str:
    """Pieces (``[[key, params], ...]``) written one after the other in ``language``."""
    return "".join(_written(piece, language) for piece in pieces)


# A reply dict holding {"path": "<text>"} is a file to gradio_client (its Gradio <= 4.20 form), which then tries to
# download it: a piece's parameters never use that name.
RESERVED_PARAMETERS = frozenset({"path"})


def piece(key: str, **params: object) -> list:
    """A message to write later, in whatever language the reader reads: ``[key, params]`` (JSON-able)."""
    if key not in CATALOGUE:
        raise KeyError(key)
    if RESERVED_PARAMETERS & params.keys():
        raise ValueError(f"a piece's parameter may not be named {sorted(RESERVED_PARAMETERS & params.keys())}")
    return [key, params]


def _written(value: object, language: str) -> str:
    """A parameter as ``language`` writes it: a message in it, a float with its decimal sign (0,5 in German)."""
    if isinstance(value, (list, tuple)) and len(value) == 2 and isinstance(value[0], str) \
            and isinstance(value[1], dict):
        return say(value[0], language, **value[1])
    if isinstance(value, float):
        return numbers.figures(value, language, 6)
    return str(value)


def _check() -> None:
    """Every key has its English, and each of its texts the same {fields} as the English; the static UI's keys
    have all three languages, non-empty (Gradio would show a missing one as its key). Run at import: a typo fails
    at once."""
    import string

    def fields(text: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}

    for key, texts in CATALOGUE.items():
        if DEFAULT not in texts or not set(texts) <= set(LANGUAGES) \
                or any(fields(text) != fields(texts[DEFAULT]) for text in texts.values()):
            raise ValueError(f"catalogue entry {key!r} needs its English, and every text the same fields")
        if key.startswith(UI_PREFIX) and not (set(texts) == set(LANGUAGES) and all(texts.values())):
            raise ValueError(f"the UI's catalogue entry {key!r} needs a non-empty text in each of {LANGUAGES}")


_check()
