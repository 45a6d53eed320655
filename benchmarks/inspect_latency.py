"""How fast is /inspect through the real server: to its first result, to its full result, and from the cache?

Prints, from one run (a shared machine is noisy, so only figures measured side
by side mean much):
  1. cold start: launching `python app.py` to the first successful /inspect;
  2. back to back, distinct functions (the gallery's examples, each made unique
     by a comment, so that no result is reused): time to the first result (the
     stages: result, jaxpr, StableHLO, HLO, cost) and to the full result (with
     the purity and retrace checks), through gradio_client and through a
     kept-alive HTTP connection (as a browser holds one), next to the floor
     each client has on an endpoint that does no work (/datasets);
  3. the whole job against its early reply, in one run, straight on the sandbox
     pool: the time to the job's last reply against the time to its first, same
     jobs (what answering early saves);
  4. sustained load: distinct jobs per second with C concurrent clients, and
     identical jobs per second (the cache) with C concurrent clients;
  5. what a fresh worker costs: fork from the template vs a new interpreter.

With ``--base`` another checkout's app (another version to compare with) is
measured the same way first, by the same clients; an app whose /inspect does
not stream gives its one reply as both first and full result.

Usage: python benchmarks/inspect_latency.py [--requests 40] [--clients 8] [--seconds 15] [--base /tmp/base]
       [--unprivileged]
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.clients import KeepAliveClient, Timings, call_gradio_client  # noqa: E402
from playground.gallery import EXAMPLES  # noqa: E402
from tests import conftest  # noqa: E402
from tests.conftest import free_port  # noqa: E402

PURE = [e for e in EXAMPLES if e.pure]
_unique = itertools.count()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def distinct_job(i: int) -> tuple:
    """The i-th gallery example, made distinct from every other job by a comment (so the cache never answers)."""
    example = PURE[i % len(PURE)]
    argnums = [int(n) for n in example.static_argnums.replace(",", " ").split()] or None
    return f"{example.code}# job {next(_unique)}\n", example.args, argnums, example.second_args, False


def start_app(app_dir: Path, port: int, env: dict | None = None,
              unprivileged: bool = False) -> tuple[subprocess.Popen, float]:
    """``app.py`` of ``app_dir`` on ``port``, and the seconds to its first /inspect; ``unprivileged``: as a Space
    runs it, dropped to an unprivileged uid with no capabilities (this script must then run as root)."""
    from gradio_client import Client

    env = {**os.environ, "PLAYGROUND_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False", **(env or {})}
    command = [sys.executable, "app.py"]
    if unprivileged:
        if os.geteuid() != 0:
            raise SystemExit("--unprivileged drops the app's privileges: run this as root")
        home = Path(tempfile.mkdtemp(prefix="unprivileged-home-"))
        command = conftest.drop_privileges(command, env, home)
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=app_dir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        if proc.poll() is not None:
            raise SystemExit("app.py exited during start-up")
        if time.perf_counter() - started > 180:
            proc.kill()
            raise SystemExit("app.py did not answer within 180 s")
        try:
            client = Client(f"http://127.0.0.1:{port}/", verbose=False)
            if client.predict(*distinct_job(0), api_name="/inspect")["ok"]:
                return proc, time.perf_counter() - started
        except Exception:
            time.sleep(0.2)


def back_to_back(call, n: int) -> list[Timings]:
    results = []
    for i in range(n):
        timings = call("/inspect", *distinct_job(i))
        assert timings.ok, timings.final
        results.append(timings)
    return results


def floor(call, n: int) -> list[float]:
    return [call("/datasets").full_s for _ in range(n)]


def sustained(make_call, clients: int, seconds: float, job) -> tuple[int, int, float, float]:
    """(ok, not ok, seconds, first results per second) with ``clients`` threads, each its own client."""
    ok, failed, firsts = [0], [0], [0]
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds

    def loop() -> None:
        call = make_call()
        i = 0
        while time.perf_counter() < stop_at:
            timings = call("/inspect", *job(i))
            i += 1
            with lock:
                (ok if timings.ok else failed)[0] += 1
                firsts[0] += timings.first_s is not None

    t0 = time.perf_counter()
    threads = [threading.Thread(target=loop) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    return ok[0], failed[0], elapsed, firsts[0] / elapsed


def whole_and_early(n: int) -> tuple[list[float], list[float]]:
    """Straight on a sandbox pool, same jobs: the seconds to the whole job's reply and to its early reply."""
    from playground import jobs
    from playground.ipc.limits import Limits
    from playground.server.pools import WorkerPool

    pool = WorkerPool(1, Limits(), "playground.worker.jobs.handlers")
    pool.start()
    whole, early = [], []
    try:
        for i in range(2 * n):
            code, args, argnums, second, _ = distinct_job(i // 2)
            job = jobs.build("inspect", {"code": code, "args": args, "static_argnums": argnums,
                                         "second_args": second})
            time.sleep(0.4)  # the spare worker is warm, as between a person's clicks
            seen: list[float] = []
            t0 = time.perf_counter()
            reply = pool.run(job, on_early=lambda _reply, seen=seen, t0=t0: seen.append(time.perf_counter() - t0))
            assert reply["ok"], reply
            (early if i % 2 else whole).append(seen[0] if i % 2 and seen else time.perf_counter() - t0)
    finally:
        pool.close()
    return whole, early


def worker_start_costs(n: int) -> tuple[list[float], list[float]]:
    from playground.ipc.limits import Limits
    from playground.server.pools import WorkerPool

    pool = WorkerPool(1, Limits(), "playground.worker.jobs.handlers")
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


def ms(values: list[float], q: float = 50) -> str:
    return f"{1000 * (statistics.median(values) if q == 50 else percentile(values, q)):7.1f}"


def measure_server(app_dir: Path, opts) -> dict:
    """Every through-the-server figure, for the app in ``app_dir``."""
    from gradio_client import Client

    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    proc, cold_s = start_app(app_dir, port, unprivileged=opts.unprivileged)
    try:
        python_client = Client(url, verbose=False)

        def with_gradio_client(api_name, *data):
            return call_gradio_client(python_client, api_name, *data)

        def new_gradio_client():
            client = Client(url, verbose=False)
            return lambda api_name, *data: call_gradio_client(client, api_name, *data)

        keep_alive = KeepAliveClient(url)
        same = distinct_job(1)
        return {
            "cold_s": cold_s,
            "runs": {"gradio_client": back_to_back(with_gradio_client, opts.requests),
                     "kept-alive HTTP": back_to_back(keep_alive.call, opts.requests)},
            "floors": {"gradio_client": floor(with_gradio_client, 10), "kept-alive HTTP": floor(keep_alive.call, 10)},
            "sustained": {
                "distinct jobs": sustained(lambda: KeepAliveClient(url).call, opts.clients, opts.seconds,
                                           distinct_job),
                "identical jobs": sustained(lambda: KeepAliveClient(url).call, opts.clients, opts.seconds / 3,
                                            lambda i: same),
                "identical jobs, gradio_client": sustained(new_gradio_client, opts.clients, opts.seconds / 3,
                                                           lambda i: same)},
        }
    finally:
        proc.terminate()
        proc.wait()


def print_server(name: str, figures: dict) -> None:
    print(f"{name}: cold start (launch -> first /inspect ok) {figures['cold_s']:6.2f} s")
    print("  back to back, distinct gallery functions (ms):")
    print(f"  {'client':16} {'first p50':>9} {'first p95':>9} {'full p50':>9} {'full p95':>9} {'no-op p50':>9}")
    for client, timings in figures["runs"].items():
        first = [t.first_s for t in timings]
        full = [t.full_s for t in timings]
        print(f"  {client:16} {ms(first)}   {ms(first, 95)}   {ms(full)}   {ms(full, 95)}   "
              f"{ms(figures['floors'][client])}")
    for label, (ok, failed, elapsed, firsts) in figures["sustained"].items():
        print(f"  sustained, {label}: {ok / elapsed:6.2f} jobs/s full, {firsts:6.2f}/s first results "
              f"({ok} ok, {failed} not ok, {elapsed:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--base", type=Path, help="another checkout (e.g. git worktree add /tmp/base <commit>): "
                        "its app is measured too, by the same clients, before this one")
    parser.add_argument("--unprivileged", action="store_true", help="run the apps as a Space does: an unprivileged "
                        "uid, no capabilities, so no namespaces or cgroups (run this script as root)")
    opts = parser.parse_args()

    servers = {}
    if opts.base:
        servers[f"base ({opts.base})"] = measure_server(opts.base.resolve(), opts)
    servers["this checkout"] = measure_server(ROOT, opts)
    whole, early = whole_and_early(opts.requests // 2)
    forked, fresh = worker_start_costs(10)

    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}; {opts.clients} clients for sustained "
          "load; targets: first p50 <= 150 ms, >= 10 distinct jobs/s, >= 100 identical jobs/s")
    for name, figures in servers.items():
        print_server(name, figures)
    ratio = statistics.median(whole) / statistics.median(early)
    print(f"straight on the pool, n={len(whole)}: whole job's reply p50 {ms(whole)} ms, "
          f"early reply p50 {ms(early)} ms, ratio {ratio:.2f}x")
    print(f"new worker, forked from the template (locked down + warm): p50 {ms(forked)} ms")
    print(f"new worker, fresh interpreter importing JAX + one jit:      p50 {ms(fresh)} ms")


if __name__ == "__main__":
    main()
