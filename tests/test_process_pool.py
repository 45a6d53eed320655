"""The local process mode's pool (process_pool.py), for real: spawned workers, their watchdogs and their clean-up.

Run here on Linux, where the mode is what ``PLAYGROUND_SANDBOX=process`` gives; both
channels are exercised: the inherited socket (macOS, Linux) and the loopback
connection with a token (what Windows uses).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from playground import jobs
from playground.ipc import child_channel
from playground.ipc.limits import Limits
from playground.server.pools import ProcessPool
from tests.conftest import HANDLERS, ROOT

pytestmark = pytest.mark.slow  # real worker pools: make test-quick leaves it out


def inspect_job(code: str, args: str) -> dict:
    return jobs.build("inspect", {"code": code, "args": args})


SIMPLE = inspect_job("def f(x):\n    return x + x*x + x*x*x\n", "jnp.arange(4.0)")
# The ceiling of every wait here for something that takes well under a second (a folder removed, a worker warm, a
# process gone), and the wall clock of jobs stopped by another limit: far beyond it on a loaded machine, so that
# only a real fault runs into it.
WAIT_S = 60.0
# The wall clock that stops the endless loop. Its line is named only if the job reached the loop before the clock
# ran out, which takes a fraction of a second (a loaded host may need more than 2 s): five times that.
ENDLESS_S = 10.0


@pytest.fixture(scope="module", params=child_channel.KINDS)
def process_pool(request):
    pool = ProcessPool(2, Limits(timeout_s=WAIT_S, memory_mb=700, scratch_mb=20, scratch_files=200), HANDLERS,
                       extra_env={"JAX_PLATFORMS": "cpu"}, channel=request.param)
    pool.start()
    yield pool
    pool.close()


def _gone(path: str, within_s: float = WAIT_S) -> bool:
    deadline = time.monotonic() + within_s
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not os.path.exists(path)


def test_a_job_runs_and_each_gets_a_fresh_process_and_folder(process_pool):
    assert process_pool.run(SIMPLE)["result"] == "f32[4] [ 0.  3. 14. 39.]"
    code = ("import builtins, os\nbuiltins.jobs_seen = getattr(builtins, 'jobs_seen', 0) + 1\n"
            "def f(x):\n    print(builtins.jobs_seen, os.getpid(), os.getcwd())\n    return x\n")
    seen = []
    for _ in range(3):
        count, pid, folder = process_pool.run(inspect_job(code, "1.0"))["stdout"].split()
        assert count == "1" and int(pid) != os.getpid()
        assert _gone(folder)
        seen.append((pid, folder))
    assert len({pid for pid, _ in seen}) == 3 and len({folder for _, folder in seen}) == 3


def test_the_layers_say_which_rlimits_are_set(process_pool):
    rlimits = process_pool.layers["rlimits"]
    assert rlimits["active"] is True and "RLIMIT_CPU" in rlimits["detail"]
    bounds = process_pool.mechanisms()
    assert bounds["processes"]["active"] is False and "process isolation only" in bounds["processes"]["detail"]
    assert bounds["time"]["active"] is True


def test_an_endless_loop_is_stopped_at_the_wall_clock_with_its_line(process_pool):
    started = time.monotonic()
    # A loop that sleeps: it ends only at the wall clock, like a busy one, without taking a core until then
    # (a traced x = x + 1 would grow for the whole wall clock and run into the memory limit first).
    code = "import time\ndef f(x):\n    while True:\n        time.sleep(0.05)\n"
    result = process_pool.run(inspect_job(code, "1"), timeout_s=ENDLESS_S)
    assert result["error"]["kind"] == "timeout", result
    assert f"{ENDLESS_S:g} s" in result["error"]["message"] and result["error"]["line"] == 4, result
    assert time.monotonic() - started < ENDLESS_S + WAIT_S  # stopped by its wall clock, not left to run on
    assert process_pool.run(SIMPLE)["ok"]  # and the next job is served


def test_memory_beyond_the_limit_is_stopped_by_the_watchdog(process_pool):
    # 1 GB, past the 700 MB watchdog and short of the 4 GB address space (a MemoryError), and then a wait longer
    # than the wall clock: only the watchdog can end the job as "memory", however long it takes to look.
    code = "import numpy as np, time\nkeep = []\ndef f(x):\n    for _ in range(5):\n" \
           "        keep.append(np.ones(25_000_000))\n    time.sleep(600)\n    return x\n"
    result = process_pool.run(inspect_job(code, "1.0"))
    assert result["error"]["kind"] == "memory", result
    assert "700 MB" in result["error"]["message"]


def test_a_crash_is_named_by_its_signal_and_the_pool_goes_on(process_pool):
    result = process_pool.run(inspect_job("import os\ndef f(x):\n    os.abort()\n", "1.0"))
    assert result["error"]["kind"] == "crashed" and "SIGABRT" in result["error"]["message"], result
    assert process_pool.run(SIMPLE)["ok"]


def test_new_processes_are_refused(process_pool):
    code = "import subprocess\ndef f(x):\n    subprocess.run(['true'])\n    return x\n"
    result = process_pool.run(inspect_job(code, "1.0"))
    assert result["error"]["kind"] == "forbidden", result


def test_a_full_scratch_folder_stops_the_job(process_pool):
    # 1,000 files, then a wait longer than the wall clock: only the watchdog's walk can end the job as "disk".
    code = "def f(x):\n    for i in range(1000):\n        open(f'f{i}', 'w').close()\n" \
           "    import time; time.sleep(600)\n    return x\n"
    result = process_pool.run(inspect_job(code, "1.0"))
    assert result["error"]["kind"] == "disk", result
    assert "200 files" in result["error"]["message"]


def test_a_flood_on_stderr_costs_the_server_nothing_and_the_job_finishes(process_pool):
    code = "import os\ndef f(x):\n    for _ in range(2000):\n        os.write(2, b'x' * 65536)\n    return x\n"
    result = process_pool.run(inspect_job(code, "1.0"))  # 128 MB through the log reader, 64 KB of it kept
    assert result["ok"], result


def test_jobs_at_once_each_get_a_worker(process_pool):
    results = [None] * 4

    def run(index: int) -> None:
        results[index] = process_pool.run(SIMPLE)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert all(result and result["ok"] for result in results), results


def test_close_ends_every_worker_and_removes_every_folder():
    pool = ProcessPool(2, Limits(), HANDLERS, extra_env={"JAX_PLATFORMS": "cpu"})
    pool.start()
    root = pool._scratch_root
    deadline = time.monotonic() + WAIT_S
    while pool.status()["warm"] < 2 and time.monotonic() < deadline:  # the second one warm too
        time.sleep(0.05)
    pids = [worker.pid for worker in list(pool._idle.queue)]
    assert len(pids) == 2, pool.status()
    pool.close()
    assert not os.path.exists(root)
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_the_loopback_channel_drops_a_connection_without_the_token():
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        token = os.urandom(child_channel.TOKEN_BYTES)
        stranger = socket.create_connection(("127.0.0.1", port))
        stranger.sendall(b"x" * child_channel.TOKEN_BYTES)
        rightful = socket.create_connection(("127.0.0.1", port))
        rightful.sendall(token)
        accepted = child_channel.accept(listener, token, within_s=WAIT_S)
        accepted.sendall(b"hi")
        assert rightful.recv(2) == b"hi"
        assert stranger.recv(1) == b""  # closed by the server
        for each in (accepted, stranger, rightful):
            each.close()
        with pytest.raises(TimeoutError):
            child_channel.accept(listener, token, within_s=0.3)


def test_the_process_mode_imports_without_linux_only_modules():
    """What Windows lacks (fcntl, resource; libseccomp everywhere but Linux) is not needed to import the
    server in this mode: those modules are made unimportable, and the server's modules are imported."""
    probe = (
        "import sys\n"
        "for name in ('fcntl', 'resource', 'pyseccomp'):  # what our own modules could reach for\n"
        "    sys.modules[name] = None\n"
        "import playground.server.worker_pools, playground.server.api, playground.server.launch\n"
        "import playground.worker.life.spawned\n"
        "import playground.server.training.service, playground.server.device_owner.handle, playground.owner.main\n"
        "import playground.server.ui\n"
        "from playground.server.pools import ProcessPool\n"
        "assert 'playground.server.pools.pool' not in sys.modules, 'the Linux pool was imported'\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PLAYGROUND_SANDBOX": "process"})
    assert done.stdout.strip() == "ok", done.stderr[-3000:]


def test_a_worker_dies_with_its_process_group():
    """A killed worker takes whatever it started with it (its own session): nothing is left behind."""
    pool = ProcessPool(1, Limits(), HANDLERS, extra_env={"JAX_PLATFORMS": "cpu"})
    pool.start()
    try:
        worker = pool._idle.get(timeout=60)
        assert os.getpgid(worker.pid) == worker.pid
        worker.kill()
        assert worker.exited(wait_s=WAIT_S) and worker.exit_report() == {"code": "killed", "status": signal.SIGKILL}
        pool._retire(worker)
    finally:
        pool.close()
