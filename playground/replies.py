"""Each job kind's successful reply, field by field: what the server accepts from a worker.

A worker's reply is untrusted (user code can write its own on the worker's
socket), so before anything uses it the server checks every field against
its kind's schema here: its type, the length of every text and list, the
range of every number, and that no unknown key is present. A reply that
does not fit is refused as a whole, never half-used.

>>> check("about", {"ok": True, "python": "3.11.7", "backend": "cpu", "devices": ["cpu:0 cpu"]})["ok"]
True
>>> check("about", {"ok": True, "python": 3})["error"]["kind"]
'forbidden'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from playground.sandbox.verdicts import reply_refused


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


# -- the pieces every kind uses ------------------------------------------------

BIG = 250_000  # a capped text: the limits' 200,000 characters and the truncation notice
TEXT = Text(BIG)
SHORT = Text(4_000)
LINE = Whole(1, 10_000_000)
MAYBE_LINE = Either((LINE, Null()))
SECONDS = Real(0.0, 86_400.0)
MAYBE_SECONDS = Either((SECONDS, Null()))
COUNT = Whole(0, 2**62)
NUMBER = Real()
MAYBE_NUMBER = Either((NUMBER, Null()))
MAYBE_AMOUNT = Either((Real(0.0), Null()))  # XLA's cost counts, differences, errors: never negative
FLOATS = Nested(MAYBE_NUMBER, depth=4, max_items=5_000_000)  # _floats(): numbers, None where not finite
LINE_MAP = ListOf(MAYBE_LINE, BIG)
SHAPE = ListOf(COUNT, 64)
DEVICE_ID = Whole(0, 1 << 20)
PLACEMENT = ListOf(Record({"device": DEVICE_ID, "index": ListOf(ListOf(COUNT, 2), 64)}), 4096)
COLLECTIVES = ListOf(Text(200), 1_000)
HLO_LINES = ListOf(SHORT, 1_000)
TREE = Record({"treedef": TEXT, "leaves": ListOf(Record({"key_path": SHORT, "shape": SHAPE, "dtype": Text(100)}),
                                                 100_000)},
              {"static": ListOf(Record({"position": Whole(0, 63), "value": SHORT}), 64)})
TIMES = ListOf(MAYBE_SECONDS, 64)
ENGINE_TIMES = Record({"numpy": TIMES, "eager": TIMES, "jit": TIMES})
JACOBIAN_TIMING = Record({"shape": ListOf(COUNT, 2), "jacfwd_s": SECONDS, "jacrev_s": SECONDS,
                          "faster": OneOf(("jacfwd", "jacrev"))})
COLLECTIVE_DEMO = Record({"code": TEXT, "result": FLOATS, "expected": FLOATS, "matches": Flag(),
                          "collectives": COLLECTIVES, "hlo_lines": HLO_LINES})


def _ok(**fields: Schema) -> Record:
    return Record({"ok": OneOf((True,)), **fields})


SCHEMAS: dict[str, Record] = {
    "inspect": _ok(
        function=Name(), static_argnums=ListOf(Whole(0, 63), 64), result=TEXT, jaxpr=TEXT, stablehlo=TEXT, hlo=TEXT,
        line_map=Record({"jaxpr": LINE_MAP, "stablehlo": LINE_MAP, "hlo": LINE_MAP}),
        trace_s=SECONDS, lower_s=SECONDS, compile_s=SECONDS, run_s=SECONDS,
        cost=Record({"flops": MAYBE_AMOUNT, "bytes_accessed": MAYBE_AMOUNT, "transcendentals": MAYBE_AMOUNT,
                     "unavailable": MapOf(OneOf(("flops", "bytes_accessed", "transcendentals")), SHORT, 3)}),
        memory=Record({}, {name: Either((COUNT, Null())) for name in
                           ("argument_bytes", "output_bytes", "temp_bytes", "generated_code_bytes")}
                      | {"unavailable": SHORT}),
        pytree=Record({"inputs": TREE, "outputs": TREE}),
        retrace=Either((Null(), Record({"retraced": Either((Flag(), Null())), "explanation": TEXT}))),
        purity=ListOf(Record({"check": OneOf(("static", "behavioural")), "line": MAYBE_LINE, "message": SHORT}), 1_000),
        stdout=TEXT, warnings=ListOf(SHORT, 1_000),
    ),
    "derivatives": _ok(
        function=Name(), dtype=Text(40), xs=ListOf(MAYBE_NUMBER, 10_000),
        orders=ListOf(Record({"n": Whole(0, 64), "ys": ListOf(MAYBE_NUMBER, 10_000), "max_error": MAYBE_AMOUNT,
                              "reference": Either((OneOf(("closed form", "finite differences")), Null()))}), 65),
        eqn_counts=ListOf(COUNT, 65), hlo_op_counts=ListOf(COUNT, 65), jaxprs=ListOf(TEXT, 65),
        notes=ListOf(SHORT, 100),
    ),
    "gradient": _ok(
        function=Name(), point=FLOATS, value=FLOATS, gradient=FLOATS, hessian=FLOATS,
        jacobians=Record({"wide": JACOBIAN_TIMING, "tall": JACOBIAN_TIMING}), explanation=TEXT,
    ),
    "vmap": _ok(
        function=Name(), in_axes=Axes(), out_axes=Axes(), jaxpr=TEXT, batched_jaxpr=TEXT,
        batch_sizes=ListOf(COUNT, 64), loop_s=TIMES, vmap_s=TIMES, jit_vmap_s=TIMES, equal=Flag(),
        max_abs_diff=MAYBE_AMOUNT, stdout=TEXT,
    ),
    "jit_speed": _ok(
        function=Name(), device=Text(400), sizes=ListOf(COUNT, 64),
        skipped=ListOf(Record({"size": COUNT, "reason": SHORT}), 64),
        numpy_s=TIMES, eager_s=TIMES, jit_s=TIMES, compile_s=TIMES, spread=ENGINE_TIMES, min_s=ENGINE_TIMES,
        numpy_unavailable=Either((SHORT, Null())), jaxpr_ops=COUNT, fused_kernels=COUNT, equal=Flag(),
    ),
    "shard": _ok(
        function=Name(), n_devices=Whole(1, 1 << 20),
        mesh=Record({"shape": ListOf(Whole(1, 1 << 20), 8), "axis_names": ListOf(Name(), 8),
                     "devices": Nested(DEVICE_ID, depth=8, max_items=1 << 20)}),
        placement=ListOf(PLACEMENT, 64), shapes=ListOf(SHAPE, 64), result=TEXT, out_placement=PLACEMENT,
        matches_unsharded=Flag(), max_abs_diff=MAYBE_AMOUNT, collectives=COLLECTIVES,
        hlo_collective_lines=HLO_LINES, stdout=TEXT,
    ),
    "parallel_demos": _ok(
        devices=_ok(platform=Text(100), devices=ListOf(Record({"id": DEVICE_ID, "kind": Text(400)}), 4096),
                    count=Whole(0, 1 << 20)),
        collectives=_ok(n_devices=Whole(1, 1 << 20), input=FLOATS, psum=COLLECTIVE_DEMO, all_gather=COLLECTIVE_DEMO),
        data_parallel=_ok(
            n_devices=Whole(1, 1 << 20), layer_sizes=ListOf(COUNT, 16), batch_size=COUNT, batch_placement=PLACEMENT,
            params_placement=PLACEMENT, collectives=COLLECTIVES, hlo_collective_lines=HLO_LINES,
            matches_single_device=Flag(), max_abs_diff=MAYBE_AMOUNT, loss_before=NUMBER, loss_after=NUMBER),
        pmap_vs_shard_map=_ok(n_devices=Whole(1, 1 << 20), pmap_code=TEXT, shard_map_code=TEXT, pmap_result=FLOATS,
                              shard_map_result=FLOATS, equal=Flag(), why=TEXT),
    ),
    "about": _ok(python=Text(40), backend=Text(100), devices=ListOf(Text(400), 4096)),
}


def check(kind: str, reply: dict) -> dict:
    """The reply itself if it fits ``kind``'s schema (error replies were checked by the pool), else an error dict."""
    if not reply.get("ok"):
        return reply
    try:
        SCHEMAS[kind].check(reply, "the reply")
    except Invalid as exc:
        return reply_refused(str(exc))
    return reply
