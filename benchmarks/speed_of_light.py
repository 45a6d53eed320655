"""The Speed of light roofline against independent measurements, side by side in one run.

1. Each roof against an independent measurement of the same level: every bandwidth roof (a CPU's caches as the
   system lists them, then memory; an accelerator's memory) beside NumPy streaming an array of the same size in
   place (``np.multiply(a, -1, out=a)``, the same passes) on a CPU, or a plain ``jax.jit`` ``x * 2`` on an
   accelerator; the compute roof beside a plain jitted matmul of the same size and, on a CPU, NumPy's (another
   BLAS, which may beat XLA's: the roof is what XLA's matmul reaches). A roof is an upper bound for what the
   app's programs reach: a plain jitted figure over its roof should be at most 1.
2. Each example's point against its roof: the Speed of light tab's examples, ``x + x*x + x*x*x`` past the caches
   and a small matmul under tanh (``CASES``), run through
   the speed_of_light job in this process and placed under the roofs (playground/server/roofline.py): the level
   their working set lives in, the bound, and the share of the roof reached (at most 1.0; a point above its roof
   prints why instead).
3. The job's achieved rate against a plain ``jax.jit`` loop of the same function before and after it (``--rounds``
   rounds): the job's rates are the ones a user's own loop would see.

A timing is never an assertion in the test suite (tests/test_roofline_levels.py checks the placement with
stand-in measurements); this is where the real ones are compared. Run it on a quiet machine.

Usage: python benchmarks/speed_of_light.py [--rounds 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from playground.gallery import SPEED_EXAMPLES  # noqa: E402
from playground.ipc.limits import Limits  # noqa: E402
from playground.server import roofline  # noqa: E402
from playground.worker.jobs.speed_of_light import ceilings_job, speed_of_light  # noqa: E402
from tests.owner_doubles import local_device  # noqa: E402  (an owner's session in this process)

CASES = tuple((e.name, e.code, e.args) for e in SPEED_EXAMPLES) + (
    ("x + x*x + x*x*x, 6000 x 6000 (past the caches)", "def f(x):\n    return x + x*x + x*x*x\n",
     "jnp.ones((6000, 6000))"),
    ("tanh(a @ b), 512", "def f(a, b):\n    return jnp.tanh(a @ b)\n", "jnp.ones((512, 512)), jnp.ones((512, 512))"),
)
LOOPED = CASES[:2]  # compared with a plain loop: one of each bound
CALLS = 30
MEASURE_S = 0.5


def amount(value: float, unit: str) -> str:
    return roofline.amount(value, unit, "en")


def best_seconds(call, least_s: float = MEASURE_S) -> float:
    """The median of timed calls of ``call`` (its result ready) until ``least_s`` passed, after one warm-up."""
    jax.block_until_ready(call())
    seconds: list[float] = []
    while sum(seconds) < least_s or len(seconds) < 5:
        start = time.perf_counter()
        jax.block_until_ready(call())
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def independent_stream(size: int, passes: int) -> float:
    """Bytes per second of an in-place stream over ``size`` bytes, ``passes`` times a call, not by the app's code."""
    if jax.default_backend() == "cpu":
        array = np.ones(size // 4, np.float32)

        def call():
            for _ in range(passes):
                np.multiply(array, -1.0, out=array)
    else:
        x = jnp.ones((size // 4 // 1024, 1024), jnp.float32)
        double = jax.jit(lambda v: v * 2)
        passes = 1

        def call():
            return double(x)
    return 2 * size * passes / best_seconds(call)


def independent_matmuls(n: int, dtype: str) -> list[tuple[str, float]]:
    """FLOP/s of an n x n matmul outside the app: a plain jitted one (XLA's kernel, as a user's function gets it)
    and, on a CPU, NumPy's (its BLAS, another library: float32, as NumPy has no bfloat16 BLAS)."""
    a, b = jnp.ones((n, n), dtype), jnp.full((n, n), 0.5, dtype)
    multiply = jax.jit(lambda p, q: p @ q)
    found = [("jax.jit a @ b", 2 * n**3 / best_seconds(lambda: multiply(a, b)))]
    if jax.default_backend() == "cpu":
        x, y = np.ones((n, n), np.float32), np.full((n, n), 0.5, np.float32)
        found.append(("NumPy a @ b", 2 * n**3 / best_seconds(lambda: x @ y)))
    return found


def loop_seconds(code: str, args_text: str) -> list[float]:
    """A plain jax.jit loop of the function: CALLS timed calls after a warm-up."""
    namespace = {"jax": jax, "jnp": jnp, "lax": jax.lax}
    exec(code, namespace)  # this benchmark's own functions
    jitted, args = jax.jit(namespace["f"]), eval(f"({args_text},)", namespace)
    jax.block_until_ready(jitted(*args))
    seconds = []
    for _ in range(CALLS):
        start = time.perf_counter()
        y = jitted(*args)
        jax.block_until_ready(y)
        seconds.append(time.perf_counter() - start)
        del y
    return seconds


def print_roofs(measured: dict) -> None:
    print(f"\n1. roofs on {measured['device']} ({measured['platform']}), each against an independent measurement")
    for level in measured["levels"]:
        other = independent_stream(level["stream_bytes"], level["passes"])
        size = "" if level["cache_bytes"] is None else f" ({amount(level['cache_bytes'], 'B')} cache)"
        print(f"  {level['name'] + size:<22} roof {amount(level['bandwidth_bytes_s'], 'B/s'):>12} "
              f"over {amount(level['stream_bytes'], 'B'):>9} x {level['passes']:>5}   independent "
              f"{amount(other, 'B/s'):>12}   independent / roof {other / level['bandwidth_bytes_s']:.2f}"
              + (f"   (measured {amount(level['measured_bytes_s'], 'B/s')}, below a slower level's: raised to it)"
                 if level.get("measured_bytes_s") else ""))
    for how, other in independent_matmuls(measured["matmul_n"], measured["dtype"]):
        print(f"  {'compute ' + measured['dtype']:<22} roof {amount(measured['peak_flops_s'], 'FLOP/s'):>12} "
              f"(n = {measured['matmul_n']})   {how} {amount(other, 'FLOP/s'):>12}   "
              f"independent / roof {other / measured['peak_flops_s']:.2f}")


def print_points(device, ceilings: dict) -> None:
    print("\n2. each example's point against its roof (share <= 1.0, or why it is above)")
    for name, code, args_text in CASES:
        reply = speed_of_light(code, args_text, device, gradient=False)
        if not reply["ok"]:
            print(f"  {name}: {reply['error']['message']}")
            continue
        placed = roofline.place(reply, ceilings, None)
        for program in placed["programs"]:
            share = (f"{program['fraction']:.2f}" if program["fraction"] is not None
                     else f"above ({program['above_roof']})")
            rate = (amount(program["achieved_bytes_s"], "B/s") if program["bound"] == "memory"
                    else amount(program["achieved_flops_s"], "FLOP/s"))
            print(f"  {name[:44]:<44} {program['label']:<10} {program['level'] or '-':<6} "
                  f"{amount(program['working_set'] or 0, 'B'):>9} {program['bound'] or '-':<7} {rate:>13}  "
                  f"share {share}")
        comparison = placed["comparison"]
        verdict = ("too close to call" if comparison["faster"] is None
                   else f"{placed['programs'][comparison['faster']]['label']} {comparison['times']:.2f}x as fast")
        print(f"  {'':<44} in turn, {comparison['calls']} calls each: {verdict} "
              f"(difference {comparison['difference_s'] * 1e3:.2f} ms, spread {comparison['spread_s'] * 1e3:.2f} ms)")


def print_loops(device, ceilings: dict, rounds: int) -> None:
    print("\n3. the job's rate (median, fastest) against a jax.jit loop before and after it (median, fastest)")
    for name, code, args_text in LOOPED:
        print(f"  {name}")
        for _ in range(rounds):
            before = loop_seconds(code, args_text)
            reply = speed_of_light(code, args_text, device, gradient=False)
            after = loop_seconds(code, args_text)
            placed = roofline.place(reply, ceilings, None)["programs"][0]
            counted, unit = ((placed["bytes"], "B/s") if placed["bound"] == "memory" else (placed["flops"], "FLOP/s"))
            run, loop = reply["programs"][0]["run"], before + after
            job = (counted / run["median_s"], counted / run["min_s"])
            independent = (counted / statistics.median(loop), counted / min(loop))
            print(f"    job {amount(job[0], unit):>12} {amount(job[1], unit):>12}   loop "
                  f"{amount(independent[0], unit):>12} {amount(independent[1], unit):>12}   job / loop "
                  f"{job[0] / independent[0]:.3f} (median) {job[1] / independent[1]:.3f} (fastest)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    rounds = parser.parse_args().rounds
    device = local_device(Limits().memory_mb)
    measured = roofline.held(ceilings_job(Limits(), "float32", 0, device))  # in level order, as the app holds them
    print_roofs(measured)
    print_points(device, measured)
    print_loops(device, measured, rounds)


if __name__ == "__main__":
    main()
