"""XLA's optimisation passes one by one: which ran, in what order, which changed the module. Runs inside a worker.

The user's function is traced and lowered as in Inspect, then compiled once
with XLA's dump of every pass (playground/worker/xla_dump.py). Each pass becomes one
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
import time

from playground.errors import cap_text, error_dict
from playground.sandbox import scratch as scratch_folder
from playground.sandbox.limits import Limits
from playground.worker import about as runtime
from playground.worker import inspect, program_size, source_map, user_jit, usercode, xla_dump

MAX_PASSES = 1_000  # pass files read; XLA's CPU pipeline runs about 150, a GPU's several hundred
MAX_MODULE_CHARS = 6_000_000  # distinct module texts kept for the reply, all together
PASSES_PER_MODULE = 200  # how many copies of the module a dump of every pass writes, about (for the budget)
START = "pipeline-start"


def passes(code: str, args: str, max_chars: int, dump_budget_bytes: int,
           static_argnums: tuple[int, ...] = (), scratch: str | None = None) -> dict:
    """Compile the user's function with a dump of every pass; the passes in order, with the module after each.

    The dump goes into a fresh folder below ``scratch`` (the working directory: in a worker, the job's scratch
    folder), removed once read.
    """
    with contextlib.redirect_stdout(usercode.CappedText(0)):
        try:
            program, arguments, choice = inspect.prepared(code, args, static_argnums)
            choice, traced, _, _ = user_jit.trace(choice, arguments)
            lowered = traced.lower()
            notices = []
            pattern = xla_dump.EVERY_PASS
            before_size = len(lowered.as_text("hlo"))
            if before_size * PASSES_PER_MODULE > dump_budget_bytes:
                pattern = xla_dump.KEY_PASSES
                notices.append(f"Your program is large ({before_size / 1000:,.0f} kB of HLO before optimisation): "
                               "only the passes a learner meets first were recorded (fusion, CSE, algebraic "
                               "simplification, constant folding, layout assignment, copy insertion, dead code "
                               "elimination); the others ran, unrecorded, and are not listed.")
            folder = xla_dump.new_folder(scratch or os.getcwd())
            made = xla_dump.identity(folder)
            started = time.perf_counter()
            lowered.compile(compiler_options=xla_dump.options(folder, pattern))
            compile_s = time.perf_counter() - started
        except Exception as exc:
            return inspect.explained_error(exc, code)
        try:
            replaced = xla_dump.identity(folder) != made  # something the user's code started moved or swapped it
            dump = xla_dump.whole_modules(xla_dump.read(folder, MAX_PASSES, dump_budget_bytes))
        except OSError as exc:  # the folder is no longer ours: something the user's code started replaced it
            return _folder_replaced(f" ({exc.strerror})")
        finally:
            # The scratch folder is a tmpfs (memory) where it can be. Removed by descriptor, never following a link
            # or opening a FIFO: user code may have put either in the folder's place.
            scratch_folder.remove(folder, 2.0)
    if not dump.snapshots and replaced:
        return _folder_replaced()
    if not dump.snapshots and dump.stopped in (None, "incomplete"):
        return error_dict("disk", "XLA wrote no whole file of its passes: the job's scratch folder is full (your "
                          "code writes there too?).")
    if not dump.snapshots:
        return error_dict("user_exception", "XLA's files of the passes could not be read: something your code "
                          "started put links, pipes or folders where XLA writes them.")
    if dump.capped:
        why = {"files": f"the cap of {MAX_PASSES:,} passes",
               "bytes": f"the cap of {dump_budget_bytes / 2**20:.3g} MB of dumped modules",
               "unreadable": "a file of the dump that is not a plain file",
               "incomplete": "a file of the dump that is empty or cut short (is the scratch folder full?)",
               "gap": "a file missing from XLA's numbered files",
               "entries": "a dump folder with too many files to list"}[dump.stopped]
        notices.append(f"The list stops after {len(dump.snapshots):,} of XLA's files at {why}: the passes after it "
                       "ran but are not shown.")
    exhaustive = pattern == xla_dump.EVERY_PASS
    records, modules, lines = pass_records(dump.snapshots, max_chars, exhaustive)
    if len(modules) < len({s.text for s in dump.snapshots}):
        notices.append("Some modules were too large to keep them all: the passes after the last kept one show no "
                       "text (before/after is null).")
    changed = sum(r["changed"] is True for r in records)
    return {
        "ok": True,
        "function": program.name,
        "device": runtime.device_label(),
        "exhaustive": exhaustive and not dump.capped,
        "passes": records,
        "modules": modules,
        "module_lines": lines,
        "counts": {"passes": len(records), "changed": changed,
                   "unchanged": sum(r["changed"] is False for r in records),
                   "pipelines": len(dict.fromkeys(r["pipeline"] for r in records))},
        "compile_s": compile_s,
        "dump_bytes": dump.bytes_read,
        "notices": notices,
    }


def _folder_replaced(why: str = "") -> dict:
    return error_dict("user_exception", f"XLA's dump of the passes could not be read{why}: its folder in the scratch "
                      "folder was replaced while XLA wrote it.")


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
    modules: list[str] = []
    module_lines: list[list] = []
    index_of: dict[str, int | None] = {}
    kept_chars = 0

    def module(text: str) -> int | None:
        nonlocal kept_chars
        if text not in index_of:
            program, lines, _ = source_map.hlo_with_lines(text)
            program = cap_text(program, max_chars)
            if kept_chars + len(program) > MAX_MODULE_CHARS:
                index_of[text] = None
            else:
                kept_chars += len(program)
                index_of[text] = len(modules)
                modules.append(program)
                module_lines.append(lines[:program.count("\n") + 1])
        return index_of[text]

    records: list[dict] = []
    previous: str | None = None
    last_pipeline = None
    started_from: dict[str, str | None] = {}  # each pipeline seen: the module it started from
    for snapshot in snapshots:
        if previous is None:
            previous = snapshot.text  # the first file is the module as it came in
        started_from.setdefault(snapshot.pipeline, previous)
        module(snapshot.text)
        if snapshot.after == START:
            last_pipeline = snapshot.pipeline
            continue
        # A pipeline (or a pass that dumps its own steps, like copy-insertion) run inside another is dumped once
        # more in the outer one, as a pass named after it, right after its own last file.
        nested = snapshot.after == last_pipeline and snapshot.after != snapshot.pipeline
        before = started_from.pop(snapshot.after) if nested else previous
        records.append({
            "index": len(records),
            "pipeline": snapshot.pipeline,
            "name": snapshot.after,
            "nested": nested,
            "changed": False if snapshot.text == before else True if every_pass else None,
            "instructions": program_size.count_hlo_instructions(snapshot.text),
            "before": module(before),
            "after": module(snapshot.text),
        })
        previous = snapshot.text
        last_pipeline = snapshot.pipeline
    return records, modules, module_lines


def passes_job(limits: Limits, code: str, args: str, static_argnums: list[int], on_accelerator: bool = False) -> dict:
    """The registry's "passes" job: the dump may fill a quarter of the scratch folder, and no file past its limit.

    ``on_accelerator`` chose the pool; the worker compiles for the device it has (a GPU's pipeline differs).
    """
    budget = min(limits.scratch_mb // 4, limits.file_size_mb) << 20
    return passes(code, args, limits.output_chars, budget, tuple(static_argnums))
