"""Does the jit tab report what a plain script gets? The app's NumPy, eager JAX and jit next to a plain process's.

For n = 1,000, 2,000 and 4,000 (``--sizes``), ``--runs`` times (3), in turn:
  1. the app: the jit tab's job on the classic ``x + x*x + x*x*x`` (the AWS article on NumPy to JAX), sent to
     the app's own sandbox pool and device owner, started in this process as the web server starts them
     (worker_pools.start): NumPy in a fresh locked-down worker, eager JAX and jit in the owner;
  2. a plain process: a fresh ``python -c PLAIN``, a reader's own script that shares no code with the app: its
     input from ``default_rng(0).uniform``, NumPy, eager JAX and ``jax.jit``, the median of 15 calls after a
     warm-up, ``block_until_ready`` before the clock stops.
Then the vmap tab's Python loop against ``vmap`` and ``jit(vmap)``, both ways, the same number of times. Prints each
side's medians, the app's over the plain script's, both speed-ups and their ratio, and the minor page faults per
call on each side; a ratio outside 1 / 1.15 to 1.15 is marked. Only ratios taken side by side in one run on a quiet
machine mean much: a busy one is said to be so.

Usage: python benchmarks/jit_speed.py [--runs 3] [--sizes 1000 2000 4000] [--vmap-batch 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playground.gallery import JIT_BENCHMARK_CODE, VMAP_PRESETS  # noqa: E402
from playground.ipc.limits import Limits  # noqa: E402
from playground.server import worker_pools  # noqa: E402
from playground.server.api import PlaygroundAPI, final  # noqa: E402
from playground.server.config import Settings  # noqa: E402
from playground.server.training.service import TrainingService  # noqa: E402

AGREEMENT = 1.15
REPEATS = 15
VMAP_PRESET = "x + x² + x³"
PLAIN = '''
import json, resource, statistics, sys, time
import numpy as np, jax, jax.numpy as jnp

def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

def timed(call, repeats):
    jax.block_until_ready(call())
    seconds, before = [], faults()
    for _ in range(repeats):
        start = time.perf_counter()
        out = jax.block_until_ready(call())
        seconds.append(time.perf_counter() - start)
        del out
    return statistics.median(seconds), (faults() - before) / repeats

def classic(x):
    return x + x * x + x * x * x

def f(x):
    return x + x*x + x*x*x

kind, sizes, repeats = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
found = {}
for n in sizes:
    if kind == "jit":
        x = np.random.default_rng(0).uniform(-1.0, 1.0, (n, n)).astype(np.float32)
        on_device = jax.device_put(x)
        jitted = jax.jit(classic)
        found[n] = {"numpy": timed(lambda: classic(x), repeats), "eager": timed(lambda: classic(on_device), repeats),
                    "jit": timed(lambda: jitted(on_device), repeats)}
    else:
        batch = jnp.stack([jnp.ones(3)] * n)
        one, batched = jax.jit(f), jax.jit(jax.vmap(f))
        found[n] = {"loop": timed(lambda: jnp.stack([one(batch[i]) for i in range(n)]), max(3, repeats // 5)),
                    "vmap": timed(lambda: jax.vmap(f)(batch), repeats),
                    "jit_vmap": timed(lambda: batched(batch), repeats)}
print(json.dumps(found))
'''


def plain(kind: str, sizes: list[int], repeats: int) -> dict[int, dict]:
    """The plain script's figures in a fresh process: per size, each way's (median seconds, faults per call)."""
    done = subprocess.run([sys.executable, "-c", PLAIN, kind, json.dumps(sizes), str(repeats)], capture_output=True,
                          text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the plain script failed: {done.stderr[-2000:]}")
    return {int(n): ways for n, ways in json.loads(done.stdout.splitlines()[-1]).items()}


def app_jit(api: PlaygroundAPI, n: int) -> dict:
    reply = final(api.jit_speed(JIT_BENCHMARK_CODE, [n], REPEATS))
    if not reply.get("ok") or reply["numpy_s"][0] is None:
        raise SystemExit(f"the app's jit job at n={n} measured no NumPy: {reply.get('error') or reply}")
    faults = reply["faults_per_call"]
    return {engine: (reply[f"{engine}_s"][0], faults[engine][0]) for engine in ("numpy", "eager", "jit")} | {
        "busy": reply.get("busy")}


def app_vmap(api: PlaygroundAPI, batch: int) -> dict:
    preset = VMAP_PRESETS[VMAP_PRESET]
    reply = final(api.vmap(preset.code, preset.args, preset.in_axes, [batch], "0"))
    if not reply.get("ok") or reply["loop_s"][0] is None:
        raise SystemExit(f"the app's vmap job measured no loop: {reply.get('error') or reply}")
    return {way: (reply[f"{way}_s"][0], None) for way in ("loop", "vmap", "jit_vmap")}


def started_app(services: ExitStack, folder: str) -> PlaygroundAPI:
    memory_mb = 4096  # n = 4,000: the input, NumPy's result, a copy and its live values (64 MB each), with room
    settings = Settings(limits=Limits(memory_mb=memory_mb, timeout_s=300.0, measure_timeout_s=300.0),
                        result_cache=False, compile_cache=os.path.join(folder, "compile-cache"))
    pools = worker_pools.start(settings, folder, started=lambda what: services.callback(what.close))
    training = TrainingService(pools.owner, settings.data, folder,
                               worker_pools.training_slots(settings, pools.accelerator))
    services.callback(training.close)
    print(f"device: {pools.device_why}")
    return PlaygroundAPI.from_pools(pools, settings, training)


def mark(ratio: float) -> str:
    return f"{ratio:6.2f}{' ' if 1 / AGREEMENT <= ratio <= AGREEMENT else '!'}"


def report(title: str, ways: tuple[str, str], rows: list[tuple[int, dict, dict]]) -> int:
    """One table: per size and run, each way's app and plain medians and their ratio, both speed-ups and their
    ratio, the faults per call; the number of ratios outside the agreement."""
    first, second = ways
    print(f"\n{title}: app / plain within {AGREEMENT}x is agreement (! where not)")
    print(f"  {'n':>6} | {first + ' ms app':>14} {'plain':>9} {'ratio':>7} | {second + ' ms app':>14} {'plain':>9} "
          f"{'ratio':>7} | {'speed-up app':>12} {'plain':>7} {'ratio':>7} | faults/call app, plain")
    off = 0
    for n, app, ref in rows:
        a1, a2, p1, p2 = app[first][0], app[second][0], ref[first][0], ref[second][0]
        ratios = (a1 / p1, a2 / p2, (a1 / a2) / (p1 / p2))
        off += sum(not 1 / AGREEMENT <= r <= AGREEMENT for r in ratios)
        faults = ", ".join(f"{way} {'-' if app[way][1] is None else f'{app[way][1]:,.0f}'} / {ref[way][1]:,.0f}"
                           for way in ways)
        print(f"  {n:>6} | {a1 * 1e3:14.3f} {p1 * 1e3:9.3f} {mark(ratios[0])} | {a2 * 1e3:14.3f} {p2 * 1e3:9.3f} "
              f"{mark(ratios[1])} | {a1 / a2:12.2f} {p1 / p2:7.2f} {mark(ratios[2])} | {faults}"
              + ("  (the app said: busy)" if app.get("busy") else ""))
    return off


def medians(rows: list[tuple[int, dict, dict]], sizes: list[int], ways: tuple[str, ...]) -> list:
    """Per size, each side's median over the runs (for the summary line)."""
    out = []
    for n in sizes:
        picked = [(app, ref) for m, app, ref in rows if m == n]
        app = {way: (statistics.median(a[way][0] for a, _ in picked),
                     None if picked[0][0][way][1] is None else statistics.median(a[way][1] for a, _ in picked))
               for way in ways}
        ref = {way: (statistics.median(r[way][0] for _, r in picked),
                     statistics.median(r[way][1] for _, r in picked)) for way in ways}
        out.append((n, app, ref))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--vmap-batch", type=int, default=1000)
    args = parser.parse_args()
    jit_rows, vmap_rows = [], []
    with tempfile.TemporaryDirectory(prefix="jit-speed-") as folder, ExitStack() as services:
        api = started_app(services, folder)
        for run in range(1, args.runs + 1):
            for n in args.sizes:  # the two sides in turn, size by size: each pair sees the same machine
                jit_rows.append((n, app_jit(api, n), plain("jit", [n], REPEATS)[n]))
            vmap_rows.append((args.vmap_batch, app_vmap(api, args.vmap_batch),
                              plain("vmap", [args.vmap_batch], REPEATS)[args.vmap_batch]))
            print(f"run {run} of {args.runs} done", flush=True)
    report("NumPy against jit, each run", ("numpy", "jit"), jit_rows)
    report("eager JAX against jit, each run", ("eager", "jit"), jit_rows)
    report(f"the vmap tab's '{VMAP_PRESET}': Python loop against vmap, each run", ("loop", "vmap"), vmap_rows)
    report("... and vmap against jit(vmap), each run", ("vmap", "jit_vmap"), vmap_rows)
    # A call of a few tenths of a millisecond moves by a third from one fresh process to the next on either side:
    # the agreement is judged on the medians of the runs.
    jit_medians = medians(jit_rows, args.sizes, ("numpy", "eager", "jit"))
    off = report("NumPy against jit, the median of the runs", ("numpy", "jit"), jit_medians)
    eager_off = report("eager JAX against jit, the median of the runs", ("eager", "jit"), jit_medians)
    vmap_off = report("Python loop against vmap, the median of the runs", ("loop", "vmap"),
                      medians(vmap_rows, [args.vmap_batch], ("loop", "vmap", "jit_vmap")))
    print(f"\noutside {AGREEMENT}x on the medians: NumPy and jit {off}, eager JAX {eager_off}, vmap {vmap_off}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
