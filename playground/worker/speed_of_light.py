"""Where a function's time goes: its FLOPs, bytes and time as written and with fusion off, its memory over XLA's
schedule, and the kernels XLA ran. Runs inside a worker; the server places it under the device's ceilings.

- Programs: the function compiled as written and with XLA's fusion passes off
  (compiler_settings.py), each with XLA's cost analysis (FLOPs, bytes) and
  memory plan, each timed on its own in this job, one after the other
  (``_timed_each``).
- Memory: the compile as written also dumps XLA's buffer assignment and live
  ranges into the scratch folder (memory_timeline.py).
- Gradient: ``jax.grad`` of the sum of the function's output, by its first
  argument, compiled the same way twice: with the code's ``jax.checkpoint``
  calls, and with them made to do nothing (the code runs again with
  ``jax.checkpoint`` and ``jax.remat`` passing the function through).
- Kernels: a few calls of the compiled program traced (kernel_timeline.py).

>>> r = speed_of_light("def f(x):\\n    return x + x*x + x*x*x\\n", "jnp.ones((500, 500))", gradient=False)
>>> [p["label"] for p in r["programs"]], [p["kernels"] for p in r["programs"]], r["dtype"]
(['as written', 'fusion off'], [1, 4], 'float32')
>>> r["memory"]["peak_bytes"], r["memory"]["explained"], [e["name"] for e in r["kernels"]["events"]][:1]
(2000000, [], ['multiply_add_fusion'])
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator

import jax
import jax.numpy as jnp
import numpy as np

from playground import compiler_settings
from playground.errors import UserCodeError, cap_text
from playground.jobs.speed_of_light import CEILING_DTYPES
from playground.sandbox.limits import Limits
from playground.worker import about as runtime
from playground.worker import (
    error_lessons,
    inspect,
    kernel_costs,
    kernel_timeline,
    memory_timeline,
    program_size,
    source_map,
    timing,
    user_jit,
    usercode,
    values,
    xla_dump,
    xla_estimates,
)

AS_WRITTEN = compiler_settings.Setting("as written", "Your function, compiled as jit compiles it.")
FUSION_OFF = compiler_settings.SETTINGS["fusion: off"]
MAX_DUMP_BYTES = 16 << 20  # one of XLA's buffer-assignment or live-range texts
TIMING_BUDGET_S = 0.5
# The public names of jax.checkpoint: a module attribute each, looked up when the user's code runs.
_CHECKPOINTS = (("jax", "checkpoint"), ("jax", "remat"), ("jax.ad_checkpoint", "checkpoint"),
                ("jax.ad_checkpoint", "remat"))
LOOP_NOTE = ("XLA's cost analysis counts a loop's body once, not once per iteration: the FLOPs and bytes of a "
             "program with a loop are those of one pass through it, so its point on the roofline is too low.")


def speed_of_light(code: str, args: str, gradient: bool = True, below: str | None = None,
                   time_limit_s: float = math.inf) -> dict:
    """The SPEED_OF_LIGHT reply (playground/jobs/speed_of_light.py); dumps and traces go below ``below`` (the
    worker's scratch folder; a temporary folder when not given)."""
    with contextlib.ExitStack() as stack:
        caught = stack.enter_context(warnings.catch_warnings(record=True))
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ResourceWarning)
        stack.enter_context(contextlib.redirect_stdout(usercode.CappedText(0)))
        if below is None:
            below = stack.enter_context(tempfile.TemporaryDirectory())
        try:
            program, arguments, choice = inspect.prepared(code, args, ())
            if values.any_shape_dtype_struct(arguments):
                raise UserCodeError("invalid_input", "This tab runs the function and times it: give it arrays "
                                                     "(e.g. jnp.ones((2000, 2000))), not jax.ShapeDtypeStruct shapes.")
            written = _compiled(choice, arguments, AS_WRITTEN, dump_below=below)
            unfused = _compiled(choice, arguments, FUSION_OFF)
        except Exception as exc:
            return inspect.explained_error(exc, code)
        runs = _timed_each((written.call, unfused.call), TIMING_BUDGET_S, time_limit_s / 4)
        memory, memory_unavailable = _memory(written)
        kernels = _kernels(written, runs[0].median_s, below)
        gradient_report = _gradient(code, args, below) if gradient else None
        notes = [error_lessons.warning_note(w.category, str(w.message)) for w in caught]
    programs = [{**version.report, "run": run.to_dict()} for version, run in zip((written, unfused), runs, strict=True)]
    if any(p["loops"] for p in programs):
        notes.append(LOOP_NOTE)
    return {"ok": True, "function": program.name, "device": runtime.device_label(),
            "dtype": _dtype(written.out_info, arguments), "programs": programs, "memory": memory,
            "memory_unavailable": memory_unavailable, "gradient": gradient_report, "kernels": kernels,
            "notes": [cap_text(n, 2000) for n in dict.fromkeys(notes)][:20]}


