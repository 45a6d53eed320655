"""What this device can do at most, measured in the owner: a bandwidth roof per memory level, and a matmul's
FLOP/s per dtype.

Every Speed of light roofline is drawn against these. They run no user code and
are measured in the owner, with nothing else on the device (the owner runs one
thing at a time), and kept for the owner's life: the first job that needs a
dtype's ceilings pays for the measurement, later ones read it (the levels are
measured once, for every dtype).

- Bandwidth, one roof per level (a hierarchical roofline, as cache-aware
  rooflines draw it): on a CPU each cache the system lists (cache_levels.py),
  then memory; on an accelerator its memory. Each level is streamed by a
  jitted loop of ``v * -1`` over one float32 array of a size that lives in it
  (``stream_sizes``), many passes a call, the array donated so that each call
  writes over its input: no fresh output to fault in, which a stream of a new
  256 MB result every call measures instead of the memory (a roof far under
  what a function reaches). Each pass reads and writes the array.
- FLOP/s: a jitted ``a @ b`` of two n x n matrices in the dtype asked for, at
  JAX's default precision (a TPU runs float32 matmuls as bfloat16 passes at
  it, as a user's function does), 2 n^3 FLOPs per call, n grown until one call
  takes ``MATMUL_MIN_S``.

A level's roof is measured at the smallest size it serves (just past the level
below), its fastest: an upper bound for any working set it holds. Both timed as
every time in the app is (measure/timing.py: a warm-up, the result ready before
the clock stops), each roof from the fastest call, not the median: a roof is the
most this machine did, and a call slowed by other work on a shared machine
must not lower it below what a user's function then reaches. Where other
processes kept the machine busy meanwhile, the roofs are measured again and
each kept at its best (``BUSY_TRIES``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import jax
import jax.numpy as jnp

from playground.measure import processors, timing
from playground.owner.cache_levels import cache_levels

ACCELERATOR_STREAM_BYTES = 1 << 30
PASS_BYTES = 128 << 20  # each call of a level's stream moves at least this much: past the call's own cost
PAST_BELOW = 4  # a level is streamed at 4x the level below it (at most half its own size): in it, past the other
MATMUL_N = {"cpu": (512, 4096), "accelerator": (2048, 16384)}  # where n starts, and its most
MATMUL_MIN_S = 0.05  # a call this long is past the start-up costs and the caches' warm-up
MEASURE_S = 0.3
# Where other processes took this share of the host's processors while the roofs were measured (a shared machine,
# a test suite beside them), they are measured again, up to BUSY_TRIES times in all, each roof kept at its best:
# one roof slowed more than another would move the ridge, and a memory-bound function would read as compute-bound.
BUSY_SHARE = 0.25
BUSY_TRIES = 3
DTYPES = ("float32", "bfloat16", "float16")


class Ceilings:
    """The levels' roofs, measured on first use and kept; each dtype's compute roof, the same. A later ``again``
    (the server's count, after a point beat every roof: measured while other work slowed the machine) measures both
    again."""

    def __init__(self, device_label: Callable[[], str], memory_mb: int,
                 caches: Callable[[], list[dict]] = cache_levels) -> None:
        self._label = device_label
        self._memory_mb = memory_mb
        self._caches = caches
        self._levels: list[dict] | None = None
        self._kept: dict[str, tuple[int, dict]] = {}  # dtype -> (the ``again`` it was measured for, the ceilings)
        self._lock = threading.Lock()

    def __call__(self, dtype: str, again: int = 0) -> dict:
        if dtype not in DTYPES:
            return {"error": f"the ceilings are measured for {', '.join(DTYPES)}, not {dtype[:20]!r}"}
        with self._lock:
            if dtype not in self._kept or self._kept[dtype][0] < again:
                fresh_levels = self._levels is None or dtype in self._kept
                found = None
                for _ in range(BUSY_TRIES):
                    busy = processors.Busy()
                    if fresh_levels:
                        self._levels = best_levels(self._levels if found else None,
                                                   measure_levels(self._memory_mb, self._caches()))
                    found = higher_peak(found, measure(dtype, self._label(), self._levels))
                    others = busy.others_since()
                    if others is None or others < BUSY_SHARE:
                        break
                self._kept[dtype] = (again, {**found, **_memory_roof(self._levels), "levels": self._levels})
            return dict(self._kept[dtype][1])


def best_levels(kept: list[dict] | None, new: list[dict]) -> list[dict]:
    """Each level's faster measurement of two (None: the new one's): a roof is the most the machine did."""
    if kept is None:
        return new
    return [max(a, b, key=lambda level: level["bandwidth_bytes_s"]) for a, b in zip(kept, new, strict=True)]


def higher_peak(kept: dict | None, new: dict) -> dict:
    """Of two measurements of the compute roof, the one with the higher FLOP/s (None: the new one)."""
    return new if kept is None or new["peak_flops_s"] > kept["peak_flops_s"] else kept


def _memory_roof(levels: list[dict]) -> dict:
    """The slowest level's, memory's, roof fields of the CEILINGS record."""
    memory = levels[-1]
    return {"bandwidth_bytes_s": memory["bandwidth_bytes_s"], "stream_bytes": memory["stream_bytes"],
            "bandwidth_run": memory["run"]}


def measure(dtype: str, label: str, levels: list[dict]) -> dict:
    """The CEILINGS record of playground/jobs/speed_of_light.py, for the default device, under ``levels``
    (measure_levels): ``bandwidth_bytes_s`` and ``stream_bytes`` are the slowest level's, memory's."""
    n, product = _matmul_size(jnp.dtype(dtype), *MATMUL_N[_place()])
    matmul = timing.measure(product, min_total_s=MEASURE_S)
    return {"ok": True, "device": label, "platform": jax.default_backend(), "dtype": dtype, "levels": levels,
            **_memory_roof(levels), "peak_flops_s": 2.0 * n**3 / matmul.min_s, "matmul_n": n,
            "matmul_run": matmul.to_dict()}


def measure_levels(memory_mb: int, caches: list[dict]) -> list[dict]:
    """Each level's roof, fastest first, memory last: its name, the cache's size (None for memory), the streamed
    array's bytes, the passes a call makes over it, and the bytes per second read and written."""
    levels = []
    for level, size in stream_sizes(_place(), memory_mb, caches):
        passes = max(1, PASS_BYTES // (2 * size))
        moved, run = _stream(size, passes)
        levels.append({**level, "stream_bytes": size, "passes": passes, "bandwidth_bytes_s": moved / run.min_s,
                       "run": run.to_dict()})
    return levels


def stream_sizes(place: str, memory_mb: int, caches: list[dict]) -> list[tuple[dict, int]]:
    """(level, the bytes its stream holds): each cache at PAST_BELOW times the one below it (the first at half its
    size), memory at twice the last cache, within a quarter of the owner's memory (it holds the array once).

    >>> caches = [{"name": "L1", "cache_bytes": 48 << 10}, {"name": "L2", "cache_bytes": 2 << 20},
    ...           {"name": "L3", "cache_bytes": 32 << 20}]
    >>> [(level["name"], size >> 10) for level, size in stream_sizes("cpu", 2048, caches)]
    [('L1', 24), ('L2', 192), ('L3', 8192), ('memory', 65536)]
    >>> stream_sizes("accelerator", 2048, caches)
    [({'name': 'memory', 'cache_bytes': None}, 1073741824)]
    """
    memory = {"name": "memory", "cache_bytes": None}
    if place != "cpu":
        return [(memory, ACCELERATOR_STREAM_BYTES)]
    sizes, below = [], 0
    for cache in caches:
        sizes.append((cache, _whole_rows(min(cache["cache_bytes"] // 2, PAST_BELOW * below or cache["cache_bytes"]))))
        below = cache["cache_bytes"]
    past_caches = max(2 * below, 64 << 20)
    return [*sizes, (memory, _whole_rows(min(past_caches, (memory_mb << 20) // 4)))]


def _whole_rows(size: int) -> int:
    """``size`` in whole float32 rows of 256 (a 2-D array, as a learner's function gets), at least one row."""
    return max(1, size // 1024) * 1024


def _place() -> str:
    return "cpu" if jax.default_backend() == "cpu" else "accelerator"


def _stream(size: int, passes: int) -> tuple[int, timing.Timing]:
    """Bytes a call of the donated stream moves over a ``size``-byte float32 array, ``passes`` times, and its
    timing."""
    stream = jax.jit(lambda v: jax.lax.fori_loop(0, passes, lambda _, a: a * -1.0, v), donate_argnums=0)
    held = [jnp.ones((size // 1024, 256), jnp.float32)]

    def call():
        held[0] = stream(held[0])  # the result is the next call's input: written where the input was
        return held[0]

    return 2 * size * passes, timing.measure(call, min_total_s=MEASURE_S)


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
