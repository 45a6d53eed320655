"""A program under the device's roofs: what bounds it and how far it is from the limit. Server side, no JAX.

The roofline model: a program that does ``flops`` FLOPs and moves ``bytes``
bytes (XLA's cost analysis) has an arithmetic intensity of flops / bytes. A
hierarchical roofline has a bandwidth roof per memory level (a CPU's caches,
then memory; an accelerator's memory), each measured by the device_ceilings job
streaming an array that lives in that level, and a compute roof (a matmul's
FLOP/s in the program's dtype, at JAX's default precision). A program is placed
under the roof of the level its working set lives in (its arguments, outputs
and temporaries: the smallest level they fill at most half of); that roof meets the
compute roof at the level's ridge. Left of it a program can at best move bytes
at the level's bandwidth (memory-bound); right of it, compute at the peak
(compute-bound). How close it comes is its achieved rate over that roof.

A roof is measured at its level's fastest, so no point should be above it. One
that is gets no fraction (never "686 %") but the reason: above its level's roof
and under a faster one, its data came partly from a faster level; above every
roof, a count or a roof's measurement is off. Where XLA reports no cost, there
is no point, and the verdict says why.

>>> levels = [{"name": "L2", "cache_bytes": 2 << 20, "bandwidth_bytes_s": 6e10},
...           {"name": "memory", "cache_bytes": None, "bandwidth_bytes_s": 6e9}]
>>> ceilings = {"device": "cpu", "dtype": "float32", "bandwidth_bytes_s": 6e9, "peak_flops_s": 2.4e11,
...             "stream_bytes": 1 << 29, "matmul_n": 2048, "levels": levels}
>>> program = {"label": "as written", "cost": {"flops": 1.6e7, "bytes_accessed": 3.2e7, "unavailable": {}},
...            "memory": {"argument_bytes": 16_000_000, "output_bytes": 16_000_000, "temp_bytes": 0},
...            "run": {"median_s": 0.0064}}
>>> placed = place_program(program, ceilings)
>>> placed["level"], placed["bound"], round(placed["achieved_bytes_s"] / 1e9, 2), round(placed["fraction"], 3)
('memory', 'memory', 5.0, 0.833)
>>> verdict(placed, ceilings, "en")
'memory-bound: moves 32.0 MB in 6.40 ms = 5.00 GB/s, 83 % of the roof of memory, where its 32.0 MB live (6.00 GB/s)'
>>> faster = place_program({**program, "run": {"median_s": 0.0016}}, ceilings)
>>> faster["fraction"], faster["above_roof"]
(None, 'level')
"""

from __future__ import annotations

import math
import statistics

from playground import messages, replies
from playground.server.comparison import compared

# A measured rate over its roof by less than this is the roof, within a timing's noise: its fraction is 100 %.
NOISE = 1.02
# An intensity within this factor of the ridge is near it: both roofs are close, and which one binds turns on
# XLA's count of bytes (a TPU's float32 matmul, run as bfloat16 passes, sits there).
NEAR_RIDGE = 2.0
# A cache holds a working set of at most this share of its size: the rest holds the program's code, other
# processes' data and what its associativity evicts early (a 32 MB working set in a 32 MiB L3 is streamed from
# memory), and each level's roof is measured at a size within it (owner/ceilings.py).
HOLDS = 0.5
_PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def place(reply: dict, ceilings: dict | None, unavailable: str | None) -> dict:
    """The ``roofline`` field of a speed_of_light reply: the roofs (or why there are none) and each program."""
    placed = [place_program(program, ceilings) for program in reply["programs"]]
    runs = (reply.get("gradient") or {}).get("runs")  # jax.grad with the code's jax.checkpoint calls, without
    return {"ceilings": None if ceilings is None else shown(ceilings),
            "ceilings_unavailable": unavailable,
            "programs": [{**p, "verdict": verdict(p, ceilings, "en")} for p in placed],
            "kernels": place_kernels(reply["kernels"]["events"], ceilings),
            "comparison": compared([program["run"] for program in reply["programs"]],
                                   reply.get(replies.MEANWHILE)) if len(reply["programs"]) == 2 else None,
            "remat_comparison": compared(runs, reply.get(replies.MEANWHILE)) if runs else None}


