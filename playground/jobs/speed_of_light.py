"""The Speed of light tab's jobs: where a function's time goes against what the device can do, and the device's
ceilings (measured once per dtype in the device owner by a job that runs no user code; the server keeps them)."""

from __future__ import annotations

from playground import replies
from playground.jobs import JobKind
from playground.jobs.arguments import ARGS, Argument, Form, code, flag, whole
from playground.jobs.inspect import INSPECT
from playground.replies import COUNT, MAYBE_AMOUNT, MAYBE_LINE, SECONDS, SHORT
from playground.schema import Either, ListOf, Name, Null, OneOf, Real, Record, Text, Whole

POSITION = 55

MAX_STEPS = 4_000  # points of a memory timeline: a longer schedule is merged step by step, the peak kept exact
MAX_AT_PEAK = 12  # the largest buffers named at the peak
MAX_EVENTS = 2_000  # kernels of the kernel timeline, all calls together
# The dtypes whose matmul peak the device's ceilings job measures: the floats a learner's function computes in.
CEILING_DTYPES = ("float32", "bfloat16", "float16")

RUN = Record({"min_s": SECONDS, "median_s": SECONDS, "iqr_s": SECONDS, "q1_s": SECONDS, "q3_s": SECONDS,
              "runs": Whole(1, 1_000)})
PROGRAM = Record({
    "label": Text(100), "what": SHORT, "cost": INSPECT.required["cost"], "memory": INSPECT.required["memory"],
    "kernels": COUNT, "loops": COUNT, "run": RUN,
})
BUFFER = Record({"name": Text(300), "bytes": COUNT, "kind": OneOf(("argument", "output", "temporary", "constant")),
                 "shape": Text(300), "line": MAYBE_LINE, "defined_at": COUNT})
MEMORY = Record({
    # The instruction XLA's schedule runs at each point (of a merged span: the step of most bytes), and the bytes.
    "steps": ListOf(Text(300), MAX_STEPS), "merged": Whole(1, 1 << 30),  # schedule steps per point
    "arguments": ListOf(COUNT, MAX_STEPS), "outputs": ListOf(COUNT, MAX_STEPS),
    "temporaries": ListOf(COUNT, MAX_STEPS),
    "peak_step": COUNT, "peak_bytes": COUNT, "schedule_length": COUNT,
    "at_peak": ListOf(BUFFER, MAX_AT_PEAK), "buffers_at_peak": COUNT,
    "reserved": INSPECT.required["memory"],
    # What XLA reserves that the live values at the peak do not use, each with its bytes: the reserved bytes are
    # the peak plus these (outputs written after the peak, the temporaries' block unused at the peak, ...).
    "explained": ListOf(Record({"what": OneOf(("outputs_after_peak", "temporaries_unused_at_peak",
                                               "arguments_not_in_schedule", "constants")),
                                "bytes": Real()}), 8),
    "flops": MAYBE_AMOUNT,
})
GRADIENT = Record({
    "plain": Either((MEMORY, Null())), "checkpointed": Either((MEMORY, Null())),
    "checkpoint_calls": COUNT, "unavailable": Either((SHORT, Null())),
    "runs": Either((ListOf(RUN, 2), Null())),  # with jax.checkpoint and without, timed in turn
})
KERNELS = Record({
    "events": ListOf(Record({"name": Text(300), "call": COUNT, "start_s": SECONDS, "duration_s": SECONDS,
                             "line": MAYBE_LINE, "bytes": MAYBE_AMOUNT, "flops": MAYBE_AMOUNT}), MAX_EVENTS),
    "calls": COUNT, "fusions": ListOf(Text(300), 10_000), "left_out": COUNT, "plane": Text(200),
    "unavailable": Either((SHORT, Null())),
})
SPEED_OF_LIGHT = replies.ok(
    meanwhile=True, function=Name(), device=Text(400), dtype=OneOf(CEILING_DTYPES), programs=ListOf(PROGRAM, 2),
    memory=Either((MEMORY, Null())), memory_unavailable=Either((SHORT, Null())), gradient=Either((GRADIENT, Null())),
    kernels=KERNELS, notes=ListOf(SHORT, 20),
)
MAX_LEVELS = 8  # memory levels with a roof each: a CPU's caches and its memory
LEVEL = Record({"name": Text(20), "cache_bytes": Either((COUNT, Null())), "stream_bytes": COUNT, "passes": COUNT,
                "bandwidth_bytes_s": Real(0.0), "run": RUN})
