"""A kernel without pidfds (gVisor, Linux < 5.3) or without Landlock: the full sandbox starts with the layers it
has, names the missing ones, and still stops, reaps and reports every worker.

Each case runs in a process where those system calls fail with ENOSYS (tests/without_syscalls.py: a seccomp
filter that every child inherits), so the pool or the server, its template and its workers all meet that kernel.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from playground import jobs
from playground.ipc.limits import Limits
from playground.server.pools import WorkerPool
from tests.conftest import HANDLERS, PRIVILEGES, ROOT, drop_privileges, start_server, stop_server
from tests.test_pool import DEFAULT_JOB, WAIT_S, _gone, inspect_job

pytestmark = pytest.mark.slow  # real worker pools and a real server

NO_PIDFDS = ("pidfd_open", "pidfd_send_signal", "pidfd_getfd")
NO_LANDLOCK = ("landlock_create_ruleset",)
ENDLESS = "def f(x):\n    while True:\n        pass\n"
# Each job and the wall clock it gets (None: the pool's own).
JOBS = {
    "ok": (DEFAULT_JOB, None),
    "timeout": (inspect_job(ENDLESS, "1.0"), 2.0),
    "exits": (inspect_job("import os\ndef f(x):\n    os._exit(3)\n", "1.0"), None),
    "crashes": (inspect_job("import ctypes\ndef f(x):\n    ctypes.string_at(0)\n    return x\n", "1.0"), None),
    "threads": (inspect_job("import _thread, threading, time\ndef f(x):\n    threading.stack_size(65536)\n"
                            "    for _ in range(4000):\n        _thread.start_new_thread(time.sleep, (60,))\n"
                            "    return x\n", "1.0"), None),
    "writes outside": (inspect_job("def f(x):\n    open('/tmp/playground-missing-features', 'a')\n    return x\n",
                                   "1.0"), None),
    "writes its scratch": (inspect_job("def f(x):\n    open('notes.txt', 'w').close()\n    return x\n", "1.0"), None),
    "passes": (jobs.build("passes", {"code": "def f(x):\n    return x + x*x\n", "args": "jnp.arange(4.0)"}), None),
    "ok again": (DEFAULT_JOB, None),
}
SIGKILL, SIGSEGV = 9, 11
CLOCK_S = 12  # the server's wall clock: the endless job meets it; a normal one on a loaded machine does not


def without(syscalls: tuple[str, ...], *command: str) -> list[str]:
    """``command`` run where each of ``syscalls`` fails with ENOSYS."""
    return [sys.executable, "-m", "tests.without_syscalls", *syscalls, "--", *command]


def scenario(out: str) -> None:
    """Run in the process without the calls: what a pool reports, each job's reply, and how each worker was held
    (its pidfd, or None) and ended (the template's report), written to ``out`` as JSON."""
    pool = WorkerPool(1, Limits(timeout_s=WAIT_S), HANDLERS)
    retired: list[dict] = []
    retire = pool._retire

    def recording(worker) -> None:
        retire(worker)
        retired.append({"pidfd": worker.process.pidfd, "exit": worker.exit})

    pool._retire = recording
    pool.start()
    try:
        seen = {"layers": pool.layers, "mechanisms": pool.mechanisms(), "jobs": {}}
        for name, (job, timeout_s) in JOBS.items():
            seen["jobs"][name] = {"reply": pool.run(job, timeout_s=timeout_s), "worker": retired[-1]}
        seen["status"] = pool.status()
        processes = [pool._link.process.pid, *(worker.pid for worker in pool._idle.queue)]
    finally:
        pool.close()
    seen["left"] = [pid for pid in processes if not _gone(pid)]
    Path(out).write_text(json.dumps(seen))


def _pool_without(syscalls: tuple[str, ...], privilege: str, folder: Path) -> dict:
    out = folder / "seen.json"
    command = without(syscalls, sys.executable, "-c",
                      f"from tests.test_missing_kernel_features import scenario; scenario({str(out)!r})")
    env = dict(os.environ)
    if privilege == "unprivileged" and os.geteuid() == 0:
        command = drop_privileges(command, env, folder)
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-6000:]
    return json.loads(out.read_text())


