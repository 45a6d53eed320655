"""Two versions of a program timed in turn, told apart only where the machine's noise allows. No JAX.

The versions (as written, fusion off) are called alternately, the same number of
times (measure/timing.py's ``measure_together``), so that whatever else the
machine did slowed both alike. Each run's spread is its interquartile range;
where the larger spread is at least the difference of the medians, the runs
cannot tell which is faster, and no verdict is given: "too close to call on
this machine right now", naming a busy machine as the reason when the server
ran other jobs meanwhile.

>>> run = lambda median, iqr: {"median_s": median, "iqr_s": iqr, "runs": 9}
>>> compared([run(0.010, 0.001), run(0.020, 0.002)], 0)["faster"]
0
>>> told = compared([run(0.010, 0.004), run(0.012, 0.003)], 3)
>>> told["faster"], told["busy"]
(None, True)
"""

from __future__ import annotations


def compared(runs: list[dict], others_meanwhile: int | None) -> dict:
    """Which of two runs was faster (its index; None when too close to call), by how many times, the faster and
    slower medians, their difference against the larger spread, the calls each, and whether other jobs ran
    meanwhile."""
    first, second = runs
    difference = abs(first["median_s"] - second["median_s"])
    spread = max(first["iqr_s"], second["iqr_s"])
    faster = 0 if first["median_s"] <= second["median_s"] else 1
    slow, fast = runs[1 - faster]["median_s"], runs[faster]["median_s"]
    return {"faster": None if difference <= spread else faster, "times": slow / fast if fast > 0 else None,
            "fast_s": fast, "slow_s": slow, "difference_s": difference, "spread_s": spread,
            "calls": min(first["runs"], second["runs"]),
            "busy": bool(others_meanwhile)}
