"""benchmarks/device_check.py runs on this host's CPU, end to end, and prints its whole table.

Small sizes keep it short (n = 1,000, one epoch); the full check (n = 10,000,
three epochs) is what README's figures come from. Nothing is timed here: the
table's numbers are the benchmark's business, its rows are this test's.
"""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT
from tests.mnist_folders import make_mnist_dir

ROWS = ("devices (About)", "accelerator runs", "sandbox layers", "fresh CPU worker", "Inspect (", "jit measured on",
        "NumPy, n=1,000", "jit, n=1,000", "NumPy / jit", "jit's achieved bandwidth", "training on",
        "app: samples/s, s/epoch", "bare, per-step: samples/s", "app / fastest bare loop", "final test accuracy",
        "time to 97% test accuracy", "data-parallel", "whole check")


def test_the_device_check_prints_every_row_on_the_cpu(tmp_path):
    folder = make_mnist_dir(tmp_path / "mnist", 3000, 1000)
    done = subprocess.run([sys.executable, "benchmarks/device_check.py", "--mnist-dir", str(folder), "--size", "1000",
                           "--epochs", "1", "--repeats", "2"], cwd=ROOT, capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    table = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in done.stdout.splitlines()
             if line.startswith("| ") and line.count("|") >= 3}
    for row in ROWS:
        assert any(name.startswith(row) for name in table), (row, done.stdout)
    assert table["jit measured on"] == "cpu"
    assert table["accelerator runs"].startswith("none (")
    assert table["data-parallel"] == "skipped: one device"
    assert "MNIST from" in table["training data"] and "3,000 training, 1,000 test images" in table["training data"]
