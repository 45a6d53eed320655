"""A few calls traced with ``jax.profiler`` in the owner, and the events of one program's instructions read back.

The trace goes into a fresh folder of the owner's scratch; the one ``*.xplane.pb`` it holds is read as a dump is
(measure/xla_dump.py: no link followed, a plain file, at most ``MAX_TRACE_BYTES``), parsed in memory with
``ProfileData.from_serialized_xspace`` and removed. Of its events, those XLA tags with an instruction (the
``hlo_op`` stat) of ``module`` (``hlo_module``) are kept, by plane: on a GPU or TPU the device's own lines, on a
CPU the host's threads. The worker turns them into the kernel timeline (worker/measurement/kernel_timeline.py).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable

import jax

from playground.measure import xla_dump

MAX_TRACE_BYTES = 32 << 20
MAX_SCANNED = 200_000  # events of the trace looked at, of every kind: reading one costs microseconds
MAX_KEPT = 20_000  # events sent back, all planes together
_MAX_WALK = 200  # entries looked at while finding the trace file (the profiler makes a few folders)


def trace(call: Callable[[], object], calls: int, module: str, scratch: str) -> dict:
    """``{"planes": {name: [[op, start_ns, duration_ns, run_id], ...]}, "truncated", "unavailable"}``
    (``truncated``: the trace held more than was looked at or kept)."""
    folder = tempfile.mkdtemp(prefix="profile-", dir=scratch)
    try:
        options = jax.profiler.ProfileOptions()
        options.python_tracer_level = 0  # the kernels are XLA's; Python's own calls would only swell the trace
        options.enable_hlo_proto = False
        try:
            with jax.profiler.trace(folder, profiler_options=options):
                for _ in range(calls):
                    jax.block_until_ready(call())
        except Exception as exc:  # another trace running, a profiler the backend lacks
            return _unavailable(f"jax.profiler could not trace here ({type(exc).__name__}: {exc})"[:2000])
        data, problem = _read_trace(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if data is None:
        return _unavailable(problem)
    from jax.profiler import ProfileData

    try:
        profile = ProfileData.from_serialized_xspace(data)
    except Exception as exc:
        return _unavailable(f"the trace could not be read ({type(exc).__name__})")
    return _events(profile, module)


def _events(profile, module: str) -> dict:
    planes: dict[str, list[list]] = {}
    scanned = kept = 0
    for plane in profile.planes:
        for line in plane.lines:
            for event in line.events:
                scanned += 1
                if scanned > MAX_SCANNED or kept >= MAX_KEPT:
                    break
                stats = dict(event.stats)
                if stats.get("hlo_module") == module and stats.get("hlo_op"):
                    run = stats.get("run_id")
                    planes.setdefault(plane.name[:200], []).append(
                        [str(stats["hlo_op"])[:300], int(event.start_ns), int(event.duration_ns),
                         int(run) if isinstance(run, int) else str(run)[:40]])
                    kept += 1
    return {"planes": planes, "truncated": scanned > MAX_SCANNED or kept >= MAX_KEPT, "unavailable": None}


def _unavailable(why: str) -> dict:
    return {"planes": {}, "truncated": False, "unavailable": why}


def _read_trace(folder: str) -> tuple[bytes | None, str | None]:
    """The bytes of the one ``.xplane.pb`` below ``folder`` (the profiler's plugins/profile/<run>/), or (None, why)."""
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
