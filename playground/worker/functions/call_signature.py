"""Does the user's function take the arguments a tab will call it with? Said before JAX calls it.

A wrong count would otherwise surface as a TypeError from inside ``jax.eval_shape``,
with no line of the user's to point at:

>>> def f(x, y):
...     return x
>>> try:
...     check_call(f, "f", (1.0,), "one number, x")
... except UserCodeError as exc:
...     print(exc.message)
`f(x, y)` cannot be called on one number, x: missing a required argument: 'y'.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from playground.errors import UserCodeError


def check_call(function: Callable, name: str, arguments: tuple, what: str) -> None:
    """Raise invalid_input, saying ``what`` the arguments are (the field they come from), unless they fit.

    Functions whose signature Python cannot read (some builtins) are let through.
    """
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(*arguments)
    except TypeError as exc:
        shown = signature.replace(return_annotation=inspect.Signature.empty)
        raise UserCodeError("invalid_input", f"`{name}{shown}` cannot be called on {what}: {exc}.") from None
