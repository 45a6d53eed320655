"""An error as every tab shows it: what went wrong in plain words, the user's line, what to do, and JAX's own text.

A reply's error is untrusted (user code can forge it): its texts go through markdown.py, and its catalogue pieces
are written in the reader's language only where they render.
"""

from __future__ import annotations

from playground import messages
from playground.errors import TITLES
from playground.server.ui import markdown as md
from playground.server.ui.markdown import code_block


def error_markdown(error: dict, language: str = "en", then: str = "", labels: dict[str, str] | None = None) -> str:
    """The error in plain words, the user's line, and for tracer errors what to do instead, in ``language``;
    ``then`` (Markdown) follows the fix.

    A tracer error's ``words`` (catalogue pieces) are written in the reader's language; JAX's own message
    stays as JAX wrote it, below ours. Without words, our titles are translated and the rest stays English.
    ``labels`` (an argument's name -> the catalogue key of its field's label): an argument a message names is
    named as the tab's form labels it, in English too.
    """
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    if labels:
        error = _labelled(error, labels)

    title = _in_language(error, "title", language) or say("kind." + (error["kind"] if error["kind"] in TITLES
                                                                       else "unknown"))
    heading = say("error.on_line", title=title, line=error["line"]) if type(error.get("line")) is int else title
    parts = [f"{md.verdict('error', language)} **{md.text(heading)}**"]
    explanation, fix = _in_language(error, "explanation", language), _in_language(error, "fix", language)
    if error.get("details"):  # the server's own short message, its fix, and the rest folded away
        return "\n\n".join([*parts, md.text(_in_language(error, "message", language)),
                            *([f"**{say('error.how_to_fix')}** {md.text(fix)}"] if fix else []),
                            f"<details><summary>{say('error.details')}</summary>\n\n{code_block(error['details'])}"
                            "\n\n</details>"])
    if explanation:
        parts.append(md.text(explanation))
    if fix:
        parts.append(f"**{say('error.how_to_fix')}** {md.text(fix)}")
    if then:
        parts.append(then)
    if error.get("doc_url"):  # the pool keeps only links into JAX's documentation
        parts.append(f"[{say('error.read_more')}]({error['doc_url']})")
    message = _in_language(error, "message", language)
    prefix, said = _prefix(error, language)
    if said and message.startswith(prefix):  # the sandbox's words before the exception's, in the reader's language
        parts.append(md.text(said.strip()))
        message = message[len(prefix):]
    if language != "en" and set(error.get("words") or {}) - {"prefix", "message"}:
        parts.append(say("error.jax_says"))
    parts.append(code_block(message))
    return "\n\n".join(parts)


def field_problem(error: dict, language: str = "en", labels: dict[str, str] | None = None) -> str:
    """An input error in one line beside its form: its message, the field named by its label, in ``language``."""
    if labels:
        error = _labelled(error, labels)
    return f"{md.verdict('error', language)} {md.text(_in_language(error, 'message', language) or '')}"


def _prefix(error: dict, language: str) -> tuple[str, str]:
    """The sandbox's words that start the message (out of memory, blocked, ...): in English, and in ``language``;
    ``("", "")`` in English, or where the error has none (or its pieces fail)."""
    pieces = (error.get("words") or {}).get("prefix")
    if language == "en" or not pieces:
        return "", ""
    try:
        return messages.render(pieces), messages.render(pieces, language)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):  # a reply's pieces are untrusted
        return "", ""


def _labelled(error: dict, labels: dict[str, str]) -> dict:
    """The error with each argument its words name (``field.argument``) named by its form's label instead, and its
    texts written again from those words."""
    words = error.get("words")
    if not isinstance(words, dict):
        return error
    relabelled = {part: _relabel(pieces, labels, 4) for part, pieces in words.items()}
    try:
        texts = {part: messages.render(pieces) for part, pieces in relabelled.items() if part in ("message", "fix")}
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):  # a reply's pieces are untrusted
        return error
    return {**error, **texts, "words": relabelled}


def _relabel(value: object, labels: dict[str, str], depth: int) -> object:
    """Pieces with ``["field.argument", {"name": n}]`` as ``["field.label", {"label": [labels[n], {}]}]``."""
    if depth == 0 or not isinstance(value, list):
        return value
    if len(value) == 2 and value[0] == "field.argument" and isinstance(value[1], dict) \
            and isinstance(value[1].get("name"), str) and value[1]["name"] in labels:
        return ["field.label", {"label": [labels[value[1]["name"]], {}]}]
    if len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], dict):
        return [value[0], {name: _relabel(v, labels, depth - 1) for name, v in value[1].items()}]
    return [_relabel(v, labels, depth - 1) for v in value]


def _in_language(error: dict, part: str, language: str) -> str | None:
    """``error[part]`` written again from its pieces in ``language``; as it came where it has none (or they fail)."""
    pieces = (error.get("words") or {}).get(part) if language != "en" else None
    if pieces:
        try:
            return messages.render(pieces, language)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):  # a reply's pieces are untrusted
            pass
    return error.get(part)
