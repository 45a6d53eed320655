"""One device check: the whole accelerator path through the API layer, on whatever this host has, in one table.

Run: ``.venv/bin/python benchmarks/device_check.py [--mnist-dir DIR] [--size 10000] [--epochs 3]``
(``MNIST_DIR`` works too). No browser and no Gradio: the same sandbox pools,
``PlaygroundAPI`` and training service the app builds (``worker_pools.start``),
driven from this process. It runs on a GPU, a TPU and a CPU alike, and accepts
the JAX it finds (0.10 or newer). In order:

1. About: the devices a worker sees, which jobs the accelerator runs, and the sandbox layers in force;
2. what a fresh worker costs: back-to-back jobs in a one-worker pool are paced by spawning and warming the
   next worker, for the CPU pool and (where there is one) the accelerator's, which opens the device first;
3. an Inspect job (and, with an accelerator, the same one compiled for it);
4. the jit comparison at n = ``--size`` (default 10,000: 10^4 x 10^4 float32): NumPy and jit medians, their
   ratio, and the jitted ``x + x*x + x*x*x``'s achieved memory bandwidth (it reads x once and writes the result
   once: 8 n^2 bytes) against the device's (the vendor's figure for known GPUs; elsewhere, CPUs included, the
   simplest streaming kernel, a jitted ``x * 2``, measured here on the same device);
5. the vmap tab's batched-MLP preset at ``--vmap-batch`` examples (default 1,024): where it ran, the Python
   loop, vmap and jit(vmap);
6. a ``--epochs`` training run of the 784-512-256-10 MLP on MNIST from ``MNIST_DIR`` through ``/train``,
   against the bare jitted loops of benchmarks/train_throughput.py on the same device in the same run, and the
   time to 97 % test accuracy (from the request, so the worker's start and compiling count);
7. the data-parallel variant where there are several devices.

A step that fails is a row that names it and says why; the rows of every other step are still printed.

Where ``MNIST_DIR`` holds only the 10,000 test digits (t10k files, as ../shared does), they are split
8,000 / 2,000 into a temporary folder, and the table says so.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import traceback
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402

from playground.gallery import EXAMPLES, JIT_BENCHMARK_CODE, VMAP_PRESETS  # noqa: E402
from playground.mnist import fetch  # noqa: E402
from playground.mnist.catalogue import DATASETS, Dataset, DataUnavailable, role_shape  # noqa: E402
from playground.mnist.idx import read_idx, write_idx  # noqa: E402
from playground.mnist.load import load  # noqa: E402
from playground.sandbox import Limits, WorkerPool  # noqa: E402
from playground.server import worker_pools  # noqa: E402
from playground.server.api import PlaygroundAPI, final  # noqa: E402
from playground.server.config import Settings  # noqa: E402
from playground.server.training.service import TrainingService  # noqa: E402

SHARED_MNIST = ROOT.parent / "shared" / "data" / "mnist"
TARGET_ACCURACY = 0.97
FRESH_WORKER_JOBS = 4
# Peak memory bandwidth in GB/s from the vendors' data sheets, most specific name first.
KNOWN_BANDWIDTH_GB_S = (
    ("GH200", 4000), ("H200", 4800), ("H100 NVL", 3900), ("H100 PCIe", 2000), ("H100", 3350),
    ("A100-SXM4-80GB", 2039), ("A100 80GB PCIe", 1935), ("A100", 1555), ("L40S", 864), ("L40", 864),
    ("L4", 300), ("A10G", 600), ("A10", 600), ("T4", 320), ("V100", 900), ("RTX 4090", 1008), ("RTX 3090", 936),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mnist-dir", default=os.environ.get("MNIST_DIR") or str(SHARED_MNIST))
    parser.add_argument("--size", type=int, default=10_000, help="n of the n x n jit benchmark")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--vmap-batch", type=int, default=1024, help="examples in the vmap comparison's batch")
    args = parser.parse_args()
    started = time.perf_counter()
    memory_mb = max(2048, int(12 * args.size ** 2 * 4 / 2**20) + 1024)  # the benchmark's arrays, with room
    settings = Settings(limits=Limits(memory_mb=memory_mb, address_space_mb=0, timeout_s=120.0,
                                      measure_timeout_s=400.0),
                        result_cache=False)  # every figure measured now, none a kept result
    rows: list[tuple[str, str]] = []
    try:
        with tempfile.TemporaryDirectory(prefix="device-check-") as folder, ExitStack() as services:
            mnist_dir, data_note, data = step(rows, "MNIST data", lambda: mnist_data(Path(args.mnist_dir),
                                                                                      Path(folder)), (None,) * 3)
            env = {**os.environ, "MNIST_DIR": str(mnist_dir or args.mnist_dir)}
            pools = worker_pools.start(settings, env, started=lambda pool: services.callback(pool.close))
            training = TrainingService(worker_pools.training_env(settings, pools, env),
                                       worker_pools.training_slots(settings, pools, env))
            services.callback(training.close)
            api = PlaygroundAPI.from_pools(pools, settings, training)
            for name, rows_of in (
                ("About", lambda: about_rows(api)),
                ("fresh workers", lambda: fresh_worker_rows(pools)),
                ("Inspect", lambda: inspect_rows(api)),
                ("jit comparison", lambda: jit_comparison(api, args.size, args.repeats)),
                ("vmap comparison", lambda: vmap_rows(api, args.vmap_batch)),
                ("training", lambda: training_rows(api, args.epochs, data_note, data) if data else
                 [("training", "skipped: no MNIST data (the row above says why)")]),
            ):
                rows += step(rows, name, rows_of, [])
    except BaseException as exc:  # whatever stopped the check, the rows it has are printed, and the step is named
        rows.append(("check stopped", f"FAILED ({type(exc).__name__}): {exc}"[:400]))
        raise
    finally:
        rows.append(("whole check", f"{time.perf_counter() - started:.0f} s"))
        print_table(rows)


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
        return source, f"MNIST from {source}", load("mnist", {"MNIST_DIR": str(source)})
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
    return scratch, note, load("mnist", {"MNIST_DIR": str(scratch)})


def about_rows(api: PlaygroundAPI) -> list[tuple[str, str]]:
    info = api.about()
    layers = info["sandbox"]["layers"]
    accelerator = info["accelerator"]
    where = (f"{accelerator['device']}: {', '.join(accelerator['jobs'])}" if accelerator["device"]
             else f"none ({accelerator['why']})")
    device_pool = info["sandbox"].get("accelerator_pool") or {}
    opened = {name: info["sandbox"].get(key) or {} for name, key in (
        ("CPU", "pool"), ("Parallel", "parallel_pool"), ("accelerator", "accelerator_pool"))}
    return [
        ("devices (About)", ", ".join(info["devices"]) or "none answered"),
        ("JAX", f"{info['versions']['jax']} (jaxlib {info['versions']['jaxlib']}), backend {info['backend']}"),
        ("accelerator runs", where),
        *[(f"{name} pool's workers opened", f"{status.get('backend')} ({', '.join(status.get('devices') or [])})")
          for name, status in opened.items() if status],
        ("sandbox layers", ", ".join(f"{name} {'on' if layer['active'] else 'OFF'}" for name, layer in layers.items())),
        ("accelerator workers' Landlock", (device_pool.get("landlock") or {}).get("detail", "no accelerator pool")),
        ("accelerator workers' seccomp", (device_pool.get("seccomp") or {}).get("detail", "no accelerator pool")),
        ("driver's grants", device_pool.get("grants", "no accelerator pool")),
        *[(f"grants tried: {', '.join(trial['grants']) or 'none'}",
           "opened" if trial["opened"] else f"failed: {trial['reason'][:200]}")
          for trial in device_pool.get("grants_tried", [])],
    ]


def fresh_worker_rows(pools: worker_pools.Pools) -> list[tuple[str, str]]:
    """Jobs back to back in a pool of one warm worker: each waits for the next worker's start and warm-up."""
    rows = []
    kinds = [("CPU worker", pools.sandbox)]
    if pools.device is not None:
        kinds.append(("accelerator worker", pools.accelerator))
    for name, like in kinds:
        pool = WorkerPool(1, like.limits, worker_pools.HANDLERS, namespaces=like.namespaces, devices=like.devices,
                          platform=like.platform, extra_env={k: v for k, v in like._env.items() if k in (
                              "XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_FLAGS", "CUDA_CACHE_DISABLE")})
        pool.start()
        try:
            pool.run({"kind": "about"})
            tic = time.perf_counter()
            for _ in range(FRESH_WORKER_JOBS):
                assert pool.run({"kind": "about"})["ok"]
            rows.append((f"fresh {name}", f"{(time.perf_counter() - tic) / FRESH_WORKER_JOBS * 1000:,.0f} ms "
                                          "a job, back to back (start + warm-up of the next worker)"))
        finally:
            pool.close()
    return rows


