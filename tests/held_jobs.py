"""Jobs that hold their worker until the test lets them go: a full line is built by events, not by a long sleep.

A test that needs every worker busy while it builds a line behind them could send a job that sleeps for longer
than building the line can take on a loaded machine (30 s), and then wait those 30 s out. A held job instead
waits, in its own scratch folder, for a file named ``release``; the test writes it there (through
``/proc/<pid>/cwd``, which reaches a private tmpfs too) as soon as it has seen what it came to see. ``hold_s`` is
only the ceiling of a hold nobody ends.
"""

from __future__ import annotations

import os
import time

from tests.hostile.support import descendants

RELEASE_WAIT_S = 60.0  # the ceiling for a held job to be seen in its worker (it is there once the job runs)


def held_job(tag: str, hold_s: float) -> str:
    """User code whose ``f`` marks its folder ``held-<tag>`` and holds its worker until released (or ``hold_s``)."""
    return ("import os, time\n"
            "def f(x):\n"
            f"    open('held-{tag}', 'w').close()\n"
            f"    deadline = time.monotonic() + {hold_s}\n"
            "    while not os.path.exists('release') and time.monotonic() < deadline:\n"
            "        time.sleep(0.05)\n"
            "    return x\n")


def release(server, tag: str) -> None:
    """Let the held job ``tag`` of ``server`` go on: a ``release`` file in the folder of the worker that holds it."""
    deadline = time.monotonic() + RELEASE_WAIT_S
    while True:
        for pid in descendants(server.process.pid):
            folder = f"/proc/{pid}/cwd"
            if os.path.exists(f"{folder}/held-{tag}"):
                open(f"{folder}/release", "w").close()
                return
        assert time.monotonic() < deadline, f"no worker of the server holds the job {tag!r}"
        time.sleep(0.1)
