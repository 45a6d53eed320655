"""What ``jax.jit`` buys: the user's function timed as NumPy, as eager JAX and as jitted JAX. Runs inside a worker.

For each size n the input is one n x n float32 array with values in [-1, 1)
from ``np.random.default_rng(0)``: the same values and dtype for all three.
NumPy gets the host array; JAX gets a copy placed on the device beforehand,
so no transfer is timed. Eager JAX calls the function without jit (one dispatch
per primitive); jitted JAX calls ``jax.jit(fn)``, or the user's own jitted
function when their code jits it (user_jit.py), whose compile time is timed
on its own (``timing.compile_time``) and kept out of the steady-state number.
Every time comes from ``timing.measure``: a warm-up call, ``block_until_ready``
before the clock stops, the median of at least ``repeats`` runs. Each size's
results are compared before it is timed: eager JAX and jit must agree (else
the job stops), and NumPy is timed only at the sizes where it agrees too.

>>> from playground.gallery import JIT_BENCHMARK_CODE
>>> r = jit_speed(JIT_BENCHMARK_CODE, [10, 100], repeats=3, memory_mb=65_536)  # a worker gets limits.memory_mb
>>> r["sizes"], r["jaxpr_ops"], r["fused_kernels"], r["checked_sizes"], r["numpy_checked_sizes"]
([10, 100], 5, 1, [10, 100], [10, 100])
"""

from __future__ import annotations

import contextlib
import inspect
import math
import sys
import time
import warnings
from collections.abc import Callable

import jax
import numpy as np

from playground.errors import UserCodeError
from playground.matrix_memory import ARRAYS_FLOOR, HEADROOM
from playground.sandbox import procfs
from playground.sandbox.limits import Limits
from playground.worker import about as runtime
from playground.worker import inspect as staging
from playground.worker import numerics, numpy_stand_in, program_size, timing, user_errors, user_jit, usercode

MIN_TOTAL_S = 0.2
# Memory model, in arrays of n*n*4 bytes. Measured for the classic benchmark's function (peak resident
# memory of a whole jit_speed call above a warmed-up interpreter): 6.1 arrays at n = 4000 and
# n = 10000 (the host input, the device input, jit's result kept for the comparison, and the
# live values of the eager run: x*x + x, x*x, x*x*x). The estimate is at least ARRAYS_FLOOR
# arrays, or SAFETY times what the jaxpr's live values (eager, op by op) and XLA's buffer plan
# (jit) say, plus the host input, so functions with bigger temporaries are bounded too. A size
# is kept only while the worker's resident memory now plus that estimate stays under
# HEADROOM * memory_mb (the parent kills a worker that goes above memory_mb).
SAFETY = 1.5
RTOL, ATOL = 1e-4, 1e-5  # float32, and XLA may fuse a*b+c into one rounding where NumPy rounds twice
# Ops of the ENTRY computation that launch no work: they name or regroup buffers.


def jit_speed(code: str, sizes: list[int], repeats: int, memory_mb: int, budget_s: float = math.inf,
              early: Callable[[dict], None] | None = None) -> dict:
    """Median seconds per call of NumPy, eager JAX and jitted JAX on n x n float32 inputs, per size.

    Within ``budget_s`` seconds: fewer runs than ``repeats`` for a slow engine, and the
    sizes not reached are listed in ``skipped``, rather than the job being killed. With
    ``early``, after each size but the last, the reply so far (the sizes measured,
    ``pending_sizes`` the rest) goes ahead of the final one.
    """
    with warnings.catch_warnings(), contextlib.redirect_stdout(usercode.CappedText(0)):
        warnings.simplefilter("ignore")
        try:
            program = usercode.load(code)
            return _benchmark(code, program, sizes, repeats, memory_mb, time.perf_counter() + budget_s, early)
        except Exception as exc:
            return staging.explained_error(exc, code)


