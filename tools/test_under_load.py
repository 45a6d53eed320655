"""The whole test suite, several times in a row, while a CPU burner takes one core: `make test-under-load`.

CI runs on a shared 2-core host that is sometimes busy; a test that passes only on a quiet machine decides by
its clock somewhere. This starts one busy-looping process (a core's worth of load), runs ``pytest`` the given
number of times, one after the other, stops the burner (by its pid, whatever happened), and prints each run's
summary line and wall time (each run's whole output goes to test-artifacts/under-load-run-N.log). It exits
non-zero if any run failed.

Usage: python tools/test_under_load.py [--runs 3] [-- pytest arguments...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "test-artifacts"  # ignored by git, like the browser tests' screenshots


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("pytest_args", nargs="*", help="after --: what to pass to pytest (make test's own by default)")
    args = parser.parse_args()
    burner = subprocess.Popen([sys.executable, "-c", "while True:\n    pass\n"])
    results = []
    try:
        for run in range(1, args.runs + 1):
            started = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "pytest", *args.pytest_args], cwd=ROOT, text=True,
                                  capture_output=True)
            summary = next((line.strip("= ") for line in reversed(done.stdout.splitlines()) if " in " in line
                            and ("passed" in line or "failed" in line or "error" in line)), "no summary")
            seconds = time.monotonic() - started
            results.append((run, done.returncode, summary, seconds))
            # Each run's whole output is kept: a failure's own report may be far above the summary's last lines.
            LOGS.mkdir(exist_ok=True)
            log = LOGS / f"under-load-run-{run}.log"
            log.write_text(done.stdout + done.stderr)
            print(f"run {run}: exit {done.returncode}, {summary} ({seconds:.0f} s wall; all of it in {log})",
                  flush=True)
            if done.returncode:
                print(done.stdout[-6000:], flush=True)
    finally:
        burner.kill()
        burner.wait()
    print(f"\nwith a CPU burner on one of {os.cpu_count()} cores:")
    for run, code, summary, seconds in results:
        print(f"  run {run}: {'passed' if code == 0 else 'FAILED'}: {summary}; {seconds / 60:.1f} min")
    return int(any(code for _, code, _, _ in results))


if __name__ == "__main__":
    sys.exit(main())
