"""Text from a job, made safe to put into Markdown: it can format nothing and link to nothing.

A job's reply is untrusted (user code can forge it), and Gradio's Markdown renders
HTML: its sanitiser removes scripts and event handlers but keeps ``<img src=...>``
(a tracking pixel), forms and links. So every string from a reply goes through
one of these before it meets Markdown; our own formatting stays outside them.

>>> text("<img src=x> ![pixel](https://evil.example) `x[x > 0]`")
'&lt;img src=x&gt; \\\\!\\\\[pixel\\\\](https://evil.example) `x[x > 0]`'
>>> code("a`b")
'`` a`b ``'
"""

from __future__ import annotations

import html
import re

from playground import messages

# What our own explanations use for code, literal in Markdown: fenced blocks and `code spans`.
_CODE = re.compile(r"(```[A-Za-z0-9_+-]*\n.*?\n```|`[^`\n]+`)", re.DOTALL)
_PUNCTUATION = re.compile(r"([\\`\[\]!|])")  # links and images, code spans, table cells; emphasis is harmless


def text(value: object) -> str:
    """Text: no HTML, no links or images, nothing that closes a table cell; fenced code and `code spans` stay code."""
    parts = _CODE.split(str(value))
    return "".join(part if i % 2 else _escape(part) for i, part in enumerate(parts))


def cell(value: object) -> str:
    """``text`` for one cell of a Markdown table: on one line."""
    return text(" ".join(str(value).split()))


def code(value: object) -> str:
    """An inline code span that the text cannot close, whatever backticks it holds."""
    value = " ".join(str(value).split())
    fence = "`" * (max((len(run) for run in re.findall(r"`+", value)), default=0) + 1)
    return f"{fence} {value} {fence}" if "`" in value else f"`{value}`"


def code_block(value: object) -> str:
    """A fenced block that the text cannot close (its own fences become look-alike quotes)."""
    return f"```\n{str(value).replace('```', '‘‘‘')}\n```"


def verdict(kind: str, language: str = "en") -> str:
    """A small label that says the outcome in a word and a colour, read right without an emoji font.

    >>> verdict("error", "de")
    "<span class='pg-verdict pg-verdict-error'>Fehler</span>"
    """
    return f"<span class='pg-verdict pg-verdict-{kind}'>{html.escape(messages.say('verdict.' + kind, language))}</span>"


def _escape(part: str) -> str:
    return _PUNCTUATION.sub(r"\\\1", html.escape(part, quote=False))
