"""The device check's rows of the tabs' jobs on the device, through the API (device_check.py): Inspect, the jit
comparison, the vmap comparison, Speed of light."""

from __future__ import annotations

import time

from device_check_table import failed

from playground.gallery import EXAMPLES, JIT_BENCHMARK_CODE, SPEED_EXAMPLES, VMAP_PRESETS
from playground.server.api import PlaygroundAPI, final

WARM_JIT_N = 4_000  # the jit job timed end to end with the owner warm


def inspect_rows(api: PlaygroundAPI) -> list[tuple[str, str]]:
    example = EXAMPLES[0]
    rows = []
    for on_accelerator in (False, True):
        final(api.inspect(example.code, example.args, on_accelerator=on_accelerator))  # the first job per pool warms it
        tic = time.perf_counter()
        reply = final(api.inspect(example.code, example.args, on_accelerator=on_accelerator))
        elapsed = time.perf_counter() - tic
        name = "Inspect on the device" if on_accelerator else "Inspect"
        if not reply["ok"]:
            rows.append((name, failed(reply)))
            continue
        fused = reply["hlo"].count(" fusion(")
        rows.append((f"{name} ({reply['device']})", f"{elapsed * 1000:,.0f} ms through the API, compile "
                     f"{reply['compile_s'] * 1000:,.0f} ms, {fused} fusion(s) in the optimised HLO"))
    return rows


def jit_comparison(api: PlaygroundAPI, n: int, repeats: int, found: dict) -> list[tuple[str, str]]:
    """The jit tab's job at n, and at WARM_JIT_N twice (the second end to end: the owner warm, its compile kept)."""
    reply = final(api.jit_speed(JIT_BENCHMARK_CODE, [n], repeats))
    if not reply["ok"] or n not in reply["sizes"]:
        return [(f"jit comparison, n={n:,}", failed(reply))]
    numpy_s, jit_s = reply["numpy_s"][0], reply["jit_s"][0]
    found.update(device=reply["device"], jit={n: jit_s})
    rows = [
        ("jit measured on", reply["device"] + (f" ({reply['device_fallback']})" if reply.get("device_fallback")
                                               else "")),
        (f"NumPy, n={n:,}", f"{numpy_s * 1000:,.1f} ms" if numpy_s else f"not timed: {reply['numpy_unavailable']}"),
        (f"jit, n={n:,}", f"{jit_s * 1000:,.2f} ms (compile {reply['compile_s'][0] * 1000:,.0f} ms, "
                          f"{reply['fused_kernels']} fused kernel(s))"),
        (f"eager JAX, n={n:,}", f"{reply['eager_s'][0] * 1000:,.2f} ms (one compiled program per jaxpr equation, "
                                "dispatched in turn)"),
        ("NumPy / jit", f"{numpy_s / jit_s:,.1f}x" if numpy_s else "-"),
    ]
    final(api.jit_speed(JIT_BENCHMARK_CODE, [WARM_JIT_N], repeats))
    tic = time.perf_counter()
    warm = final(api.jit_speed(JIT_BENCHMARK_CODE, [WARM_JIT_N], repeats))
    elapsed = time.perf_counter() - tic
    if warm["ok"] and warm["sizes"]:
        found["jit"][WARM_JIT_N] = warm["jit_s"][0]
        rows.append((f"jit job, n={WARM_JIT_N:,}, owner warm", f"{elapsed:.2f} s end to end (NumPy, eager and jit "
                     f"timed; jit {warm['jit_s'][0] * 1000:,.3f} ms)"))
    else:
        rows.append((f"jit job, n={WARM_JIT_N:,}, owner warm", failed(warm)))
    return rows


