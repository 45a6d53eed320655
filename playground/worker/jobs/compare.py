"""Two versions side by side: two functions, or one function under two settings. Runs inside a worker.

Both versions are traced, lowered and compiled on the same arguments; their
jaxpr, optimised HLO, kernel counts, XLA's cost and memory estimates and their
run times come back together. The run times are measured in the same job,
interleaved (A, B, A, B, ...), so that both see the same machine. With a
``device`` (the Compiler tab's "on the accelerator"), both are lowered with
``jax.export`` and compiled, run and timed in the device owner (worker/jobs/device.py).

>>> r = compare("def f(x):\\n    return x + x*x + x*x*x\\n", "jnp.ones((1000, 1000))", 200_000, setting="fusion: off")
>>> [v["kernels"] for v in r["variants"]], r["same_result"]
([1, 4], True)
"""

from __future__ import annotations

import contextlib
import math
import time
import warnings
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from playground import compiler_settings
from playground.errors import cap_text, error_dict
from playground.ipc.limits import Limits
from playground.measure import timing, xla_estimates
from playground.worker.functions import source_map, user_jit, usercode, values
from playground.worker.jobs import about as runtime
from playground.worker.jobs import inspect, on_device
from playground.worker.jobs.device import Device, exported_call
from playground.worker.lessons import error_lessons
from playground.worker.measurement import program_size

PLAIN = compiler_settings.Setting("as written", "Your function, compiled as jit compiles it.")
RTOL, ATOL = 1e-5, 1e-6  # a reordering of float32 arithmetic (fusion, another pass) moves the last bits


DONATE_ON_DEVICE = ("Donated arguments are compared on the CPU only: a program sent to the device is called again "
                    "and again on the same arrays there, which donation would use up.")


@dataclass
class Variant:
    report: dict
    value: Any  # the result (None when the arguments are only shapes)
    call: Any  # one timed call (here a function, on the device a call of device_ops.py), or None
    outputs: list[int] | None = None  # on the device: the result's arrays there
    note: str | None = None  # why the value is only shapes, where it ran


def compare(code: str, args: str, max_chars: int, second_code: str = "", setting: str = "",
            static_argnums: tuple[int, ...] = (), timing_budget_s: float = 0.5, time_limit_s: float = math.inf,
            device: Device | None = None) -> dict:
    """Version A: the function as written. Version B: ``second_code`` on the same arguments, or the function
    under the named ``setting`` (playground/compiler_settings.py). Both on ``device`` where one is given."""
    chosen = compiler_settings.SETTINGS.get(setting)
    donate = chosen is not None and chosen.donate
    if donate and device is not None:
        return error_dict("invalid_input", DONATE_ON_DEVICE)
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(usercode.CappedText(0)):
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ResourceWarning)
        try:
            a = _variant(code, args, static_argnums, PLAIN, max_chars, donate, device, None)
        except Exception as exc:
            return inspect.explained_error(exc, code)
        try:
            if chosen is not None:
                b = _variant(code, args, static_argnums, chosen, max_chars, donate, device, setting)
            else:
                b = _variant(second_code, args, static_argnums,
                             compiler_settings.Setting("second function", "Your second function, on the same "
                                                       "arguments."), max_chars, False, device, None)
        except Exception as exc:
            result = inspect.explained_error(exc, second_code or code)
            result["error"]["message"] = f"Version B ({chosen.label if chosen else 'the second function'}): " \
                                         + result["error"]["message"]
            return result
        notes = [error_lessons.warning_note(w.category, str(w.message)) for w in caught]
        if a.call is None or b.call is None:
            notes.append(values.NOT_RUN)
        else:
            runs_a, runs_b = (timing.measure_together((a.call, b.call), timing_budget_s, time_limit_s)
                              if device is None else device.time_together([a.call, b.call], timing_budget_s,
                                                                          time_limit_s))
            a.report["run"], b.report["run"] = runs_a.to_dict(), runs_b.to_dict()
            if donate:
                notes.append("Each timed call of both versions copies its arguments first (a donated buffer is used "
                             "up by the call), so both times include the copy.")
    same, difference = _same_result(a.value, b.value) if device is None else _same_on_device(device, a, b)
    label = runtime.device_label() if device is None else device.label
    return {"ok": True, "device": label, "setting": setting or None, "variants": [a.report, b.report],
            "same_result": same, "max_abs_diff": difference, "notes": [cap_text(n, 2000) for n in notes]}


