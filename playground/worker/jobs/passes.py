"""XLA's optimisation passes one by one: which ran, in what order, which changed the module. Runs inside a worker.

The user's function is traced and lowered as in Inspect, then compiled once
with XLA's dump of every pass (playground/measure/xla_dump.py). Each pass becomes one
record: its pipeline, its name, whether it changed the module (the text after
it differs from the text before it), the instruction count after it, and
which of the distinct module texts it read and wrote (``before``, ``after``:
indices into ``modules``, so that a pass that changed nothing costs no text).

>>> import tempfile
>>> r = passes("def f(x):\\n    return x + x*x + x*x*x\\n", "jnp.ones((1000, 1000))", 200_000, 32 << 20,
...            scratch=tempfile.gettempdir())
>>> fusion = next(p for p in r["passes"] if p["name"] == "fusion")
>>> fusion["changed"], "fusion(" in r["modules"][fusion["after"]]
(True, True)
"""

from __future__ import annotations

import contextlib
import os
import sys
import time

import jax

from playground.errors import cap_text, error_dict
from playground.ipc import scratch as scratch_folder
from playground.ipc.limits import Limits
from playground.measure import xla_dump
from playground.worker.functions import source_map, user_jit, usercode
from playground.worker.jobs import about as runtime
from playground.worker.jobs import inspect
from playground.worker.jobs.device import Device, exported_call
from playground.worker.measurement import program_size

MAX_PASSES = 1_000  # pass files read; XLA's CPU pipeline runs about 150, a GPU's several hundred
MAX_MODULE_CHARS = 6_000_000  # distinct module texts kept for the reply, all together
PASSES_PER_MODULE = 200  # how many copies of the module a dump of every pass writes, about (for the budget)
START = "pipeline-start"


def passes(code: str, args: str, max_chars: int, dump_budget_bytes: int,
           static_argnums: tuple[int, ...] = (), scratch: str | None = None, device: Device | None = None) -> dict:
    """Compile the user's function with a dump of every pass; the passes in order, with the module after each.

    The dump goes into a fresh folder below ``scratch`` (the working directory: in a worker, the job's scratch
    folder), removed once read, or into memory where the worker may write no file. With ``device``, the function
    is exported and compiled on the device, where the owner dumps it (owner/dumps.py) and sends back each distinct
    module text once.
    """
    with contextlib.redirect_stdout(usercode.CappedText(0)):
        try:
            program, lowered, choice, arguments = _lowered(code, args, static_argnums)
            pattern, notices = _dump_pattern(lowered, dump_budget_bytes)
            if device is None:
                dump, compile_s, replaced = _dumped_here(lowered, pattern, dump_budget_bytes, scratch or os.getcwd())
            else:
                dump, compile_s, replaced = _dumped_on(device, choice, arguments, pattern)
        except _FolderReplaced as exc:
            return _folder_replaced(str(exc))
        except Exception as exc:
            return inspect.explained_error(exc, code)
    if not dump.snapshots:
        return _no_snapshots_error(dump, replaced)
    if dump.capped:
        notices.append(_capped_notice(dump, dump_budget_bytes))
    label = runtime.device_label() if device is None else device.label
    return _reply(program, dump, pattern == xla_dump.EVERY_PASS, max_chars, compile_s, notices, label)


class _FolderReplaced(Exception):
    """The dump's folder is no longer ours: something the user's code started replaced it (the words: why)."""


def _dumped_here(lowered: jax.stages.Lowered, pattern: str, dump_budget_bytes: int, scratch: str) -> tuple:
    """(the dump of the passes ``pattern`` matches, read back, the compile's seconds, whether the folder was
    replaced meanwhile). Where this process may write no file (no Landlock: lockdown.py), XLA writes the dump to
    our standard output instead, read into memory."""
    lockdown = sys.modules.get("playground.confinement.lockdown")  # loaded where the full sandbox locked us down
    if lockdown is not None and lockdown.writes_no_files():
        took = []
        dump = xla_dump.captured(lambda: took.append(_compile_with_dump(lowered, xla_dump.TO_OUTPUT, pattern)),
                                 MAX_PASSES, dump_budget_bytes)
        return xla_dump.whole_modules(dump), took[0], False
    folder = xla_dump.new_folder(scratch)
    made = xla_dump.identity(folder)
    try:
        compile_s = _compile_with_dump(lowered, folder, pattern)
        replaced = xla_dump.identity(folder) != made  # something the user's code started moved or swapped it
        try:
            dump = xla_dump.whole_modules(xla_dump.read(folder, MAX_PASSES, dump_budget_bytes))
        except OSError as exc:
            raise _FolderReplaced(f" ({exc.strerror})") from None
    finally:
        # The scratch folder is a tmpfs (memory) where it can be. Removed by descriptor, never following a link or
        # opening a FIFO: user code may have put either in the folder's place.
        scratch_folder.remove(folder, 2.0)
    return dump, compile_s, replaced


