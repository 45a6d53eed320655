"""A short gloss for each of XLA's buffer and kernel names, which a reader meets unexplained in the Speed of light
tab's tables: ``x.1``, ``arg_tuple.1{1}``, ``multiply_add_fusion``, ``copy.3``.

XLA names an instruction after its operation (``fusion``, ``dot``, ``copy``, ``while``, ``custom-call``), or, for
a parameter, after the argument it holds, with ``.N`` to tell instructions of one name apart; ``{i}`` is the i-th
part of a tuple. A buffer is also of a kind (argument, output, temporary, constant: measurement/memory_timeline.py).

>>> gloss("multiply_add_fusion", "en")
'a fusion: several operations compiled into one kernel'
>>> gloss("x.1", "en", "argument")
'parameter: an input of the program (an argument of your function)'
>>> gloss("arg_tuple.1{1}", "en", "argument")
'parameter: an input of the program (an argument of your function); part 1 of a tuple'
>>> gloss("abs.2", "en")
'one operation of XLA, run as a kernel of its own'
"""

from __future__ import annotations

import re

from playground import messages

_OPERATIONS = (("fusion", "fusion"), ("dot", "dot"), ("convolution", "dot"), ("copy", "copy"), ("while", "loop"),
               ("custom-call", "library"), ("custom_call", "library"))  # a part of the name -> its gloss
_PART = re.compile(r"\{(\d+)\}$")


def gloss(name: str, language: str, kind: str | None = None) -> str:
    """What the buffer or kernel ``name`` is: its kind's gloss (a buffer's), what its operation does, the part of a
    tuple it is; a kernel of no known operation is one operation of XLA."""
    said = [messages.say(f"sol.gloss.{kind}", language)] if kind else []
    operation = next((gloss for part, gloss in _OPERATIONS if part in name.lower()), None)
    if operation:
        said.append(messages.say(f"sol.gloss.{operation}", language))
    if part := _PART.search(name):
        said.append(messages.say("sol.gloss.part", language, part=part.group(1)))
    return "; ".join(said) or messages.say("sol.gloss.operation", language)
