"""How fast is /inspect through the real server, next to the same work done in-process?

Prints, from one run (this machine is shared and noisy, so only side-by-side
ratios mean much):
  1. cold start: launching `python app.py` to the first successful /inspect;
  2. warm round trip of the default example: p50/p95 over N requests back to
     back (each job's replacement worker warms up on the same 2 cores meanwhile)
     and with pauses between them, against make_jaxpr + jit of the same
     function in this process, and against the whole inspect job in-process;
  3. sustained load: jobs per second with C concurrent clients;
  4. what a fresh worker costs: fork from the template vs a new interpreter.

Usage: python benchmarks/inspect_latency.py [--requests 40] [--clients 8] [--seconds 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import free_port  # noqa: E402

CODE = "def f(x):\n    return x + x*x + x*x*x\n"
ARGS = "jnp.arange(4.0)"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def start_app(port: int) -> tuple[subprocess.Popen, float, object]:
    from gradio_client import Client

    env = {**os.environ, "PLAYGROUND_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False"}
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        if proc.poll() is not None:
            raise SystemExit("app.py exited during start-up")
        try:
            client = Client(f"http://127.0.0.1:{port}/", verbose=False)
            if client.predict(CODE, ARGS, api_name="/inspect")["ok"]:
                return proc, time.perf_counter() - started, client
        except Exception:
            time.sleep(0.1)


def warm_round_trips(client, n: int, pause_s: float = 0.0) -> list[float]:
    times = []
    for _ in range(n):
        time.sleep(pause_s)
        t0 = time.perf_counter()
        result = client.predict(CODE, ARGS, api_name="/inspect")
        times.append(time.perf_counter() - t0)
        assert result["ok"], result
    return times


def in_process(n: int) -> list[float]:
    import jax
    import jax.numpy as jnp

    times = []
    for _ in range(n + 1):  # the first pays for JAX's start-up, as a worker's warm-up does
        t0 = time.perf_counter()
        namespace: dict = {"jnp": jnp}
        exec(CODE, namespace)  # a new function object each time, as each job has: no cache hits
        f = namespace["f"]
        x = jnp.arange(4.0)
        str(jax.make_jaxpr(f)(x))
        jax.block_until_ready(jax.jit(f)(x))
        times.append(time.perf_counter() - t0)
    return times[1:]


def in_process_job(n: int) -> list[float]:
    """The whole /inspect job (all stages, purity checks) as a worker runs it, minus the sandbox and HTTP."""
    from playground import staging

    times = []
    for _ in range(n + 1):
        t0 = time.perf_counter()
        assert staging.inspect(CODE, ARGS, 200_000)["ok"]
        times.append(time.perf_counter() - t0)
    return times[1:]


def sustained(port: int, clients: int, seconds: float) -> tuple[int, int, float]:
    from gradio_client import Client

    done, failed = [0], [0]
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds

    def loop() -> None:
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        while time.perf_counter() < stop_at:
            ok = client.predict(CODE, ARGS, api_name="/inspect").get("ok")
            with lock:
                (done if ok else failed)[0] += 1

    t0 = time.perf_counter()
    threads = [threading.Thread(target=loop) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return done[0], failed[0], time.perf_counter() - t0


def worker_start_costs(n: int) -> tuple[list[float], list[float]]:
    from playground.sandbox import Limits, WorkerPool

    pool = WorkerPool(1, Limits(), "playground.handlers")
    pool.start()
    pool._closed.set()  # stop the background spawner: we spawn by hand here
    forked = []
    for _ in range(n):
        t0 = time.perf_counter()
        pool._retire(pool._spawn())
        forked.append(time.perf_counter() - t0)
    pool.close()
    fresh_cmd = [sys.executable, "-c", "import jax, jax.numpy as jnp; jax.jit(lambda x: x * 2 + 1)"
                 "(jnp.arange(4.0)).block_until_ready()"]
    fresh = []
    for _ in range(max(3, n // 4)):
        t0 = time.perf_counter()
        subprocess.run(fresh_cmd, check=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
        fresh.append(time.perf_counter() - t0)
    return forked, fresh


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=15.0)
    opts = parser.parse_args()

    port = free_port()
    proc, cold_s, client = start_app(port)
    try:
        server = warm_round_trips(client, opts.requests)
        paused = warm_round_trips(client, opts.requests // 2, pause_s=0.5)
        local = in_process(opts.requests)
        job = in_process_job(opts.requests)
        jobs, failed, elapsed = sustained(port, opts.clients, opts.seconds)
    finally:
        proc.terminate()
        proc.wait()
    forked, fresh = worker_start_costs(10)

    ms = 1000
    p50, p95, local50 = statistics.median(server) * ms, percentile(server, 95) * ms, statistics.median(local) * ms
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    print(f"cold start (launch -> first /inspect ok): {cold_s:6.2f} s   (target <= 20 s)")
    print(f"warm /inspect through the server, n={len(server)}: p50 {p50:7.1f} ms  p95 {p95:7.1f} ms"
          "   (target p50 <= 300 ms)")
    print(f"the same with 0.5 s between requests (spares already warm), n={len(paused)}: "
          f"p50 {statistics.median(paused) * ms:7.1f} ms  p95 {percentile(paused, 95) * ms:7.1f} ms")
    print(f"same exec + make_jaxpr + jit work in-process, n={len(local)}: p50 {local50:7.1f} ms")
    print(f"ratio server p50 / in-process p50: {p50 / local50:6.1f}x")
    job50 = statistics.median(job) * ms
    print(f"the whole inspect job (all stages + purity checks) in-process, n={len(job)}: p50 {job50:7.1f} ms"
          f"   (so sandbox + HTTP add {p50 - job50:.0f} ms)")
    print(f"sustained, {opts.clients} concurrent clients for {elapsed:.1f} s: {jobs / elapsed:5.2f} jobs/s "
          f"({jobs} ok, {failed} not ok)")
    fork50, fresh50 = statistics.median(forked) * ms, statistics.median(fresh) * ms
    print(f"new worker, forked from the template (locked down + warm): p50 {fork50:7.1f} ms")
    print(f"new worker, fresh interpreter importing JAX + one jit:      p50 {fresh50:7.1f} ms")
    print(f"ratio fresh / forked: {fresh50 / fork50:5.1f}x")


if __name__ == "__main__":
    main()
