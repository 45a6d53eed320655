"""Cheap checks of API arguments, done in the server before any worker is used.

Each returns None when the value is fine, else an ``invalid_input`` error dict
that names the argument and says what is allowed; its ``words`` hold the same
text as catalogue pieces, the argument as ``field.argument``, so that a tab's
page can name it by its label, in its reader's language
(server/ui/error_views.py):

>>> number("x_min", "abc")["error"]["message"]
"`x_min` must be a finite number, got 'abc'."
"""

from __future__ import annotations

import math

from playground import messages
from playground.errors import said_error


class Refused(ValueError):
    """A form's field that cannot be read as its argument: ``error`` says why, as the argument checks do."""

    def __init__(self, error: dict) -> None:
        super().__init__(error["error"]["message"])
        self.error = error


def field(name: str) -> list:
    """The piece that names argument ``name`` in a message (a page puts its label there)."""
    return messages.piece("field.argument", name=name)


def invalid(key: str, **params: object) -> dict:
    """An ``invalid_input`` error saying catalogue message ``key``."""
    return said_error("invalid_input", messages.piece(key, **params))


def text(name: str, value: object, limit: int) -> dict | None:
    if not isinstance(value, str):
        return invalid("invalid.not_text", field=field(name), type=type(value).__name__)
    if len(value) > limit:
        return invalid("invalid.too_long", field=field(name), length=f"{len(value):,}", limit=f"{limit:,}")
    return None


def code(value: object, limit: int) -> dict | None:
    problem = text("code", value, limit)
    if problem is None and not value.strip():
        return invalid("invalid.no_code")
    return problem


def as_whole(value: object) -> int | None:
    """The one rule for a whole number: an int, or a float with nothing after the point (JSON clients send 3.0).

    True and False are not numbers here, and neither is 3.5 or "3".

    >>> [as_whole(v) for v in (3, 3.0, -2, 3.5, True, "3", None)]
    [3, 3, -2, None, None, None, None]
    """
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    return None


def whole_number(name: str, value: object, low: int, high: int) -> dict | None:
    number = as_whole(value)
    if number is None or not low <= number <= high:
        return invalid("invalid.whole_number", field=field(name), low=low, high=high, value=repr(value))
    return None


def number(name: str, value: object) -> dict | None:
    if type(value) not in (int, float) or not math.isfinite(value):
        return invalid("invalid.finite_number", field=field(name), value=repr(value))
    return None


def entered_number(name: str, value: object) -> dict | None:
    """A number from a form's box for argument ``name``: an empty box (None, "") is said to be empty.

    >>> entered_number("x_min", None)["error"]["message"]
    '`x_min` is empty: enter a number.'
    >>> entered_number("x_min", -3.0) is None
    True
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return invalid("invalid.empty_number", field=field(name))
    return number(name, value)


def whole_numbers_text(name: str, text: str) -> list[int]:
    """A form's text of whole numbers for argument ``name``, "1, 10, 100" (commas or spaces), as a list; [] where it
    is blank; anything else is Refused.

    >>> whole_numbers_text("sizes", "1, 10 100")
    [1, 10, 100]
    >>> whole_numbers_text("sizes", "10, ten")
    Traceback (most recent call last):
    ...
    playground.validation.Refused: `sizes` must be whole numbers separated by commas, got '10, ten'.
    """
    parts = text.replace(",", " ").split()
    try:
        return [int(part) for part in parts]
    except ValueError:
        raise Refused(invalid("invalid.not_whole_numbers", field=field(name), value=repr(text))) from None


def whole_numbers(name: str, value: object, low: int, high: int, most: int) -> dict | None:
    if value is None:
        return None
    if (not isinstance(value, list) or not 1 <= len(value) <= most
            or not all((n := as_whole(i)) is not None and low <= n <= high for i in value)):
        return invalid("invalid.whole_numbers", field=field(name), most=most, low=low, high=high, value=repr(value))
    return None


def names(name: str, value: object, most: int) -> dict | None:
    """A list of 1 to ``most`` distinct Python identifiers, like mesh axis names."""
    if (not isinstance(value, list) or not 1 <= len(value) <= most
            or not all(isinstance(v, str) and v.isidentifier() for v in value) or len(set(value)) != len(value)):
        return invalid("invalid.names", field=field(name), most=most, value=repr(value))
    return None


def flag(name: str, value: object) -> dict | None:
    """True or False, nothing else (not 1, not "yes")."""
    if not isinstance(value, bool):
        return invalid("invalid.flag", field=field(name), value=repr(value))
    return None


def first_problem(*problems: dict | None) -> dict | None:
    return next((p for p in problems if p is not None), None)