def inspect_rows(api: PlaygroundAPI) -> list[tuple[str, str]]:
    example = EXAMPLES[0]
    rows = []
    for on_accelerator in ((False, True) if api.accelerator else (False,)):
        final(api.inspect(example.code, example.args, on_accelerator=on_accelerator))  # the first job per pool warms it
        tic = time.perf_counter()
        reply = final(api.inspect(example.code, example.args, on_accelerator=on_accelerator))
        elapsed = time.perf_counter() - tic
        if not reply["ok"]:
            rows.append((f"Inspect ({'accelerator' if on_accelerator else 'cpu'})", failed(reply)))
            continue
        fused = reply["hlo"].count(" fusion(")
        rows.append((f"Inspect ({reply['device']})", f"{elapsed * 1000:,.0f} ms through the API, compile "
                     f"{reply['compile_s'] * 1000:,.0f} ms, {fused} fusion(s) in the optimised HLO"))
    return rows


def jit_comparison(api: PlaygroundAPI, n: int, repeats: int) -> list[tuple[str, str]]:
    reply = final(api.jit_speed(JIT_BENCHMARK_CODE, [n], repeats))
    if not reply["ok"] or n not in reply["sizes"]:
        return [(f"jit comparison, n={n:,}", failed(reply))]
    numpy_s, jit_s = reply["numpy_s"][0], reply["jit_s"][0]
    moved = 2 * n * n * 4  # x read once, the result written once: what a fused kernel must move
    achieved = moved / jit_s / 1e9
    bandwidth, source = device_bandwidth(reply["device"], n)
    bare_s, bare_device = bare_jit_median(n)
    return [
        ("jit measured on", reply["device"] + (f" ({reply['device_fallback']})" if reply.get("device_fallback")
                                               else "")),
        (f"NumPy, n={n:,}", f"{numpy_s * 1000:,.1f} ms" if numpy_s else "unavailable"),
        (f"jit, n={n:,}", f"{jit_s * 1000:,.2f} ms (compile {reply['compile_s'][0] * 1000:,.0f} ms, "
                          f"{reply['fused_kernels']} fused kernel(s))"),
        (f"bare jax.jit, n={n:,}", f"{bare_s * 1000:,.2f} ms on {bare_device} (this process, median of "
                                   f"{BARE_RUNS} calls after a warm-up: what a user's own script would measure)"),
        ("app's jit / bare jax.jit", f"{jit_s / bare_s:.2f}"),
        ("NumPy / jit", f"{numpy_s / jit_s:,.1f}x" if numpy_s else "-"),
        ("jit's achieved bandwidth", f"{achieved:,.1f} GB/s = {achieved / bandwidth:.0%} of {bandwidth:,.0f} GB/s "
                                     f"({source})"),
    ]


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
    medians = {key: reply[key][reply["batch_sizes"].index(batch)] for key in ("vmap_s", "jit_vmap_s")}
    loop = reply["loop_s"][reply["batch_sizes"].index(batch)] if len(reply["loop_s"]) == len(reply["batch_sizes"]) \
        else None
    return [where, (name, (f"Python loop {loop * 1000:,.1f} ms, " if loop else "") +
                    f"vmap {medians['vmap_s'] * 1000:,.2f} ms, jit(vmap) {medians['jit_vmap_s'] * 1000:,.2f} ms "
                    "(medians)")]


