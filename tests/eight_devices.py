"""Run test code on 8 simulated CPU devices, in a subprocess, and read back what it printed as JSON.

JAX fixes its device count when it first starts, so a test that needs 8 devices
runs its driver in a fresh interpreter with JAX_NUM_CPU_DEVICES=8 (as the
sandbox's Parallel workers are); the pytest process's own JAX is never
reconfigured. The driver gets ``payload`` as JSON in ``sys.argv[1]`` and prints
its results as one JSON line after ``MARKER``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKER = "RESULTS-JSON:"


def run_driver(source: str, payload: object, timeout_s: float = 240) -> dict:
    """The JSON the driver ``source`` printed after ``MARKER``; fails the test with its output if it did not."""
    env = {**os.environ, "JAX_NUM_CPU_DEVICES": "8", "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", source, json.dumps(payload)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout_s)
    lines = [line for line in done.stdout.splitlines() if line.startswith(MARKER)]
    assert done.returncode == 0 and lines, (f"driver failed ({done.returncode}):\n{done.stdout[-3000:]}\n"
                                            f"{done.stderr[-5000:]}")
    return json.loads(lines[-1][len(MARKER):])