def _lowered(code: str, args: str, static_argnums: tuple[int, ...]) -> tuple:
    """The user's program and its function traced and lowered under the jit that applies, as Inspect does; the
    jit and the arguments too, for the device."""
    program, arguments, choice = inspect.prepared(code, args, static_argnums)
    choice, traced, _, _ = user_jit.trace(choice, arguments)
    return program, traced.lower(), choice, arguments


def _dumped_on(device: Device, choice: user_jit.JitChoice, arguments: tuple, pattern: str) -> tuple:
    """As ``_dumped_here``, from the device's compile (the owner dumps it in its own folder)."""
    call = exported_call(device, choice.jitted, arguments, choice.static_argnums)
    compiled = device.compile(call["program"], dump="passes" if pattern == xla_dump.EVERY_PASS else "key_passes",
                              hlo=False)
    found = compiled["dump"]
    snapshots = [xla_dump.Snapshot(order, pipeline, after, found["texts"][text])
                 for order, pipeline, after, text in found["snapshots"]]
    dump = xla_dump.whole_modules(xla_dump.Dump(snapshots, found["bytes_read"], found["stopped"]))
    return dump, compiled["compile_s"], False


def _dump_pattern(lowered: jax.stages.Lowered, dump_budget_bytes: int) -> tuple[str, list[str]]:
    """Which passes to dump, and the notices that choice owes the reply.

    A dump of every pass writes the module about PASSES_PER_MODULE times: a program too large for that within the
    budget gets only the key passes.
    """
    before_size = len(lowered.as_text("hlo"))
    if before_size * PASSES_PER_MODULE <= dump_budget_bytes:
        return xla_dump.EVERY_PASS, []
    return xla_dump.KEY_PASSES, [
        f"Your program is large ({before_size / 1000:,.0f} kB of HLO before optimisation): only the passes a "
        "learner meets first were recorded (fusion, CSE, algebraic simplification, constant folding, layout "
        "assignment, copy insertion, dead code elimination); the others ran, unrecorded, and are not listed."]


def _compile_with_dump(lowered: jax.stages.Lowered, folder: str, pattern: str) -> float:
    """Compile, with XLA dumping the passes ``pattern`` matches into ``folder``: the seconds the compile took."""
    started = time.perf_counter()
    lowered.compile(compiler_options=xla_dump.options(folder, pattern))
    return time.perf_counter() - started


def _folder_replaced(why: str = "") -> dict:
    return error_dict("user_exception", f"XLA's dump of the passes could not be read{why}: its folder in the scratch "
                      "folder was replaced while XLA wrote it.")


def _no_snapshots_error(dump: xla_dump.Dump, replaced: bool) -> dict:
    """The error for a dump that gave no whole file, by what most likely emptied it."""
    if replaced:
        return _folder_replaced()
    if dump.stopped in (None, "incomplete"):
        return error_dict("disk", "XLA wrote no whole file of its passes: the job's scratch folder is full (your "
                          "code writes there too?).")
    return error_dict("user_exception", "XLA's files of the passes could not be read: something your code "
                      "started put links, pipes or folders where XLA writes them.")


def _capped_notice(dump: xla_dump.Dump, dump_budget_bytes: int) -> str:
    """The notice for a dump read only up to where it stopped (``dump.stopped``)."""
    why = {"files": f"the cap of {MAX_PASSES:,} passes",
           "bytes": f"the cap of {dump_budget_bytes / 2**20:.3g} MB of dumped modules",
           "unreadable": "a file of the dump that is not a plain file",
           "incomplete": "a file of the dump that is empty or cut short (is the scratch folder full?)",
           "gap": "a file missing from XLA's numbered files",
           "entries": "a dump folder with too many files to list"}[dump.stopped]
    return (f"The list stops after {len(dump.snapshots):,} of XLA's files at {why}: the passes after it ran but are "
            "not shown.")