BARE_RUNS = 100


def bare_jit_median(n: int) -> tuple[float, str]:
    """Median seconds of a plain ``jax.jit`` of the benchmark's function on this process's default device, timed
    as a user's script would: the same input as the app's (n x n float32 in [-1, 1)), a warm-up call, then
    ``block_until_ready`` on each of ``BARE_RUNS`` calls."""
    jax = own_jax()
    namespace: dict = {}
    exec(JIT_BENCHMARK_CODE, {"jnp": jax.numpy}, namespace)  # our own gallery text, not user code
    fn = jax.jit(namespace["fn"])
    x = np.random.default_rng(0).random((n, n), dtype=np.float32) * 2 - 1
    x = jax.device_put(x)
    fn(x).block_until_ready()
    seconds = []
    for _ in range(BARE_RUNS):
        tic = time.perf_counter()
        fn(x).block_until_ready()
        seconds.append(time.perf_counter() - tic)
    device = x.devices().pop()
    return float(np.median(seconds)), f"{device.platform}: {device.device_kind}"


def device_bandwidth(device: str, n: int) -> tuple[float, str]:
    """The device's peak memory bandwidth in GB/s, and where the figure comes from."""
    for name, gb_s in KNOWN_BANDWIDTH_GB_S:
        if name in device:
            return float(gb_s), f"{name}'s data sheet"
    return streamed_bandwidth(n), "measured here: a jitted x * 2 at the same n on the same device, best of 5"


