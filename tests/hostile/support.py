"""What every hostile test needs: a real server of its own, a victim job running beside the attack,
and checks that nothing broke.

The attacks run through a real ``python app.py`` server (tests.conftest.start_server),
as a visitor of a public Space would send them. Each module passes its own numbers
(workers, time limits, how long to wait) to what is here.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, TypeVar

import pytest

from playground.server.pools.pool import RETIRED_REMOVE_BUDGET_S
from tests.conftest import start_server, stop_server

T = TypeVar("T")
DEFAULT_CODE = "def f(x):\n    return x + x*x + x*x*x\n"
DEFAULT_ARGS = "jnp.arange(4.0)"
DEFAULT_RESULT = "f32[4] [ 0.  3. 14. 39.]"
# A victim that keeps its worker busy for about a second, then checks its own numbers.
VICTIM_CODE = (
    "import time\n"
    "def f(x):\n"
    "    deadline = time.monotonic() + 1.0\n"
    "    while time.monotonic() < deadline:\n"
    "        pass\n"
    "    return x + x*x + x*x*x\n"
)
# Every kind an error reply may have.
ERROR_KINDS = frozenset({"syntax", "user_exception", "timeout", "memory", "disk", "tasks", "crashed", "forbidden",
                         "invalid_input", "busy", "unavailable"})
# What the server log must never hold, whatever a job did.
LOG_NEVER = ("Traceback (most recent call last)", "RecursionError", "Exception in ASGI application",
             "surrogates not allowed", "Task exception was never retrieved")
# A reply (or a stopped server's exit) later than the job's own limit plus this means the server hung or stalled.
# The one bound on how fast anything comes: a loaded, shared 2-core machine delays a reply by seconds, never by a
# minute. Which limit stopped a job is told by the reply's kind and message, never by how fast it came.
HANG_S = 60.0
# How long a finished job's folders, a stopped server's files or the machine's shared memory may take to go. They
# normally go within a second; a stopping pool gives up removing a folder after 30 s (REMOVE_BUDGET_S), so this
# waits out the slowest removal that can still succeed (a running pool's removals: Hostile.check). A wait that
# ends early is an event (they went), never a sleep.
SETTLE_S = 60.0


# -- replies -------------------------------------------------------------------------------------------------


# The device owner's line keeps a CPU worker of its own warm (server/device_owner/device_pool.py).
DEVICE_LINE_WORKERS = 1


def short(value) -> str:
    """``repr(value)``, cut to a length an assertion message can show."""
    text = repr(value)
    return text if len(text) < 1500 else text[:1500] + f"... [{len(text):,} characters]"


def assert_error(result, kinds=ERROR_KINDS, *, keys=("kind", "message"), no_traceback: bool = False) -> dict:
    """An error reply of one of ``kinds`` with a message (and every key of ``keys``); its error dict."""
    assert isinstance(result, dict) and result.get("ok") is False, (
        f"expected an error reply ({'/'.join(sorted(kinds))}): {short(result)}")
    error = result.get("error")
    assert isinstance(error, dict) and set(error) >= set(keys), short(result)
    assert error["kind"] in kinds, f"expected {'/'.join(sorted(kinds))}: {short(result)}"
    assert isinstance(error["message"], str) and error["message"], short(result)
    if no_traceback:
        assert "Traceback" not in error["message"], short(result)
    return error


def assert_no_hang(elapsed: float, limit_s: float, what: str = "the reply") -> None:
    """``what`` came within the job's limit ``limit_s`` and HANG_S more: the server did not hang or stall."""
    assert elapsed <= limit_s + HANG_S, (f"{what} took {elapsed:.1f} s for a {limit_s:g} s limit: "
                                         f"more than {HANG_S:g} s late, the server hung")