def _reply(program: usercode.UserProgram, dump: xla_dump.Dump, exhaustive: bool, max_chars: int, compile_s: float,
           notices: list[str], device: str) -> dict:
    """The job's reply from the dump read: a record per pass, the distinct module texts, and counts."""
    records, modules, lines = pass_records(dump.snapshots, max_chars, exhaustive)
    if len(modules) < len({s.text for s in dump.snapshots}):
        notices.append("Some modules were too large to keep them all: the passes after the last kept one show no "
                       "text (before/after is null).")
    return {
        "ok": True,
        "function": program.name,
        "device": device,
        "exhaustive": exhaustive and not dump.capped,
        "passes": records,
        "modules": modules,
        "module_lines": lines,
        "counts": _counts(records),
        "compile_s": compile_s,
        "dump_bytes": dump.bytes_read,
        "notices": notices,
    }


def _counts(records: list[dict]) -> dict:
    return {"passes": len(records), "changed": sum(r["changed"] is True for r in records),
            "unchanged": sum(r["changed"] is False for r in records),
            "pipelines": len(dict.fromkeys(r["pipeline"] for r in records))}


def pass_records(snapshots: list[xla_dump.Snapshot], max_chars: int,
                 every_pass: bool = True) -> tuple[list[dict], list[str], list[list]]:
    """(one record per pass, the distinct module texts, their user lines) from the snapshots in pass order.

    A pipeline's first file (``after_pipeline-start``) is the module it was
    given: no pass. A pipeline run inside another appears in the outer one as
    a pass named after it (``nested``): its "before" is the module the inner
    pipeline started from, so it says what the whole inner pipeline changed.

    Without ``every_pass`` (only some passes were dumped), a pass whose module
    differs from the last one recorded may owe the change to a pass not
    recorded between them: its ``changed`` is None (not known).
    """
    modules = _DistinctModules(max_chars)
    records: list[dict] = []
    previous: str | None = None
    last_pipeline = None
    started_from: dict[str, str] = {}  # each pipeline seen: the module it started from
    for snapshot in snapshots:
        if previous is None:
            previous = snapshot.text  # the first file is the module as it came in
        started_from.setdefault(snapshot.pipeline, previous)
        modules.index(snapshot.text)
        if snapshot.after == START:
            last_pipeline = snapshot.pipeline
            continue
        # A pipeline (or a pass that dumps its own steps, like copy-insertion) run inside another is dumped once
        # more in the outer one, as a pass named after it, right after its own last file.
        nested = snapshot.after == last_pipeline and snapshot.after != snapshot.pipeline
        before = started_from.pop(snapshot.after) if nested else previous
        records.append(_record(len(records), snapshot, nested, before, every_pass, modules))
        previous = snapshot.text
        last_pipeline = snapshot.pipeline
    return records, modules.texts, modules.lines


class _DistinctModules:
    """The distinct module texts met, each kept once (capped) with its user lines, while MAX_MODULE_CHARS allows."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.texts: list[str] = []
        self.lines: list[list] = []
        self._index_of: dict[str, int | None] = {}
        self._kept_chars = 0

    def index(self, text: str) -> int | None:
        """Where ``text`` is kept in ``texts``, keeping it if it is new; None if it did not fit when first met."""
        if text not in self._index_of:
            program, lines, _ = source_map.hlo_with_lines(text)
            program = cap_text(program, self.max_chars)
            if self._kept_chars + len(program) > MAX_MODULE_CHARS:
                self._index_of[text] = None
            else:
                self._kept_chars += len(program)
                self._index_of[text] = len(self.texts)
                self.texts.append(program)
                self.lines.append(lines[:program.count("\n") + 1])
        return self._index_of[text]


def _record(index: int, snapshot: xla_dump.Snapshot, nested: bool, before: str, every_pass: bool,
            modules: _DistinctModules) -> dict:
    """One pass's record: it turned ``before`` into ``snapshot.text``."""
    return {
        "index": index,
        "pipeline": snapshot.pipeline,
        "name": snapshot.after,
        "nested": nested,
        "changed": False if snapshot.text == before else True if every_pass else None,
        "instructions": program_size.count_hlo_instructions(snapshot.text),
        "before": modules.index(before),
        "after": modules.index(snapshot.text),
    }


def passes_job(limits: Limits, code: str, args: str, static_argnums: list[int], on_accelerator: bool,
               device: Device) -> dict:
    """The registry's "passes" job: the dump may fill a quarter of the scratch folder, and no file past its limit;
    on the device where ``on_accelerator`` asked for it (a GPU's or TPU's pipeline differs)."""
    budget = min(limits.scratch_mb // 4, limits.file_size_mb) << 20
    return passes(code, args, limits.output_chars, budget, tuple(static_argnums),
                  device=device if on_accelerator else None)
