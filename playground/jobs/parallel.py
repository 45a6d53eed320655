"""The Parallel tab's jobs: the user's function sharded over a device mesh, and four demos of parallel JAX."""

from __future__ import annotations

from playground import replies
from playground.jobs import JobKind
from playground.jobs.arguments import ARGS, MAX_DEVICES, MAX_MESH_AXES, code, names, text, wholes
from playground.replies import (
    COLLECTIVE_DEMO,
    COLLECTIVES,
    COUNT,
    DEVICE_ID,
    FLOATS,
    HLO_LINES,
    MAYBE_AMOUNT,
    NUMBER,
    PLACEMENT,
    SHAPE,
    SHORT,
    TEXT,
)
from playground.schema import Either, Flag, ListOf, Name, Nested, Null, Real, Record, Text, Whole

POSITION = 60

# The reply's every field, checked in the server before anything uses it (playground/replies.py).
SHARD = replies.ok(
    function=Name(), n_devices=Whole(1, 1 << 20),
    mesh=Record({"shape": ListOf(Whole(1, 1 << 20), 8), "axis_names": ListOf(Name(), 8),
                 "devices": Nested(DEVICE_ID, depth=8, max_items=1 << 20)}),
    placement=ListOf(PLACEMENT, 64), shapes=ListOf(SHAPE, 64), result=TEXT, out_placement=PLACEMENT,
    matches_unsharded=Flag(), max_abs_diff=MAYBE_AMOUNT, tolerance=MAYBE_AMOUNT,
    rounding=Record({"terms": COUNT, "relative": Real(0.0), "scale": MAYBE_AMOUNT, "inputs_moved": Flag()}),
    mismatch=Either((SHORT, Null())), collectives=COLLECTIVES, hlo_collective_lines=HLO_LINES, stdout=TEXT,
)

PARALLEL_DEMOS = replies.ok(
    devices=replies.ok(platform=Text(100), devices=ListOf(Record({"id": DEVICE_ID, "kind": Text(400)}), 4096),
                count=Whole(0, 1 << 20)),
    collectives=replies.ok(n_devices=Whole(1, 1 << 20), input=FLOATS, psum=COLLECTIVE_DEMO, all_gather=COLLECTIVE_DEMO),
    data_parallel=replies.ok(
        n_devices=Whole(1, 1 << 20), layer_sizes=ListOf(COUNT, 16), batch_size=COUNT, batch_placement=PLACEMENT,
        params_placement=PLACEMENT, collectives=COLLECTIVES, hlo_collective_lines=HLO_LINES,
        matches_single_device=Flag(), max_abs_diff=MAYBE_AMOUNT, loss_before=NUMBER, loss_after=NUMBER),
    pmap_vs_shard_map=replies.ok(n_devices=Whole(1, 1 << 20), pmap_code=TEXT, shard_map_code=TEXT, pmap_result=FLOATS,
                          shard_map_result=FLOATS, equal=Flag(), why=TEXT),
)

KINDS = (
    JobKind("shard", "playground.worker.jobs.shard:shard_job", (
        code(), ARGS,
        wholes("mesh_shape", "the device mesh's shape, e.g. [2, 4] (its product at most the devices there are).",
               1, MAX_DEVICES, MAX_MESH_AXES),
        names("axis_names", 'a name per mesh axis, e.g. ["data", "model"].', MAX_MESH_AXES),
        text("in_specs", "a PartitionSpec per argument, as a Python literal."),
        text("out_specs", "the output's PartitionSpec, as a Python literal, e.g. \"('data', 'model')\".")),
        SHARD, """Run the function under ``jax.jit`` with its inputs and output sharded over a device mesh.

``in_specs``/``out_specs`` are Python literals of PartitionSpec entries, e.g.
``"(('data', 'model'),)"``. Returns ``{"ok", "n_devices", "placement" (per input,
which device holds which block, as slice bounds), "result", "matches_unsharded",
"collectives" (found in the compiled HLO), ...}``.""", pool="parallel"),
    JobKind("parallel_demos", "playground.worker.jobs.parallel_demos:demos_job", (), PARALLEL_DEMOS,
            """The devices, shard_map with psum and all_gather, a data-parallel MLP step, and pmap vs shard_map.

Runs four small demos on the parallel workers' devices.""", returns="a dict of the demos", pool="parallel",
            timed=True),
)