def _benchmark(code: str, program: usercode.UserProgram, sizes: list[int], repeats: int, memory_mb: int,
               deadline: float, early: Callable[[dict], None] | None) -> dict:
    choice = user_jit.choose(program.function, (), 1)  # the user's own jit, if their code has one
    eager, jitted = choice.plain, choice.jitted  # eager JAX runs the function without its jit
    _check_signature(eager, program.name)
    kept, skipped, compiled = [], [], {}
    for n in sizes:
        spec = jax.ShapeDtypeStruct((n, n), np.float32)
        compiled[n] = timing.compile_time(jitted, spec)  # before any call, or the cache would answer
        _check_output(compiled[n][1].out_info, n, program.name)
        need_mb, arrays_mb, resident_mb = _memory_needed(eager, spec, compiled[n][1])
        if need_mb > HEADROOM * memory_mb:
            skipped.append({"size": n, "reason": f"needs about {need_mb:,.0f} MB, the sandbox allows {memory_mb:,} MB "
                            f"({arrays_mb:,.0f} MB for the arrays on top of the {resident_mb:,.0f} MB the worker "
                            f"already uses; the benchmark keeps under {HEADROOM:.0%} of the limit)"})
        else:
            kept.append(n)
    if not kept:
        raise UserCodeError("memory", "No size fits in the sandbox's memory: "
                                     + "; ".join(f"n={s['size']} {s['reason']}" for s in skipped))
    as_numpy, numpy_unavailable = numpy_stand_in.numpy_version(code, program.name)
    rows = {"numpy": [], "eager": [], "jit": []}
    numpy_checked = []  # the sizes at which NumPy's results were compared with jit's, and agreed
    for i, n in enumerate(kept):
        if i and time.perf_counter() > deadline:
            skipped += [{"size": m, "reason": "the job's time budget ran out before this size"} for m in kept[i:]]
            kept = kept[:i]
            break
        x_host = _input(n)
        # Every size is checked before it is timed: eager and jit must agree, and NumPy joins only where it does.
        as_numpy, numpy_unavailable = _check_results(eager, jitted, as_numpy, numpy_unavailable, x_host, program.name)
        if as_numpy is not None:
            numpy_checked.append(n)
        x_device = jax.block_until_ready(jax.device_put(x_host))
        runs = {"eager": lambda x=x_device: eager(x), "jit": lambda x=x_device: jitted(x)}
        if as_numpy is not None:
            runs["numpy"] = lambda x=x_host, f=as_numpy: f(x)
        for engine in rows:
            try:
                share = max(0.0, deadline - time.perf_counter()) / (3 * (len(kept) - i))
                t = timing.measure(runs[engine], min_total_s=MIN_TOTAL_S, min_runs=repeats,
                                   max_total_s=share) if engine in runs else None
            except Exception as exc:
                if engine != "numpy":
                    raise
                as_numpy, t = None, None
                why = user_errors.error_result(exc)["error"]["message"]
                numpy_unavailable = f"The NumPy version failed at n={n}: {why}"
            rows[engine].append(t)
        del x_host, x_device, runs
        if early is not None and i + 1 < len(kept):  # the table grows by a row while the rest is measured
            early(_reply(program, eager, compiled, kept[:i + 1], skipped, rows, numpy_unavailable, numpy_checked,
                         pending=kept[i + 1:]))
    return _reply(program, eager, compiled, kept, skipped, rows, numpy_unavailable, numpy_checked, pending=[])


def _reply(program: usercode.UserProgram, eager, compiled: dict, measured: list[int], skipped: list[dict],
           rows: dict, numpy_unavailable: str | None, numpy_checked: list[int], pending: list[int]) -> dict:
    """The reply for the sizes ``measured`` so far (``pending``: those still to come)."""
    return {
        "ok": True,
        "function": program.name,
        "device": runtime.device_label(),
        "sizes": list(measured),
        "skipped": list(skipped),
        "numpy_s": _column(rows["numpy"], "median_s"),
        "eager_s": _column(rows["eager"], "median_s"),
        "jit_s": _column(rows["jit"], "median_s"),
        "compile_s": [compiled[n][0] for n in measured],
        "spread": {engine: _column(ts, "iqr_s") for engine, ts in rows.items()},
        "min_s": {engine: _column(ts, "min_s") for engine, ts in rows.items()},
        "numpy_unavailable": numpy_unavailable,
        "jaxpr_ops": program_size.count_equations(
            jax.make_jaxpr(eager)(jax.ShapeDtypeStruct((measured[0],) * 2, np.float32)).jaxpr),
        "fused_kernels": program_size.count_kernels(compiled[measured[0]][1].as_text()),
        "checked_sizes": list(measured),  # eager JAX and jit agreed at each (else the job stops with the difference)
        "numpy_checked_sizes": list(numpy_checked),
        "pending_sizes": list(pending),
    }


def _input(n: int) -> np.ndarray:
    """n x n float32 in [-1, 1): small enough that x**3 cannot overflow. Made in place, no float64 copy."""
    x = np.random.default_rng(0).random((n, n), dtype=np.float32)
    x *= 2
    x -= 1
    return x


def _column(timings: list, field: str) -> list:
    return [None if t is None else getattr(t, field) for t in timings]


def _check_signature(function, name: str) -> None:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return  # a builtin or C function: the call itself will say
    try:
        signature.bind(object())
    except TypeError:
        raise UserCodeError(
            "invalid_input", f"`{name}{signature}` must take exactly one argument: the benchmark calls it with one "
            "n x n float32 array.") from None


