"""What ``jax.jit`` buys: the user's function timed as NumPy, as eager JAX and as jitted JAX. Runs inside a worker.

For each size n the input is one n x n float32 array with values in [-1, 1)
from ``np.random.default_rng(0)`` (device_ops.uniform): the same values and
dtype for all three. NumPy runs here, in the worker, on the host's CPU. JAX runs
on the device, in the device owner (worker/jobs/device.py): jitted JAX is
``jax.jit(fn)`` (or the user's own jitted function, user_jit.py) lowered with
``jax.export`` and compiled there, its compile timed on its own; eager JAX is
what eager JAX does, one compiled program per equation of the function's jaxpr
dispatched one after another (eager_plan.py). The device's input is made in the
owner from the same seed, so no transfer is timed. Every time is
measure/timing.py's (a warm-up, ``block_until_ready`` before the clock stops,
the median of at least ``repeats`` runs); each engine's check run at a size is
its warm-up there.

On an accelerator, NumPy's work (its check, then its timing) runs on a thread of
the worker while the owner checks and times the device's engines: the two share
no processor (the host's CPU against the accelerator), so neither figure moves,
and the job takes about the longer of the two instead of their sum. Where the
device is the host's CPU they would compete for the same cores, so they run in turn.

Each size's results are compared before it is timed: eager JAX and jit must
agree (else the job stops), and NumPy is timed only where it agrees with jit,
at every element up to 256 x 256 and at 65,536 elements spread over the array
above.

>>> from playground.gallery import JIT_BENCHMARK_CODE
>>> from tests.owner_doubles import local_device
>>> r = jit_speed(JIT_BENCHMARK_CODE, [10, 100], repeats=3, memory_mb=65_536, device=local_device())
>>> r["sizes"], r["jaxpr_ops"], r["fused_kernels"], r["checked_sizes"], r["numpy_checked_sizes"], r["device"]
([10, 100], 5, 1, [10, 100], [10, 100], 'cpu')
"""

from __future__ import annotations

import contextlib
import inspect
import math
import sys
import time
import warnings
from collections.abc import Callable
from concurrent.futures import Executor

import jax
import numpy as np

from playground import device_ops
from playground.errors import UserCodeError
from playground.ipc import procfs
from playground.ipc.limits import Limits
from playground.matrix_memory import ARRAYS_FLOOR, HEADROOM
from playground.measure import timing
from playground.worker.functions import user_jit, usercode
from playground.worker.jobs import eager_plan, numpy_side, numpy_stand_in
from playground.worker.jobs import inspect as staging
from playground.worker.jobs.device import Device
from playground.worker.lessons import user_errors
from playground.worker.measurement import program_size

MIN_TOTAL_S = 0.2
# Memory, in arrays of n*n*4 bytes. The device holds the input, jit's and eager JAX's results (kept for their
# comparison) and the live values of a run; the worker, for NumPy, the input, a copy (to see whether the function
# changes it in place), NumPy's result and its live values. Each is at least ARRAYS_FLOOR / 2 arrays, or SAFETY
# times what the jaxpr's live values (eager, op by op) and XLA's buffer plan (jit) say. A size is kept while the
# device stays under HEADROOM of its memory; NumPy joins while the worker stays under HEADROOM of its limit.
SAFETY = 1.5
RTOL, ATOL = 1e-4, 1e-5  # float32, and XLA may fuse a*b+c into one rounding where NumPy rounds twice
SEED = 0


