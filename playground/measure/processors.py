"""How busy the host's processors were with other processes' work over a stretch of time (Linux's /proc/stat).

A timing on a machine where other processes take the processors is slower than the same timing on a quiet one,
and repeats do not take that out: the timing harness says so (measure/timing.py), and the page with it. The
host's busy time comes from /proc/stat's first line (every processor's ticks but idle and I/O wait), this
process's own from ``os.times()`` (all its threads); the difference, over the wall time and the processors, is the
share the others took.

>>> busy = Busy()
>>> share = busy.others_since()
>>> share is None or 0.0 <= share <= 1.0
True
"""

from __future__ import annotations

import os
import time

_IDLE = (3, 4)  # idle and iowait, among user nice system idle iowait irq softirq steal (guest time is in user)


def _host_busy_s() -> tuple[float, int] | None:
    """Seconds all the host's processors were busy since boot, and how many there are; None where not said."""
    try:
        with open("/proc/stat") as stat:
            lines = stat.read().splitlines()
    except OSError:
        return None
    ticks = [int(value) for value in lines[0].split()[1:9]]
    processors = sum(1 for line in lines if line.startswith("cpu") and line[3:4].isdigit()) or os.cpu_count() or 1
    busy = sum(value for i, value in enumerate(ticks) if i not in _IDLE)
    return busy / os.sysconf("SC_CLK_TCK"), processors


def _own_s() -> float:
    own = os.times()
    return own.user + own.system


class Busy:
    """Started when made; ``others_since()``: the share of the host's processors other processes used since."""

    def __init__(self) -> None:
        self._host, self._own, self._wall = _host_busy_s(), _own_s(), time.monotonic()

    def others_since(self) -> float | None:
        """From 0 (the machine did nothing else) to 1 (every processor busy with others); None where /proc/stat is
        not there, or too little time passed to count its ticks."""
        now = _host_busy_s()
        wall = time.monotonic() - self._wall
        if self._host is None or now is None or wall < 0.05:
            return None
        others = (now[0] - self._host[0]) - (_own_s() - self._own)
        return min(1.0, max(0.0, others / (wall * now[1])))