def _variant(code: str, args: str, static_argnums: tuple[int, ...], setting: compiler_settings.Setting,
             max_chars: int, copy_inputs: bool, device: Device | None, name: str | None) -> Variant:
    """One version: ``setting``, by its ``name`` in compiler_settings.SETTINGS where it has one."""
    with jax.enable_x64(True) if setting.x64 else contextlib.nullcontext():
        program, arguments, choice = inspect.prepared(code, args, static_argnums)
        if setting.donate:
            dynamic_positions = tuple(i for i in range(len(arguments)) if i not in choice.static_argnums)
            choice = user_jit.JitChoice(jax.jit(choice.plain, static_argnums=choice.static_argnums,
                                                donate_argnums=dynamic_positions), choice.plain,
                                        choice.static_argnums, own=False, note=None, donate_argnums=dynamic_positions)
        choice, traced, _, _ = user_jit.trace(choice, arguments)
        dynamic = inspect.dynamic_arguments(arguments, choice.static_argnums)
        runnable = not values.any_shape_dtype_struct(dynamic)
        if device is None:
            compiled, variant = _here(traced, setting, dynamic if runnable else None, copy_inputs)
        else:
            compiled, variant = _there(device, choice, arguments, name if setting.compiler_options else None,
                                        traced.out_info if runnable else None)
    hlo = source_map.hlo_with_lines(compiled["hlo"])[0]
    variant.report = {
        "label": setting.label,
        "what": setting.what,
        "function": program.name,
        "jaxpr": cap_text(source_map.jaxpr_with_lines(traced.jaxpr)[0], max_chars),
        "hlo": cap_text(hlo, max_chars),
        "jaxpr_equations": program_size.count_equations(traced.jaxpr.jaxpr),
        "hlo_instructions": program_size.count_hlo_instructions(hlo),
        "kernels": program_size.count_kernels(hlo),
        "cost": compiled["cost"],
        "memory": compiled["memory"],
        "compile_s": compiled["compile_s"],
        "run": None,
        "result": cap_text(values.describe(variant.value if variant.value is not None else traced.out_info)
                           + (f"\n({variant.note})" if variant.note else ""), max_chars),
    }
    return variant


def _here(traced, setting: compiler_settings.Setting, dynamic: tuple | None, copy_inputs: bool) -> tuple:
    """Compiled and run in this worker: (what the report needs of the compile, the variant less its report)."""
    lowered = traced.lower()
    started = time.perf_counter()
    compiled = lowered.compile(compiler_options=setting.compiler_options or None)
    found = {"compile_s": time.perf_counter() - started, "hlo": compiled.as_text(),
             "cost": xla_estimates.cost_summary(compiled), "memory": xla_estimates.memory_summary(compiled)}
    if dynamic is None:
        return found, Variant({}, None, None)

    def call():
        inputs = jax.tree.map(_copy, dynamic) if copy_inputs else dynamic
        return compiled(*inputs)

    return found, Variant({}, jax.block_until_ready(call()), call)


def _there(device: Device, choice: user_jit.JitChoice, arguments: tuple, options: str | None,
           out_info: object) -> tuple:
    """Exported, compiled (under the setting named ``options``, with XLA options) and, where the arguments have
    values (``out_info`` is then the result's structure), run on the device: (what the report needs of the compile,
    the variant less its report; its result stays on the device too, to be compared)."""
    call = exported_call(device, choice.jitted, arguments, choice.static_argnums)
    if options is not None:
        call = {**call, "setting": options}
    compiled = device.compile(call["program"], setting=options)
    if out_info is None:
        return compiled, Variant({}, None, None)
    outputs, _ = device.run(call)
    value, note = on_device.brought_back(device, outputs, out_info)
    return compiled, Variant({}, value, call, outputs, note)


def _same_on_device(device: Device, a: Variant, b: Variant) -> tuple[bool | None, float | None]:
    """Whether the two results on the device agree to float32's rounding, and by how much they differ at most."""
    if a.outputs is None or b.outputs is None:
        return None, None
    found = device.compare(a.outputs, b.outputs, rtol=RTOL, atol=ATOL)
    return found["equal"], found["largest"]


def _copy(leaf):
    return leaf.copy() if isinstance(leaf, jax.Array) else leaf


def _same_result(a, b) -> tuple[bool | None, float | None]:
    """Whether the two results agree to float32's rounding, and by how much they differ at most."""
    if a is None or b is None:
        return None, None
    leaves_a, tree_a = jax.tree.flatten(a)
    leaves_b, tree_b = jax.tree.flatten(b)
    if tree_a != tree_b or any(np.shape(x) != np.shape(y) for x, y in zip(leaves_a, leaves_b, strict=True)):
        return False, None
    try:
        pairs = [(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
                 for x, y in zip(leaves_a, leaves_b, strict=True)]
    except (TypeError, ValueError):  # typed PRNG keys, strings: compared as they are
        return all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(leaves_a, leaves_b, strict=True)), None
    same = all(np.allclose(x, y, rtol=RTOL, atol=ATOL, equal_nan=True) for x, y in pairs)
    finite = [np.abs(x - y)[np.isfinite(x - y)] for x, y in pairs]
    difference = max((float(d.max()) for d in finite if d.size), default=0.0)
    return same, difference


def compare_job(limits: Limits, code: str, args: str, second_code: str, setting: str, static_argnums: list[int],
                on_accelerator: bool, device: Device) -> dict:
    """The registry's "compare" job: the timed runs stop at a quarter of its time limit, whatever they found; on
    the device where ``on_accelerator`` asked for it."""
    return compare(code, args, limits.output_chars, second_code, setting, tuple(static_argnums),
                   time_limit_s=limits.measure_timeout_s / 4, device=device if on_accelerator else None)
