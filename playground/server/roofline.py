"""A program under the device's ceilings: what bounds it and how far it is from the limit. Server side, no JAX.

The roofline model: a program that does ``flops`` FLOPs and moves ``bytes``
bytes (XLA's cost analysis) has an arithmetic intensity of flops / bytes. The
device's ceilings (measured by the device_ceilings job: streaming bandwidth B,
a matmul's FLOP/s P) meet at the ridge P / B. Left of the ridge a program can
at best move bytes at B (memory-bound); right of it, compute at P
(compute-bound). How close it comes is its achieved rate over that ceiling.
Where XLA reports no cost, there is no point, and the verdict says why.

>>> ceilings = {"device": "cpu", "dtype": "float32", "bandwidth_bytes_s": 6e9, "peak_flops_s": 2.4e11,
...             "stream_bytes": 1 << 29, "matmul_n": 2048}
>>> program = {"label": "as written", "cost": {"flops": 1.6e7, "bytes_accessed": 3.2e7, "unavailable": {}},
...            "run": {"median_s": 0.0064}}
>>> placed = place_program(program, ceilings)
>>> placed["bound"], round(placed["achieved_bytes_s"] / 1e9, 2), round(placed["fraction"], 3)
('memory', 5.0, 0.833)
>>> verdict(placed, ceilings, "en")
"memory-bound: moves 32.0 MB in 6.40 ms = 5.00 GB/s, 83 % of this machine's measured 6.00 GB/s"
"""

from __future__ import annotations

import math
import statistics

from playground import messages

# Above the streaming ceiling by more than a timing's noise: the program's bytes came from the caches, not memory.
CACHED = 1.05
_PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def place(reply: dict, ceilings: dict | None, unavailable: str | None) -> dict:
    """The ``roofline`` field of a speed_of_light reply: the ceilings (or why there are none) and each program."""
    placed = [place_program(program, ceilings) for program in reply["programs"]]
    return {"ceilings": None if ceilings is None else {
                **{key: ceilings[key] for key in ("device", "dtype", "bandwidth_bytes_s", "peak_flops_s",
                                                  "stream_bytes", "matmul_n")},
                "ridge": ceilings["peak_flops_s"] / ceilings["bandwidth_bytes_s"]},
            "ceilings_unavailable": unavailable,
            "programs": [{**p, "verdict": verdict(p, ceilings, "en")} for p in placed],
            "kernels": place_kernels(reply["kernels"]["events"], ceilings)}


def place_kernels(events: list[dict], ceilings: dict | None) -> list[dict]:
    """Each traced kernel whose FLOPs are counted (worker/kernel_costs.py) as a point of its own: its time the
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
    """One program's point: its FLOPs, bytes and time, intensity, achieved rates, bound and fraction of it."""
    cost, seconds = program["cost"], program["run"]["median_s"]
    flops, moved = cost.get("flops"), cost.get("bytes_accessed")
    found = {"label": program["label"], "flops": flops, "bytes": moved, "seconds": seconds, "intensity": None,
             "achieved_flops_s": None, "achieved_bytes_s": None, "bound": None, "fraction": None,
             "why_no_point": _why_no_point(cost)}
    if flops is None or moved is None or not moved or seconds <= 0:
        return found
    found.update(intensity=flops / moved, achieved_flops_s=flops / seconds, achieved_bytes_s=moved / seconds)
    if ceilings is not None:
        ridge = ceilings["peak_flops_s"] / ceilings["bandwidth_bytes_s"]
        memory_bound = flops / moved < ridge
        found["bound"] = "memory" if memory_bound else "compute"
        found["fraction"] = (found["achieved_bytes_s"] / ceilings["bandwidth_bytes_s"] if memory_bound
                             else found["achieved_flops_s"] / ceilings["peak_flops_s"])
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
    """One sentence: what bounds the program and how far it is from the limit (or why that cannot be said)."""
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
    percent = messages.number(100 * placed["fraction"], language)
    if placed["bound"] == "memory" and placed["fraction"] > CACHED:
        times = messages.number(placed["fraction"], language, 1)
        return say("sol.memory_bound_cached", bytes=sized(placed["bytes"], "B", 1), seconds=took,
                   rate=sized(placed["achieved_bytes_s"], "B/s"), times=times,
                   ceiling=sized(ceilings["bandwidth_bytes_s"], "B/s"))
    if placed["bound"] == "memory":
        return say("sol.memory_bound", bytes=sized(placed["bytes"], "B", 1), seconds=took,
                   rate=sized(placed["achieved_bytes_s"], "B/s"), percent=percent,
                   ceiling=sized(ceilings["bandwidth_bytes_s"], "B/s"))
    return say("sol.compute_bound", flops=sized(placed["flops"], "FLOP", 1), seconds=took,
               rate=sized(placed["achieved_flops_s"], "FLOP/s"), percent=percent,
               ceiling=sized(ceilings["peak_flops_s"], "FLOP/s"), dtype=ceilings["dtype"])


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
