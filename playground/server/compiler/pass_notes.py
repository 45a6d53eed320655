"""One plain sentence for each XLA pass in a dump, in the reader's language (messages/pass_texts.py): the passes a
learner should know by name, and every other by the family its name says it belongs to, so that none goes without.

>>> about("fusion")[:44]
'Fusion: merges elementwise operations and th'
>>> about("gather_expander")
'Expands gather into simpler operations the backend implements; a program without any is left as it was.'
>>> about("float-normalization-bf16", "de")[:47]
'Formt Arithmetik in bf16, einem Typ, in dem die'
>>> about("sharding-remover")[:46]
"One of XLA's own passes (sharding remover), no"
"""

from __future__ import annotations

import re

from playground import messages

# A family by a word in a pass's name, the words left for {what}; the first that matches.
_FAMILIES = (
    ("normalization", re.compile(r"^float-normalization-(?P<what>.+)$")),
    ("expander", re.compile(r"^(?P<what>.+?)[-_]expander$")),
    ("decomposer", re.compile(r"^(?P<what>.+?)[-_]decomposer$")),
    ("simplifier", re.compile(r"^(?:simplify[-_](?P<what>.+)|(?P<what2>.+?)[-_]simplifier)$")),
    ("rewriter", re.compile(r"^(?P<what>.+?)[-_]rewriter$")),
    ("canonicalizer", re.compile(r"^(?P<what>.+?)[-_]canonicali[sz](?:er|ation)$")),
)


def about(name: str, language: str = "en") -> str:
    """The sentence about pass ``name`` in ``language``."""
    key = f"pass.{name}"
    if key in messages.CATALOGUE:
        return messages.say(key, language)
    for family, pattern in _FAMILIES:
        match = pattern.match(name)
        if match:
            what = next(group for group in match.groups() if group)
            return messages.say(f"pass.family.{family}", language, what=_words(what))
    return messages.say("pass.family.other", language, what=_words(name))


def _words(name: str) -> str:
    """A pass's name as words: ``tree_reduction`` -> "tree reduction"."""
    return re.sub(r"[-_]+", " ", name)
