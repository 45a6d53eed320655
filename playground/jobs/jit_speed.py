"""The jit tab's job: NumPy against eager and jitted JAX on n x n inputs."""

from __future__ import annotations

from playground import replies
from playground.jobs import JobKind
from playground.jobs.arguments import BY_SERVER, MAX_MATRIX, MAX_REPEATS, MAX_SIZES, code, whole, wholes

POSITION = 5

DOC = """NumPy vs eager JAX vs jitted JAX on an n x n float32 input for each size n (compile timed apart).

Runs on the host's GPU or TPU where there is one (``device`` names what it measured on).

Returns ``{"ok", "device", "sizes", "numpy_s", "eager_s", "jit_s", "compile_s",
"jaxpr_ops", "fused_kernels", ...}``; times are per-size medians in seconds."""

KINDS = (JobKind(
    "jit_speed", "playground.worker.jit_speed:jit_speed_job", (
        code("Python source defining a function of one n x n array (the last ``def``)."),
        wholes("sizes", "the sizes n to measure (null: those that fit the server's memory limit).", 1, MAX_MATRIX,
               MAX_SIZES, BY_SERVER, sort=True),
        whole("repeats", "timed runs per size and variant.", 1, MAX_REPEATS, 5)),
    replies.JIT_SPEED, DOC,
    pool="accelerator", timed=True, early=True),)  # early: the sizes measured so far
