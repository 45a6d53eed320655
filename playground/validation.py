"""Cheap checks of API arguments, done in the server before any worker is used.

Each returns None when the value is fine, else an ``invalid_input`` error dict
that names the argument and says what is allowed.
"""

from __future__ import annotations

import math

from playground.errors import error_dict


def text(name: str, value: object, limit: int) -> dict | None:
    if not isinstance(value, str):
        return error_dict("invalid_input", f"`{name}` must be text, got {type(value).__name__}.")
    if len(value) > limit:
        return error_dict("invalid_input", f"`{name}` is {len(value):,} characters long; the limit is {limit:,}.")
    return None


def code(value: object, limit: int) -> dict | None:
    problem = text("code", value, limit)
    if problem is None and not value.strip():
        return error_dict("invalid_input", "There is no code: define a function, e.g. `def f(x): return x * 2`.")
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
        return error_dict("invalid_input", f"`{name}` must be a whole number from {low} to {high}, got {value!r}.")
    return None


def number(name: str, value: object) -> dict | None:
    if type(value) not in (int, float) or not math.isfinite(value):
        return error_dict("invalid_input", f"`{name}` must be a finite number, got {value!r}.")
    return None


def entered_number(label: str, value: object) -> dict | None:
    """A number from a form's box, named as the form labels it: an empty box (None, "") is said to be empty.

    >>> entered_number("x from", None)["error"]["message"]
    '“x from” is empty: enter a number.'
    >>> entered_number("x from", "abc")["error"]["message"]
    "“x from” must be a finite number, got 'abc'."
    >>> entered_number("x from", -3.0) is None
    True
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return error_dict("invalid_input", f"“{label}” is empty: enter a number.")
    if type(value) not in (int, float) or not math.isfinite(value):
        return error_dict("invalid_input", f"“{label}” must be a finite number, got {value!r}.")
    return None


def whole_numbers(name: str, value: object, low: int, high: int, most: int) -> dict | None:
    if value is None:
        return None
    if (not isinstance(value, list) or not 1 <= len(value) <= most
            or not all((n := as_whole(i)) is not None and low <= n <= high for i in value)):
        return error_dict("invalid_input", f"`{name}` must be a list of 1 to {most} whole numbers, each from "
                          f"{low} to {high}, got {value!r}.")
    return None


def names(name: str, value: object, most: int) -> dict | None:
    """A list of 1 to ``most`` distinct Python identifiers, like mesh axis names."""
    if (not isinstance(value, list) or not 1 <= len(value) <= most
            or not all(isinstance(v, str) and v.isidentifier() for v in value) or len(set(value)) != len(value)):
        return error_dict("invalid_input", f"`{name}` must be a list of 1 to {most} distinct names like "
                          f"\"data\", got {value!r}.")
    return None


def flag(name: str, value: object) -> dict | None:
    """True or False, nothing else (not 1, not "yes")."""
    if not isinstance(value, bool):
        return error_dict("invalid_input", f"`{name}` must be true or false, got {value!r}.")
    return None


def first_problem(*problems: dict | None) -> dict | None:
    return next((p for p in problems if p is not None), None)
