"""Nothing is left behind: not when a job ends however it ends, not when the server is stopped mid-job.

A server started with its own TMPDIR puts everything it makes there: the pools'
scratch roots, the training runs folder, Gradio's cache. Stopped by SIGTERM (what
``docker stop`` and Spaces send) or SIGINT (Ctrl+C) while a job runs and a model
trains, it must exit within seconds and quietly (no traceback in its log), take every
process it started with it (the sandbox templates, their workers, the device owner),
and leave TMPDIR empty.
And while it runs, a finished job's scratch folder is gone however the job ended.

These tests start their own servers, one at a time.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import start_server, stop_server
from tests.hostile import support
from tests.hostile.support import empty_folder, live_job_dirs, short

WORKERS = 2
PARALLEL_WORKERS = 1  # the Parallel tab's pool (Settings.parallel_workers)
# The job in flight when the server is stopped runs this long unless stopped: far beyond support.HANG_S, so that a
# server that waited for it instead of stopping it would still be running when the test gives up on it.
IN_FLIGHT_S = 5 * support.HANG_S
LONG_TRAINING = {"dataset": "digits", "epochs": 100, "batch_size": 16, "layers": "784, 32, 10"}


# -- processes and folders ---------------------------------------------------------------------------------------


def process_identity(pid: int) -> tuple[int, str, str] | None:
    """(pid, start time, command line): the start time tells a process from a later one given the same pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return None
    return pid, stat.rsplit(")", 1)[1].split()[19], cmdline


def still_running(identity: tuple[int, str, str]) -> bool:
    pid, started, _ = identity
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[19] == started and fields[0] != "Z"  # a zombie has ended; only its parent has not looked yet


def files_named(root: Path, name: str) -> list[str]:
    return [os.path.join(folder, name) for folder, _dirs, files in os.walk(root) if name in files]


def thread_named(server, name: str) -> bool:
    """Whether one of the server's processes has a thread of that name."""
    for pid in support.descendants(server.process.pid):
        for comm in Path(f"/proc/{pid}/task").glob("*/comm"):
            with contextlib.suppress(OSError):
                if comm.read_text().strip() == name:
                    return True
    return False


