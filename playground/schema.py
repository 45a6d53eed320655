"""A small schema language for JSON values: types, lengths, ranges, and no unknown keys.

Each schema's ``check(value, where)`` returns nothing when the value fits and
raises ``Invalid`` naming the field (``where``) when it does not::

    >>> try:
    ...     Record({"n": Whole(0, 9)}).check({"n": 12, "x": 1}, "the reply")
    ... except Invalid as exc:
    ...     print(exc)
    the reply has unknown field 'x'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


class Invalid(ValueError):
    """A reply field that does not fit its schema; the message names the field."""


class Schema:
    def check(self, value: object, where: str) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class Text(Schema):
    max_chars: int

    def check(self, value, where):
        if not isinstance(value, str):
            raise Invalid(f"{where} is not text")
        if len(value) > self.max_chars:
            raise Invalid(f"{where} is longer than {self.max_chars:,} characters")


@dataclass(frozen=True)
class Name(Schema):
    """A Python identifier (a function's or an axis's name): nothing in it can be markup."""

    def check(self, value, where):
        if not (isinstance(value, str) and value.isidentifier() and len(value) <= 200):
            raise Invalid(f"{where} is not a Python name")


@dataclass(frozen=True)
class OneOf(Schema):
    values: tuple

    def check(self, value, where):
        if not any(type(value) is type(v) and value == v for v in self.values):
            raise Invalid(f"{where} is not one of {', '.join(map(repr, self.values))}")


@dataclass(frozen=True)
class Whole(Schema):
    low: int
    high: int

    def check(self, value, where):
        if type(value) is not int or not self.low <= value <= self.high:
            raise Invalid(f"{where} is not a whole number from {self.low} to {self.high}")


@dataclass(frozen=True)
class Real(Schema):
    """A finite number from ``low`` to ``high`` (the handlers send None, never NaN or ±inf)."""

    low: float = -math.inf
    high: float = math.inf

    def check(self, value, where):
        if type(value) not in (int, float) or not math.isfinite(value):
            raise Invalid(f"{where} is not a finite number")
        if not self.low <= value <= self.high:
            raise Invalid(f"{where} is not a number from {self.low:g} to {self.high:g}")


@dataclass(frozen=True)
class Flag(Schema):
    def check(self, value, where):
        if type(value) is not bool:
            raise Invalid(f"{where} is not true or false")


@dataclass(frozen=True)
class Null(Schema):
    def check(self, value, where):
        if value is not None:
            raise Invalid(f"{where} is not null")


@dataclass(frozen=True)
class Either(Schema):
    options: tuple

    def check(self, value, where):
        for option in self.options:
            try:
                option.check(value, where)
                return
            except Invalid:
                continue
        raise Invalid(f"{where} has the wrong type")


@dataclass(frozen=True)
class ListOf(Schema):
    item: Schema
    max_items: int

    def check(self, value, where):
        if not isinstance(value, list):
            raise Invalid(f"{where} is not a list")
        if len(value) > self.max_items:
            raise Invalid(f"{where} has more than {self.max_items:,} items")
        for i, item in enumerate(value):
            self.item.check(item, f"{where}[{i}]")


@dataclass(frozen=True)
class Nested(Schema):
    """``leaf``, or lists of it nested at most ``depth`` deep (an array's ``tolist()``), ``max_items`` in all."""

    leaf: Schema
    depth: int
    max_items: int

    def check(self, value, where):
        budget = [self.max_items]
        self._check(value, where, self.depth, budget)

    def _check(self, value, where, depth, budget):
        budget[0] -= 1
        if budget[0] < 0:
            raise Invalid(f"{where} holds more than {self.max_items:,} values")
        if isinstance(value, list):
            if depth == 0:
                raise Invalid(f"{where} is nested too deeply")
            for i, item in enumerate(value):
                self._check(item, f"{where}[{i}]", depth - 1, budget)
        else:
            self.leaf.check(value, where)


@dataclass(frozen=True)
class Axes(Schema):
    """vmap's in_axes/out_axes as JSON: an int, null, or lists and dicts of them."""

    depth: int = 8

    def check(self, value, where, depth=None):
        depth = self.depth if depth is None else depth
        if value is None or (type(value) is int and -64 <= value < 64):
            return
        if depth == 0 or not isinstance(value, (list, dict)) or len(value) > 64:
            raise Invalid(f"{where} is not an axis specification")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(key, str) and len(key) > 200:
                raise Invalid(f"{where} has a key longer than 200 characters")
            self.check(item, f"{where}[{key!r}]", depth - 1)


@dataclass(frozen=True)
class Record(Schema):
    required: dict
    optional: dict = field(default_factory=dict)

    def check(self, value, where):
        if not isinstance(value, dict):
            raise Invalid(f"{where} is not an object")
        unknown = [k for k in value if k not in self.required and k not in self.optional]
        if unknown:
            raise Invalid(f"{where} has unknown field {str(unknown[0])[:40]!r}")
        for key, schema in self.required.items():
            if key not in value:
                raise Invalid(f"{where} lacks {key!r}")
            schema.check(value[key], f"{where}.{key}")
        for key, schema in self.optional.items():
            if key in value:
                schema.check(value[key], f"{where}.{key}")


@dataclass(frozen=True)
class MapOf(Schema):
    key: Schema
    value: Schema
    max_items: int

    def check(self, value, where):
        if not isinstance(value, dict) or len(value) > self.max_items:
            raise Invalid(f"{where} is not an object of at most {self.max_items} entries")
        for key, item in value.items():
            self.key.check(key, f"{where} key")
            self.value.check(item, f"{where}.{key}")
