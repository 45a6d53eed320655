"""A classroom of 30 on one server: everyone runs the same example, then a variant of their own, three rounds.

Each simulated student is a gradio_client of its own (as a script would be)
on 127.0.0.1. In each round the teacher names an example of the Inspect
gallery; every student presses Run on it within 5 seconds (a random moment),
then edits it into a variant of their own (a different constant and a
comment naming them) and runs that. The whole thing runs twice, on a fresh
server each time: with the result cache on, and with it off
(PLAYGROUND_RESULT_CACHE=0), and prints both side by side: time to the first
result (the stages) and to the full result (the purity checks too), p50 and
p95, jobs per second, errors (there must be none), how many requests were
told a place in line and the largest place seen, and how many shared a
running job or hit the cache.

Bounded: 30 students x 3 rounds x 2 runs per server, each call with a time
limit; loopback only; it stops by itself, and stops the servers it started.

Usage: python benchmarks/classroom.py [--students 30] [--rounds 3] [--spread-s 5]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.clients import Timings, call_gradio_client  # noqa: E402
from benchmarks.inspect_latency import percentile, start_app  # noqa: E402
from playground.gallery import EXAMPLES  # noqa: E402
from tests.conftest import free_port  # noqa: E402

CALL_LIMIT_S = 120.0
ROUND_EXAMPLES = [e for e in EXAMPLES if e.pure][:3]


def variant(code: str, student: int) -> str:
    """The student's own edit: the function's result scaled by a number of their own."""
    head, _, tail = code.rpartition("return ")
    return f"{head}return {student + 2} * {tail}"


def arguments(example, code: str) -> tuple:
    argnums = [int(n) for n in example.static_argnums.replace(",", " ").split()] or None
    return code, example.args, argnums, example.second_args, False


def one_student(url: str, student: int, start_barriers: list[threading.Barrier], spread_s: float,
                results: list, lock: threading.Lock, seed: int) -> None:
    from gradio_client import Client

    chance = random.Random(seed * 1000 + student)
    client = Client(url, verbose=False)  # opening the page
    for round_number, example in enumerate(ROUND_EXAMPLES):
        start_barriers[round_number].wait(timeout=CALL_LIMIT_S)  # the teacher says "now"
        time.sleep(chance.uniform(0, spread_s))
        for what, code in (("same example", example.code), ("own variant", variant(example.code, student))):
            try:
                timings = call_gradio_client(client, "/inspect", *arguments(example, code))
            except Exception as exc:  # a failed call is an error to count, not a crash of the benchmark
                timings = Timings(final={"ok": False, "error": {"kind": "client", "message": repr(exc)[:200]}})
            with lock:
                results.append((round_number, what, timings))


def run_class(cache_on: bool, opts) -> tuple[list, float]:
    port = free_port()
    proc, _ = start_app(ROOT, port, {"PLAYGROUND_RESULT_CACHE": "1" if cache_on else "0"})
    url = f"http://127.0.0.1:{port}/"
    results: list = []
    lock = threading.Lock()
    barriers = [threading.Barrier(opts.students) for _ in ROUND_EXAMPLES]
    try:
        started = time.perf_counter()
        threads = [threading.Thread(target=one_student, args=(url, s, barriers, opts.spread_s, results, lock,
                                                              opts.seed), daemon=True)
                   for s in range(opts.students)]
        for t in threads:
            t.start()
        deadline = started + CALL_LIMIT_S * 2 * len(ROUND_EXAMPLES)
        for t in threads:
            t.join(timeout=max(0.0, deadline - time.perf_counter()))
        elapsed = time.perf_counter() - started
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    return results, elapsed


def summary(results: list, elapsed: float) -> dict[str, str]:
    def times(key: str, what: str | None = None) -> list[float]:
        return [getattr(t, key) for _, w, t in results if getattr(t, key) is not None and what in (None, w)]

    def p(values: list[float], q: float) -> str:
        return f"{percentile(values, q):.2f} s" if values else "-"

    finals = [t.final for _, _, t in results]
    caches = [f.get("cache") or {} for f in finals if f and f.get("ok")]
    errors = [f for f in finals if not (f and f.get("ok"))]
    positions = [pos for _, _, t in results for pos in t.positions]
    told = sum(1 for _, _, t in results if t.positions)
    row = {
        "requests": f"{len(results)}",
        "errors": f"{len(errors)}" + (f" ({errors[0].get('error', {}).get('kind')})" if errors else ""),
        "first result p50 / p95, all": f"{p(times('first_s'), 50)} / {p(times('first_s'), 95)}",
        "first result p50 / p95, same example": (f"{p(times('first_s', 'same example'), 50)} / "
                                                 f"{p(times('first_s', 'same example'), 95)}"),
        "first result p50 / p95, own variant": (f"{p(times('first_s', 'own variant'), 50)} / "
                                                f"{p(times('first_s', 'own variant'), 95)}"),
        "full result p50 / p95, all": f"{p(times('full_s'), 50)} / {p(times('full_s'), 95)}",
        "jobs/s over the class": f"{len(results) / elapsed:.2f}",
        "told a place in line": f"{told} (largest place {max(positions) if positions else '-'})",
        "cache hits / shared runs": (f"{sum(bool(c.get('hit')) for c in caches)} / "
                                     f"{sum(bool(c.get('shared')) for c in caches)}"),
        "whole class took": f"{elapsed:.1f} s",
    }
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3, help="at most 3: one per example")
    parser.add_argument("--spread-s", type=float, default=5.0, help="everyone presses Run within this many seconds")
    parser.add_argument("--seed", type=int, default=0)
    opts = parser.parse_args()
    del ROUND_EXAMPLES[opts.rounds:]
    columns = {}
    for cache_on in (True, False):
        results, elapsed = run_class(cache_on, opts)
        columns["cache on" if cache_on else "cache off"] = summary(results, elapsed)
    print(f"machine: {os.cpu_count()} CPUs; {opts.students} students, {len(ROUND_EXAMPLES)} rounds "
          f"({', '.join(e.name for e in ROUND_EXAMPLES)}), Run pressed within {opts.spread_s:g} s")
    labels = list(next(iter(columns.values())))
    width = max(map(len, labels))
    print(f"{'':{width}}  " + "  ".join(f"{name:>24}" for name in columns))
    for label in labels:
        print(f"{label:{width}}  " + "  ".join(f"{column[label]:>24}" for column in columns.values()))


if __name__ == "__main__":
    main()