def _timed_each(calls: tuple[Callable[[], object], ...], budget_s: float, limit_s: float) -> list[timing.Timing]:
    """Each call timed on its own, one after the other (``timing.measure``: a warm-up, then its runs), each with
    an equal share of ``budget_s`` and of ``limit_s``.

    Not in turn (A, B, A, B, ...): a version timed right after the other one finds its data where the other left
    it, not where a loop of it (``jax.jit(f)`` called again and again) does. Measured on a 2-core CPU for
    ``x + x*x + x*x*x`` on 2000 x 2000 against a plain loop of it, timed in turn with fusion off (which moves
    five times the bytes) the function as written read a median 10-25 % slower and up to twice as slow, in
    turn after an untimed call of its own still 10-20 %; on its own, within a few per cent.
    """
    return [timing.measure(call, min_total_s=budget_s / len(calls), max_total_s=limit_s / len(calls))
            for call in calls]


class _Version:
    """One compile of the function: its report, the compiled call, and what the timelines need."""

    def __init__(self, setting: compiler_settings.Setting, traced, compiled, call: Callable[[], object],
                 dump: str | None):
        hlo = compiled.as_text()
        flops = kernel_costs.kernel_flops(hlo)
        self.kernels = [{**kernel, "flops": flops.get(kernel["name"])} for kernel in program_size.kernels(hlo)]
        self.lines = source_map.instruction_lines(hlo)
        self.module = hlo.split(",", 1)[0].removeprefix("HloModule ").strip()
        self.cost = xla_estimates.cost_summary(compiled)
        self.reserved = xla_estimates.memory_summary(compiled)
        self.call, self.dump, self.out_info = call, dump, traced.out_info
        self.report = {"label": setting.label, "what": setting.what, "cost": self.cost, "memory": self.reserved,
                       "kernels": len(self.kernels), "loops": sum(k["opcode"] == "while" for k in self.kernels)}


def _compiled(choice: user_jit.JitChoice, arguments: tuple, setting: compiler_settings.Setting,
              dump_below: str | None = None) -> _Version:
    choice, traced, _, _ = user_jit.trace(choice, arguments)
    folder = xla_dump.new_folder(dump_below) if dump_below else None
    options = {**setting.compiler_options, **(xla_dump.options(folder, pattern="") if folder else {})}
    compiled = traced.lower().compile(compiler_options=options or None)
    dynamic = inspect.dynamic_arguments(arguments, choice.static_argnums)

    def call():
        return compiled(*choice.call_arguments(dynamic))

    return _Version(setting, traced, compiled, call, folder)


def _memory(version: _Version, flops: float | None = None) -> tuple[dict | None, str | None]:
    """The memory timeline of a compile that dumped its buffer assignment, or (None, why not)."""
    texts = []
    try:
        for ending in ("-buffer-assignment.txt", "-live-range.txt"):
            text, problem = xla_dump.read_ending(version.dump, version.module, ending, MAX_DUMP_BYTES)
            if text is None:
                return None, problem
            texts.append(text)
        return memory_timeline.read(*texts, version.reserved, version.lines, flops), None
    except ValueError as exc:
        return None, str(exc)
    finally:
        shutil.rmtree(version.dump, ignore_errors=True)  # the scratch folder's room is for the next dump


