"""What this device can do at most, measured once per dtype in the owner: streaming bandwidth and matmul FLOP/s.

Every Speed of light roofline is drawn against these. They run no user code and
are measured in the owner, with nothing else on the device (the owner runs one
thing at a time), and kept for the owner's life: the first job that needs a
dtype's ceilings pays for the measurement, later ones read it.

- Bandwidth: a jitted ``x * 2`` on an array well past the caches (``STREAM_BYTES``;
  on a CPU, within the owner's memory), reading it once and writing the result
  once: 2 x its bytes per call.
- FLOP/s: a jitted ``a @ b`` of two n x n matrices in the dtype asked for,
  2 n^3 FLOPs per call, n grown until one call takes ``MATMUL_MIN_S``.

Both timed as every time in the app is (measure/timing.py: a warm-up, the result
ready before the clock stops, the median).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import jax
import jax.numpy as jnp

from playground.measure import timing

STREAM_BYTES = {"cpu": 256 << 20, "accelerator": 1 << 30}
MATMUL_N = {"cpu": (512, 4096), "accelerator": (2048, 16384)}  # where n starts, and its most
MATMUL_MIN_S = 0.05  # a call this long is past the start-up costs and the caches' warm-up
MEASURE_S = 0.3
ROW = 1024  # the streamed array is (rows, 1024): a 2-D array as a learner's function gets
DTYPES = ("float32", "bfloat16", "float16")


class Ceilings:
    """Each dtype's ceilings, measured on first use and kept."""

    def __init__(self, device_label: Callable[[], str], memory_mb: int) -> None:
        self._label = device_label
        self._memory_mb = memory_mb
        self._kept: dict[str, dict] = {}
        self._lock = threading.Lock()

    def __call__(self, dtype: str) -> dict:
        if dtype not in DTYPES:
            return {"error": f"the ceilings are measured for {', '.join(DTYPES)}, not {dtype[:20]!r}"}
        with self._lock:
            if dtype not in self._kept:
                self._kept[dtype] = measure(dtype, self._label(), self._memory_mb)
            return dict(self._kept[dtype])


def measure(dtype: str, label: str, memory_mb: int) -> dict:
    """The CEILINGS record of playground/jobs/speed_of_light.py, for the default device."""
    place = "cpu" if jax.default_backend() == "cpu" else "accelerator"
    # On the CPU the input, its result and the warm-up's result are alive at once: a sixth of the memory each.
    stream_bytes = min(STREAM_BYTES[place], memory_mb * (1 << 20) // 6) if place == "cpu" else STREAM_BYTES[place]
    moved, streamed = _stream(max(1, stream_bytes // 4 // ROW))
    n, product = _matmul_size(jnp.dtype(dtype), *MATMUL_N[place])
    matmul = timing.measure(product, min_total_s=MEASURE_S)
    return {"ok": True, "device": label, "dtype": dtype,
            "bandwidth_bytes_s": moved / streamed.median_s, "stream_bytes": moved, "bandwidth_run": streamed.to_dict(),
            "peak_flops_s": 2.0 * n**3 / matmul.median_s, "matmul_n": n, "matmul_run": matmul.to_dict()}


def _stream(rows: int) -> tuple[int, timing.Timing]:
    """Bytes a call of the jitted ``x * 2`` on a (rows, ROW) float32 array moves, and its timing."""
    x = jnp.ones((rows, ROW), jnp.float32)
    double = jax.jit(lambda v: v * 2.0)
    return 2 * x.nbytes, timing.measure(lambda: double(x), min_total_s=MEASURE_S)


def _matmul_size(dtype, start: int, most: int):
    """The smallest n (doubling from ``start``, at most ``most``) whose matmul takes MATMUL_MIN_S, and its call."""
    multiply = jax.jit(lambda a, b: a @ b)
    n = start
    while True:
        a = jnp.ones((n, n), dtype)
        b = jnp.full((n, n), 0.5, dtype)

        def product(a=a, b=b):
            return multiply(a, b)

        jax.block_until_ready(product())  # compiled before it is timed
        if n >= most or timing.time_once(product) >= MATMUL_MIN_S:
            return n, product
        n *= 2
