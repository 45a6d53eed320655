"""What the server accepts from a worker: the pieces every job kind's reply schema is made of, and the check.

A worker's reply is untrusted (user code can write its own on the worker's
socket), so before anything uses it the server checks every field against
its kind's schema (each kind's declaration in playground/jobs/ holds its own):
its type, the length of every text and list, the range of every number, and
that no unknown key is present. A reply that does not fit is refused as a
whole, never half-used.

>>> ABOUT = ok(python=Text(40), backend=Text(100), devices=ListOf(Text(400), 4096))
>>> check(ABOUT, {"ok": True, "python": "3.11.7", "backend": "cpu", "devices": ["cpu:0 cpu"]})["ok"]
True
>>> check(ABOUT, {"ok": True, "python": 3})["error"]["kind"]
'forbidden'
"""

from __future__ import annotations

from playground.errors import reply_refused
from playground.schema import (
    Either,
    Flag,
    Invalid,
    ListOf,
    Nested,
    Null,
    OneOf,
    Real,
    Record,
    Schema,
    Text,
    Whole,
)

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
TREE = Record({"treedef": TEXT, "leaves": ListOf(Record({"key_path": SHORT, "shape": SHAPE, "dtype": Text(100)},
                                                        {"key_data": SHORT}), 100_000)},
              {"static": ListOf(Record({"position": Whole(0, 63), "value": SHORT}), 64)})
TIMES = ListOf(MAYBE_SECONDS, 64)
ENGINE_TIMES = Record({"numpy": TIMES, "eager": TIMES, "jit": TIMES})
JACOBIAN_TIMING = Record({"shape": ListOf(COUNT, 2), "jacfwd_s": SECONDS, "jacrev_s": SECONDS,
                          "faster": OneOf(("jacfwd", "jacrev"))})
COLLECTIVE_DEMO = Record({"code": TEXT, "result": FLOATS, "expected": FLOATS, "matches": Flag(),
                          "collectives": COLLECTIVES, "hlo_lines": HLO_LINES})


# The server's count of the other jobs that ran beside a job that measures time (server/answering/runner.py), in the
# replies of the kinds whose schema lets it in (``ok(..., meanwhile=True)``): a comparison names a busy machine by it.
MEANWHILE = "others_meanwhile"


def ok(meanwhile: bool = False, **fields: Schema) -> Record:
    """A successful reply of these fields (each kind's declaration in playground/jobs/ makes its own)."""
    return Record({"ok": OneOf((True,)), **fields}, {MEANWHILE: Whole(0, 1 << 30)} if meanwhile else {})


def check(schema: Schema, reply: dict) -> dict:
    """The reply itself if it fits ``schema`` (error replies were checked by the pool), else an error dict."""
    if not reply.get("ok"):
        return reply
    try:
        schema.check(reply, "the reply")
    except Invalid as exc:
        return reply_refused(str(exc))
    return reply