def _kernels(version: _Version, seconds_per_call: float, below: str) -> dict:
    calls, why_not = kernel_timeline.calls_for(seconds_per_call, version.report["loops"])
    if why_not:
        return kernel_timeline.unavailable([kernel["name"] for kernel in version.kernels], why_not)
    return kernel_timeline.trace(version.call, calls, version.module, version.kernels, version.lines, below)


def _gradient(code: str, args: str, below: str) -> dict:
    """The memory of jax.grad of the function, with the code's jax.checkpoint calls and without them."""
    found: dict = {"plain": None, "checkpointed": None, "checkpoint_calls": 0, "unavailable": None}
    for name, disabled in (("checkpointed", False), ("plain", True)):
        calls: list[int] = []
        try:
            with _checkpoints(disabled, calls):
                version = _gradient_version(code, args, below)
        except Exception as exc:
            found["unavailable"] = _why_no_gradient(exc, code)
            return found
        if name == "checkpointed":
            found["checkpoint_calls"] = len(calls)
        if name == "plain" or calls:  # without a checkpoint call the two are one program: shown once
            memory, problem = _memory(version, version.cost.get("flops"))
            found[name] = memory
            found["unavailable"] = found["unavailable"] or problem
        else:
            shutil.rmtree(version.dump, ignore_errors=True)  # not shown: its room is for the plain one's dump
    return found


def _gradient_version(code: str, args: str, below: str) -> _Version:
    program, arguments, _ = inspect.prepared(code, args, ())

    def total(*inputs):
        return sum(jnp.sum(jnp.real(leaf)) for leaf in jax.tree.leaves(program.function(*inputs)))

    return _compiled(user_jit.choose(jax.grad(total), (), len(arguments)), arguments, AS_WRITTEN, dump_below=below)


def _why_no_gradient(exc: BaseException, code: str) -> str:
    explained = inspect.explained_error(exc, code)["error"]["message"]
    return cap_text(f"jax.grad of the function (of the sum of its output, by its first argument) failed: {explained}",
                    2000)


@contextlib.contextmanager
def _checkpoints(disabled: bool, calls: list[int]) -> Iterator[None]:
    """jax.checkpoint (and its other names) counting its calls in ``calls`` and, ``disabled``, returning the
    function it is given unchanged: the same code, traced without rematerialisation."""
    import jax.ad_checkpoint  # noqa: F401 - the module whose attributes are swapped below

    modules = {"jax": jax, "jax.ad_checkpoint": jax.ad_checkpoint}
    saved = [(modules[module], attribute, getattr(modules[module], attribute))
             for module, attribute in _CHECKPOINTS if hasattr(modules[module], attribute)]

    def wrap(original):
        @functools.wraps(original)
        def checkpoint(fun, *args, **kwargs):
            calls.append(1)
            return fun if disabled else original(fun, *args, **kwargs)
        return checkpoint

    try:
        for module, attribute, original in saved:
            setattr(module, attribute, wrap(original))
        yield
    finally:
        for module, attribute, original in saved:
            setattr(module, attribute, original)


def _dtype(out_info, arguments: tuple) -> str:
    """The float dtype of the largest array among the inputs and the outputs, as the ceilings know it (float32
    when there is none: the matmul ceiling of integers is not measured)."""
    leaves = jax.tree.leaves((arguments, out_info))
    floats = [leaf for leaf in leaves if hasattr(leaf, "shape") and jnp.issubdtype(getattr(leaf, "dtype", None) or
                                                                                      np.int32, jnp.floating)]
    if not floats:
        return "float32"
    name = np.dtype(max(floats, key=lambda leaf: math.prod(leaf.shape)).dtype).name
    return name if name in CEILING_DTYPES else "float32"


def speed_of_light_job(limits: Limits, code: str, args: str, gradient: bool) -> dict:
    """The registry's "speed_of_light" job: dumps and traces in the worker's scratch folder (its working
    directory), the timed runs stop at a quarter of its time limit."""
    return speed_of_light(code, args, gradient, below=os.getcwd(), time_limit_s=limits.measure_timeout_s)
