"""benchmarks/device_check.py runs on this host's CPU, end to end, and prints its whole table.

Small sizes keep it short (n = 1,000, one epoch); the full check (n = 10,000,
three epochs) is what the documentation's figures come from. Nothing is timed here: the
table's numbers are the benchmark's business, its rows are this test's.
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT, SANDBOX
from tests.mnist_folders import make_mnist_dir

ROWS = ("cold start: ready to listen", "cold start: first Inspect on the device", "cold start: first jit",
        "cold start: first vmap", "cold start: first Speed of light", "cold start: device owner restarts",
        "device owner's start", "devices (About)", "accelerator runs", "device owner", "device owner's layers",
        "CPU pool's workers opened", "sandbox layers", "fresh CPU worker", "Inspect (", "Inspect on the device (",
        "jit measured on", "NumPy, n=1,000", "jit, n=1,000", "eager JAX, n=1,000", "bare jax.jit, n=1,000",
        "app's jit / bare jax.jit", "NumPy / jit", "jit's achieved bandwidth", "vmap measured on",
        "vmap, batched MLP, 16 examples", "Speed of light measured on", "training on",
        "app: samples/s, ms/epoch", "plain, per-step: samples/s",
        "plain, scanned, no shuffling (upper bound): samples/s", "app / fastest plain loop that shuffles",
        "final test accuracy", "time to 97% test accuracy", "data-parallel", "first curve point, default configuration",
        "first curve point, new configuration", "first curve point, that configuration again", "race", "whole check")


def device_check(*arguments: str, sandbox_mode: str) -> tuple[subprocess.CompletedProcess, dict[str, str]]:
    done = subprocess.run([sys.executable, "benchmarks/device_check.py", "--size", "1000", "--epochs", "1",
                           "--repeats", "2", "--vmap-batch", "16", *arguments], cwd=ROOT, capture_output=True,
                          text=True, timeout=400,
                          env={**os.environ, "PLAYGROUND_SANDBOX": sandbox_mode})
    table = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in done.stdout.splitlines()
             if line.startswith("| ") and line.count("|") >= 3}
    return done, table


def test_the_device_check_prints_every_row_on_the_cpu(tmp_path, sandbox_mode):
    folder = make_mnist_dir(tmp_path / "mnist", 3000, 1000)
    done, table = device_check("--mnist-dir", str(folder), sandbox_mode=sandbox_mode)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    for row in ROWS:
        assert any(name.startswith(row) for name in table), (row, done.stdout)
    assert table["jit measured on"] == "cpu"
    assert table["accelerator runs"].startswith("none (")
    assert table["CPU pool's workers opened"] == "cpu (cpu:0 cpu)"
    assert float(table["app's jit / bare jax.jit, n=1,000"]) > 0
    assert table["device owner"].startswith("cpu (pid ") and "MB of 6,144 MB" in table["device owner"]
    assert table["data-parallel"] == "skipped: one device"
    assert table["race"] == "not offered: the owner holds no device besides the host's CPU"
    assert table["cold start: device owner restarts"] == "0"
    assert all(" s after it was sent (" in said for name, said in table.items() if name.startswith("cold start: first"))
    assert "(its programs: new)" in table["first curve point, new configuration (batch 96)"]
    assert "(its programs: kept)" in table["first curve point, that configuration again"]
    assert "MNIST from" in table["training data"] and "3,000 training, 1,000 test images" in table["training data"]


def test_a_failed_step_is_named_and_every_other_row_still_printed(tmp_path):
    # In this host's sandbox only: the check's own handling of a failed step is the same in either mode.
    done, table = device_check("--mnist-dir", str(tmp_path / "nowhere"), sandbox_mode=SANDBOX)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    assert table["MNIST data"].startswith("FAILED (FileNotFoundError): no MNIST files in"), table
    assert table["training"] == "skipped: no MNIST data (the row above says why)"
    for row in ("devices (About)", "Inspect (", "jit measured on", "app's jit / bare jax.jit", "whole check"):
        assert any(name.startswith(row) for name in table), (row, done.stdout)