def _check_output(out_info, n: int, name: str) -> None:
    if not (hasattr(out_info, "shape") and hasattr(out_info, "dtype")):
        kind = type(out_info).__name__
        raise UserCodeError(
            "invalid_input", f"`{name}` returns a {kind}; the benchmark needs one array of the input's shape.")
    if tuple(out_info.shape) != (n, n):
        raise UserCodeError(
            "invalid_input", f"`{name}` turns a ({n}, {n}) input into shape {tuple(out_info.shape)}; the benchmark "
            "compares functions that return an array of the same shape as their input.")


def _check_results(eager, jitted, as_numpy, numpy_unavailable, x_host: np.ndarray, name: str) -> tuple:
    """Eager and jit must agree (else nothing is timed); a NumPy version that disagrees is left out, with why.

    Values are freed as soon as they were compared, and compared in row blocks,
    so the check needs no more memory than the timed runs.
    """
    x_device = jax.block_until_ready(jax.device_put(x_host))
    by_jit = np.asarray(jitted(x_device))
    by_eager = np.asarray(eager(x_device))
    del x_device
    if not _allclose(by_eager, by_jit):
        raise UserCodeError(
            "invalid_input", f"`{name}` gives different results eagerly and under jit at n={x_host.shape[0]} "
            f"({_difference(by_eager, by_jit)}): timing two different computations would mean nothing. "
            "Is the function pure?")
    del by_eager
    if as_numpy is None:
        return None, numpy_unavailable
    n = x_host.shape[0]
    x_copy = x_host.copy()
    try:
        by_numpy = as_numpy(x_copy)
    except Exception as exc:
        return None, (f"Your code does not run with jnp as NumPy (n={n}): "
                      f"{user_errors.error_result(exc)['error']['message']}")
    if not _allclose(x_copy, x_host, rtol=0, atol=0):
        return None, ("With jnp as NumPy the function changes its input in place (JAX arrays are immutable), "
                      "so every timed run would see other numbers.")
    del x_copy
    if not isinstance(by_numpy, np.ndarray):
        return None, f"With jnp as NumPy the function returns a {type(by_numpy).__name__}, not a NumPy array."
    if by_numpy.dtype != by_jit.dtype:
        return None, (f"With jnp as NumPy the function computes in {by_numpy.dtype}, JAX in {by_jit.dtype}: "
                      "timing them side by side would not compare like with like.")
    if not _allclose(by_numpy, by_jit):
        return None, f"With jnp as NumPy the function gives other results at n={n} ({_difference(by_numpy, by_jit)})."
    return as_numpy, None


def _allclose(a: np.ndarray, b: np.ndarray, rtol: float = RTOL, atol: float = ATOL) -> bool:
    return numerics.compare(a, b, rtol, atol).equal


def _difference(a: np.ndarray, b: np.ndarray) -> str:
    found = numerics.compare(a, b, RTOL, ATOL)
    if found.where is not None and not found.differing:
        return f"shapes {a.shape} and {b.shape}"
    return f"largest difference {found.largest:.3g}" if found.largest is not None else "differences that are not finite"


def _memory_needed(function, spec: jax.ShapeDtypeStruct, compiled) -> tuple[float, float, float]:
    """(MB the worker would hold at its peak, MB of it for arrays, MB it holds now) for one size."""
    array = spec.size * spec.dtype.itemsize
    eager_peak = program_size.peak_live_bytes(jax.make_jaxpr(function)(spec).jaxpr)
    jit_peak = 0
    with contextlib.suppress(Exception):  # a backend without memory_analysis leaves the other bounds
        stats = compiled.memory_analysis()
        jit_peak = stats.argument_size_in_bytes + stats.output_size_in_bytes + stats.temp_size_in_bytes
    arrays = max(ARRAYS_FLOOR * array, SAFETY * (array + max(eager_peak, jit_peak)))
    resident = _resident_bytes()
    return (resident + arrays) / 2**20, arrays / 2**20, resident / 2**20


def _resident_bytes() -> int:
    now = procfs.sample()
    if now is None:
        import resource  # procfs reads every OS's figures; this is the fallback where it could not

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # the peak so far: an overestimate
        return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, KiB on Linux
    return int(now.rss_mb * 2**20)


def jit_speed_job(limits: Limits, code: str, sizes: list[int], repeats: int,
                  early: Callable[[dict], None] | None = None) -> dict:
    """The registry's "jit_speed" job: sizes that would not fit the memory limit are skipped; 60 % of its time;
    the sizes measured so far go ahead, one reply per size."""
    return jit_speed(code, sizes, repeats, limits.memory_mb, budget_s=0.6 * limits.measure_timeout_s, early=early)