def jit_speed(code: str, sizes: list[int], repeats: int, memory_mb: int, device: Device, budget_s: float = math.inf,
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
            bench = _Bench(code, program, memory_mb, device, time.perf_counter() + budget_s)
            return bench.run(sizes, repeats, early)
        except Exception as exc:
            return staging.explained_error(exc, code)


class _Bench:
    def __init__(self, code: str, program: usercode.UserProgram, memory_mb: int, device: Device,
                 deadline: float) -> None:
        self.code, self.program, self.memory_mb, self.device, self.deadline = code, program, memory_mb, device, deadline
        choice = user_jit.choose(program.function, (), 1)  # the user's own jit, if their code has one
        self.eager, self.jitted = choice.plain, choice.jitted  # eager JAX runs the function without its jit
        _check_signature(self.eager, program.name)
        self.rows: dict[str, list] = {"numpy": [], "eager": [], "jit": []}
        self.compiled: dict[int, dict] = {}
        self.skipped: list[dict] = []
        self.numpy_checked: list[int] = []
        self.as_numpy, self.numpy_unavailable = None, None

    def run(self, sizes: list[int], repeats: int, early: Callable[[dict], None] | None) -> dict:
        kept = [n for n in sizes if self._fits(n)]
        if not kept:
            raise UserCodeError("memory", "No size fits in the device's memory: "
                                + "; ".join(f"n={s['size']} {s['reason']}" for s in self.skipped))
        self.as_numpy, self.numpy_unavailable = numpy_stand_in.numpy_version(self.code, self.program.name)
        with numpy_side.host_for(self.device) as host:
            return self._run(kept, repeats, early, host)

    def _run(self, kept: list[int], repeats: int, early: Callable[[dict], None] | None, host: Executor) -> dict:
        for i, n in enumerate(kept):
            if i and time.perf_counter() > self.deadline:
                self.skipped += [{"size": m, "reason": "the job's time budget ran out before this size"}
                                 for m in kept[i:]]
                kept = kept[:i]
                break
            self._measure(n, repeats, len(kept) - i, host)
            if early is not None and i + 1 < len(kept):  # the table grows by a row while the rest is measured
                early(self._reply(kept[:i + 1], pending=kept[i + 1:]))
        return self._reply(kept, pending=[])

    def _fits(self, n: int) -> bool:
        """Export and compile size n on the device; whether the device has room for it (else it is skipped)."""
        spec = jax.ShapeDtypeStruct((n, n), np.float32)
        _check_output(jax.eval_shape(self.jitted, spec), n, self.program.name)
        started = time.perf_counter()
        program = self.device.export(self.jitted, spec)
        exported_s = time.perf_counter() - started
        compiled = self.device.compile(program)
        self.compiled[n] = {**compiled, "program": program, "compile_s": exported_s + compiled["compile_s"]}
        need, budget = self._device_bytes(spec), self._device_budget()
        if need <= HEADROOM * budget:
            return True
        self.skipped.append({"size": n, "reason": f"needs about {need / 2**20:,.0f} MB on the device, which has "
                             f"{budget / 2**20:,.0f} MB (the benchmark keeps under {HEADROOM:.0%} of it)"})
        return False

    def _measure(self, n: int, repeats: int, sizes_left: int, host: Executor) -> None:
        device, spec = self.device, jax.ShapeDtypeStruct((n, n), np.float32)
        prepared = host.submit(self._numpy_prepared, n)
        x = device.random((n, n), np.float32, SEED)
        jit_call = self.compiled[n]["program"].call([x])
        eager_call = eager_plan.plan(device, self.eager, [spec], [x])
        # Every size is checked before it is timed: eager and jit must agree, and NumPy joins only where it does.
        (by_jit,), _ = device.run(jit_call)
        (by_eager,), _ = device.run(eager_call)
        found = device.compare([by_eager], [by_jit], rtol=RTOL, atol=ATOL)
        if not found["equal"]:
            raise UserCodeError(
                "invalid_input", f"`{self.program.name}` gives different results eagerly and under jit at n={n} "
                f"({numpy_side.difference(found)}): timing two different computations would mean nothing. Is the "
                "function pure?")
        device.free([by_eager])
        runs = {"jit": jit_call, "eager": eager_call}
        numpy_run = self._numpy_checked(n, prepared.result(), by_jit)
        del prepared  # NumPy's result: only its input is kept for the timing
        device.free([by_jit])
        share = max(0.0, self.deadline - time.perf_counter()) / (3 * sizes_left)
        options = {"min_total_s": MIN_TOTAL_S, "min_runs": repeats, "max_total_s": share}
        numpy_timed = host.submit(self._numpy_timing, numpy_run, n, options)
        for engine in ("eager", "jit"):  # the check run above was each one's warm-up at this size
            self.rows[engine].append(device.time(runs[engine], **options, warmup=0))
        self.rows["numpy"].append(numpy_timed.result())
        device.free([x])

    def _numpy_prepared(self, n: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The host's side of NumPy's check at size n, which needs nothing of the device: its input and its result;
        None when it cannot be timed here (``numpy_unavailable`` says why)."""
        if self.as_numpy is None:
            return None
        need_mb = _worker_resident_mb() + self._host_bytes(n) / 2**20
        if need_mb > HEADROOM * self.memory_mb:
            self.as_numpy, self.numpy_unavailable = None, (
                f"NumPy was not timed from n={n:,} on: it needs about {need_mb:,.0f} MB in the sandbox, which allows "
                f"{self.memory_mb:,} MB (the benchmark keeps under {HEADROOM:.0%} of it).")
            return None
        x_host = device_ops.uniform((n, n), np.float32, SEED)
        by_numpy, why = numpy_side.result(self.as_numpy, x_host)
        if by_numpy is None:
            self.as_numpy, self.numpy_unavailable = None, why
            return None
        return x_host, by_numpy

    def _numpy_checked(self, n: int, prepared: tuple[np.ndarray, np.ndarray] | None,
                       by_jit: int) -> Callable[[], object] | None:
        """NumPy's run at size n, once its result agreed with jit's (numpy_side.py); None when it
        cannot be timed here (``numpy_unavailable`` says why)."""
        if prepared is None:
            return None
        x_host, by_numpy = prepared
        why = numpy_side.disagreement(by_numpy, self.device, by_jit, RTOL, ATOL)
        if why is not None:
            self.as_numpy, self.numpy_unavailable = None, why
            return None
        self.numpy_checked.append(n)
        return lambda x=x_host, f=self.as_numpy: f(x)

    def _numpy_timing(self, run: Callable[[], object] | None, n: int, options: dict) -> timing.Timing | None:
        if run is None:
            return None
        try:  # its check (_check_numpy) ran it once at this size already: that was its warm-up
            return timing.measure(run, **options, warmup=0)
        except Exception as exc:
            why = user_errors.error_result(exc)["error"]["message"]
            self.as_numpy, self.numpy_unavailable = None, f"The NumPy version failed at n={n}: {why}"
            return None

    def _device_bytes(self, spec: jax.ShapeDtypeStruct) -> float:
        array = spec.size * spec.dtype.itemsize
        memory = self.compiled[spec.shape[0]]["memory"]
        jit_peak = sum(memory.get(key) or 0 for key in ("argument_bytes", "output_bytes", "temp_bytes"))
        eager_peak = program_size.peak_live_bytes(jax.make_jaxpr(self.eager)(spec).jaxpr)
        return max(ARRAYS_FLOOR / 2 * array, SAFETY * (3 * array + max(eager_peak, jit_peak)))

    def _host_bytes(self, n: int) -> float:
        spec = jax.ShapeDtypeStruct((n, n), np.float32)
        array = spec.size * spec.dtype.itemsize
        eager_peak = program_size.peak_live_bytes(jax.make_jaxpr(self.eager)(spec).jaxpr)
        return max(ARRAYS_FLOOR / 2 * array, SAFETY * (3 * array + eager_peak))

    def _device_budget(self) -> float:
        return float(self.device.about["memory_bytes"] or self.memory_mb * 2**20)

    def _reply(self, measured: list[int], pending: list[int]) -> dict:
        """The reply for the sizes ``measured`` so far (``pending``: those still to come)."""
        first = jax.ShapeDtypeStruct((measured[0],) * 2, np.float32)
        return {
            "ok": True,
            "function": self.program.name,
            "device": self.device.label,
            "sizes": list(measured),
            "skipped": list(self.skipped),
            "numpy_s": _column(self.rows["numpy"], "median_s"),
            "eager_s": _column(self.rows["eager"], "median_s"),
            "jit_s": _column(self.rows["jit"], "median_s"),
            "compile_s": [self.compiled[n]["compile_s"] for n in measured],
            "spread": {engine: _column(ts, "iqr_s") for engine, ts in self.rows.items()},
            "min_s": {engine: _column(ts, "min_s") for engine, ts in self.rows.items()},
            # Each in its own process (NumPy here, JAX in the owner): what a fresh page cost its calls.
            "faults_per_call": {engine: _column(ts, "faults_per_call") for engine, ts in self.rows.items()},
            "others_busy": timing.busiest(t for ts in self.rows.values() for t in ts),
            "numpy_unavailable": self.numpy_unavailable,
            "jaxpr_ops": program_size.count_equations(jax.make_jaxpr(self.eager)(first).jaxpr),
            "fused_kernels": program_size.count_kernels(self.compiled[measured[0]]["hlo"]),
            "checked_sizes": list(measured),  # eager JAX and jit agreed at each (else the job stopped, saying so)
            "numpy_checked_sizes": [n for n in self.numpy_checked if n in measured],
            "pending_sizes": list(pending),
        }


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


def _worker_resident_mb() -> float:
    now = procfs.sample()
    if now is None:
        import resource  # procfs reads every OS's figures; this is the fallback where it could not

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # the peak so far: an overestimate
        return (peak if sys.platform == "darwin" else peak * 1024) / 2**20
    return now.rss_mb


def jit_speed_job(limits: Limits, code: str, sizes: list[int], repeats: int, device: Device,
                  early: Callable[[dict], None] | None = None) -> dict:
    """The registry's "jit_speed" job: sizes that would not fit the device are skipped; 60 % of its time; the sizes
    measured so far go ahead, one reply per size."""
    return jit_speed(code, sizes, repeats, limits.memory_mb, device, budget_s=0.6 * limits.measure_timeout_s,
                     early=early)
