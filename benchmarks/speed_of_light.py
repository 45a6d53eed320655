"""The Speed of light roofline's achieved rates against an independent jax.jit loop, side by side in one run.

For each function (the issue's: x + x*x + x*x*x at n = 2,000, memory-bound; a 2048 x 2048 float32 matmul,
compute-bound) it runs the speed_of_light job in this process, between two independent measurements of a plain
``jax.jit`` loop (a warm-up, then 30 calls, each result ready before the clock stops), and prints the job's
achieved rate (XLA's bytes or FLOPs over the job's median, as the roofline shows it; and over its fastest call)
beside the loop's (over its median and its fastest call), and their ratios, for several rounds. The ceilings it
places them under are measured once, as the device_ceilings job does.

A timing is never an assertion in the test suite (tests/test_speed_of_light.py checks what is not a clock: the
bound, XLA's bytes and FLOPs, the roofline's figure being the job's median); this is where the 15 % agreement is
measured. Run it on a quiet machine.

Usage: python benchmarks/speed_of_light.py [--rounds 5]
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

from playground.sandbox.limits import Limits  # noqa: E402
from playground.server import roofline  # noqa: E402
from playground.worker.speed_of_light import ceilings_job, speed_of_light  # noqa: E402
from tests.owner_doubles import local_device  # noqa: E402  (an owner's session in this process)

CASES = (  # (name, code, arguments, the rate the roofline bounds it by, XLA's amount that rate counts)
    ("x + x*x + x*x*x, 2000 x 2000", "def f(x):\n    return x + x*x + x*x*x\n", "jnp.ones((2000, 2000))",
     "achieved_bytes_s", "bytes"),
    ("matmul, 2048 x 2048", "def f(a, b):\n    return a @ b\n", "jnp.ones((2048, 2048)), jnp.ones((2048, 2048))",
     "achieved_flops_s", "flops"),
)
CALLS = 30


def loop_seconds(code: str, args_text: str) -> list[float]:
    """A plain jax.jit loop of the function: CALLS timed calls after a warm-up."""
    namespace = {"jax": jax, "jnp": jnp}
    exec(code, namespace)  # this benchmark's own functions
    jitted, args = jax.jit(namespace["f"]), eval(f"({args_text},)", namespace)
    jax.block_until_ready(jitted(*args))
    seconds = []
    for _ in range(CALLS):
        start = time.perf_counter()
        y = jitted(*args)
        y.block_until_ready()
        seconds.append(time.perf_counter() - start)
        del y
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    device = local_device(Limits().memory_mb)
    measured = ceilings_job(Limits(), "float32", device)
    print(f"ceilings: {roofline.amount(measured['bandwidth_bytes_s'], 'B/s', 'en')}, "
          f"{roofline.amount(measured['peak_flops_s'], 'FLOP/s', 'en')} ({measured['device']})")
    for name, code, args_text, rate, amount in CASES:
        unit = "B/s" if amount == "bytes" else "FLOP/s"
        print(f"\n{name}: job (median, fastest) against a jax.jit loop before and after it (median, fastest)")
        for _ in range(rounds):
            before = loop_seconds(code, args_text)
            reply = speed_of_light(code, args_text, device, gradient=False)
            after = loop_seconds(code, args_text)
            placed = roofline.place(reply, measured, None)["programs"][0]
            run, loop = reply["programs"][0]["run"], before + after
            job = (placed[rate], placed[amount] / run["min_s"])
            independent = (placed[amount] / statistics.median(loop), placed[amount] / min(loop))
            print(f"  {placed['bound']}-bound  job {roofline.amount(job[0], unit, 'en'):>12} "
                  f"{roofline.amount(job[1], unit, 'en'):>12}   loop {roofline.amount(independent[0], unit, 'en'):>12} "
                  f"{roofline.amount(independent[1], unit, 'en'):>12}   job / loop {job[0] / independent[0]:.3f} "
                  f"(median) {job[1] / independent[1]:.3f} (fastest)")


if __name__ == "__main__":
    main()