def wait_for(condition, timeout_s: float, step_s: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout_s
    while True:
        if condition():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(step_s)


def kill_leftovers(identities) -> None:
    """Our own server's processes that outlived it, by pid (checked against their start time)."""
    for identity in identities:
        if still_running(identity):
            with contextlib.suppress(OSError):
                os.kill(identity[0], signal.SIGKILL)


@contextlib.contextmanager
def interruptible_children():
    """Children start with SIGINT at its default, so Python in them turns it into KeyboardInterrupt.

    (A shell without job control starts background commands with SIGINT ignored, and
    an ignored signal stays ignored across exec.)
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


# -- stopped mid-job --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stopped_mid_job_the_server_takes_everything_with_it(tmp_path_factory, signum, privilege):
    tmpdir = tmp_path_factory.mktemp("shutdown-tmpdir")
    with interruptible_children():
        server = start_server(tmp_path_factory.mktemp("shutdown-server"), PLAYGROUND_WORKERS=str(WORKERS),
                              PLAYGROUND_TIMEOUT_S=f"{2 * IN_FLIGHT_S:g}", TMPDIR=str(tmpdir),
                              unprivileged=privilege == "unprivileged")
    recorded: list = []
    try:
        client = server.client()
        # A model training (in the device owner), and a job that would run for IN_FLIGHT_S.
        training = client.submit(LONG_TRAINING, api_name="/train")
        assert wait_for(lambda: any(u.get("phase") == "training" for u in training.outputs() if isinstance(u, dict)),
                        120, 0.5), f"training never started: {short(training.outputs()[-3:])}"
        # The job names its thread (PR_SET_NAME): /proc shows that from outside, whatever the job's folder is.
        tag = f"busy{uuid.uuid4().hex[:11]}"
        code = (f"import ctypes, time\ndef f(x):\n    ctypes.CDLL(None).prctl(15, {tag!r}.encode(), 0, 0, 0)\n"
                f"    end = time.monotonic() + {IN_FLIGHT_S:g}\n    while time.monotonic() < end:\n"
                "        time.sleep(0.05)\n"
                "    return x\n")
        in_flight = client.submit(code, "1.0", api_name="/inspect")
        assert wait_for(lambda: thread_named(server, tag), 30), "the in-flight job never started"

        recorded = [i for i in map(process_identity, support.descendants(server.process.pid)) if i]
        commands = " | ".join(i[2] for i in recorded)
        assert "playground.worker.life.template" in commands and "playground.owner.main" in commands, commands
        # three templates (the sandbox's, the Parallel tab's, the device line's), their warm workers, the owner
        assert len(recorded) >= 3 + WORKERS + PARALLEL_WORKERS + support.DEVICE_LINE_WORKERS + 1, commands

        logged_before = server.log_path.stat().st_size
        server.process.send_signal(signum)
        name = signal.Signals(signum).name
        problems = []
        try:
            server.process.wait(timeout=support.HANG_S)
        except subprocess.TimeoutExpired:
            problems.append(f"the server was still running {support.HANG_S:g} s after {name}: it hung, or waited "
                            f"for the job of {IN_FLIGHT_S:g} s")
        if not wait_for(lambda: not any(map(still_running, recorded)), support.HANG_S):
            problems.append(f"still running {support.HANG_S:g} s after the wait for the server ended: "
                            f"{[i[:1] + i[2:] for i in recorded if still_running(i)]}")
        if not wait_for(lambda: not any(tmpdir.iterdir()), support.SETTLE_S):
            problems.append(f"left in TMPDIR: {sorted(str(p.relative_to(tmpdir)) for p in tmpdir.rglob('*'))[:20]}")
        with server.log_path.open("rb") as log:  # a stop is quiet: what the stop cancelled is no error
            log.seek(logged_before)
            stopping = log.read().decode(errors="replace")
        if "Traceback" in stopping or "ERROR" in stopping:
            problems.append(f"the server's log after {name}:\n{stopping[-4000:]}")
        assert not problems, "\n".join(problems)
        for job in (in_flight, training):  # let both clients see the end (answered or cut off)
            with contextlib.suppress(BaseException):
                job.result(timeout=10)
    finally:
        if server.alive():
            stop_server(server)
        kill_leftovers(recorded)
        empty_folder(tmpdir)


# -- each job's folder goes with it ------------------------------------------------------------------------------

# Far above what the memory-killed job needs to reach its limit and the crash to happen (well under a second,
# seconds on a loaded host): only the endless loop meets the clock.
TIMEOUT_S = 12
ENDINGS = {
    "normal": ("pass", True),
    "timeout": ("while True:\n        time.sleep(0.01)", False),
    "crash": ("ctypes.string_at(0)", False),
    "memory-killed": ("keep = []\n    while True:\n        keep.append(b'x' * 2**26)", False),
}


@pytest.fixture(scope="module")
def running(tmp_path_factory, privilege):
    tmpdir = tmp_path_factory.mktemp("endings-tmpdir")
    # 512 MB: the memory-killed job reaches its limit after ~300 MB, not 2 GB, which a loaded host may not page
    # in within 6 s (the clock would stop it instead).
    server = start_server(tmp_path_factory.mktemp("endings-server"), PLAYGROUND_WORKERS=str(WORKERS),
                          PLAYGROUND_TIMEOUT_S=str(TIMEOUT_S), PLAYGROUND_MEMORY_MB="512", TMPDIR=str(tmpdir),
                          unprivileged=privilege == "unprivileged")
    try:
        yield server, tmpdir
    finally:
        processes = [i for i in map(process_identity, support.descendants(server.process.pid)) if i]
        stop_server(server)
        wait_for(lambda: not any(map(still_running, processes)), support.HANG_S)
        kill_leftovers(processes)
        left = sorted(str(p.relative_to(tmpdir)) for p in tmpdir.iterdir())
        empty_folder(tmpdir)
    assert not left, f"the server's TMPDIR is not empty after it stopped: {left}"


def job_dirs(live: set[Path]) -> dict[Path, set[Path]]:
    """Each scratch root (where workers work) with the folders in it."""
    return {root: {entry for entry in root.iterdir() if entry.is_dir() and not entry.is_symlink()}
            for root in {folder.parent for folder in live}}


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_a_jobs_scratch_folder_is_gone_however_it_ended(running, ending):
    server, tmpdir = running
    client = server.client()
    body, succeeds = ENDINGS[ending]
    marker = f"marker-{uuid.uuid4().hex}"
    code = f"import ctypes, time\ndef f(x):\n    open({marker!r}, 'w').close()\n    {body}\n    return x\n"
    job = client.submit(code, "1.0", api_name="/inspect")
    try:
        result = job.result(timeout=TIMEOUT_S + support.HANG_S)
    except concurrent.futures.TimeoutError:
        pytest.fail(f"the job got no answer within {TIMEOUT_S + support.HANG_S:g} s: the server hung")
    assert result.get("ok") is succeeds, short(result)
    if not succeeds:
        assert result["error"]["kind"] == {"timeout": "timeout", "crash": "crashed",
                                           "memory-killed": "memory"}[ending], short(result)

    def settled() -> bool:
        if any(support.removing(client).values()):  # the pools are still removing a retired worker's folder
            return False
        live = live_job_dirs(server, tmpdir)
        folders = job_dirs(live)
        stale = {d for inside in folders.values() for d in inside} - live
        return (not files_named(tmpdir, marker) and not stale
                and all(len(inside) <= WORKERS for inside in folders.values())
                and sum(map(len, folders.values())) <= WORKERS + PARALLEL_WORKERS + support.DEVICE_LINE_WORKERS)

    # The job's worker was retired before its answer came (its folder removed, or queued for removal: "removing"):
    # once nothing is being removed and the disk agrees, the folder is gone for good, not between removal and refill.
    if not wait_for(settled, support.SETTLE_S):
        live = live_job_dirs(server, tmpdir)
        roots = [(str(root), sorted(p.name for p in inside)) for root, inside in job_dirs(live).items()]
        pytest.fail(f"the {ending} job's folder is still there: marker at {files_named(tmpdir, marker)}; "
                    f"folders per scratch root {roots}; in use by workers {sorted(str(p) for p in live)}")
    support.assert_still_healthy(server, client)
