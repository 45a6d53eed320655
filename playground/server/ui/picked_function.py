"""Which of the user's functions ran, in the reader's words, where the code does not make it plain.

A function named ``f`` needs no word. Otherwise the status says which one ran and why (user_ast.pick_function):

>>> code = "def loss(w):\\n    return w ** 2\\ngrad_loss = jax.grad(loss)\\n"
>>> picked_note(code)
'It ran `grad_loss = jax.grad(loss)`: the last function your code makes with a JAX transformation.'
>>> picked_note("def f(x):\\n    return x\\n") is None
True
>>> picked_note("@jax.custom_jvp\\ndef g(x):\\n    return x\\n@g.defjvp\\ndef g_jvp(p, t):\\n    return p, t\\n")[:75]
'It ran `g`, the last function your code defines that is not the rule of a c'

"""

from __future__ import annotations

from playground import messages, user_ast
from playground.errors import UserCodeError
from playground.server.ui import markdown as md

SHOWN_CHARS = 80  # of a transformation's source: `jax.jit(jax.vmap(...), in_axes=...)` can run long


def picked_note(code: str, language: str = "en") -> str | None:
    """One sentence on the function that ran, or None where it is ``f`` (or the code does not parse)."""
    tree = user_ast.try_parse(code)
    try:
        picked = user_ast.pick_function(tree, code) if tree is not None else None
    except UserCodeError:
        return None
    if picked is None or (picked.name == "f" and picked.made is None):
        return None
    if picked.made is not None:
        made = " ".join(picked.made.split())
        made = made if len(made) <= SHOWN_CHARS else made[:SHOWN_CHARS - 1] + "…"
        return messages.say("pick.made", language, binding=md.code(f"{picked.name} = {made}"))
    if picked.rules_after:
        return messages.say("pick.last_def_not_rule", language, function=md.code(picked.name),
                            rules=messages.listed([md.code(rule) for rule in picked.rules_after], language))
    return messages.say("pick.last_def", language, function=md.code(picked.name))
