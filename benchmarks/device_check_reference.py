"""The device check's reference rows (device_check.py): plain JAX on the device, in a process of bare_device.py once
the app's owner has ended, and the app's figures held against it and against a data sheet's bandwidth."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import train_throughput

# Peak memory bandwidth in GB/s from the vendors' data sheets, most specific name first.
KNOWN_BANDWIDTH_GB_S = (
    ("GH200", 4000), ("H200", 4800), ("H100 NVL", 3900), ("H100 PCIe", 2000), ("H100", 3350),
    ("A100-SXM4-80GB", 2039), ("A100 80GB PCIe", 1935), ("A100", 1555), ("L40S", 864), ("L40", 864),
    ("L4", 300), ("A10G", 600), ("A10", 600), ("T4", 320), ("V100", 900), ("RTX 4090", 1008), ("RTX 3090", 936),
)


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
        rows += [(f"{name}: samples/s, s/epoch", f"{samples / s:,.0f}, {s * 1000:,.1f} ms") for name, s in bare.items()]
        fastest = min(train_throughput.SHUFFLING, key=lambda name: bare[name])
        rows.append(("app / fastest plain loop that shuffles", f"{bare[fastest] / per_epoch:.2f} ({fastest})"))
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
