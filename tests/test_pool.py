"""The worker pool itself: watchdogs, crash recovery, clean-up, busy answers."""

from __future__ import annotations

import os
import signal
import struct
import threading
import time

import pytest

from playground import jobs
from playground.ipc.bootstrap import worker_environment
from playground.ipc.limits import Limits
from playground.server.pools import WorkerPool
from tests.conftest import HANDLERS

# The ceiling of every wait here for something that takes well under a second (a folder removed, a worker warm, a
# process gone): far beyond it on a loaded machine, so that only a real fault runs into it.
WAIT_S = 60.0

pytestmark = pytest.mark.slow  # real worker pools: make test-quick leaves it out


def inspect_job(code: str, args: str) -> dict:
    """An Inspect job as the server sends it: checked and filled in by the registry."""
    return jobs.build("inspect", {"code": code, "args": args})


DEFAULT_JOB = inspect_job("def f(x):\n    return x + x*x + x*x*x\n", "jnp.arange(4.0)")


def _ok(pool: WorkerPool) -> None:
    result = pool.run(DEFAULT_JOB)
    assert result["ok"] is True, result
    assert result["result"] == "f32[4] [ 0.  3. 14. 39.]"


def test_layers_are_reported_for_every_layer(pool):
    assert set(pool.layers) == {"cgroups", "namespaces", "rlimits", "capabilities", "landlock", "seccomp",
                                "pid_namespace", "pidfd"}
    assert all(set(layer) == {"active", "detail"} for layer in pool.layers.values())
    assert pool.layers["rlimits"]["active"] is True


def test_workers_are_held_by_pidfds_where_the_kernel_has_them(pool):
    """The race-free way where there is one (tests/test_missing_kernel_features.py: where there is none)."""
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError as exc:
        pytest.skip(f"no pidfds on this kernel: {exc}")
    assert pool.layers["pidfd"]["active"] is True, pool.layers["pidfd"]
    assert all(worker.process.pidfd is not None for worker in pool._idle.queue)


def test_each_job_gets_a_fresh_process_and_its_scratch_dir_is_removed(pool):
    # A process that ran a job before would count 2 or more (and would have another scratch folder).
    code = ("import builtins, os\nbuiltins.jobs_seen = getattr(builtins, 'jobs_seen', 0) + 1\n"
            "def f(x):\n    print(builtins.jobs_seen, os.getcwd())\n    return x\n")
    seen = []
    for _ in range(3):
        result = pool.run(inspect_job(code, "1.0"))
        count, scratch = result["stdout"].split()
        assert count == "1", result["stdout"]
        seen.append(scratch)
        deadline = time.monotonic() + WAIT_S
        while os.path.exists(scratch) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not os.path.exists(scratch)
    assert len(set(seen)) == 3


def test_scratch_dir_is_writable(pool):
    code = (
        "import os\nimport numpy as np\nnp.save('a.npy', np.arange(3.0))\n"
        "def f(x):\n    return jnp.asarray(np.load('a.npy')) + x + len(os.listdir('.'))\n"
    )
    result = pool.run(inspect_job(code, "jnp.zeros(3)"))
    assert result["ok"] is True, result
    assert result["result"] == "f32[3] [1. 2. 3.]"  # a.npy alone: the worker's output goes to a pipe


# Each job goes past its limit and then waits longer than the wall clock: only the limit's watchdog can end it in
# time (the wall clock would say "timeout"), however long the watchdog takes to look. 480 MB is well past the 400 MB
# watchdog and well below the job's cgroup (400 MB + 256 MB of scratch + 512 MB of headroom), which must not kill
# it first; 200 MB of files is twice the scratch limit.
GROWS_IN_MEMORY = (
    "import numpy as np, time\ndef f(x):\n    a = np.ones(60_000_000)\n    time.sleep(600)\n    return x\n"
)
FILLS_THE_DISK = (
    "import time\ndef f(x):\n    for i in range(10):\n        with open(f'junk{i}', 'wb') as out:\n"
    "            out.write(b'x' * (20 << 20))\n    time.sleep(600)\n    return x\n"
)