CEILINGS = replies.ok(
    device=Text(400), platform=Text(40), dtype=OneOf(CEILING_DTYPES), levels=ListOf(LEVEL, MAX_LEVELS),
    bandwidth_bytes_s=Real(0.0), stream_bytes=COUNT,
    bandwidth_run=RUN, peak_flops_s=Real(0.0), matmul_n=COUNT, matmul_run=RUN,
)


def _dtype(name: str, value: object) -> dict | None:
    from playground.errors import error_dict

    if value in CEILING_DTYPES:
        return None
    return error_dict("invalid_input", f"`{name}` must be one of {', '.join(CEILING_DTYPES)}, got {str(value)[:40]!r}.")


DTYPE = Argument("dtype", _dtype, "the dtype of the matmul whose FLOP/s is the compute ceiling.", str,
                 Form("choice", choices=CEILING_DTYPES), "float32")
MEASURED_AGAIN = 3  # times a server has the roofs measured again after a point beat them all
AGAIN = whole("again", "how many times the roofs were measured again: a later count measures them afresh.", 0,
              MEASURED_AGAIN, 0)

KINDS = (
    JobKind("speed_of_light", "playground.worker.jobs.speed_of_light:speed_of_light_job", (
        code(), ARGS,
        flag("gradient", "also the memory of jax.grad of the function (of the sum of its output, by its first "
                         "argument), with and without the jax.checkpoint calls in the code.", True)),
        SPEED_OF_LIGHT, """Where a function's time goes, against what this machine can do: a roofline, a memory
timeline and a kernel timeline.

The function (``code`` and ``args`` as in ``inspect``) is compiled as written and with XLA's fusion passes off; the
two are timed in turn, the same number of calls each, and compared (``"comparison"``: too close to call where the
spread is larger than the difference, with ``"busy"`` where other jobs ran meanwhile), and placed on a hierarchical
roofline under the device's measured roofs: a bandwidth per memory level (a CPU's caches, as the system lists them,
and its memory; an accelerator's memory), each streamed in place at a size that lives in it, and peak FLOP/s from a
large matmul in the function's dtype at JAX's default precision (measured in the device owner by a job that runs no
user code, and kept for the server's life). Each program sits under the roof of the level its working set lives in;
one measured above it gets the reason, not a fraction. FLOPs and bytes are XLA's own cost analysis (null, with the
reason, where the backend reports none). The memory timeline is the live bytes at each step of XLA's schedule, from
the compiled program's buffer assignment, with the largest buffers at the peak and the lines that made them; with
``gradient``, the same for ``jax.grad`` of the function with and without the ``jax.checkpoint`` calls in the code.
The kernel timeline is a few calls traced with ``jax.profiler`` and read back with ``jax.profiler.ProfileData``:
each kernel XLA ran, named by its HLO instruction, with its bytes and (counted from the optimised HLO by XLA's
rules) its FLOPs; each kernel whose FLOPs are counted is a point of its own on the roofline.

Returns ``{"ok", "function", "device", "dtype", "programs": [as written, fusion off], "roofline":
{"ceilings" (with "levels"), "programs": [{"label", "flops", "bytes", "seconds", "intensity",
"achieved_flops_s", "achieved_bytes_s", "working_set", "level", "roof_bytes_s", "ridge", "bound", "fraction",
"above_roof", "verdict"}], "kernels": [the same, per kernel, with "line"], "comparison"},
"memory", "gradient", "kernels", "notes"}``.""",
        pool="device", device=True, timed=True, finish="playground.server.device_owner.kept_ceilings:finish_roofline",
        finish_each_answer=True),
    JobKind("device_ceilings", "playground.worker.jobs.speed_of_light:ceilings_job", (DTYPE, AGAIN), CEILINGS,
            "The device's measured ceilings: streaming bandwidth and a matmul's FLOP/s in ``dtype``.",
            public=False, pool="device", device=True, timed=True),
)
