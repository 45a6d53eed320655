"""Does the jit tab report what a plain stopwatch would? The app's jit/NumPy speed-up next to an independent one.

In one process, for the classic benchmark ``x + x*x + x*x*x`` (the AWS article on NumPy to JAX) on a 4000 x 4000
float32 input:
  1. the app's own measurement, ``jit_benchmark.jit_speed`` (the job a worker runs), measuring on a device
     owner's session in this process (tests/owner_doubles.py) as it does in the owner;
  2. a minimal hand-written loop that shares no code with it: its own input
     (float32 from ``default_rng(0).uniform``), ``time.perf_counter``,
     ``block_until_ready``, NumPy and ``jax.jit``, the median of 20 runs;
and prints both speed-ups (NumPy time / jit time) side by side, and whether
they agree within 15 %. Then the app's per-size table for DEFAULT_SIZES that
fit in 8 GB, with compile times. A shared machine is noisy: only ratios taken
side by side in one run mean much, so each round measures both.

Usage: python benchmarks/jit_speed.py [--rounds 3] [--size 4000] [--no-table]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jax  # noqa: E402
import numpy as np  # noqa: E402

from playground.gallery import JIT_BENCHMARK_CODE  # noqa: E402
from playground.ipc import procfs  # noqa: E402
from playground.matrix_memory import CANDIDATE_SIZES  # noqa: E402
from playground.worker.jobs import jit_speed as jit_benchmark  # noqa: E402
from tests.owner_doubles import local_device  # noqa: E402  (an owner's session in this process)

MEMORY_MB = 8192


def job_memory_mb() -> int:
    """The job's memory limit here: MEMORY_MB on top of what this process holds already. A sandbox worker holds no
    device; this process opened it, and a TPU's host mappings (gigabytes) count in its resident memory, which the
    job reads to decide whether NumPy fits."""
    held = procfs.sample()
    return MEMORY_MB + (int(held.rss_mb) if held else 0)
AGREEMENT = 0.15


def make_classic():
    """A new function object each time: JAX caches compilations per function, and each round should compile."""
    def classic(x):
        return x + x * x + x * x * x

    return classic


def minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def independent_ratio(n: int, runs: int = 20) -> tuple[float, float, float, float, float]:
    """(NumPy median s, jit median s, compile-and-first-call s, page faults per NumPy call, per jit call).

    Measured the plain way. The page faults are this process's minor faults: at
    large n each call's fresh output is first touched page by page, which on
    some machines costs more than the arithmetic.
    """
    x = np.random.default_rng(0).uniform(-1.0, 1.0, (n, n)).astype(np.float32)
    x_device = jax.device_put(x)
    x_device.block_until_ready()
    classic = make_classic()
    jitted = jax.jit(classic)

    start = time.perf_counter()
    jitted(x_device).block_until_ready()  # compiles; not part of the steady state
    first_call_s = time.perf_counter() - start
    classic(x)  # NumPy's first call, also untimed

    numpy_times, jit_times, numpy_faults, jit_faults = [], [], 0, 0
    for _ in range(runs):  # each engine's runs back to back, as %timeit would
        faults = minor_faults()
        start = time.perf_counter()
        out = classic(x)
        numpy_times.append(time.perf_counter() - start)
        numpy_faults += minor_faults() - faults
        del out
    for _ in range(runs):
        faults = minor_faults()
        start = time.perf_counter()
        out = jitted(x_device)
        out.block_until_ready()
        jit_times.append(time.perf_counter() - start)
        jit_faults += minor_faults() - faults
        del out
    return (statistics.median(numpy_times), statistics.median(jit_times), first_call_s,
            numpy_faults / runs, jit_faults / runs)


def app_ratio(n: int) -> dict:
    memory_mb = job_memory_mb()
    result = jit_benchmark.jit_speed(JIT_BENCHMARK_CODE, [n], repeats=5, memory_mb=memory_mb,
                                    device=local_device(memory_mb))
    if not result["ok"]:
        raise SystemExit(f"jit_speed failed: {result['error']}")
    if result["skipped"]:
        raise SystemExit(f"jit_speed skipped n={n}: {result['skipped'][0]['reason']}")
    if result["numpy_s"][0] is None:  # NumPy not timed: it did not fit, or disagreed with jit
        raise SystemExit(f"jit_speed timed no NumPy at n={n}: {result['numpy_unavailable']}")
    return result


def ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1e3:10.3f}"


def print_table(result: dict) -> None:
    print(f"\nPer-size table from jit_speed(JIT_BENCHMARK_CODE, {list(CANDIDATE_SIZES)}, repeats=5, "
          f"memory_mb={job_memory_mb()}) on {result['device']}")
    print(f"  jaxpr_ops={result['jaxpr_ops']}  fused_kernels={result['fused_kernels']}  "
          f"checked_sizes={result['checked_sizes']}  numpy_unavailable={result['numpy_unavailable']}")
    print(f"  {'n':>6} {'numpy ms':>10} {'eager ms':>10} {'jit ms':>10} {'compile ms':>10} "
          f"{'jit IQR ms':>10} {'numpy/jit':>9} {'eager/jit':>9}")
    for i, n in enumerate(result["sizes"]):
        numpy_s, eager_s, jit_s = result["numpy_s"][i], result["eager_s"][i], result["jit_s"][i]
        vs_numpy = f"{numpy_s / jit_s:9.2f}" if numpy_s else f"{'—':>9}"
        print(f"  {n:>6} {ms(numpy_s)} {ms(eager_s)} {ms(jit_s)} {ms(result['compile_s'][i])} "
              f"{ms(result['spread']['jit'][i])} {vs_numpy} {eager_s / jit_s:9.2f}")
    for skip in result["skipped"]:
        print(f"  {skip['size']:>6} skipped: {skip['reason']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="app-vs-independent comparisons in this run")
    parser.add_argument("--size", type=int, default=4000)
    parser.add_argument("--no-table", action="store_true", help="skip the per-size table")
    args = parser.parse_args()

    blas = {k: v for k, v in os.environ.items() if k.startswith("OPENBLAS_")}
    print(f"JAX {jax.__version__}, NumPy {np.__version__}, device {jax.devices()[0]}, {os.cpu_count()} CPUs, "
          f"environment {blas or 'no OPENBLAS_* settings'}")
    n = args.size
    print(f"\nThe classic benchmark at {n} x {n} float32; speed-up = NumPy median / jit median")
    print(f"  {'round':>5} {'app numpy ms':>12} {'app jit ms':>10} {'app ratio':>9} | {'ind numpy ms':>12} "
          f"{'ind jit ms':>10} {'ind ratio':>9} | {'app/ind':>7} within 15%")
    agreed = 0
    for round_ in range(1, args.rounds + 1):
        app = app_ratio(n)
        app_numpy, app_jit = app["numpy_s"][0], app["jit_s"][0]
        ind_numpy, ind_jit, first_call_s, numpy_faults, jit_faults = independent_ratio(n)
        app_r, ind_r = app_numpy / app_jit, ind_numpy / ind_jit
        agree = abs(app_r / ind_r - 1) <= AGREEMENT
        agreed += agree
        print(f"  {round_:>5} {app_numpy * 1e3:12.2f} {app_jit * 1e3:10.2f} {app_r:9.3f} | {ind_numpy * 1e3:12.2f} "
              f"{ind_jit * 1e3:10.2f} {ind_r:9.3f} | {app_r / ind_r:7.3f} {'yes' if agree else 'NO'}")
        app_faults = {engine: app["faults_per_call"][engine][0] for engine in ("numpy", "jit")}
        print(f"        compile: app compile_s {app['compile_s'][0] * 1e3:.1f} ms (lower + compile); independent "
              f"first call {first_call_s * 1e3:.1f} ms (trace + compile + one run); page faults per call: "
              f"NumPy {numpy_faults:,.0f} (app {app_faults['numpy'] or 0:,.0f}), jit {jit_faults:,.0f} "
              f"(app {app_faults['jit'] or 0:,.0f})")
    print(f"  agreement within 15%: {agreed}/{args.rounds} rounds")
    if not args.no_table:
        print_table(jit_benchmark.jit_speed(JIT_BENCHMARK_CODE, list(CANDIDATE_SIZES), repeats=5,
                                            memory_mb=job_memory_mb(), device=local_device(job_memory_mb())))


if __name__ == "__main__":
    main()
