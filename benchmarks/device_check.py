"""One device check: the whole device path through the API layer, on whatever this host has, in one table.

Run: ``.venv/bin/python benchmarks/device_check.py [--mnist-dir DIR] [--size 10000] [--epochs 3] [--hostile]``
(``MNIST_DIR`` works too). No browser and no Gradio: the same device owner, sandbox pools, ``PlaygroundAPI`` and
training service the app builds (``worker_pools.start``), driven from this process, which never opens the device
itself (one process at a time may open a TPU chip: plain JAX's reference figures come from a process of
bare_device.py once the app's owner has ended). It runs on a GPU, a TPU and a CPU alike. In order:

1. About: the devices, the owner (its start, its layers), which jobs run there, and the sandbox's layers;
2. what a fresh CPU worker costs: back-to-back jobs in a one-worker pool are paced by spawning and warming the
   next worker;
3. an Inspect job, and the same one compiled and run on the device (``on_accelerator``);
4. the jit comparison at n = ``--size`` (default 10,000: 10^4 x 10^4 float32): NumPy and jit medians, their
   ratio, and a jit job at n = 4,000 end to end with the owner warm (its second run: the first compiles);
5. the vmap tab's batched-MLP preset at ``--vmap-batch`` examples (default 1,024);
6. the Speed of light tab's first example on the device: its programs' medians, its memory peak, its kernels;
7. a ``--epochs`` training run of the 784-512-256-10 MLP on MNIST from ``MNIST_DIR`` through ``/train``, and
   the time to 97 % test accuracy as ``/train``'s last update gives it (from the request to the first whole
   test set measured at 97 % or more, so compiling counts), and the data-parallel variant where there are
   several devices; the seconds from Start to the first curve point for the default configuration (compiled
   when the owner started), a configuration new to the owner, and that one again; and ``/race``'s comparison of
   the host's CPU with the device (where the owner holds a device besides the CPU);
8. with ``--hostile``: what the owner does with a program that never ends, one that wants more memory than the
   device has, and programs crafted to call out of the device (a host callback, a transfer to the host): each
   ends with its error, and the next job runs;
9. once the app has ended: plain ``jax.jit`` of the jit tab's function at the same sizes (the app's jit median
   against it), the jitted ``x * 2``'s bandwidth (the jit tab's against it, or a known GPU's data sheet), and
   train_throughput.py's bare loops (the app's rate against the faster).

A step that fails is a row that names it and says why; the rows of every other step are still printed.

Where ``MNIST_DIR`` holds only the 10,000 test digits (t10k files, as ../shared does), they are split
8,000 / 2,000 into a temporary folder, and the table says so.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


import device_hostile as hostile  # noqa: E402
import train_throughput  # noqa: E402

from playground.gallery import EXAMPLES, JIT_BENCHMARK_CODE, SPEED_EXAMPLES, VMAP_PRESETS  # noqa: E402
from playground.ipc.limits import Limits  # noqa: E402
from playground.mnist import fetch  # noqa: E402
from playground.mnist.catalogue import DATASETS, Dataset, DataUnavailable, role_shape  # noqa: E402
from playground.mnist.idx import read_idx, write_idx  # noqa: E402
from playground.mnist.load import load  # noqa: E402
from playground.server import worker_pools  # noqa: E402
from playground.server.api import PlaygroundAPI, final  # noqa: E402
from playground.server.config import Settings, data_places  # noqa: E402
from playground.server.pools import ProcessPool, WorkerPool  # noqa: E402
from playground.server.training.service import TrainingService  # noqa: E402

SHARED_MNIST = ROOT.parent / "shared" / "data" / "mnist"
FRESH_WORKER_JOBS = 4
# Peak memory bandwidth in GB/s from the vendors' data sheets, most specific name first.
KNOWN_BANDWIDTH_GB_S = (
    ("GH200", 4000), ("H200", 4800), ("H100 NVL", 3900), ("H100 PCIe", 2000), ("H100", 3350),
    ("A100-SXM4-80GB", 2039), ("A100 80GB PCIe", 1935), ("A100", 1555), ("L40S", 864), ("L40", 864),
    ("L4", 300), ("A10G", 600), ("A10", 600), ("T4", 320), ("V100", 900), ("RTX 4090", 1008), ("RTX 3090", 936),
)


NEW_BATCH = 96  # a configuration no other run of the check has, to time a first compile
WARM_JIT_N = 4_000  # the jit job timed end to end with the owner warm
HOSTILE_CLOCK_S = 20.0  # the hostile programs' wall clock


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mnist-dir", default=str(data_places(os.environ).folders.get("mnist", SHARED_MNIST)))
    parser.add_argument("--size", type=int, default=10_000, help="n of the n x n jit benchmark")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--vmap-batch", type=int, default=1024, help="examples in the vmap comparison's batch")
    parser.add_argument("--hostile", action="store_true", help="also the programs the owner must survive")
    parser.add_argument("--about", metavar="FILE", help="also write the whole /about answer there, as JSON")
    args = parser.parse_args()
    started = time.perf_counter()
    memory_mb = max(2048, int(12 * args.size ** 2 * 4 / 2**20) + 1024)  # the benchmark's arrays, with room
    settings = Settings(limits=Limits(memory_mb=memory_mb, address_space_mb=0, timeout_s=120.0,
                                      measure_timeout_s=400.0),
                        owner_memory_mb=max(6144, 2 * memory_mb),
                        result_cache=False)  # every figure measured now, none a kept result
    rows: list[tuple[str, str]] = []
    found: dict = {}  # the app's figures the references are held against
    try:
        with tempfile.TemporaryDirectory(prefix="device-check-") as folder:
            # A compilation cache of its own: a first compile is timed as one, whatever this checkout ran before.
            settings = dataclasses.replace(settings, compile_cache=str(Path(folder) / "compile-cache"))
            mnist_dir, data_note, data = step(rows, "MNIST data", lambda: mnist_data(Path(args.mnist_dir).resolve(),
                                                                                      Path(folder)), (None,) * 3)
            # What the app reads of this host's settings besides those above: its accelerator, where the data is.
            host = Settings.from_env({**os.environ, "MNIST_DIR": str(mnist_dir or args.mnist_dir)})
            settings = dataclasses.replace(settings, accelerator=host.accelerator, data=host.data)
            with ExitStack() as services:
                api, pools = app(settings, services, rows)
                for name, rows_of in (
                    ("About", lambda: about_rows(api, args.about)),
                    ("fresh workers", lambda: fresh_worker_rows(pools)),
                    ("Inspect", lambda: inspect_rows(api)),
                    ("jit comparison", lambda: jit_comparison(api, args.size, args.repeats, found)),
                    ("vmap comparison", lambda: vmap_rows(api, args.vmap_batch)),
                    ("Speed of light", lambda: speed_rows(api)),
                    ("training", lambda: training_rows(api, args.epochs, data_note, data, found) if data else
                     [("training", "skipped: no MNIST data (the row above says why)")]),
                    ("first curve point", lambda: first_point_rows(api) if data else []),
                    ("race", lambda: race_rows(api, args.epochs) if data else []),
                ):
                    rows += step(rows, name, rows_of, [])
            if args.hostile:  # an app of its own, whose clock ends a program that never ends in seconds
                with ExitStack() as services:
                    api, pools = app(Settings(limits=Limits(timeout_s=20.0, measure_timeout_s=HOSTILE_CLOCK_S),
                                              result_cache=False, accelerator=host.accelerator, data=host.data),
                                     services, rows)
                    rows += step(rows, "hostile programs", lambda: hostile_rows(api, pools), [])
            rows += step(rows, "bare JAX", lambda: reference_rows(args, found, mnist_dir), [])
    except BaseException as exc:  # whatever stopped the check, the rows it has are printed, and the step is named
        rows.append(("check stopped", f"FAILED ({type(exc).__name__}): {exc}"[:400]))
        raise
    finally:
        rows.append(("whole check", f"{time.perf_counter() - started:.0f} s"))
        print_table(rows)


def app(settings: Settings, services: ExitStack, rows: list) -> tuple:
    """The app's device owner, pools and training service, started as the app starts them; the owner's start timed."""
    runs = tempfile.mkdtemp(prefix="device-check-runs-")
    services.callback(shutil.rmtree, runs, True)
    began = time.perf_counter()
    marks = {}

    def started(what) -> None:
        marks.setdefault("owner", time.perf_counter() - began)  # the owner starts first
        services.callback(what.close)

    pools = worker_pools.start(settings, runs, started=started)
    rows.append(("device owner's start", f"{marks['owner']:.1f} s (its lockdown, opening the device, a compile)"))
    marks.clear()
    training = TrainingService(pools.owner, settings.data, runs,
                               worker_pools.training_slots(settings, pools.accelerator))
    services.callback(training.close)
    return PlaygroundAPI.from_pools(pools, settings, training), pools


def step(rows: list[tuple[str, str]], name: str, run, otherwise):
    """``run()``, or, when it raises, a row naming the step and the exception, and ``otherwise``."""
    try:
        return run()
    except Exception as exc:  # the check goes on: one failed step must not lose the others' rows
        traceback.print_exc()
        rows.append((f"{name}", f"FAILED ({type(exc).__name__}): {str(exc)[:300]}"))
        return otherwise


def mnist_data(source: Path, scratch: Path) -> tuple[Path, str, Dataset]:
    """MNIST as the app loads it from an MNIST_DIR: ``source`` when it holds all four files, else its test set
    split 8,000 / 2,000 into ``scratch``; the folder to train from, where it came from, and its arrays."""
    try:
        return source, f"MNIST from {source}", load("mnist", data_places({"MNIST_DIR": str(source)}))
    except DataUnavailable:
        pass
    files = DATASETS["mnist"].files
    found = {role: fetch.in_folder(source, files[role]) for role in ("test_images", "test_labels")}
    if None in found.values():
        raise FileNotFoundError(f"no MNIST files in {source}: set MNIST_DIR or --mnist-dir")
    images, labels = (read_idx(found[role], *role_shape(role)) for role in ("test_images", "test_labels"))
    for role, data in (("train_images", images[:8000]), ("train_labels", labels[:8000]),
                       ("test_images", images[8000:]), ("test_labels", labels[8000:])):
        write_idx(scratch / files[role], data)
    note = f"the MNIST test set split 8,000 / 2,000 (no training files in {source})"
    return scratch, note, load("mnist", data_places({"MNIST_DIR": str(scratch)}))


def about_rows(api: PlaygroundAPI, keep: str | None = None) -> list[tuple[str, str]]:
    info = api.about()
    if keep:
        Path(keep).write_text(json.dumps(info, indent=1))
    layers = info["sandbox"]["layers"]
    accelerator = info["accelerator"]
    owner = info["sandbox"].get("device_owner") or {}
    where = (f"{accelerator['device']}: {', '.join(accelerator['jobs'])}" if accelerator["device"]
             else f"none ({accelerator['why']})")
    return [
        ("devices (About)", ", ".join(info["devices"]) or "none answered"),
        ("JAX", f"{info['versions']['jax']} (jaxlib {info['versions']['jaxlib']}), backend {info['backend']}"),
        ("accelerator runs", where),
        ("device owner", f"{owner.get('device')} (pid {owner.get('pid')}), resident "
                         f"{owner.get('resident_mb') or 0:,.0f} MB of {owner.get('memory_limit_mb', 0):,} MB, the "
                         "device's mappings left out"),
        ("device owner's layers", ", ".join(f"{name} {'on' if layer['active'] else 'OFF'}"
                                            for name, layer in owner.get("layers", {}).items())),
        *[(f"device owner's {name}", layer["detail"][:300]) for name, layer in owner.get("layers", {}).items()
          if name in ("landlock", "seccomp")],
        ("CPU pool's workers opened", f"{info['sandbox']['pool'].get('backend')} "
                                      f"({', '.join(info['sandbox']['pool'].get('devices') or [])})"),
        ("sandbox layers", ", ".join(f"{name} {'on' if layer['active'] else 'OFF'}" for name, layer in layers.items())),
    ]


def fresh_worker_rows(pools: worker_pools.Pools) -> list[tuple[str, str]]:
    """Jobs back to back in a pool of one warm CPU worker: each waits for the next worker's start and warm-up."""
    like = pools.sandbox
    pool = WorkerPool(1, like.limits, worker_pools.HANDLERS, namespaces=like.namespaces) \
        if isinstance(like, WorkerPool) else ProcessPool(1, like.limits, worker_pools.HANDLERS)
    pool.start()
    try:
        pool.run({"kind": "about"})
        tic = time.perf_counter()
        for _ in range(FRESH_WORKER_JOBS):
            assert pool.run({"kind": "about"})["ok"]
        return [("fresh CPU worker", f"{(time.perf_counter() - tic) / FRESH_WORKER_JOBS * 1000:,.0f} ms a job, back "
                                     "to back (start + warm-up of the next worker)")]
    finally:
        pool.close()


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