def held(measured: dict, before: dict | None = None) -> dict:
    """Roofs that stay roofs: each the highest that this and the ``before`` measurement of the same device and dtype
    found (a machine busy with other work measures its roofs lower, never higher, than it can go), and no level's
    below a slower level's (data a faster level holds moves at least as fast: a busy machine measured L2 below
    L3). A level raised to a slower one's roof keeps what it measured, ``measured_bytes_s``.

    >>> l2 = {"name": "L2", "cache_bytes": 2 << 20, "bandwidth_bytes_s": 1.25e11}
    >>> l3 = {"name": "L3", "cache_bytes": 32 << 20, "bandwidth_bytes_s": 1.31e11}
    >>> def memory(bandwidth):
    ...     return {"name": "memory", "cache_bytes": None, "bandwidth_bytes_s": bandwidth}
    >>> first = {"peak_flops_s": 1.25e11, "bandwidth_bytes_s": 5.16e10, "levels": [l2, l3, memory(5.16e10)]}
    >>> busy = {"peak_flops_s": 6.1e10, "bandwidth_bytes_s": 2.33e10, "levels": [l2, l3, memory(2.33e10)]}
    >>> again = held(busy, first)
    >>> again["peak_flops_s"] / 1e9, [(lv["name"], lv["bandwidth_bytes_s"] / 1e9, lv.get("measured_bytes_s"))
    ...                               for lv in again["levels"]]
    (125.0, [('L2', 131.0, 125000000000.0), ('L3', 131.0, None), ('memory', 51.6, None)])
    """
    old = {level["name"]: level for level in levels(before)} if before is not None else {}
    roofs = [{**level, "bandwidth_bytes_s": max(level["bandwidth_bytes_s"],
                                                old.get(level["name"], level)["bandwidth_bytes_s"])}
             for level in levels(measured)]
    for faster, slower in reversed(list(zip(roofs, roofs[1:], strict=False))):
        if faster["bandwidth_bytes_s"] < slower["bandwidth_bytes_s"]:
            faster["measured_bytes_s"] = faster["bandwidth_bytes_s"]
            faster["bandwidth_bytes_s"] = slower["bandwidth_bytes_s"]
    return {**measured, "levels": roofs if measured.get("levels") else [],
            "bandwidth_bytes_s": roofs[-1]["bandwidth_bytes_s"],
            "peak_flops_s": max(measured["peak_flops_s"], (before or measured)["peak_flops_s"])}


def shown(ceilings: dict) -> dict:
    """The ceilings as the roofline shows them: the roofs, each level's with its ridge (the intensity where it meets
    the compute roof), fastest first; ``ridge`` is memory's."""
    peak = ceilings["peak_flops_s"]
    return {**{key: ceilings.get(key) for key in ("device", "platform", "dtype", "bandwidth_bytes_s", "peak_flops_s",
                                                  "stream_bytes", "matmul_n")},
            "ridge": peak / ceilings["bandwidth_bytes_s"],
            "levels": [{**{key: level.get(key) for key in ("name", "cache_bytes", "stream_bytes", "passes",
                                                            "bandwidth_bytes_s", "measured_bytes_s")},
                        "ridge": peak / level["bandwidth_bytes_s"]} for level in levels(ceilings)]}


def levels(ceilings: dict) -> list[dict]:
    """The bandwidth roofs, fastest first; ceilings without levels have memory's roof alone."""
    return ceilings.get("levels") or [{"name": "memory", "cache_bytes": None, "stream_bytes": ceilings["stream_bytes"],
                                       "passes": 1, "bandwidth_bytes_s": ceilings["bandwidth_bytes_s"]}]


