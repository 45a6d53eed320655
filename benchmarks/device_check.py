"""One device check: the whole device path through the API layer, on whatever this host has, in one table.

Run: ``.venv/bin/python benchmarks/device_check.py [--mnist-dir DIR] [--size 10000] [--epochs 3] [--hostile]``
(``MNIST_DIR`` works too). No browser and no Gradio: the same device owner, sandbox pools, ``PlaygroundAPI`` and
training service the app builds (``worker_pools.start``), driven from this process, which never opens the device
itself (one process at a time may open a TPU chip: plain JAX's reference figures come from a process of
bare_device.py once the app's owner has ended). It runs on a GPU, a TPU and a CPU alike. In order:

1. a cold start (the check's compilation cache starts empty): seconds from the start to ready to listen, and to
   the first answer of each kind of device job sent right then (Inspect on the device, jit, vmap, Speed of
   light), with the owner's restarts meanwhile (none expected); then About: the devices, the owner (its start,
   its layers), which jobs run there, and the sandbox's layers;
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

A step that fails is a row that names it and says why; the rows of every other step are still printed
(device_check_table.py). The rows of the tabs' jobs are device_check_jobs.py's, the training's
device_check_training.py's, plain JAX's device_check_reference.py's.

Where ``MNIST_DIR`` holds only the 10,000 test digits (t10k files, as ../shared does), they are the test set and,
six times over, a training set of MNIST's full size (60,000) in a temporary folder, and the table says so.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


import device_hostile as hostile  # noqa: E402
import train_throughput  # noqa: E402
from device_check_jobs import cold_start_rows, inspect_rows, jit_comparison, speed_rows, vmap_rows  # noqa: E402
from device_check_reference import reference_rows  # noqa: E402
from device_check_table import failed, print_table, step  # noqa: E402
from device_check_training import first_point_rows, race_rows, training_rows  # noqa: E402

from playground.gallery import JIT_BENCHMARK_CODE  # noqa: E402
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
                began = time.perf_counter()
                api, pools = app(settings, services, rows)
                ready = time.perf_counter() - began
                for name, rows_of in (
                    ("cold start", lambda: cold_start_rows(api, began, ready, pools.owner)),
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


def mnist_data(source: Path, scratch: Path) -> tuple[Path, str, Dataset]:
    """MNIST as the app loads it from an MNIST_DIR: ``source`` when it holds all four files, else its test set six
    times over as the training set (60,000, MNIST's size) and once as the test set, written into ``scratch``; the
    folder to train from, where it came from, and its arrays."""
    files = DATASETS["mnist"].files
    if fetch.in_folder(source, files["train_images"]) is not None:
        try:
            return source, f"MNIST from {source}", load("mnist", data_places({"MNIST_DIR": str(source)}))
        except DataUnavailable:
            pass
    found = {role: fetch.in_folder(source, files[role]) for role in ("test_images", "test_labels")}
    if None in found.values():
        raise FileNotFoundError(f"no MNIST files in {source}: set MNIST_DIR or --mnist-dir")
    images, labels = (read_idx(found[role], *role_shape(role)) for role in ("test_images", "test_labels"))
    train_images, train_labels = train_throughput.six_times_over(images, labels)
    for role, data in (("train_images", train_images), ("train_labels", train_labels),
                       ("test_images", images), ("test_labels", labels)):
        write_idx(scratch / files[role], data)
    note = (f"no training files in {source}: its {len(labels):,} test digits six times over as the training set, "
            "the full size for the rates; accuracies are on digits it trained on")
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


if __name__ == "__main__":
    main()
