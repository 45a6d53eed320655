"""Inspect's stages "on the accelerator": traced here, lowered for the device's platform, compiled and run there.

The jaxpr and the StableHLO are this worker's (``traced.lower(lowering_platforms=...)`` lowers for the device's
platform without having it); the optimised HLO, its cost and memory estimates, the compile's time and the
result come from the device owner (worker/jobs/device.py), which compiled and ran the program ``jax.export`` made.
The result comes back when it is small enough to (``device_ops.MAX_FETCH_BYTES``); a larger one is described
by its shapes and dtypes, and the reply says why.
"""

from __future__ import annotations

import time

import jax
import numpy as np

from playground import device_ops
from playground.errors import cap_text
from playground.worker.functions import source_map, user_jit, usercode, values
from playground.worker.jobs.device import Device, exported_call, is_key, key_impl

EXPORTED_PLATFORMS = {"gpu": "cuda"}  # jax.Device.platform -> the name lowering and jax.export take


def run_stages(device: Device, choice: user_jit.JitChoice, arguments: tuple, max_chars: int,
               stdout: usercode.CappedText | None = None) -> tuple:
    """inspect.run_stages on ``device``: (report, the jit that applied, the output structure, the result (None
    when it stayed on the device), whether the code printed while it was traced)."""
    written = stdout.written if stdout is not None else 0
    choice, traced, t0, t1 = user_jit.trace(choice, arguments)
    printed_while_tracing = stdout is not None and stdout.written > written
    platform = EXPORTED_PLATFORMS.get(device.platform, device.platform)
    lowered = traced.lower(lowering_platforms=(platform,))
    t2 = time.perf_counter()
    call = exported_call(device, choice.jitted, arguments, choice.static_argnums)
    compiled = device.compile(call["program"])
    abstract = values.any_shape_dtype_struct(arguments)
    value, note, run_s = (traced.out_info, None, 0.0) if abstract else _result(device, call, traced.out_info)
    jaxpr, jaxpr_lines = source_map.capped(*source_map.jaxpr_with_lines(traced.jaxpr), max_chars)
    stablehlo, stablehlo_lines = source_map.capped(*source_map.stablehlo_with_lines(lowered), max_chars)
    hlo_text, hlo_line_map, hlo_locations = source_map.hlo_with_lines(compiled["hlo"])
    hlo, hlo_line_map = source_map.capped(hlo_text, hlo_line_map, max_chars)
    report = {
        "result": cap_text(values.describe(value) + (f"\n({note})" if note else ""), max_chars),
        "jaxpr": jaxpr,
        "stablehlo": stablehlo,
        "hlo": hlo,
        "hlo_locations": cap_text(hlo_locations, max_chars),
        "line_map": {"jaxpr": jaxpr_lines, "stablehlo": stablehlo_lines, "hlo": hlo_line_map},
        "trace_s": t1 - t0,
        "lower_s": t2 - t1,
        "compile_s": compiled["compile_s"],
        "run_s": run_s,
        "cost": compiled["cost"],
        "memory": compiled["memory"],
    }
    return report, choice, traced.out_info, None if abstract else value, printed_while_tracing


def _result(device: Device, call: dict, out_info: object) -> tuple[object, str | None, float]:
    """The program's result on the device, brought back, or its shapes and why not; and the seconds the run took,
    as the worker saw it (the request's round trip included)."""
    started = time.perf_counter()
    outputs, _ = device.run(call)
    run_s = time.perf_counter() - started
    value, note = brought_back(device, outputs, out_info)
    device.free(outputs)
    return value, note, run_s


def brought_back(device: Device, outputs: list[int], out_info: object) -> tuple[object, str | None]:
    """The result whose arrays are ``outputs`` on the device, fetched (keys made keys again), or, when too large to
    fetch, its shapes (``out_info``) and why."""
    leaves, tree = jax.tree.flatten(out_info)
    bits = [jax.eval_shape(jax.random.key_data, leaf) if is_key(leaf) else leaf for leaf in leaves]
    size = sum(int(np.prod(b.shape)) * np.dtype(b.dtype).itemsize for b in bits)
    if size > device_ops.MAX_FETCH_BYTES:
        return out_info, (f"the result, {size / 2**20:,.1f} MB, stays on the device: at most "
                          f"{device_ops.MAX_FETCH_BYTES / 2**20:,.0f} MB come back to be shown")
    fetched = device.fetch(outputs)
    made = [jax.random.wrap_key_data(data, impl=key_impl(leaf.dtype)) if is_key(leaf) else data
            for data, leaf in zip(fetched, leaves, strict=True)]
    return jax.tree.unflatten(tree, made), None