def level_of(working_set: float, roofs: list[dict]) -> dict:
    """The smallest level that holds ``working_set`` bytes (in at most HOLDS of its size): the last (memory) where
    no cache does.

    >>> roofs = [{"name": "L1", "cache_bytes": 48_000}, {"name": "memory", "cache_bytes": None}]
    >>> [level_of(size, roofs)["name"] for size in (24_000, 40_000, 4e6)]
    ['L1', 'memory', 'memory']
    """
    return next((level for level in roofs
                 if level["cache_bytes"] is None or working_set <= HOLDS * level["cache_bytes"]), roofs[-1])


def working_set(program: dict) -> float | None:
    """The bytes a program holds while it runs: its arguments, outputs and temporaries (XLA's memory plan, an
    output written into an argument once); a kernel, which has none, the bytes it moves."""
    memory = program.get("memory") or {}
    parts = [memory.get(key) for key in ("argument_bytes", "output_bytes", "temp_bytes")]
    if None in parts:
        return program["cost"].get("bytes_accessed")
    return sum(parts) - (memory.get("alias_bytes") or 0)


def place_kernels(events: list[dict], ceilings: dict | None) -> list[dict]:
    """Each traced kernel whose FLOPs are counted (measurement/kernel_costs.py) as a point of its own: its time the
    median over the calls of its events' time in a call (a loop's body runs many times in one), and its line.

    >>> events = [{"name": "fusion", "call": c, "duration_s": s, "bytes": 8e6, "flops": 4e6, "line": 2}
    ...           for c, s in ((0, 0.002), (1, 0.001), (2, 0.003))]
    >>> [(k["label"], k["seconds"], k["intensity"], k["line"]) for k in place_kernels(events, None)]
    [('fusion', 0.002, 0.5, 2)]
    """
    per_call: dict[str, dict[int, float]] = {}
    known: dict[str, dict] = {}
    for event in events:
        if event.get("flops") and event.get("bytes"):
            calls = per_call.setdefault(event["name"], {})
            calls[event["call"]] = calls.get(event["call"], 0.0) + event["duration_s"]
            known[event["name"]] = event
    placed = []
    for name, calls in per_call.items():
        event = known[name]
        program = {"label": name, "cost": {"flops": event["flops"], "bytes_accessed": event["bytes"]},
                   "run": {"median_s": statistics.median(calls.values())}}
        placed.append({**place_program(program, ceilings), "line": event["line"]})
    return placed


def place_program(program: dict, ceilings: dict | None) -> dict:
    """One program's point: its FLOPs, bytes and time, intensity, achieved rates; under ceilings, the level its
    working set lives in, that level's roof and ridge, the bound, and the fraction of the roof it reached (None,
    with ``above_roof`` "level" or "highest", where it measured above it)."""
    cost, seconds = program["cost"], program["run"]["median_s"]
    flops, moved = cost.get("flops"), cost.get("bytes_accessed")
    found = {"label": program["label"], "flops": flops, "bytes": moved, "seconds": seconds, "intensity": None,
             "achieved_flops_s": None, "achieved_bytes_s": None, "working_set": working_set(program), "level": None,
             "roof_bytes_s": None, "ridge": None, "bound": None, "near_ridge": None, "fraction": None,
             "above_roof": None,
             "why_no_point": _why_no_point(cost)}
    if flops is None or moved is None or not moved or seconds <= 0:
        return found
    found.update(intensity=flops / moved, achieved_flops_s=flops / seconds, achieved_bytes_s=moved / seconds)
    if ceilings is None:
        return found
    roofs = levels(ceilings)
    level = level_of(found["working_set"] or moved, roofs)
    peak, roof = ceilings["peak_flops_s"], level["bandwidth_bytes_s"]
    memory_bound = found["intensity"] < peak / roof
    reached = found["achieved_bytes_s"] / roof if memory_bound else found["achieved_flops_s"] / peak
    found.update(level=level["name"], roof_bytes_s=roof, ridge=peak / roof,
                 bound="memory" if memory_bound else "compute",
                 near_ridge=1 / NEAR_RIDGE <= found["intensity"] * roof / peak <= NEAR_RIDGE)
    if reached <= NOISE:
        found["fraction"] = min(reached, 1.0)
    elif memory_bound and found["achieved_bytes_s"] <= max(r["bandwidth_bytes_s"] for r in roofs) * NOISE:
        found["above_roof"] = "level"
    else:
        found["above_roof"] = "highest"
    return found