def timed_predict(server, code: str, args: str, timeout_s: float) -> tuple[dict, float]:
    """One /inspect call and the seconds its reply took; fails instead of hanging on a stuck server."""
    box: dict = {}

    def call() -> None:
        try:
            box["reply"] = server.client().predict(code, args, api_name="/inspect")
        except Exception as exc:  # reported below
            box["error"] = exc

    started = time.monotonic()
    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(timeout_s)
    elapsed = time.monotonic() - started
    assert not thread.is_alive(), f"no reply within {timeout_s:g} s: the server is stuck"
    if "error" in box:
        raise AssertionError(f"the call itself failed instead of giving a reply: {box['error']!r}")
    return box["reply"], elapsed


# -- what this host's sandbox has (/about) ---------------------------------------------------------------------


def reported_sandbox(client, timeout_s: float = 60.0) -> dict:
    """/about's sandbox section, once a worker has reported its layers (until then nothing reads as in force)."""
    deadline = time.monotonic() + timeout_s
    while True:
        sandbox = about(client)["sandbox"]
        if {"pid_namespace", "namespaces", "cgroups"} <= set(sandbox["layers"]):
            return sandbox
        assert time.monotonic() < deadline, f"no worker reported its sandbox layers: {sandbox['layers']}"
        time.sleep(0.5)


def not_in_force(client, *, mechanisms=(), layers=()) -> str | None:
    """Why this host lacks one of these mechanisms or layers (About's own words); None where all are in force."""
    sandbox = reported_sandbox(client)
    asked = [(name, sandbox["mechanisms"][name]) for name in mechanisms]
    asked += [(name, sandbox["layers"][name]) for name in layers]
    return "; ".join(f"{name}: {entry.get('detail') or 'not active'}" for name, entry in asked
                     if not entry["active"]) or None


def skip_unless_in_force(client, what: str, *, mechanisms=(), layers=()) -> None:
    """pytest.skip where ``what`` (the property a test checks) rests on something this host does not have."""
    missing = not_in_force(client, mechanisms=mechanisms, layers=layers)
    if missing:
        pytest.skip(f"{what}: not in force on this host ({missing})")


# -- processes and folders, seen from this test process ----------------------------------------------------------


def parents() -> dict[int, int]:
    """Every process's parent, from one pass over /proc (the test runs as the server's user)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        found[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    return found


def children(pid: int) -> list[int]:
    """Direct children of ``pid``."""
    return [child for child, parent in parents().items() if parent == pid]


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (the template, its workers, the device owner), from one look at /proc: the
    tests poll this while they wait, and a pass over /proc per process of the tree made that wait a busy one."""
    below: dict[int, list[int]] = {}
    for child, parent in parents().items():
        below.setdefault(parent, []).append(child)
    found, todo = [], [pid]
    while todo:
        for child in below.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def start_time(pid: int) -> int:
    """When a process started, in clock ticks since boot (pids wrap around; this does not)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])


def template_pid(server) -> int:
    """The sandbox template: the server's child that runs playground.worker.life.template."""
    for child in children(server.process.pid):
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"playground.worker.life.template" in cmdline:
            return child
    raise AssertionError("no sandbox template process found under the server")


def templates(server) -> list[int]:
    """The sandbox templates under the server, the main pool's first (it starts first)."""
    found = {}
    for child in children(server.process.pid):
        try:
            if b"playground.worker.life.template" in Path(f"/proc/{child}/cmdline").read_bytes():
                found[child] = start_time(child)
        except OSError:
            pass
    return sorted(found, key=found.get)  # by start time: pids wrap around


def again_if_lost(ask: Callable[[], T]) -> T:
    """``ask()``, asked again (twice at most) where gradio_client lost its reply.

    gradio_client (sse_v3) ends a session's event stream when the server says the session has nothing pending,
    and a request the same client sent just before that message arrived loses its reply (CancelledError in the
    client; the server is fine). Polls ask /about many times back to back, and a test's normal job follows its
    attack's reply at once, so they meet it (on a loaded machine, now and then). Only for what may run twice: /about
    changes nothing, and a normal job gives the same answer again.
    """
    for _ in range(2):
        try:
            return ask()
        except concurrent.futures.CancelledError:
            continue
    return ask()


