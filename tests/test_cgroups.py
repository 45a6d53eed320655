"""Per-job cgroups on this host, where it lets the server make them (root on cgroup v1, or delegated v2)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from playground.server.pools.cgroups import JobCgroups


@pytest.fixture
def groups():
    made = JobCgroups()
    if not made.active:
        pytest.skip(f"this host makes no cgroups for us: {made.detail}")
    yield made
    made.close()


def test_a_job_group_caps_tasks_and_counts_the_refusals(groups):
    folders = groups.create(max_tasks=8, memory_bytes=512 << 20)
    child = textwrap.dedent(f"""
        import threading, sys
        for folder in {folders!r}:
            open(folder + "/cgroup.procs", "w").write("0")
        started = 0
        never = threading.Event()  # every thread lives until the process ends, however slowly the next ones start
        try:
            for _ in range(50):
                threading.Thread(target=never.wait, daemon=True).start()
                started += 1
        except RuntimeError:
            pass
        print(started)
    """)
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 8  # the main thread counts too
    assert groups.events(folders)["task_limit_hits"] >= 1
    groups.remove(folders)
    assert not any(os.path.exists(folder) for folder in folders)


def test_close_removes_every_folder_it_made(groups):
    folders = groups.create(max_tasks=16, memory_bytes=256 << 20)
    bases = {os.path.dirname(folder) for folder in folders}
    groups.close()
    assert not any(os.path.exists(path) for path in [*folders, *bases])
