"""The device's ceilings for the roofline: measured once per dtype, kept for the server's life.

``finish_roofline`` is the speed_of_light job's finish (playground/jobs/speed_of_light.py): its reply placed under
the ceilings of its dtype. The placement is done for each answer, one from the result cache too, and is not kept
with the result, so that every reply is drawn against the ceilings the server holds now.

The measurement is a job of its own (``device_ceilings``, worker/jobs/speed_of_light.py's ``ceilings_job``) in the
device's line, which runs no user code: its worker asks the device owner to measure (playground/owner/ceilings.py),
so what every user's roofline is drawn against can't be touched by anyone's function. It waits in line like any
job; while it runs, the caller's stream shows where it stands. A failed measurement is not kept: the next request
tries again. Nor are roofs a measured point beat, every one of them (measured while other work slowed the
machine): the next request has them measured again (``again``), up to MEASURED_AGAIN times a server's life, and
each roof is the higher of the two measurements (roofline.held: roofs that stay roofs; a faster level's no lower
than a slower one's), so a result kept in the cache is never placed under lower roofs than it was.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from playground.jobs.speed_of_light import MEASURED_AGAIN
from playground.server import roofline

if TYPE_CHECKING:
    from playground.server.answering.finishing import Finishing

KIND = "device_ceilings"
Jobs = Callable[[str, dict], Iterator[dict]]  # a job's updates by its kind and arguments (Finishing.updates)


def finish_roofline(reply: dict, server: Finishing) -> Iterator[dict]:
    """The speed_of_light job's finish: the progress of a first measurement of the ceilings, then the reply with
    its ``roofline``."""
    return server.kept(DeviceCeilings).on_the_roofline(reply, server.updates)


class DeviceCeilings:
    def __init__(self) -> None:
        self._found: dict[str, dict] = {}
        self._beaten: dict[str, dict] = {}  # dtype -> roofs a point beat: the next measurement's are no lower
        self._lock = threading.Lock()
        self._measuring: dict[str, threading.Lock] = {}
        self._again: dict[str, int] = {}  # dtype -> how many times its roofs were measured again

    def on_the_roofline(self, reply: dict, run: Jobs) -> Iterator[dict]:
        """The progress of a first measurement of ``reply``'s ceilings (a job ``run`` runs), then the reply with its
        ``roofline``."""
        ceilings, why = yield from self._ceilings(reply["dtype"], reply["device"], run)
        placed = roofline.place(reply, ceilings, why)
        if ceilings is not None and _beaten(placed):
            self._measure_again(reply["dtype"], ceilings)
        yield {**reply, "roofline": placed}

    def _measure_again(self, dtype: str, beaten: dict) -> None:
        """Drops roofs a point beat (unless they were measured again meanwhile), within MEASURED_AGAIN times."""
        with self._lock:
            if self._found.get(dtype) is beaten and self._again.get(dtype, 0) < MEASURED_AGAIN:
                self._beaten[dtype] = self._found.pop(dtype)
                self._again[dtype] = self._again.get(dtype, 0) + 1

    def _ceilings(self, dtype: str, device: str, run: Jobs) -> Iterator[dict]:
        """Yields the measurement's progress; returns (ceilings, None) or (None, why there are none)."""
        with self._lock:
            measuring = self._measuring.setdefault(dtype, threading.Lock())
        with measuring:  # one measurement per dtype at a time; whoever waited finds it kept
            found = self._found.get(dtype)
            if found is None:
                reply: dict = {}
                for update in run(KIND, {"dtype": dtype, "again": self._again.get(dtype, 0)}):
                    if update.get("done"):
                        reply = update
                    else:
                        yield update
                if not reply.get("ok"):
                    error = reply.get("error") or {}
                    return None, f"measuring this machine's ceilings failed: {error.get('message', 'no reply')}"
                measured = {key: value for key, value in reply.items() if key not in ("done", "cache")}
                before = self._beaten.get(dtype)
                found = self._found.setdefault(dtype, roofline.held(
                    measured, before if before is not None and before["device"] == measured["device"] else None))
        if found["device"] != device:
            return None, f"the ceilings were measured on {found['device']}, the function ran on {device}"
        return found, None


def _beaten(placed: dict) -> bool:
    """Whether a program or kernel measured above every roof."""
    return any(point.get("above_roof") == "highest" for point in placed["programs"] + placed["kernels"])
