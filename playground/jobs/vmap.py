"""The vmap tab's job: a one-example function batched with ``jax.vmap``, against a Python loop and jit(vmap)."""

from __future__ import annotations

from playground import replies
from playground.jobs import JobKind
from playground.jobs.arguments import MAX_BATCH, MAX_SIZES, code, text, wholes
from playground.replies import COUNT, MAYBE_AMOUNT, TEXT, TIMES
from playground.schema import Axes, Flag, ListOf, Name, Text

POSITION = 40
# Through the server on 2 cores, a fresh worker each: the default preset 4.0-4.7 s, the MLP preset 6.4-7.1 s
# (2.4 s of that is its arguments: jax.random compiling in a fresh process).
DEFAULT_BATCH_SIZES = (1, 10, 100)

# The reply's every field, checked in the server before anything uses it (playground/replies.py).
VMAP = replies.ok(
    function=Name(), device=Text(400), in_axes=Axes(), out_axes=Axes(), jaxpr=TEXT, batched_jaxpr=TEXT,
    batch_sizes=ListOf(COUNT, 64), loop_s=TIMES, vmap_s=TIMES, jit_vmap_s=TIMES, equal=Flag(),
    max_abs_diff=MAYBE_AMOUNT, checked_examples=ListOf(COUNT, 64), stdout=TEXT,
    pending_sizes=ListOf(COUNT, 64),  # an early reply's sizes still to measure; [] in the final one
)

DOC = """Batch a one-example function with ``jax.vmap``; compare a Python loop, vmap and jit(vmap).

Runs on the host's GPU or TPU where there is one (``device`` names it).

``args`` are one example's arguments; each batch is built from them along
``in_axes``. Returns ``{"ok", "jaxpr", "batched_jaxpr", "batch_sizes", "loop_s",
"vmap_s", "jit_vmap_s", "equal", "checked_examples", ...}``: times are per-size medians
in seconds, shown only when all three results are equal; ``checked_examples`` says how
many examples of each size were compared (the Python loop may stop at its time limit)."""

KINDS = (JobKind(
    "vmap", "playground.worker.jobs.vmap:vmap_job", (
        code("Python source defining the one-example function (named ``f``, else the last ``def``)."),
        text("args", "one example's arguments as one Python expression; a tuple gives several."),
        text("in_axes", '``jax.vmap``\'s in_axes as a Python literal, e.g. "0" or "(0, None)".', "0"),
        wholes("batch_sizes", "the batch sizes to time (null: the defaults).", 1, MAX_BATCH, MAX_SIZES,
               DEFAULT_BATCH_SIZES),
        text("out_axes", "``jax.vmap``'s out_axes as a Python literal.", "0")),
    VMAP, DOC,
    pool="device", device=True, timed=True, early=True),)  # early: the sizes measured so far