@pytest.mark.parametrize(
    ("limits", "namespaces", "code", "kind", "message", "counter", "kills"),
    [
        ({"memory_mb": 400}, True, GROWS_IN_MEMORY, "memory", "more than its limit of 400 MB", "memory_kills", 1),
        ({"scratch_mb": 100}, True, FILLS_THE_DISK, "disk", "holds at most 100 MB", "disk_kills", 0),
        ({"scratch_mb": 100}, False, FILLS_THE_DISK, "disk", "more than its limit of 100 MB", "disk_kills", 1),
    ],
    ids=["resident memory", "scratch disk: the kernel's tmpfs", "scratch disk: the server's walk"],
)
def test_a_growing_job_is_stopped_at_its_limit(limits, namespaces, code, kind, message, counter, kills):
    small = WorkerPool(1, Limits(timeout_s=WAIT_S, **limits), HANDLERS, namespaces=namespaces)
    small.start()
    try:
        result = small.run(inspect_job(code, "1.0"))
        assert result["error"]["kind"] == kind, result
        assert message in result["error"]["message"]
        assert small.status()[counter] == kills
        _ok(small)
    finally:
        small.close()


def test_a_loop_that_burns_its_core_is_killed_at_the_wall_clock(pool):
    """The hostile suites' endless Python loops sleep (cheaper on a shared machine); this one burns, for one second."""
    result = pool.run(inspect_job("def f(x):\n    while True:\n        pass\n", "1.0"), timeout_s=1.0)
    assert result["error"]["kind"] == "timeout", result
    _ok(pool)


def test_a_forged_oversized_reply_is_refused(pool):
    code = f"import os\ndef f(x):\n    os.write(3, {struct.pack('!Q', 1 << 40)!r})\n    return x\n"
    result = pool.run(inspect_job(code, "1.0"))
    assert result["error"]["kind"] == "forbidden"
    _ok(pool)


def test_a_worker_killed_while_idle_is_replaced_silently(pool):
    _ok(pool)
    deadline = time.monotonic() + WAIT_S
    while pool.status()["warm"] < pool.size and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pool.status()["warm"] == pool.size, pool.status()
    for worker in list(pool._idle.queue):
        os.kill(worker.pid, signal.SIGKILL)
        assert worker.exited(wait_s=WAIT_S)  # every thread gone, as the pool sees it
    _ok(pool)


def test_the_template_is_restarted_if_it_dies(pool):
    os.kill(pool._link.process.pid, signal.SIGKILL)
    pool._link.process.wait()
    # Its warm workers die with it (PR_SET_PDEATHSIG); a new template must serve.
    for _ in range(pool.size + 3):
        _ok(pool)
    assert pool.status()["template_alive"] is True