def training_rows(api: PlaygroundAPI, epochs: int, data_note: str, data: Dataset, found: dict
                  ) -> list[tuple[str, str]]:
    config = {"epochs": epochs, "layers": list(train_throughput.LAYERS), "batch_size": train_throughput.BATCH}
    run = Watched(api.train(config, "device-check"))
    rate, per_epoch = rate_of(run, len(data.train_images))
    last = run.updates[-1]
    if not last.get("ok") or not last.get("done"):
        return [("training", failed(last))]
    found.update(train=(rate, per_epoch, len(data.train_images)), epochs=epochs)
    rows = [
        ("training data", f"{data_note}: {last['n_train']:,} training, {last['n_test']:,} test images"),
        ("training on", last["device"]),
        ("app: samples/s, s/epoch", f"{rate:,.0f}, {per_epoch:.2f} s"),
        ("final test accuracy", f"{last['test_accuracy']:.2%} after {epochs} epochs"),
        target_row(last, epochs),
    ]
    devices = len(api.about()["devices"])
    if devices >= 2:
        parallel = Watched(api.train({**config, "data_parallel": True}, "device-check"))
        p_rate, p_epoch = rate_of(parallel, len(data.train_images))
        if parallel.updates[-1].get("ok") and p_rate is not None:
            rows.append((f"data-parallel over {devices}: samples/s, s/epoch", f"{p_rate:,.0f}, {p_epoch:.2f} s"))
        else:
            rows.append(("data-parallel", failed(parallel.updates[-1])))
    else:
        rows.append(("data-parallel", "skipped: one device"))
    return rows