def own_jax():
    """JAX in this process (after the pools were built, so that their environment is the app's), which runs the
    bandwidth probe and the bare loops; beside the workers, it must not take the whole device either."""
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    os.environ.setdefault("XLA_PYTHON_CLIENT_MEM_FRACTION", "0.2")
    import jax

    return jax


def streamed_bandwidth(n: int) -> float:
    """GB/s of the simplest streaming kernel (read x, write 2x) on this process's default device: its floor."""
    jax = own_jax()
    jnp = jax.numpy

    double = jax.jit(lambda x: x * 2)
    x = jnp.ones((n, n), jnp.float32)
    double(x).block_until_ready()
    best = np.inf
    for _ in range(5):
        tic = time.perf_counter()
        double(x).block_until_ready()
        best = min(best, time.perf_counter() - tic)
    return 2 * x.nbytes / best / 1e9


def training_rows(api: PlaygroundAPI, epochs: int, data_note: str, data: Dataset) -> list[tuple[str, str]]:
    own_jax()
    import train_throughput as bare  # its bare loops run in this process

    train_x, train_y, test_x, test_y = data.train_images, data.train_labels, data.test_images, data.test_labels
    config = {"epochs": epochs, "layers": list(bare.LAYERS), "batch_size": bare.BATCH}
    run = Watched(api.train(config, "device-check"))
    rate, per_epoch = rate_of(bare, run, len(train_x))
    final = run.updates[-1]
    if not final.get("ok") or not final.get("done"):
        return [("training", failed(final))]
    bare_s = bare.bare_loops(train_x, train_y, test_x, test_y, epochs)
    fastest = min(bare_s.values())
    samples = (len(train_x) // bare.BATCH) * bare.BATCH
    rows = [
        ("training data", f"{data_note}: {final['n_train']:,} training, {final['n_test']:,} test images"),
        ("training on", final["device"]),
        ("app: samples/s, s/epoch", f"{rate:,.0f}, {per_epoch:.2f} s"),
        *[(f"{name}: samples/s, s/epoch", f"{samples / s:,.0f}, {s:.2f} s") for name, s in bare_s.items()],
        ("app / fastest bare loop", f"{fastest / per_epoch:.2f}"),
        ("final test accuracy", f"{final['test_accuracy']:.2%} after {epochs} epochs"),
        (f"time to {TARGET_ACCURACY:.0%} test accuracy",
         f"{run.reached_s:.1f} s from the request (worker start and compiling included)"
         if run.reached_s is not None else f"not reached in {epochs} epochs"),
    ]
    devices = len(api.about()["devices"])
    if devices >= 2:
        parallel = Watched(api.train({**config, "data_parallel": True}, "device-check"))
        p_rate, p_epoch = rate_of(bare, parallel, len(train_x))
        if parallel.updates[-1].get("ok") and p_rate is not None:
            rows.append((f"data-parallel over {devices}: samples/s, s/epoch", f"{p_rate:,.0f}, {p_epoch:.2f} s"))
        else:
            rows.append(("data-parallel", failed(parallel.updates[-1])))
    else:
        rows.append(("data-parallel", "skipped: one device"))
    return rows


def rate_of(bare, run: Watched, n_train: int) -> tuple[float | None, float | None]:
    """Samples/s and s/epoch of a run as its updates arrive; None, None when it never reached training."""
    try:
        return bare.stream_rate(run, n_train, bare.BATCH)
    except IndexError:  # no training update came: the run failed first (its last update says why)
        return None, None


def failed(reply: dict) -> str:
    """A failed step's row: the error, so that the rest of the check still runs and prints."""
    error = reply.get("error") or {}
    return f"FAILED ({error.get('kind', '?')}): {str(error.get('message') or reply.get('skipped') or reply)[:300]}"


class Watched:
    """A run's updates, passed on as they arrive (to be timed), kept, and watched for the target accuracy."""

    def __init__(self, updates) -> None:
        self._updates = updates
        self._started = time.perf_counter()
        self.updates: list[dict] = []
        self.reached_s: float | None = None  # seconds from the request to the target test accuracy

    def __iter__(self):
        for update in self._updates:
            self.updates.append(update)
            accuracy = update.get("test_accuracy")
            if self.reached_s is None and accuracy is not None and accuracy >= TARGET_ACCURACY:
                self.reached_s = time.perf_counter() - self._started
            yield update


def print_table(rows: list[tuple[str, str]]) -> None:
    width = max(len(name) for name, _ in rows)
    print(f"| {'check':<{width}} | result |\n|{'-' * (width + 2)}|--------|")
    for name, value in rows:
        print(f"| {name:<{width}} | {value} |")


if __name__ == "__main__":
    main()
