"""Where a function's time goes: its FLOPs, bytes and time as written and with fusion off, its memory over XLA's
schedule, and the kernels XLA ran. The user's code runs in this worker; the programs run on the device, in the
device owner (worker/jobs/device.py). The server places the result under the device's ceilings.

- Programs: the function, lowered with ``jax.export``, compiled on the device as written and with XLA's fusion
  passes off (compiler_settings.py), each with XLA's cost analysis (FLOPs, bytes) and memory plan, timed in
  turn in this job, the same number of calls each (``time_together``).
- Memory: the compile as written also dumps XLA's buffer assignment and live
  ranges in the owner, which sends them back (memory_timeline.py reads them).
- Gradient: ``jax.grad`` of the sum of the function's output, by its first
  argument, compiled the same way twice: with the code's ``jax.checkpoint``
  calls, and with them made to do nothing (the code runs again with
  ``jax.checkpoint`` and ``jax.remat`` passing the function through).
- Kernels: a few calls of the compiled program traced in the owner (kernel_timeline.py).

>>> from tests.owner_doubles import local_device
>>> code = "def f(x):\\n    return x + x*x + x*x*x\\n"
>>> r = speed_of_light(code, "jnp.ones((500, 500))", local_device(), gradient=False)
>>> [p["label"] for p in r["programs"]], [p["kernels"] for p in r["programs"]], r["dtype"]
(['as written', 'fusion off'], [1, 4], 'float32')
>>> r["memory"]["peak_bytes"], r["memory"]["explained"], [e["name"] for e in r["kernels"]["events"]][:1]
(2000000, [], ['multiply_add_fusion'])
"""

from __future__ import annotations

import contextlib
import functools
import math
import warnings
from collections.abc import Iterator

import jax
import jax.numpy as jnp
import numpy as np

from playground import compiler_settings
from playground.errors import UserCodeError, cap_text
from playground.ipc.limits import Limits
from playground.jobs.speed_of_light import CEILING_DTYPES
from playground.worker.functions import source_map, user_jit, usercode, values
from playground.worker.jobs import inspect
from playground.worker.jobs.device import Device, exported_call
from playground.worker.lessons import error_lessons
from playground.worker.measurement import kernel_costs, kernel_timeline, memory_timeline, program_size

AS_WRITTEN = compiler_settings.Setting("as written", "Your function, compiled as jit compiles it.")
FUSION_NAME = "fusion: off"
FUSION_OFF = compiler_settings.SETTINGS[FUSION_NAME]
TIMING_BUDGET_S = 0.5
# The public names of jax.checkpoint: a module attribute each, looked up when the user's code runs.
_CHECKPOINTS = (("jax", "checkpoint"), ("jax", "remat"), ("jax.ad_checkpoint", "checkpoint"),
                ("jax.ad_checkpoint", "remat"))
LOOP_NOTE = ("XLA's cost analysis counts a loop's body once, not once per iteration: the FLOPs and bytes of a "
             "program with a loop are those of one pass through it, so its point on the roofline is too low.")


def speed_of_light(code: str, args: str, device: Device, gradient: bool = True,
                   time_limit_s: float = math.inf) -> dict:
    """The SPEED_OF_LIGHT reply (playground/jobs/speed_of_light.py), measured on ``device``."""
    with contextlib.ExitStack() as stack:
        caught = stack.enter_context(warnings.catch_warnings(record=True))
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ResourceWarning)
        stack.enter_context(contextlib.redirect_stdout(usercode.CappedText(0)))
        try:
            program, arguments, choice = inspect.prepared(code, args, ())
            if values.any_shape_dtype_struct(arguments):
                raise UserCodeError("invalid_input", "This tab runs the function and times it: give it arrays "
                                                     "(e.g. jnp.ones((2000, 2000))), not jax.ShapeDtypeStruct shapes.")
            choice, traced, _, _ = user_jit.trace(choice, arguments)
            call = exported_call(device, choice.jitted, arguments, choice.static_argnums)
            written = _Version(AS_WRITTEN, device.compile(call["program"], dump="buffers"), call)
            unfused_call = {**call, "setting": FUSION_NAME}
            unfused = _Version(FUSION_OFF, device.compile(call["program"], setting=FUSION_NAME), unfused_call)
        except Exception as exc:
            return inspect.explained_error(exc, code)
        # In turn (as written, fusion off, as written, ...), the same number of calls each: a machine that gets
        # busy for a while slows both alike, and the spread of each says how far the two can be told apart.
        runs = device.time_together([written.call, unfused.call], TIMING_BUDGET_S, time_limit_s / 4)
        memory, memory_unavailable = _memory(written)
        kernels = _kernels(written, runs[0].median_s, device)
        gradient_report = _gradient(code, args, device, time_limit_s / 4) if gradient else None
        notes = [error_lessons.warning_note(w.category, str(w.message)) for w in caught]
    programs = [{**version.report, "run": run.to_dict()} for version, run in zip((written, unfused), runs, strict=True)]
    if any(p["loops"] for p in programs):
        notes.append(LOOP_NOTE)
    return {"ok": True, "function": program.name, "device": device.label,
            "dtype": _dtype(traced.out_info, arguments), "programs": programs, "memory": memory,
            "memory_unavailable": memory_unavailable, "gradient": gradient_report, "kernels": kernels,
            "notes": [cap_text(n, 2000) for n in dict.fromkeys(notes)][:20]}


