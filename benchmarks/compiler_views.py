"""How long do the Compiler tab's three views take, through the real server, for the gallery's examples?

Starts ``python app.py`` with the result cache off (every call is a real job in
a fresh sandboxed worker), then calls /passes, /graph and /compare
(``fusion: off``) for every example of the Compiler tab and every pure example
of the Inspect gallery, each made distinct by a comment, over one kept-alive
HTTP connection as a browser tab holds one; /inspect's first result on the
same functions is measured in the same run, for scale. Prints per view the
median, the 95th percentile, the slowest example and how many answered within
the aim of 1.5 s.

Usage: python benchmarks/compiler_views.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.clients import KeepAliveClient  # noqa: E402
from benchmarks.inspect_latency import percentile, start_app  # noqa: E402
from playground.gallery import COMPILER_EXAMPLES, EXAMPLES  # noqa: E402
from tests.conftest import free_port  # noqa: E402

AIM_S = 1.5
VIEWS = {
    "/passes": lambda code, args, argnums: (code, args, argnums, False),
    "/graph": lambda code, args, argnums: (code, args, argnums, False),
    "/compare": lambda code, args, argnums: (code, args, "", "fusion: off", argnums, False),
    "/inspect": lambda code, args, argnums: (code, args, argnums, "", False),
}
_unique = itertools.count()


def examples() -> list[tuple[str, str, str, list[int] | None]]:
    chosen = [*COMPILER_EXAMPLES, *(e for e in EXAMPLES if e.pure)]
    return [(e.name, e.code, e.args, [int(n) for n in e.static_argnums.replace(",", " ").split()] or None)
            for e in chosen]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    opts = parser.parse_args()
    port = free_port()
    root = Path(__file__).resolve().parents[1]
    proc, start_s = start_app(root, port, {"PLAYGROUND_RESULT_CACHE": "0"})
    try:
        client = KeepAliveClient(f"http://127.0.0.1:{port}/")
        seconds: dict[str, list[tuple[float, str]]] = {view: [] for view in VIEWS}
        for _ in range(opts.rounds):
            for name, code, args, argnums in examples():
                for view, data in VIEWS.items():
                    distinct = f"{code}# job {next(_unique)}\n"
                    timings = client.call(view, *data(distinct, args, argnums))
                    if not timings.ok:
                        raise SystemExit(f"{view} failed on {name!r}: {timings.final}")
                    seconds[view].append((timings.first_s, name))
        client.close()
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    count = len(examples())
    print(f"server start {start_s:.1f} s; {count} examples x {opts.rounds} rounds per view, cache off, "
          "kept-alive HTTP; time to the first result")
    print(f"{'view':<10} {'p50':>8} {'p95':>8} {'slowest':>8}  {'within 1.5 s':>13}  slowest example")
    for view, pairs in seconds.items():
        values = [s for s, _ in pairs]
        slowest = max(pairs)
        within = sum(s <= AIM_S for s in values)
        print(f"{view:<10} {percentile(values, 50) * 1000:>6.0f}ms {percentile(values, 95) * 1000:>6.0f}ms "
              f"{slowest[0] * 1000:>6.0f}ms  {within:>6}/{len(values):<6}  {slowest[1]}")


if __name__ == "__main__":
    main()
