"""Each job kind's successful reply, field by field: what the server accepts from a worker.

A worker's reply is untrusted (user code can write its own on the worker's
socket), so before anything uses it the server checks every field against
its kind's schema here: its type, the length of every text and list, the
range of every number, and that no unknown key is present. A reply that
does not fit is refused as a whole, never half-used.

>>> check(ABOUT, {"ok": True, "python": "3.11.7", "backend": "cpu", "devices": ["cpu:0 cpu"]})["ok"]
True
>>> check(ABOUT, {"ok": True, "python": 3})["error"]["kind"]
'forbidden'
"""

from __future__ import annotations

from playground.sandbox.verdicts import reply_refused
from playground.schema import (
    Axes,
    Either,
    Flag,
    Invalid,
    ListOf,
    MapOf,
    Name,
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


def _ok(**fields: Schema) -> Record:
    return Record({"ok": OneOf((True,)), **fields})


# One schema per job kind; its declaration (playground/jobs/) names it.
INSPECT = _ok(
    function=Name(), device=Text(400), static_argnums=ListOf(Whole(0, 63), 64),
    jit=Record({"own": Flag(), "static_from": OneOf(("field", "your jit", "a jitted helper")),
                "note": Either((SHORT, Null()))}),
    result=TEXT, jaxpr=TEXT, stablehlo=TEXT, hlo=TEXT, hlo_locations=TEXT,
    line_map=Record({"jaxpr": LINE_MAP, "stablehlo": LINE_MAP, "hlo": LINE_MAP}),
    trace_s=SECONDS, lower_s=SECONDS, compile_s=SECONDS, run_s=SECONDS,
    cost=Record({"flops": MAYBE_AMOUNT, "bytes_accessed": MAYBE_AMOUNT, "transcendentals": MAYBE_AMOUNT,
                 "unavailable": MapOf(OneOf(("flops", "bytes_accessed", "transcendentals")), SHORT, 3)}),
    memory=Record({}, {name: Either((COUNT, Null())) for name in
                       ("argument_bytes", "output_bytes", "temp_bytes", "generated_code_bytes", "alias_bytes")}
                  | {"unavailable": SHORT}),
    pytree=Record({"inputs": TREE, "outputs": TREE}),
    retrace=Either((Null(), Record({"retraced": Either((Flag(), Null())), "explanation": TEXT}))),
    purity=ListOf(Record({"check": OneOf(("static", "behavioural")), "line": MAYBE_LINE, "message": SHORT}), 1_000),
    pending=ListOf(OneOf(("purity", "retrace")), 2),  # checks still running: an early reply's, empty in the final
    stdout=TEXT, warnings=ListOf(SHORT, 1_000),
)

DERIVATIVES = _ok(
    function=Name(), dtype=Text(40), xs=ListOf(MAYBE_NUMBER, 10_000),
    orders=ListOf(Record({"n": Whole(0, 64), "ys": ListOf(MAYBE_NUMBER, 10_000), "max_error": MAYBE_AMOUNT,
                          "reference": Either((OneOf(("closed form", "finite differences")), Null()))}), 65),
    eqn_counts=ListOf(COUNT, 65), hlo_op_counts=ListOf(COUNT, 65), jaxprs=ListOf(TEXT, 65),
    notes=ListOf(SHORT, 100),
    point_by_point=Either((Null(), Record({"reason": SHORT, "points": COUNT, "grid_points": COUNT,
                                           "seconds": SECONDS, "budget_s": SECONDS}))),
)

GRADIENT = _ok(
    function=Name(), point=FLOATS, value=FLOATS, gradient=FLOATS, hessian=FLOATS, without_jit=Either((SHORT, Null())),
    jacobians=Record({"wide": JACOBIAN_TIMING, "tall": JACOBIAN_TIMING}), explanation=TEXT,
)

VMAP = _ok(
    function=Name(), device=Text(400), in_axes=Axes(), out_axes=Axes(), jaxpr=TEXT, batched_jaxpr=TEXT,
    batch_sizes=ListOf(COUNT, 64), loop_s=TIMES, vmap_s=TIMES, jit_vmap_s=TIMES, equal=Flag(),
    max_abs_diff=MAYBE_AMOUNT, checked_examples=ListOf(COUNT, 64), stdout=TEXT,
    pending_sizes=ListOf(COUNT, 64),  # an early reply's sizes still to measure; [] in the final one
)

JIT_SPEED = _ok(
    function=Name(), device=Text(400), sizes=ListOf(COUNT, 64),
    skipped=ListOf(Record({"size": COUNT, "reason": SHORT}), 64),
    numpy_s=TIMES, eager_s=TIMES, jit_s=TIMES, compile_s=TIMES, spread=ENGINE_TIMES, min_s=ENGINE_TIMES,
    numpy_unavailable=Either((SHORT, Null())), jaxpr_ops=COUNT, fused_kernels=COUNT,
    checked_sizes=ListOf(COUNT, 64), numpy_checked_sizes=ListOf(COUNT, 64),
    pending_sizes=ListOf(COUNT, 64),  # an early reply's sizes still to measure; [] in the final one
)

SHARD = _ok(
    function=Name(), n_devices=Whole(1, 1 << 20),
    mesh=Record({"shape": ListOf(Whole(1, 1 << 20), 8), "axis_names": ListOf(Name(), 8),
                 "devices": Nested(DEVICE_ID, depth=8, max_items=1 << 20)}),
    placement=ListOf(PLACEMENT, 64), shapes=ListOf(SHAPE, 64), result=TEXT, out_placement=PLACEMENT,
    matches_unsharded=Flag(), max_abs_diff=MAYBE_AMOUNT, tolerance=MAYBE_AMOUNT,
    rounding=Record({"terms": COUNT, "relative": Real(0.0), "scale": MAYBE_AMOUNT, "inputs_moved": Flag()}),
    mismatch=Either((SHORT, Null())), collectives=COLLECTIVES, hlo_collective_lines=HLO_LINES, stdout=TEXT,
)

PARALLEL_DEMOS = _ok(
    devices=_ok(platform=Text(100), devices=ListOf(Record({"id": DEVICE_ID, "kind": Text(400)}), 4096),
                count=Whole(0, 1 << 20)),
    collectives=_ok(n_devices=Whole(1, 1 << 20), input=FLOATS, psum=COLLECTIVE_DEMO, all_gather=COLLECTIVE_DEMO),
    data_parallel=_ok(
        n_devices=Whole(1, 1 << 20), layer_sizes=ListOf(COUNT, 16), batch_size=COUNT, batch_placement=PLACEMENT,
        params_placement=PLACEMENT, collectives=COLLECTIVES, hlo_collective_lines=HLO_LINES,
        matches_single_device=Flag(), max_abs_diff=MAYBE_AMOUNT, loss_before=NUMBER, loss_after=NUMBER),
    pmap_vs_shard_map=_ok(n_devices=Whole(1, 1 << 20), pmap_code=TEXT, shard_map_code=TEXT, pmap_result=FLOATS,
                          shard_map_result=FLOATS, equal=Flag(), why=TEXT),
)

MODULE_INDEX = Either((Whole(0, 100_000), Null()))
PASSES = _ok(
    function=Name(), device=Text(400), exhaustive=Flag(),
    passes=ListOf(Record({"index": COUNT, "pipeline": Text(300), "name": Text(300), "nested": Flag(),
                          "changed": Either((Flag(), Null())), "instructions": COUNT, "before": MODULE_INDEX,
                          "after": MODULE_INDEX}), 2_000),
    modules=ListOf(TEXT, 100_000), module_lines=ListOf(LINE_MAP, 100_000),
    counts=Record({"passes": COUNT, "changed": COUNT, "unchanged": COUNT, "pipelines": COUNT}),
    compile_s=SECONDS, dump_bytes=COUNT, notices=ListOf(SHORT, 100),
)

NODE_ID = Name()  # ids are made by worker/graph.py (n0, c0, ...); Graphviz gets nothing else unquoted
GRAPH_DATA = Record({
    "nodes": ListOf(Record({"id": NODE_ID, "label": Text(200), "kind": OneOf((
        "input", "inner_input", "output", "inner_output", "constant", "literal", "op", "plumbing")),
        "line": MAYBE_LINE, "cluster": Either((NODE_ID, Null()))}), 1_000),
    "edges": ListOf(Record({"from": NODE_ID, "to": NODE_ID, "dashed": Flag()}), 4_000),
    "clusters": ListOf(Record({"id": NODE_ID, "label": Text(200), "kind": OneOf((
        "fusion", "call", "jaxpr", "computation")), "parent": Either((NODE_ID, Null()))}), 1_000),
    "left_out": COUNT,
})
GRAPH = _ok(
    function=Name(), device=Text(400), jaxpr_graph=GRAPH_DATA, hlo_graph=GRAPH_DATA,
    fusions=ListOf(Record({"label": Text(200), "operations": ListOf(Text(200), 1_000)}), 1_000),
)

COMPARE_VARIANT = Record({
    "label": Text(100), "what": SHORT, "function": Name(), "jaxpr": TEXT, "hlo": TEXT, "jaxpr_equations": COUNT,
    "hlo_instructions": COUNT, "kernels": COUNT, "cost": INSPECT.required["cost"], "memory": INSPECT.required["memory"],
    "compile_s": SECONDS, "result": TEXT,
    "run": Either((Null(), Record({"min_s": SECONDS, "median_s": SECONDS, "iqr_s": SECONDS, "q1_s": SECONDS,
                                   "q3_s": SECONDS, "runs": Whole(1, 1_000)}))),
})
COMPARE = _ok(
    device=Text(400), setting=Either((Text(100), Null())), variants=ListOf(COMPARE_VARIANT, 2),
    same_result=Either((Flag(), Null())), max_abs_diff=MAYBE_AMOUNT, notes=ListOf(SHORT, 100),
)

ABOUT = _ok(python=Text(40), backend=Text(100), devices=ListOf(Text(400), 4096))


def check(schema: Schema, reply: dict) -> dict:
    """The reply itself if it fits ``schema`` (error replies were checked by the pool), else an error dict."""
    if not reply.get("ok"):
        return reply
    try:
        schema.check(reply, "the reply")
    except Invalid as exc:
        return reply_refused(str(exc))
    return reply
