"""The jit tab's job: NumPy against eager and jitted JAX on n x n inputs."""

from __future__ import annotations

from playground import replies
from playground.jobs import JobKind
from playground.jobs.arguments import BY_SERVER, MAX_MATRIX, MAX_REPEATS, MAX_SIZES, code, whole, wholes
from playground.replies import COUNT, ENGINE_TIMES, SHORT, TIMES
from playground.schema import Either, ListOf, Name, Null, Real, Record, Text

POSITION = 50

# The reply's every field, checked in the server before anything uses it (playground/replies.py).
JIT_SPEED = replies.ok(
    function=Name(), device=Text(400), sizes=ListOf(COUNT, 64),
    skipped=ListOf(Record({"size": COUNT, "reason": SHORT}), 64),
    numpy_s=TIMES, eager_s=TIMES, jit_s=TIMES, compile_s=TIMES, spread=ENGINE_TIMES, min_s=ENGINE_TIMES,
    faults_per_call=Record({engine: ListOf(Either((Real(0.0, 2.0**62), Null())), 64)
                            for engine in ("numpy", "eager", "jit")}),
    others_busy=Either((Real(0.0, 1.0), Null())),  # the most other processes took of the host's processors meanwhile
    numpy_unavailable=Either((SHORT, Null())), jaxpr_ops=COUNT, fused_kernels=COUNT,
    checked_sizes=ListOf(COUNT, 64), numpy_checked_sizes=ListOf(COUNT, 64),
    pending_sizes=ListOf(COUNT, 64),  # an early reply's sizes still to measure; [] in the final one
)

DOC = """NumPy vs eager JAX vs jitted JAX on an n x n float32 input for each size n (compile timed apart).

Runs on the host's GPU or TPU where there is one (``device`` names what it measured on).

Returns ``{"ok", "device", "sizes", "numpy_s", "eager_s", "jit_s", "compile_s",
"jaxpr_ops", "fused_kernels", ...}``; times are per-size medians in seconds."""

KINDS = (JobKind(
    "jit_speed", "playground.worker.jobs.jit_speed:jit_speed_job", (
        code("Python source defining a function of one n x n array (the last ``def``)."),
        wholes("sizes", "the sizes n to measure (null: those that fit the server's memory limit).", 1, MAX_MATRIX,
               MAX_SIZES, BY_SERVER, sort=True),
        whole("repeats", "timed runs per size and variant.", 1, MAX_REPEATS, 5)),
    JIT_SPEED, DOC,
    pool="device", device=True, timed=True, early=True),)  # early: the sizes measured so far