def first_point_rows(api: PlaygroundAPI) -> list[tuple[str, str]]:
    """Seconds from Start to the first curve point (the first update with a step's loss), one epoch each: the
    default configuration, one new to the owner (a batch size no run had), and that one again."""
    new = {"epochs": 1, "batch_size": NEW_BATCH}
    return [(f"first curve point, {name}", first_point(api, config)) for name, config in (
        ("default configuration", {"epochs": 1}), (f"new configuration (batch {NEW_BATCH})", new),
        ("that configuration again", new))]


def first_point(api: PlaygroundAPI, config: dict) -> str:
    started, seen, cache, last = time.perf_counter(), None, None, {}
    for last in api.train(config, "device-check"):
        cache = last.get("compile_cache") or cache
        if seen is None and last.get("losses"):
            seen = time.perf_counter() - started
    if seen is None:
        return failed(last)
    return f"{seen:.2f} s after Start (its programs: {cache or 'no compilation cache'})"


def race_rows(api: PlaygroundAPI, epochs: int) -> list[tuple[str, str]]:
    """The race of the host's CPU against the device, the training row's configuration on both at once."""
    if not (api.about().get("training") or {}).get("race"):
        return [("race", "not offered: the owner holds no device besides the host's CPU")]
    config = {"epochs": epochs, "layers": list(train_throughput.LAYERS), "batch_size": train_throughput.BATCH}
    last = final(api.race(config, "device-check"))
    if not last.get("ok"):
        return [("race", failed(last))]
    comparison = last["comparison"]
    return [("race: the comparison", comparison["message"]),
            ("race: speed-up (median samples/s)", f"{comparison['speedup']:,.1f}x" if comparison["speedup"] else "-")]


