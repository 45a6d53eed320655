"""The kernels XLA ran for a few calls, as the device owner traced them: the Speed of light tab's kernel timeline.

The owner traces the calls with ``jax.profiler`` and sends back the events
XLA tags with an instruction of the program's module (owner/profile.py),
plane by plane: on a GPU or TPU the device's own lines (each kernel as the
device ran it), on a CPU the host's threads (each thunk). Here they become the
timeline: the device's plane where there is one, the calls told apart by XLA's
``run_id``, each kernel with its bytes and FLOPs (kernel_costs.py) and the
user's line that made it.

A call that would make an enormous trace (a loop of millions of iterations,
each a kernel) is bounded: a program with a loop is traced only when a call is
quick; few calls; the trace file's size and the events kept (the owner's); and
the events shown (``left_out`` counts the rest).
"""

from __future__ import annotations

from playground.jobs.speed_of_light import MAX_EVENTS
from playground.worker.jobs.device import Device

TRACE_BUDGET_S = 0.5  # the calls traced take about this long together, at least one and at most MAX_CALLS
MAX_CALLS = 3
LOOP_TRACE_S = 0.01


def calls_for(seconds_per_call: float, loops: int) -> tuple[int, str | None]:
    """How many calls to trace for a call of ``seconds_per_call`` (a few, one when a call is slow), or (0, why not).

    A loop's kernels run once per iteration, each an event: a program with a loop is traced for one call, and
    only while that call is short (``LOOP_TRACE_S``): a small matmul's loop runs millions of kernels a second,
    so that a few traced calls of 50 ms each make a trace of a hundred MB (docs/development.md's measurements).
    Without a loop, the kernels are the program's own, bounded by its size.

    >>> calls_for(0.001, 0), calls_for(0.2, 0), calls_for(5.0, 0), calls_for(0.002, 1), calls_for(0.05, 1)[0]
    ((3, None), (2, None), (1, None), (1, None), 0)
    """
    if loops:
        if seconds_per_call > LOOP_TRACE_S:
            return 0, (f"a call takes {seconds_per_call * 1e3:,.1f} ms and runs a loop, whose kernels are traced "
                       f"once per iteration: too many to read (a loop is traced while a call takes at most "
                       f"{LOOP_TRACE_S * 1e3:g} ms); a shorter loop shows them")
        return 1, None
    return max(1, min(MAX_CALLS, int(TRACE_BUDGET_S / max(seconds_per_call, 1e-9)))), None


def trace(device: Device, call: dict, calls: int, module: str, kernels: list[dict],
          lines: dict[str, int | None]) -> dict:
    """The KERNELS record (playground/jobs/speed_of_light.py) of ``calls`` calls of ``call`` on the device, a
    compiled program whose HLO module is ``module`` and whose kernels are ``kernels`` (program_size.kernels, with
    their ``flops`` from kernel_costs.py): each event carries its kernel's bytes and FLOPs where known."""
    fusions = [kernel["name"] for kernel in kernels]
    found = device.trace(call, calls, module)
    if found["unavailable"]:
        return unavailable(fusions, found["unavailable"])
    return _kernels(found["planes"], bool(found["truncated"]), kernels, lines, fusions, device.platform)


def _kernels(planes: dict[str, list], truncated: bool, kernels: list[dict], lines: dict, fusions: list[str],
             platform: str) -> dict:
    """The events of the device's plane where it has any, else the host's."""
    if not planes:
        return unavailable(fusions, "the trace holds no event tagged with this program's instructions (the "
                                    f"{platform} backend's profiler did not name them)")
    plane = next((name for name in planes if name.startswith("/device:")), next(iter(planes)))
    events = sorted(planes[plane], key=lambda e: e[1])
    runs = {run: i for i, run in enumerate(dict.fromkeys(e[3] for e in events))}
    costs = {kernel["name"]: kernel for kernel in kernels}
    first = events[0][1]
    kept = [{"name": name[:300], "call": runs[run], "start_s": (start - first) * 1e-9, "duration_s": duration * 1e-9,
             "line": lines.get(name), "bytes": float(costs[name]["bytes"]) if name in costs else None,
             "flops": costs[name].get("flops") if name in costs else None}
            for name, start, duration, run in events[:MAX_EVENTS]]
    left_out = max(0, len(events) - MAX_EVENTS) + truncated  # past what the owner read: at least one more
    return {"events": kept, "calls": len(runs), "fusions": fusions, "left_out": left_out,
            "plane": plane[:200], "unavailable": None}


def unavailable(fusions: list[str], why: str) -> dict:
    return {"events": [], "calls": 0, "fusions": fusions, "left_out": 0, "plane": "", "unavailable": why}