def about(client) -> dict:
    """/about, asked again where gradio_client lost its reply (``again_if_lost``)."""
    return again_if_lost(lambda: client.predict(api_name="/about"))


def removing(client) -> dict[str, int]:
    """Per pool (/about), how many retired workers' folders it is still removing: 0 everywhere once they are gone."""
    sandbox = about(client)["sandbox"]
    return {name: sandbox[name].get("removing", 0) for name in ("pool", "parallel_pool")}


def wait_until_warm(server, timeout_s: float = 60.0) -> None:
    """Both templates up and the main pool's two workers warm (their JAX started)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = templates(server)
        if found and len(children(found[0])) >= 2:
            return
        time.sleep(0.2)
    raise AssertionError("the sandbox pool did not become warm")


def limits_of(pid: int) -> str:
    """/proc/<pid>/limits, to compare before and after an attack."""
    return Path(f"/proc/{pid}/limits").read_text()


def scheduling_of(pid: int) -> tuple:
    """Niceness, CPU affinity and scheduling policy: what setpriority/sched_* attacks would change."""
    return (os.getpriority(os.PRIO_PROCESS, pid), sorted(os.sched_getaffinity(pid)), os.sched_getscheduler(pid))


def live_job_dirs(server, tmpdir: Path) -> set[Path]:
    """Where the workers (the templates' children) work: their folders in TMPDIR."""
    found = set()
    for template in children(server.process.pid):
        for pid in descendants(template):
            try:
                cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
            except OSError:
                continue
            if tmpdir in cwd.parents:
                found.add(cwd)
    return found


def empty_folder(folder: Path) -> None:
    """Remove everything in ``folder`` (rm copes with deep trees and unreadable entries)."""
    for entry in folder.iterdir():
        subprocess.run(["rm", "-rf", "--", str(entry)], check=False)


def clean_up(tmpdir: Path, pids: list[int]) -> None:
    """Our own server's leftovers: its processes (by pid) and its TMPDIR's contents."""
    deadline = time.monotonic() + 10
    for pid in pids:
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    empty_folder(tmpdir)


# -- a server of a module's own ----------------------------------------------------------------------------------


@contextlib.contextmanager
def hostile_server(tmp_path_factory, name: str, *, unprivileged: bool = False, wrapper: tuple[str, ...] = (),
                   **env: str):
    """A real server with a TMPDIR of its own, as ``(server, tmpdir)``; that TMPDIR must be empty once it stopped.

    ``env`` is the module's own settings (PLAYGROUND_WORKERS, PLAYGROUND_TIMEOUT_S, ...); ``unprivileged``: the
    server runs as a Space runs it, ``wrapper``: the command that starts it (tests/conftest.start_server). What the
    server left behind (processes, files) is removed after it is reported.
    """
    tmpdir = tmp_path_factory.mktemp(f"{name}-tmpdir")
    # No kept results: every attack, and every health check after one, runs in a real worker.
    server = start_server(tmp_path_factory.mktemp(f"{name}-server"), **{"PLAYGROUND_RESULT_CACHE": "0", **env},
                          TMPDIR=str(tmpdir), unprivileged=unprivileged, wrapper=wrapper)
    try:
        yield server, tmpdir
    finally:
        processes = descendants(server.process.pid) if server.alive() else []
        stop_server(server)
        left = sorted(str(p.relative_to(tmpdir)) for p in tmpdir.iterdir())
        clean_up(tmpdir, processes)
    assert not left, f"the server's TMPDIR is not empty after it stopped: {left}"


class Hostile:
    """One real server with its own TMPDIR, and the checks every test ends with."""

    def __init__(self, server, tmpdir: Path, *, workers: int, parallel_workers: int,
                 log_never: tuple[str, ...] = LOG_NEVER) -> None:
        self.server, self.tmpdir = server, tmpdir
        self.workers, self.parallel_workers, self.log_never = workers, parallel_workers, log_never
        self.client = server.client()
        self._log_offset = 0
        self._stale_before: set[Path] = set()

    def call(self, *args, api_name: str, timeout_s: float = 90.0):
        """The endpoint's answer; an exception in the client is a failure of the server, reported as such."""
        job = self.client.submit(*args, api_name=api_name)
        try:
            return job.result(timeout=timeout_s)
        except concurrent.futures.TimeoutError:
            pytest.fail(f"{api_name} gave no answer within {timeout_s:g} s")
        except BaseException as exc:  # CancelledError is a BaseException
            pytest.fail(f"{api_name}: the client got {type(exc).__name__}: {exc} instead of a response")

    def log_text(self) -> str:
        return self.server.log_path.read_text(errors="replace")

    def new_log(self) -> str:
        return self.log_text()[self._log_offset:]

    def live_job_dirs(self) -> set[Path]:
        return live_job_dirs(self.server, self.tmpdir)

    def job_dirs(self) -> tuple[set[Path], set[Path]]:
        """(folders in use by workers, all folders beside them): a scratch root holds one folder per worker."""
        live = self.live_job_dirs()
        every = set(live)
        for root in {folder.parent for folder in live}:
            try:
                every.update(entry for entry in root.iterdir() if entry.is_dir() and not entry.is_symlink())
            except OSError:
                pass
        return live, every

    def stale(self) -> set[Path]:
        live, every = self.job_dirs()
        return every - live

    def begin(self) -> None:
        self._log_offset = len(self.log_text())
        self._stale_before = self.stale()

    def _settled(self) -> tuple[bool, bool, str]:
        """(no job folder left, a pool is still removing a retired worker's folder, what is left)."""
        busy = removing(self.client)
        if any(busy.values()):
            return False, True, f"folders still being removed: {busy}"
        live, every = self.job_dirs()
        every -= self._stale_before  # an earlier test's leftovers were reported by that test
        left = every - live
        per_root = {root: sum(1 for d in every if d.parent == root) for root in {d.parent for d in every}}
        fine = (not left and all(n <= self.workers for n in per_root.values())
                and len(every) <= self.workers + self.parallel_workers + DEVICE_LINE_WORKERS)
        return fine, False, (f"job folders left behind: {sorted(map(str, left))[:10]}; "
                      f"folders per scratch root {[(str(r), n) for r, n in per_root.items()]} "
                      f"(warm workers: {self.workers} + {self.parallel_workers} + {DEVICE_LINE_WORKERS})")

    def check(self, settle_s: float = SETTLE_S, normal: Callable[[], None] | None = None) -> None:
        """Alive and well, no job folder left, no traceback in the server log since the test began. ``normal``: the
        normal job that shows it works (it asserts its own answer), where a module has one of its own to run
        after an attack; a normal /inspect job by default."""
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            healthy = pool.submit(assert_still_healthy, self.server, self.client, normal)
            try:
                healthy.result(timeout=90)
            except concurrent.futures.TimeoutError:
                pytest.fail("the server did not answer a normal job within 90 s")
        started = time.monotonic()
        while True:  # until the pools say every retired worker's folder is removed and the disk agrees
            fine, busy, why = self._settled()
            # A pool removes a retired worker's folder for as long as that goes on removing (a job's 200,000
            # folders take half a minute on a loaded disk), up to its own bound; its end is the event waited for.
            if fine or time.monotonic() - started > (RETIRED_REMOVE_BUDGET_S if busy else settle_s):
                break
            time.sleep(0.1)
        log = self.new_log()
        warnings = [line for line in log.splitlines() if "sandbox:" in line][-5:]
        assert fine, f"{why}; the server's last sandbox warnings: {warnings}"
        for text in self.log_never:
            assert text not in log, f"server log holds {text!r}:\n{log[-4000:]}"


@contextlib.contextmanager
def hostile_harness(tmp_path_factory, name: str, privilege: str, *, workers: int, parallel_workers: int,
                    timeout_s: float, wrapper: tuple[str, ...] = (), **env: str):
    """A Hostile harness on a server of its own (hostile_server), run as ``privilege`` says, with ``workers``
    workers, ``timeout_s`` per job and ``env``'s other settings."""
    with hostile_server(tmp_path_factory, name, PLAYGROUND_WORKERS=str(workers), PLAYGROUND_TIMEOUT_S=f"{timeout_s:g}",
                        unprivileged=privilege == "unprivileged", wrapper=wrapper, **env) as (server, tmpdir):
        yield Hostile(server, tmpdir, workers=workers, parallel_workers=parallel_workers)


def hostile_fixtures(name: str, *, workers: int, parallel_workers: int, timeout_s: float,
                     memory_mb: int | None = None):
    """A module's fixtures: ``hostile`` (a Hostile harness on a server of the module's own, see hostile_server,
    with ``workers`` workers, ``timeout_s`` per job and, if given, ``memory_mb`` per job instead of the default)
    and ``_begin`` (autouse: each test begins on it).

    In the module: ``hostile, _begin = support.hostile_fixtures("name", workers=..., ...)``.
    """

    @pytest.fixture(scope="module", name="hostile")
    def hostile(tmp_path_factory, privilege):
        """The harness on the module's own server (hostile_server: its TMPDIR must be empty once it stopped)."""
        memory = {} if memory_mb is None else {"PLAYGROUND_MEMORY_MB": str(memory_mb)}
        with hostile_harness(tmp_path_factory, name, privilege, workers=workers, parallel_workers=parallel_workers,
                             timeout_s=timeout_s, **memory) as harness:
            yield harness

    @pytest.fixture(autouse=True, name="_begin")
    def begin(hostile):
        """Each test's log offset and leftovers are its own: check() looks only at what came after this."""
        hostile.begin()

    return hostile, begin


class Target:
    """One server for a module, warm, with a TMPDIR and a Gradio cache of its own; started afresh if it dies."""

    def __init__(self, base: Path, *, unprivileged: bool = False, **env: str) -> None:
        self.base, self.env, self.unprivileged = base, env, unprivileged
        self.tmpdir = base / "tmpdir"
        self.gradio_tmp = base / "gradio"
        self.tmpdir.mkdir()
        self.gradio_tmp.mkdir()
        self.server = None
        self.deaths: list[str] = []
        self.initial_entries: set[str] = set()
        self._start()

    def _start(self) -> None:
        before = set(os.listdir(self.tmpdir))
        self.server = start_server(self.base, **{"PLAYGROUND_RESULT_CACHE": "0", **self.env},  # as hostile_server
                                   TMPDIR=str(self.tmpdir), GRADIO_TEMP_DIR=str(self.gradio_tmp),
                                   unprivileged=self.unprivileged)
        wait_until_warm(self.server)
        self.initial_entries = set(os.listdir(self.tmpdir)) - before

    def restart(self, why: str = "") -> None:
        """Stop the server if it still runs, remove what it started with (it cannot), start a new one."""
        if self.server.alive():
            stop_server(self.server)
        self.deaths.append(f"exit status {self.server.process.returncode}{why}")
        for name in self.initial_entries:  # a server stopped this way cannot clean up: not a case's leak
            subprocess.run(["rm", "-rf", str(self.tmpdir / name)], check=False)
        self._start()

    def live(self):
        """The server, started afresh if an attack killed it."""
        if not self.server.alive():
            self.restart()
        return self.server

    def log_text(self) -> str:
        return self.server.log_path.read_text(errors="replace")

    def untidy(self) -> dict[str, str]:
        """What is on disk that should not be: new entries in TMPDIR, job folders no live worker works in."""
        problems = {str(self.tmpdir / name): "new entry in TMPDIR"
                    for name in set(os.listdir(self.tmpdir)) - self.initial_entries}
        in_use = set()
        for pid in descendants(self.server.process.pid):
            with contextlib.suppress(OSError):
                in_use.add(os.readlink(f"/proc/{pid}/cwd"))
        for root in self.tmpdir.glob("jax-playground-*"):
            for folder in root.glob("job-*"):
                if str(folder) not in in_use:
                    with contextlib.suppress(OSError):
                        held = sorted(os.listdir(folder))[:5]
                        problems[str(folder)] = f"job folder without a live worker, holding {held}"
        return problems

    def settled_untidy(self, settle_s: float = SETTLE_S) -> dict[str, str]:
        """untidy(), once it is empty or ``settle_s`` has passed: a folder the server is still removing is no leak."""
        deadline = time.monotonic() + settle_s
        while (problems := self.untidy()) and time.monotonic() < deadline:
            time.sleep(0.25)
        return problems

    def assert_tidy(self, settle_s: float = SETTLE_S, remove: bool = False) -> None:
        """Nothing new in TMPDIR, and every job folder is the scratch of a live worker (a warm one).

        With ``remove``, what is found is removed after it is reported, so that one case's leak does not fail
        the next ones.
        """
        problems = self.settled_untidy(settle_s)
        if remove:
            for path in problems:
                subprocess.run(["rm", "-rf", path], check=False)  # rm copes with any depth
        assert not problems, f"left on disk after the job{' (removed now)' if remove else ''}: {problems}"

    def close(self) -> None:
        if self.server is not None and self.server.alive():
            stop_server(self.server)

    @classmethod
    def fixture(cls, name: str):
        """A module's ``target`` fixture: one of these for the whole module, in a folder named after ``name``."""

        @pytest.fixture(scope="module", name="target")
        def target(tmp_path_factory, privilege):
            """The module's server under attack (replaced if an attack kills it), stopped at the end."""
            t = cls(tmp_path_factory.mktemp(name), unprivileged=privilege == "unprivileged")
            yield t
            t.close()

        return target


# -- other visitors ---------------------------------------------------------------------------------------------


@dataclass
class Victim:
    """Another visitor's job, running in a sibling worker while the attack runs.

    Subclasses give their own ``code``; where they name a ``marker``, their job makes a file of that
    name in its folder once it runs, and entering waits for it (``pid`` is then the victim's worker).
    """

    code: ClassVar[str] = VICTIM_CODE
    marker: ClassVar[str | None] = None

    server: object
    result: dict = field(default_factory=dict)
    thread: threading.Thread | None = None
    pid: int | None = None

    def __enter__(self) -> Victim:
        def run() -> None:
            try:
                self.result = self.server.client().predict(self.code, DEFAULT_ARGS, api_name="/inspect")
            except Exception as exc:  # the assertion below reports it
                self.result = {"ok": False, "client_error": repr(exc)}

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        if self.marker is not None:
            self.pid = self._wait_for_marker()
        return self

    def _wait_for_marker(self) -> int:
        deadline = time.monotonic() + HANG_S  # a warm worker starts a job at once: no marker by then, a hang
        while time.monotonic() < deadline and self.thread.is_alive():
            for pid in descendants(self.server.process.pid):
                if os.path.exists(f"/proc/{pid}/cwd/{self.marker}"):
                    return pid
            time.sleep(0.02)
        raise AssertionError(f"the victim job never started: {self.result}")

    def __exit__(self, *exc) -> None:
        self.thread.join(timeout=60)

    def assert_unaffected(self) -> None:
        try:
            assert not self.thread.is_alive(), "the victim's job never finished"
            assert self.result.get("ok") is True, self.result
            assert self.result["result"] == DEFAULT_RESULT, self.result
        except AssertionError as exc:
            raise AssertionError(f"another visitor's job, running beside the attack, was affected: {exc}") from None


def assert_still_healthy(server, client, normal: Callable[[], None] | None = None) -> None:
    """The server lives, its template lives, and a normal job gives the right answer (``normal``, which asserts
    its own, or a normal /inspect job)."""
    assert server.alive(), server.log_path.read_text()[-4000:]
    reply = about(client)
    assert reply["sandbox"]["pool"]["template_alive"] is True, reply["sandbox"]["pool"]
    if normal is not None:
        normal()
        return
    answer = again_if_lost(lambda: client.predict(DEFAULT_CODE, DEFAULT_ARGS, api_name="/inspect"))
    assert answer["ok"] is True, answer
    assert answer["result"] == DEFAULT_RESULT, answer