def test_busy_when_no_worker_frees_up_in_time():
    """Three jobs at once for the one warm worker, and no new one can be made until the test allows it: whichever
    job gets the worker runs, the other two are told "busy" once the acquire timeout has passed, however slow the
    machine; then the pool serves again."""
    tiny = WorkerPool(1, Limits(timeout_s=WAIT_S), HANDLERS, acquire_timeout_s=0.3)
    spawns = threading.Semaphore(1)  # the first warm worker; each further one waits for the test's release
    spawn = tiny._spawn

    def spawn_when_allowed(*args, **kwargs):
        spawns.acquire()
        return spawn(*args, **kwargs)

    tiny._spawn = spawn_when_allowed
    tiny.start()
    try:
        slow = inspect_job("import time\ndef f(x):\n    time.sleep(0.5)\n    return x\n", "1.0")
        results = []
        threads = [threading.Thread(target=lambda: results.append(tiny.run(slow))) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        kinds = sorted("ok" if r["ok"] else r["error"]["kind"] for r in results)
        assert kinds == ["busy", "busy", "ok"], results
        busy = next(r for r in results if not r["ok"])
        assert "try again" in busy["error"]["message"]
        spawns.release(1000)
        deadline = time.monotonic() + WAIT_S
        while tiny.status()["warm"] < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert tiny.status()["warm"] == 1, tiny.status()
        _ok(tiny)
    finally:
        spawns.release(1000)  # a spawner waiting here would hold up close()
        tiny.close()


def test_close_leaves_no_process_and_no_scratch_behind():
    p = WorkerPool(1, Limits(), HANDLERS)
    p.start()
    _ok(p)
    template_pid, root = p._link.process.pid, p._scratch_root
    worker_pids = [w.pid for w in p._idle.queue]
    p.close()
    assert not os.path.exists(root)
    for pid in [template_pid, *worker_pids]:
        assert _gone(pid), pid


def test_worker_environment_is_a_whitelist():
    env = worker_environment({"PATH": "/usr/bin", "HF_TOKEN": "secret", "AWS_SECRET_ACCESS_KEY": "k", "LANG": "C"},
                             {"JAX_NUM_CPU_DEVICES": "8"})
    assert env["PATH"] == "/usr/bin" and env["LANG"] == "C" and env["JAX_NUM_CPU_DEVICES"] == "8"
    assert "HF_TOKEN" not in env and "AWS_SECRET_ACCESS_KEY" not in env
    assert env["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"


def test_pool_size_must_be_positive():
    with pytest.raises(ValueError, match="at least 1"):
        WorkerPool(0, Limits(), HANDLERS)


def _gone(pid: int, wait_s: float = WAIT_S) -> bool:
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split(") ")[1].startswith("Z"):
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize(
    "reply",
    [
        [1, 2],
        {"result": "no ok key"},
        {"ok": "yes"},
        {"ok": False},
        {"ok": False, "error": {"kind": "pwned", "message": "x", "line": None}},
        {"ok": False, "error": {"kind": "syntax", "message": 3, "line": None}},
        {"ok": False, "error": {"kind": "syntax", "message": "x", "line": "3"}},
    ],
)
def test_malformed_replies_are_refused(reply):
    from playground.server.pools.reply import validated

    assert validated(reply, "inspect")["error"]["kind"] == "forbidden"


def test_well_formed_replies_pass_validation():
    from playground.server.pools.reply import validated

    error = {"ok": False, "error": {"kind": "syntax", "message": "bad", "line": 2}}
    assert validated(error, "inspect") == error
    assert validated({"ok": True, "jaxpr": "x"}, "inspect") == {"ok": True, "jaxpr": "x"}


def test_a_forged_malformed_reply_does_not_break_anything(pool):
    import json

    body = json.dumps({"ok": False, "error": {"kind": "nonsense"}}).encode()
    code = f"import os\ndef f(x):\n    os.write(3, {struct.pack('!Q', len(body)) + body!r})\n    return x\n"
    result = pool.run(inspect_job(code, "1.0"))
    assert result["error"]["kind"] == "forbidden"
    _ok(pool)


def test_tracer_error_explanations_pass_validation_capped():
    from playground.server.pools.reply import validated

    error = {"ok": False, "error": {"kind": "user_exception", "message": "m", "line": 2, "title": "T",
                                    "explanation": "E" * 10_000, "fix": "use jnp.where",
                                    "doc_url": "https://docs.jax.dev/en/latest/errors.html",
                                    "extra": "dropped", "doc": 3}}
    kept = validated(error, "inspect")["error"]
    assert set(kept) == {"kind", "message", "line", "title", "explanation", "fix", "doc_url"}
    assert kept["fix"] == "use jnp.where" and len(kept["explanation"]) < 4100


def test_a_bug_in_a_handler_reaches_the_user_as_internal_with_the_id_of_its_log_entry(caplog):
    """The user reads that it is our bug and an id; the server's log has the traceback under that id."""
    import re

    faulty = WorkerPool(1, Limits(timeout_s=WAIT_S), "tests.faulty_handlers")
    faulty.start()
    try:
        with caplog.at_level("ERROR", logger="playground.server.pools.reply"):
            result = faulty.run(DEFAULT_JOB)
    finally:
        faulty.close()
    error = result["error"]
    assert error["kind"] == "internal", result
    assert "bug in the playground, not in your code" in error["message"] and "Traceback" not in error["message"]
    incident = re.search(r"id is ([0-9a-f]{8})", error["message"]).group(1)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert f"internal error {incident} in a 'inspect' job" in logged
    assert "_broken_inspect_job" in logged and "TypeError" in logged  # the traceback, for us


def test_a_job_kind_no_handler_has_is_our_bug_not_the_users(pool):
    assert pool.run({"kind": "nonsense"})["error"]["kind"] == "internal"
