"""The honest timing harness: warm-up, ``block_until_ready``, compile timed on its own, medians of repeats.

JAX dispatches asynchronously: ``jax.jit(f)(x)`` returns as soon as the work
is queued, so a clock stopped there measures dispatch, not the computation.
``measure`` therefore passes every result to ``jax.block_until_ready`` before
it reads the clock, runs the function untimed first (the first call of a jitted
function traces and compiles; the first eager call compiles each primitive),
and reports the median and quartiles of many runs rather than one lucky or
unlucky run. ``compile_time`` times ``lower(...).compile()`` separately, so
compilation never hides inside a steady-state number.

>>> import jax.numpy as jnp
>>> x = jnp.ones((100, 100))
>>> t = measure(lambda: x @ x, min_total_s=0.05)
>>> t.runs >= 3 and t.min_s <= t.median_s
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import jax
import numpy as np

from playground.measure import processors


@dataclass(frozen=True)
class Timing:
    """Seconds per call over ``runs`` timed calls: fastest, median and quartiles; and the process's minor page
    faults per timed call (None where the OS does not count them): a call whose result lands on fresh pages pays
    the kernel for each, and whether freed memory is reused or handed back depends on the process's allocator, so
    the same call can cost more in one process than in another (docs/development.md, "jit against a script")."""

    min_s: float
    median_s: float
    q1_s: float
    q3_s: float
    runs: int
    faults_per_call: float | None = None
    # The share of the host's processors that other processes kept busy while the calls were timed (None where the
    # OS does not say): a busy machine slows the calls by an amount no repeat can take out.
    others_busy: float | None = None

    @property
    def iqr_s(self) -> float:
        """The interquartile range, q3 - q1: how much the middle half of the runs spread."""
        return self.q3_s - self.q1_s

    def to_dict(self) -> dict:
        return {"min_s": self.min_s, "median_s": self.median_s, "iqr_s": self.iqr_s,
                "q1_s": self.q1_s, "q3_s": self.q3_s, "runs": self.runs}

    @classmethod
    def from_samples(cls, seconds: list[float], faults: int | None = None, others_busy: float | None = None) -> Timing:
        """``faults``: the minor page faults of all the timed calls together."""
        if not seconds:
            raise ValueError("no timed runs")
        q1, median, q3 = np.percentile(np.asarray(seconds, dtype=np.float64), [25, 50, 75])
        return cls(min_s=float(min(seconds)), median_s=float(median), q1_s=float(q1), q3_s=float(q3),
                   runs=len(seconds), faults_per_call=None if faults is None else faults / len(seconds),
                   others_busy=others_busy)


def measure(fn: Callable[[], object], *, min_total_s: float = 0.2, max_runs: int = 50, min_runs: int = 3,
            warmup: int = 1, max_total_s: float = math.inf) -> Timing:
    """Call fn warmup times untimed, then time calls until about min_total_s has passed.

    At least ``min_runs`` and at most ``max_runs`` calls are timed, but once the
    timed calls add up to ``max_total_s`` no more are started (at least one is
    always timed): a slow function cannot run past its job's time limit. fn's result
    is passed to ``jax.block_until_ready`` before the clock stops (so async
    dispatch is not mistaken for speed), and it is released only after the
    clock stopped, so one result is alive at a time and freeing it is not timed
    (the same for NumPy and JAX).
    """
    if min_runs < 1 or max_runs < min_runs:
        raise ValueError(f"need 1 <= min_runs <= max_runs, got min_runs={min_runs}, max_runs={max_runs}")
    if warmup < 0 or not min_total_s >= 0:
        raise ValueError(f"need warmup >= 0 and min_total_s >= 0, got {warmup} and {min_total_s}")
    for _ in range(warmup):
        jax.block_until_ready(fn())
        # the warm-up's result is dropped here, before any timed run allocates its own
    seconds: list[float] = []
    spent = 0.0
    faults, cpu = minor_faults(), processors.Busy()
    while len(seconds) < max_runs and (len(seconds) < min_runs or spent < min_total_s) and (
            not seconds or spent < max_total_s):
        elapsed = time_once(fn)
        seconds.append(elapsed)
        spent += elapsed
    after = minor_faults()
    return Timing.from_samples(seconds, None if faults is None or after is None else after - faults,
                               cpu.others_since())


def measure_together(calls: Sequence[Callable[[], object]], budget_s: float, limit_s: float = math.inf,
                     max_runs: int = 50) -> list[Timing]:
    """Each call timed in turn (A, B, A, B, ...) after one warm-up call each, until about ``budget_s`` (at least 3
    rounds, none started past ``limit_s``): versions compared in one job see the same machine."""
    seconds: list[list[float]] = [[] for _ in calls]
    spent = 0.0
    for call in calls:
        jax.block_until_ready(call())
    while len(seconds[0]) < max_runs and (len(seconds[0]) < 3 or spent < budget_s) and (
            not seconds[0] or spent < limit_s):
        for call, kept in zip(calls, seconds, strict=True):
            elapsed = time_once(call)
            kept.append(elapsed)
            spent += elapsed
    return [Timing.from_samples(kept) for kept in seconds]


def busiest(timings: Iterable[Timing | None]) -> float | None:
    """The largest share of the host's processors that other processes took while any of ``timings`` ran."""
    return max((t.others_busy for t in timings if t is not None and t.others_busy is not None), default=None)


def time_once(fn: Callable[[], object]) -> float:
    """Seconds for one call of fn, its result ready (``block_until_ready``) before the clock stops and released
    only after it, so that freeing it is not timed."""
    start = time.perf_counter()
    result = fn()
    jax.block_until_ready(result)
    elapsed = time.perf_counter() - start
    del result
    return elapsed


def minor_faults() -> int | None:
    """This process's minor page faults so far, all its threads (XLA's too); None where the OS does not say."""
    try:
        import resource  # Unix only
    except ImportError:
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def compile_time(jitted, *args) -> tuple[float, object]:
    """Seconds to lower + compile ``jitted`` for args (``jitted.lower(*args).compile()``), and the executable.

    ``args`` may be arrays or ``jax.ShapeDtypeStruct``s: compiling needs only
    shapes and dtypes. Tracing is included (``lower`` traces first).
    """
    start = time.perf_counter()
    compiled = jitted.lower(*args).compile()
    return time.perf_counter() - start, compiled
