"""The Parallel tab's jobs: the user's function sharded over a device mesh, and four demos of parallel JAX."""

from __future__ import annotations

from playground import replies
from playground.jobs import JobKind
from playground.jobs.arguments import ARGS, MAX_DEVICES, MAX_MESH_AXES, code, names, text, wholes

POSITION = 6

KINDS = (
    JobKind("shard", "playground.worker.shard:shard_job", (
        code(), ARGS,
        wholes("mesh_shape", "the device mesh's shape, e.g. [2, 4] (its product at most the devices there are).",
               1, MAX_DEVICES, MAX_MESH_AXES),
        names("axis_names", 'a name per mesh axis, e.g. ["data", "model"].', MAX_MESH_AXES),
        text("in_specs", "a PartitionSpec per argument, as a Python literal."),
        text("out_specs", "the output's PartitionSpec, as a Python literal, e.g. \"('data', 'model')\".")),
        replies.SHARD, """Run the function under ``jax.jit`` with its inputs and output sharded over a device mesh.

``in_specs``/``out_specs`` are Python literals of PartitionSpec entries, e.g.
``"(('data', 'model'),)"``. Returns ``{"ok", "n_devices", "placement" (per input,
which device holds which block, as slice bounds), "result", "matches_unsharded",
"collectives" (found in the compiled HLO), ...}``.""", pool="parallel"),
    JobKind("parallel_demos", "playground.worker.parallel_demos:demos_job", (), replies.PARALLEL_DEMOS,
            """The devices, shard_map with psum and all_gather, a data-parallel MLP step, and pmap vs shard_map.

Runs four small demos on the parallel workers' devices.""", returns="a dict of the demos", pool="parallel",
            timed=True),
)