@pytest.mark.parametrize("privilege", PRIVILEGES)
@pytest.mark.parametrize("missing", [NO_PIDFDS, NO_LANDLOCK], ids=["no pidfds", "no Landlock"])
def test_a_pool_runs_stops_and_reports_every_job_without_them(tmp_path, missing, privilege):
    seen = _pool_without(missing, privilege, tmp_path)
    jobs, layers = seen["jobs"], seen["layers"]
    for name in ("ok", "ok again"):
        assert jobs[name]["reply"]["result"] == "f32[4] [ 0.  3. 14. 39.]", jobs[name]
    # Stopped at its wall clock: killed by SIGKILL, as its parent reaped it.
    assert jobs["timeout"]["reply"]["error"]["kind"] == "timeout", jobs["timeout"]
    assert jobs["timeout"]["worker"]["exit"]["code"] == "killed", jobs["timeout"]
    assert jobs["timeout"]["worker"]["exit"]["status"] == SIGKILL
    # Ended by itself: the kernel's wait status reaches the verdict.
    exited = jobs["exits"]["worker"]["exit"]
    assert (exited["code"], exited["status"]) == ("exited", 3), jobs["exits"]
    assert "status 3" in jobs["exits"]["reply"]["error"]["message"], jobs["exits"]
    assert jobs["crashes"]["worker"]["exit"]["status"] == SIGSEGV, jobs["crashes"]
    assert "SIGSEGV" in jobs["crashes"]["reply"]["error"]["message"], jobs["crashes"]
    # Refused threads: by the job's cgroup, or without one by the template's gate, which reports the count.
    assert jobs["threads"]["reply"]["error"]["kind"] == "tasks", jobs["threads"]
    status = seen["status"]
    assert (status["timeouts"], status["crashes"], status["spawn_failures"]) == (1, 2, 0), status
    assert seen["left"] == [], "processes outlived the pool"
    # Landlock keeps writes in the scratch folder; without it, seccomp refuses every write and says why.
    assert jobs["writes outside"]["reply"]["error"]["kind"] == "forbidden", jobs["writes outside"]
    assert "fusion" in {record["name"] for record in jobs["passes"]["reply"]["passes"]}, jobs["passes"]
    held = {job["worker"]["pidfd"] is None for job in jobs.values()}
    if missing == NO_PIDFDS:
        assert held == {True}, "a worker was held by a pidfd"
        assert layers["pidfd"]["active"] is False
        assert layers["pidfd"]["detail"] == ("no pidfd_open here (ENOSYS: Function not implemented): workers are "
                                             "watched and killed by their parent, the template")
        assert "sent by the template, the worker's parent" in seen["mechanisms"]["time"]["detail"]
        assert layers["landlock"]["active"] is True
        assert jobs["writes its scratch"]["reply"]["ok"] is True, jobs["writes its scratch"]
    else:
        assert held == {False}, "a worker was held without a pidfd"
        assert layers["pidfd"]["active"] is True and layers["landlock"]["active"] is False, layers
        # Without Landlock, seccomp refuses every file write: the job holds no disk, and says so.
        error = jobs["writes its scratch"]["reply"]["error"]
        assert error["kind"] == "forbidden" and "no job may write" in error["message"], error
        assert "every file write refused" in layers["seccomp"]["detail"], layers["seccomp"]
        assert seen["mechanisms"]["disk"]["detail"].startswith("a job may write no file at all"), seen["mechanisms"]


def test_a_host_where_nothing_confines_writes_serves_only_this_machine(tmp_path):
    """Neither Landlock nor seccomp: the server refuses an address others can reach, and on the loopback one says
    what a visitor's code could do."""
    nothing = tuple(without(NO_LANDLOCK + ("seccomp",)))
    with pytest.raises(RuntimeError, match="will not serve 0.0.0.0: nothing on this host keeps a job's writes"):
        start_server(tmp_path, wrapper=nothing, PLAYGROUND_WORKERS="1", PLAYGROUND_HOST="0.0.0.0")
    server = start_server(tmp_path, wrapper=nothing, PLAYGROUND_WORKERS="1")
    try:
        log = server.log_path.read_text()
        assert "sandbox: nothing on this host keeps a job's writes in its scratch folder" in log, log
        assert "rewrite this app in its checkout" in log, log
        files = server.client().predict(api_name="/about")["sandbox"]["mechanisms"]["files"]
        assert files["active"] is False and "neither Landlock" in files["detail"], files
    finally:
        stop_server(server)


def test_a_server_without_pidfds_or_landlock_starts_serves_and_says_so(tmp_path):
    server = start_server(tmp_path, wrapper=tuple(without(NO_PIDFDS + NO_LANDLOCK)), PLAYGROUND_WORKERS="1",
                          PLAYGROUND_TIMEOUT_S=str(CLOCK_S))
    try:
        client = server.client()
        sandbox = client.predict(api_name="/about")["sandbox"]
        assert sandbox["layers"]["pidfd"]["active"] is False, sandbox["layers"]
        assert sandbox["layers"]["pidfd"]["detail"].startswith("no pidfd_open here (ENOSYS")
        assert sandbox["layers"]["landlock"]["active"] is False, sandbox["layers"]
        assert "sent by the template" in sandbox["mechanisms"]["time"]["detail"]
        code, args = "def f(x):\n    return x + x*x + x*x*x\n", "jnp.arange(4.0)"
        assert "39." in client.predict(code, args, api_name="/inspect")["result"]
        assert client.predict(ENDLESS, "1.0", api_name="/inspect")["error"]["kind"] == "timeout"
        assert "39." in client.predict(code, args, api_name="/inspect")["result"]
        assert client.predict(api_name="/about")["sandbox"]["pool"]["timeouts"] == 1
        log = server.log_path.read_text()
        assert "sandbox: layer pidfd is not in force here: no pidfd_open here (ENOSYS" in log, log
        assert "sandbox: layer landlock is not in force here" in log, log
        assert "Traceback" not in log, log
    finally:
        stop_server(server)