class _Version:
    """One compile of the function on the device: its report, its call, and what the timelines need."""

    def __init__(self, setting: compiler_settings.Setting, compiled: dict, call: dict):
        hlo = compiled["hlo"]
        flops = kernel_costs.kernel_flops(hlo)
        self.kernels = [{**kernel, "flops": flops.get(kernel["name"])} for kernel in program_size.kernels(hlo)]
        self.lines = source_map.instruction_lines(hlo)
        self.module = compiled["module"]
        self.cost, self.reserved = compiled["cost"], compiled["memory"]
        self.call, self.dump = call, compiled["dump"]
        self.report = {"label": setting.label, "what": setting.what, "cost": self.cost, "memory": self.reserved,
                       "kernels": len(self.kernels), "loops": sum(k["opcode"] == "while" for k in self.kernels)}


def _memory(version: _Version, flops: float | None = None) -> tuple[dict | None, str | None]:
    """The memory timeline of a compile that dumped its buffer assignment, or (None, why not)."""
    if not version.dump or not version.dump.get("texts"):
        return None, (version.dump or {}).get("problem") or "XLA dumped no buffer assignment"
    try:
        return memory_timeline.read(*version.dump["texts"], version.reserved, version.lines, flops), None
    except ValueError as exc:
        return None, str(exc)


def _kernels(version: _Version, seconds_per_call: float, device: Device) -> dict:
    calls, why_not = kernel_timeline.calls_for(seconds_per_call, version.report["loops"])
    if why_not:
        return kernel_timeline.unavailable([kernel["name"] for kernel in version.kernels], why_not)
    return kernel_timeline.trace(device, version.call, calls, version.module, version.kernels, version.lines)


def _gradient(code: str, args: str, device: Device, limit_s: float) -> dict:
    """The memory of jax.grad of the function, with the code's jax.checkpoint calls and without them; where the
    code has some, the two timed in turn (``runs``: with, without), as the programs are."""
    found: dict = {"plain": None, "checkpointed": None, "checkpoint_calls": 0, "unavailable": None, "runs": None}
    calls_of: dict[str, dict] = {}
    for name, disabled in (("checkpointed", False), ("plain", True)):
        calls: list[int] = []
        try:
            with _checkpoints(disabled, calls):
                call = _gradient_call(code, args, device)
            if name == "checkpointed":
                found["checkpoint_calls"] = len(calls)
            if name == "plain" or calls:  # without a checkpoint call the two are one program: shown once
                version = _Version(AS_WRITTEN, device.compile(call["program"], dump="buffers"), call)
        except Exception as exc:
            found["unavailable"] = _why_no_gradient(exc, code)
            return found
        if name == "plain" or calls:
            memory, problem = _memory(version, version.cost.get("flops"))
            found[name] = memory
            found["unavailable"] = found["unavailable"] or problem
            calls_of[name] = version.call
    if len(calls_of) == 2:
        try:
            runs = device.time_together([calls_of["checkpointed"], calls_of["plain"]], TIMING_BUDGET_S, limit_s)
        except Exception as exc:  # the memory stands without the times
            found["unavailable"] = found["unavailable"] or _why_no_gradient(exc, code)
        else:
            found["runs"] = [run.to_dict() for run in runs]
    return found


def _gradient_call(code: str, args: str, device: Device) -> dict:
    """jax.grad of the sum of the function's output, by its first argument: traced (the checkpoint calls counted
    then), exported and loaded on the device; its call."""
    program, arguments, _ = inspect.prepared(code, args, ())

    def total(*inputs):
        return sum(jnp.sum(jnp.real(leaf)) for leaf in jax.tree.leaves(program.function(*inputs)))

    return exported_call(device, jax.grad(total), arguments)


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


def speed_of_light_job(limits: Limits, code: str, args: str, gradient: bool, device: Device) -> dict:
    """The registry's "speed_of_light" job: the timed runs stop at a quarter of its time limit."""
    return speed_of_light(code, args, device, gradient, time_limit_s=limits.measure_timeout_s)


def ceilings_job(limits: Limits, dtype: str, again: int, device: Device) -> dict:
    """The registry's "device_ceilings" job: the device owner measures them (owner/ceilings.py), once per dtype
    and ``again`` (how many times they were measured again)."""
    return device.ceilings(dtype, again)