def target_row(last: dict, epochs: int) -> tuple[str, str]:
    """The run's time to the target accuracy, or why there is none: /train's last update measures it."""
    name = f"time to {last['target_accuracy']:.0%} test accuracy"
    if last["time_to_target_s"] is None:
        return name, (f"not reached in {epochs} epochs (the whole test set of {last['n_test']:,} images at "
                      f"{last['test_accuracy']:.2%} at the end)")
    return name, f"{last['time_to_target_s']:.1f} s from the request (compiling included)"


def rate_of(run: Watched, n_train: int) -> tuple[float | None, float | None]:
    """Samples/s and s/epoch of a run as its updates arrive; None, None when it never trained long enough."""
    try:
        return train_throughput.stream_rate(run, n_train, train_throughput.BATCH)
    except train_throughput.NoTraining:  # the run failed first (its last update says why)
        return None, None


def hostile_rows(api: PlaygroundAPI, pools: worker_pools.Pools) -> list[tuple[str, str]]:
    """Each hostile program's end, and the job after it."""
    rows = []
    for name, run in (("a loop that never ends (jit)", lambda: api.jit_speed(hostile.LOOP, [100], 2)),
                      ("more memory than the device has (Speed of light)",
                       lambda: api.speed_of_light(hostile.HOG, "jnp.ones(3)", False))):
        tic = time.perf_counter()
        reply = final(run())
        ended = f"{reply['error']['kind']}: {reply['error']['message'][:200]}" if not reply["ok"] else "ran (!)"
        tic2 = time.perf_counter()
        after = final(api.jit_speed(JIT_BENCHMARK_CODE, [100], 2))
        rows.append((f"hostile: {name}", f"{ended} ({tic2 - tic:.1f} s); the next job: "
                     f"{'ok' if after['ok'] else failed(after)} ({time.perf_counter() - tic2:.1f} s)"))
    for name, problem in hostile.crafted(pools.owner).items():
        rows.append((f"crafted program: {name}", problem))
    rows.append(("device owner after them", f"restarted {pools.owner.restarts} time(s); alive: {pools.owner.alive()}"))
    return rows


