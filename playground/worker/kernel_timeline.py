"""The kernels XLA ran for a few calls, traced with ``jax.profiler`` and read back with its ``ProfileData``.

The trace goes into a fresh folder below the worker's scratch folder; the one
``*.xplane.pb`` it holds is read with the care the sandbox asks of anything
there (no link followed, a plain file, at most ``MAX_TRACE_BYTES``) and parsed
in memory (``ProfileData.from_serialized_xspace``). Of its events, those XLA
tags with the HLO instruction they ran (the ``hlo_op`` stat) of this program's
module (``hlo_module``) are the kernels: on a GPU the device's own lines (each
kernel as the device ran it), on the CPU the host's thread lines (each
thunk). The calls are told apart by XLA's ``run_id``.

A call that would make an enormous trace (a loop of millions of iterations,
each a kernel) is bounded four ways: a program with a loop is traced only
when a call is quick; few calls; the trace file's size; and the events kept
(``left_out`` counts the rest).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable

import jax

from playground.jobs.speed_of_light import MAX_EVENTS
from playground.worker import xla_dump

MAX_TRACE_BYTES = 32 << 20
MAX_SCANNED = 200_000  # events of the trace looked at, of every kind: reading one costs microseconds
TRACE_BUDGET_S = 0.5  # the calls traced take about this long together, at least one and at most MAX_CALLS
MAX_CALLS = 3
LOOP_TRACE_S = 0.01
_MAX_WALK = 200  # entries looked at while finding the trace file (the profiler makes a few folders)


def calls_for(seconds_per_call: float, loops: int) -> tuple[int, str | None]:
    """How many calls to trace for a call of ``seconds_per_call`` (a few, one when a call is slow), or (0, why not).

    A loop's kernels run once per iteration, each an event: a program with a loop is traced for one call, and
    only while that call is short (``LOOP_TRACE_S``): a 16 x 16 matmul's loop ran about 3 million kernels a
    second on a 2-core CPU, and a 50 ms call's three traced calls made a trace of 103 MB. Without a loop, the
    kernels are the program's own, bounded by its size.

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


def trace(call: Callable[[], object], calls: int, module: str, kernels: list[dict], lines: dict[str, int | None],
          below: str) -> dict:
    """The KERNELS record (playground/jobs/speed_of_light.py) of ``calls`` calls of ``call``, a compiled program
    whose HLO module is named ``module`` and whose kernels are ``kernels`` (program_size.kernels, with their
    ``flops`` from kernel_costs.py): each event carries its kernel's bytes and FLOPs where known."""
    fusions = [kernel["name"] for kernel in kernels]
    folder = tempfile.mkdtemp(prefix="profile-", dir=below)
    options = jax.profiler.ProfileOptions()
    options.python_tracer_level = 0  # the kernels are XLA's; Python's own calls would only swell the trace
    options.enable_hlo_proto = False  # the module is known already
    try:
        with jax.profiler.trace(folder, profiler_options=options):
            for _ in range(calls):
                jax.block_until_ready(call())
    except Exception as exc:  # another trace running, a profiler the backend lacks
        shutil.rmtree(folder, ignore_errors=True)
        return unavailable(fusions, f"jax.profiler could not trace here ({type(exc).__name__}: {exc})"[:2000])
    try:
        data, problem = _read_trace(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # read: the scratch folder's room is for the gradient's dumps
    if data is None:
        return unavailable(fusions, problem)
    from jax.profiler import ProfileData

    try:
        profile = ProfileData.from_serialized_xspace(data)
    except Exception as exc:
        return unavailable(fusions, f"the trace could not be read ({type(exc).__name__})")
    return _kernels(profile, module, kernels, lines, fusions)


def _kernels(profile, module: str, kernels: list[dict], lines: dict, fusions: list[str]) -> dict:
    """The events of ``module``'s instructions, of the device's planes where they have any, else the host's."""
    found: dict[str, list[tuple[str, float, float, object]]] = {}
    scanned = 0
    for plane in profile.planes:
        for line in plane.lines:
            for event in line.events:
                scanned += 1
                if scanned > MAX_SCANNED:
                    break
                stats = dict(event.stats)
                if stats.get("hlo_module") == module and stats.get("hlo_op"):
                    found.setdefault(plane.name, []).append((str(stats["hlo_op"]), event.start_ns, event.duration_ns,
                                                             stats.get("run_id")))
    if not found:
        return unavailable(fusions, "the trace holds no event tagged with this program's instructions (the "
                                     f"{jax.default_backend()} backend's profiler did not name them)")
    plane = next((name for name in found if name.startswith("/device:")), next(iter(found)))
    events = sorted(found[plane], key=lambda e: e[1])
    runs = {run: i for i, run in enumerate(dict.fromkeys(e[3] for e in events))}
    costs = {kernel["name"]: kernel for kernel in kernels}
    first = events[0][1]
    kept = [{"name": name[:300], "call": runs[run], "start_s": (start - first) * 1e-9, "duration_s": duration * 1e-9,
             "line": lines.get(name), "bytes": float(costs[name]["bytes"]) if name in costs else None,
             "flops": costs[name].get("flops") if name in costs else None}
            for name, start, duration, run in events[:MAX_EVENTS]]
    left_out = max(0, len(events) - MAX_EVENTS) + (scanned > MAX_SCANNED)  # past the scan's cap: at least one
    return {"events": kept, "calls": len(runs), "fusions": fusions, "left_out": left_out,
            "plane": plane[:200], "unavailable": None}


def unavailable(fusions: list[str], why: str) -> dict:
    return {"events": [], "calls": 0, "fusions": fusions, "left_out": 0, "plane": "", "unavailable": why}


def _read_trace(folder: str) -> tuple[bytes | None, str | None]:
    """The bytes of the one ``.xplane.pb`` below ``folder`` (the profiler's plugins/profile/<run>/ folders), or
    (None, why)."""
    pending, looked = [folder], 0
    while pending:
        current = pending.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            looked += 1
            if looked > _MAX_WALK:
                return None, "the profiler's folder holds too many files"
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
            elif entry.name.endswith(".xplane.pb"):
                return _read_plain(current, entry)
    return None, "the profiler wrote no trace"


def _read_plain(folder: str, entry: os.DirEntry) -> tuple[bytes | None, str | None]:
    """The trace file's bytes, read as the dumps are (xla_dump.read_plain_file: a plain file, no link followed,
    never blocking, within MAX_TRACE_BYTES), or (None, why)."""
    try:
        directory = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None, "the trace file could not be opened"
    try:
        data, problem = xla_dump.read_plain_file(directory, entry.name, MAX_TRACE_BYTES)
    finally:
        os.close(directory)
    if problem == "bytes":
        size = entry.stat(follow_symlinks=False).st_size
        return None, (f"the trace is too large to read ({size / 1e6:,.0f} MB, the limit is "
                      f"{MAX_TRACE_BYTES / 1e6:,.0f} MB): a call runs too many kernels")
    return (data, None) if data is not None else (None, "the trace file is not a plain file, or could not be read")