def _why_no_point(cost: dict) -> str | None:
    unavailable = cost.get("unavailable") or {}
    missing = [unavailable[name] for name in ("flops", "bytes_accessed") if name in unavailable]
    if missing:
        return "; ".join(missing)
    if cost.get("bytes_accessed") == 0:
        return "XLA counts no bytes moved for this program (nothing to compute at run time)"
    return None


def verdict(placed: dict, ceilings: dict | None, language: str) -> str:
    """One sentence: what bounds the program and how far it is from its roof (or why that cannot be said)."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    def sized(value: float, unit: str, decimals: int = 2) -> str:
        return amount(value, unit, language, decimals)

    if placed["intensity"] is None:
        return say("sol.no_point", why=placed["why_no_point"] or say("sol.no_time"))
    took = duration(placed["seconds"], language)
    if ceilings is None or placed["bound"] is None:
        return say("sol.unplaced", bytes=sized(placed["bytes"], "B", 1), flops=sized(placed["flops"], "FLOP", 1),
                   seconds=took)
    work = {"bytes": sized(placed["bytes"], "B", 1), "flops": sized(placed["flops"], "FLOP", 1), "seconds": took,
            "level": level_name(placed["level"], language), "held": sized(placed["working_set"] or 0, "B", 1)}
    if placed["bound"] == "memory":
        work.update(rate=sized(placed["achieved_bytes_s"], "B/s"), ceiling=sized(placed["roof_bytes_s"], "B/s"))
    else:
        work.update(rate=sized(placed["achieved_flops_s"], "FLOP/s"), ceiling=sized(ceilings["peak_flops_s"], "FLOP/s"),
                    dtype=ceilings["dtype"])
    if placed["above_roof"] == "level":
        fastest = max(levels(ceilings), key=lambda level: level["bandwidth_bytes_s"])
        said = say("sol.above_level", **work, fastest=level_name(fastest["name"], language))
    elif placed["above_roof"]:
        said = say(f"sol.above_highest_{placed['bound']}", **work)
    else:
        said = say(f"sol.{placed['bound']}_bound", **work, percent=messages.number(100 * placed["fraction"], language))
    if placed.get("near_ridge"):
        said += say("sol.near_ridge", intensity=messages.number(placed["intensity"], language, 1),
                    ridge=messages.number(placed["ridge"], language, 1))
    return said


def level_name(name: str, language: str) -> str:
    """A memory level as a reader says it: memory, the L2 cache."""
    if name == "memory":
        return messages.say("sol.level.memory", language)
    return messages.say("sol.level.cache", language, name=name)


def amount(value: float, unit: str, language: str, decimals: int = 2) -> str:
    """``value`` with an SI prefix: 32.0 MB, 4.20 GB/s, 229 GFLOP/s (three figures), as ``language`` writes numbers.

    >>> amount(3.2e7, "B", "de", 1), amount(2.29e11, "FLOP/s", "en"), amount(0.0, "B", "en")
    ('32,0 MB', '229 GFLOP/s', '0 B')
    """
    if not value:
        return f"0 {unit}"
    scale, prefix = next(((s, p) for s, p in _PREFIXES if abs(value) >= s), _PREFIXES[-1])
    scaled = value / scale
    places = max(0, min(decimals, 2 - int(math.floor(math.log10(abs(scaled))))))
    return f"{messages.number(scaled, language, places)} {prefix}{unit}"


def duration(seconds: float, language: str) -> str:
    """3.20 s, 6.40 ms, 12.5 µs.

    >>> duration(0.0064, "en"), duration(1.25e-5, "de")
    ('6.40 ms', '12,5 µs')
    """
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if seconds >= scale or unit == "µs":
            scaled = seconds / scale
            places = max(0, 2 - int(math.floor(math.log10(scaled)))) if scaled > 0 else 0
            return f"{messages.number(scaled, language, places)} {unit}"
    raise AssertionError("unreachable")