def vmap_rows(api: PlaygroundAPI, batch: int = 1024) -> list[tuple[str, str]]:
    """The vmap tab's batched-MLP preset at ``batch`` examples: where it ran, and its three medians."""
    preset = VMAP_PRESETS["batched MLP predict"]
    reply = final(api.vmap(preset.code, preset.args, preset.in_axes, [batch]))
    where = ("vmap measured on", reply.get("device", "?") + (f" ({reply['device_fallback']})"
                                                           if reply.get("device_fallback") else ""))
    name = f"vmap, batched MLP, {batch:,} examples"
    if not reply["ok"]:
        return [(name, failed(reply))]
    if not reply["equal"]:  # the tab shows no time for results that disagree
        return [where, (name, f"no times: the three results disagreed (largest difference "
                              f"{reply.get('max_abs_diff')})")]
    index = reply["batch_sizes"].index(batch)
    loop = reply["loop_s"][index]
    return [where, (name, (f"Python loop {loop * 1000:,.1f} ms, " if loop else "Python loop: over its time, ") +
                    f"vmap {reply['vmap_s'][index] * 1000:,.2f} ms, jit(vmap) {reply['jit_vmap_s'][index] * 1000:,.2f}"
                    " ms (medians)")]


def speed_rows(api: PlaygroundAPI) -> list[tuple[str, str]]:
    """The Speed of light tab's first example: where it ran, its two programs' medians, its peak, its kernels."""
    example = SPEED_EXAMPLES[0]
    reply = final(api.speed_of_light(example.code, example.args, True))
    if not reply["ok"]:
        return [("Speed of light", failed(reply))]
    runs = ", ".join(f"{p['label']} {p['run']['median_s'] * 1000:,.3f} ms" for p in reply["programs"])
    memory = reply["memory"]
    kernels = reply["kernels"]
    return [("Speed of light measured on", reply["device"]),
            (f"Speed of light, {example.name}", f"{runs}; memory peak "
             f"{memory['peak_bytes'] / 2**20:,.1f} MB" if memory else f"{runs}; memory: {reply['memory_unavailable']}"),
            ("Speed of light's kernels", f"{len(kernels['events'])} traced on {kernels['plane'] or '-'}"
             if not kernels["unavailable"] else f"none: {kernels['unavailable']}"),
            ("Speed of light's ceilings", _ceilings(reply["roofline"]))]


def _ceilings(roofline: dict) -> str:
    found = roofline["ceilings"]
    if found is None:
        return f"none: {roofline['ceilings_unavailable']}"
    return (f"{found['dtype']} on {found['device']}: {found['bandwidth_bytes_s'] / 1e9:,.0f} GB/s, "
            f"{found['peak_flops_s'] / 1e12:,.2f} TFLOP/s")


def cold_start_rows(api: PlaygroundAPI, started_s: float, ready_s: float, owner) -> list[tuple[str, str]]:
    """The app from a cold start (its compilation cache empty): when it was ready to listen, and the first answer of
    each kind of device job sent right after, in turn, each timed from when it was sent; whether the owner had to
    start again meanwhile. ``started_s``: perf_counter() when the app began to start."""
    example, speed = EXAMPLES[0], SPEED_EXAMPLES[0]
    preset = VMAP_PRESETS["batched MLP predict"]
    rows = [("cold start: ready to listen", f"{ready_s:.1f} s after the start (pools and device owner up)")]
    restarts = owner.restarts
    for name, send in (("Inspect on the device", lambda: api.inspect(example.code, example.args, on_accelerator=True)),
                       ("jit, n=1,000", lambda: api.jit_speed(JIT_BENCHMARK_CODE, [1000], 3)),
                       ("vmap, 64 examples", lambda: api.vmap(preset.code, preset.args, preset.in_axes, [64])),
                       (f"Speed of light, {speed.name}", lambda: api.speed_of_light(speed.code, speed.args, False))):
        sent = time.perf_counter()
        reply = final(send())
        answered = time.perf_counter()
        said = (f"{answered - sent:.2f} s after it was sent ({answered - started_s:.1f} s after the start)"
                if reply["ok"] else failed(reply))
        rows.append((f"cold start: first {name}", said))
    rows.append(("cold start: device owner restarts", f"{owner.restarts - restarts}"))
    return rows
