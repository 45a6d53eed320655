"""inspect_latency.py of two checkouts, run in turn on the same machine, side by side.

For before/after figures of a change: ``--base`` is another checkout (e.g. made
with ``git worktree add /tmp/base <commit>``); both use this interpreter. The
runs alternate (base, this, base, this, ...) so that drift in a shared
machine's speed falls on both; the table shows each figure's median over the
rounds and the ratio this / base.

Usage: python benchmarks/ab_inspect_latency.py --base /tmp/base [--rounds 2] [-- inspect_latency args]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# (label, pattern): the figures inspect_latency.py prints, each its first number after the pattern.
FIGURES = (
    ("cold start, s", r"cold start .*?:\s+([\d.]+) s"),
    ("warm /inspect back to back, p50 ms", r"warm /inspect through the server.*?p50\s+([\d.]+)"),
    ("warm /inspect back to back, p95 ms", r"warm /inspect through the server.*?p95\s+([\d.]+)"),
    ("with 0.5 s pauses, p50 ms", r"0.5 s between requests.*?p50\s+([\d.]+)"),
    ("whole job in-process, p50 ms", r"the whole inspect job.*?p50\s+([\d.]+)"),
    ("sustained, jobs/s", r"sustained.*?:\s+([\d.]+) jobs/s"),
    ("new worker forked, p50 ms", r"new worker, forked.*?p50\s+([\d.]+)"),
)


def run(checkout: Path, args: list[str]) -> dict[str, float]:
    out = subprocess.run([sys.executable, "benchmarks/inspect_latency.py", *args], cwd=checkout, check=True,
                         capture_output=True, text=True).stdout
    figures = {}
    for label, pattern in FIGURES:
        found = re.search(pattern, out)
        if found:
            figures[label] = float(found.group(1))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the other checkout")
    parser.add_argument("--rounds", type=int, default=2)
    opts, rest = parser.parse_known_args()
    rest = [a for a in rest if a != "--"]
    rounds: dict[str, list[dict]] = {"base": [], "this": []}
    for i in range(opts.rounds):
        for name, checkout in (("base", opts.base.resolve()), ("this", ROOT)):
            print(f"round {i + 1}: {name} ({checkout})", file=sys.stderr, flush=True)
            rounds[name].append(run(checkout, rest))
    print(f"{'figure':38} {'base':>10} {'this':>10} {'this/base':>10}   (medians of {opts.rounds} alternating rounds)")
    for label, _ in FIGURES:
        values = {name: [r[label] for r in runs if label in r] for name, runs in rounds.items()}
        if not values["base"] or not values["this"]:
            continue
        base, this = statistics.median(values["base"]), statistics.median(values["this"])
        print(f"{label:38} {base:10.2f} {this:10.2f} {this / base:10.2f}")


if __name__ == "__main__":
    main()