def reference_rows(args, found: dict, mnist_dir: Path | None) -> list[tuple[str, str]]:
    """Plain JAX on the device, in a process of bare_device.py now that the app's owner has ended."""
    rows = []
    for n, app_s in sorted(found.get("jit", {}).items()):
        bare = bare_device("jit", str(n))
        rows.append((f"bare jax.jit, n={n:,}", f"{bare['jit_s'] * 1000:,.3f} ms on {bare['device']} (a process of "
                     f"its own, median of {bare_device_runs()} calls after a warm-up)"))
        rows.append((f"app's jit / bare jax.jit, n={n:,}", f"{app_s / bare['jit_s']:.2f}"))
        if n == args.size:
            bandwidth, source = device_bandwidth(found["device"], bare["bytes"] / bare["double_s"] / 1e9)
            achieved = bare["bytes"] / app_s / 1e9
            rows.append(("jit's achieved bandwidth", f"{achieved:,.1f} GB/s = {achieved / bandwidth:.0%} of "
                                                     f"{bandwidth:,.0f} GB/s ({source})"))
    if "train" in found and mnist_dir is not None:
        rate, per_epoch, n_train = found["train"]
        bare = bare_device("train", str(mnist_dir), str(found["epochs"]), ",".join(map(str, train_throughput.LAYERS)))
        bare.pop("device")
        samples = (n_train // train_throughput.BATCH) * train_throughput.BATCH
        rows += [(f"{name}: samples/s, s/epoch", f"{samples / s:,.0f}, {s:.2f} s") for name, s in bare.items()]
        rows.append(("app / fastest bare loop", f"{min(bare.values()) / per_epoch:.2f}"))
    return rows


def bare_device(*arguments: str) -> dict:
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("bare_device.py")), *arguments],
                          capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"bare_device.py {' '.join(arguments)} failed: {done.stderr[-600:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def bare_device_runs() -> int:
    import bare_device as reference

    return reference.RUNS


def device_bandwidth(device: str, streamed_gb_s: float) -> tuple[float, str]:
    """The device's peak memory bandwidth in GB/s, and where the figure comes from."""
    for name, gb_s in KNOWN_BANDWIDTH_GB_S:
        if name in device:
            return float(gb_s), f"{name}'s data sheet"
    return streamed_gb_s, "measured: a jitted x * 2 at the same n on the same device, best of 5"


def failed(reply: dict) -> str:
    """A failed step's row: the error, so that the rest of the check still runs and prints."""
    error = reply.get("error") or {}
    return f"FAILED ({error.get('kind', '?')}): {str(error.get('message') or reply.get('skipped') or reply)[:300]}"


class Watched:
    """A run's updates, passed on as they arrive (to be timed), and kept."""

    def __init__(self, updates) -> None:
        self._updates = updates
        self.updates: list[dict] = []

    def __iter__(self):
        for update in self._updates:
            self.updates.append(update)
            yield update


def print_table(rows: list[tuple[str, str]]) -> None:
    width = max(len(name) for name, _ in rows)
    print(f"| {'check':<{width}} | result |\n|{'-' * (width + 2)}|--------|")
    for name, value in rows:
        print(f"| {name:<{width}} | {value} |")


if __name__ == "__main__":
    main()
