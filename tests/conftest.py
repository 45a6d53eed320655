"""Shared fixtures: a real ``python app.py`` server, and a real worker pool."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.pool_doubles import ScriptedPool

ROOT = Path(__file__).resolve().parent.parent
# --doctest-modules imports every module under testpaths; these break things when imported (a handler, an import),
# which only a test's own worker process may do.
collect_ignore = ["faulty_handlers.py"]
FAKE_SECRET = "hf_FAKE_SECRET_TOKEN_0123456789"
HANDLERS = "playground.worker.jobs.handlers"  # what the workers of a test pool run jobs with
LINUX = sys.platform.startswith("linux")
# The sandbox a server gets unless a test says otherwise: the full one where there is one.
SANDBOX = "full" if LINUX else "process"
# The variants the server-driven suites run in, all in one pytest session: the end-to-end suite in both sandbox
# modes (the ``sandbox_mode`` fixture, tests/e2e), the hostile suites as root and as an unprivileged uid without
# capabilities, as a Hugging Face Space runs the app (``privilege``; a test process that is not root runs its
# servers as itself, which is the unprivileged case).
SANDBOX_MODES = ("full", "process") if LINUX else ("process",)
PRIVILEGES = ("root", "unprivileged") if LINUX and os.geteuid() == 0 else ("unprivileged",)
DROP_UID = 1000
# `make test-quick` (PLAYGROUND_TEST_QUICK=1, `-m "not slow"`): unit tests and doctests only. Tests that start a
# server, a worker pool, a device owner or a browser are `slow`: the suites of real servers by their folder
# (SLOW_PATHS), the others by their module's own mark; in the quick run, starting one anyway fails the test and
# says to mark it, so that the quick run can never quietly grow slow.
QUICK = os.environ.get("PLAYGROUND_TEST_QUICK") == "1"
SLOW_PATHS = ("tests/e2e/", "tests/browser/", "tests/hostile/", "tests/test_hostile.py")
# For tests that hold only in the full sandbox: pytest_collection_modifyitems skips them in the process mode.
full_sandbox_only = pytest.mark.full_sandbox_only
_PROCESS_MODE_READS_FILES = ("the local process mode has no Landlock or seccomp: a job may read the user's files, "
                             "by design (docs/deploy.md); its own guards are tested in tests/test_process_pool.py")


@pytest.fixture(scope="session", params=SANDBOX_MODES)
def sandbox_mode(request) -> str:
    """The sandbox of the servers a test starts ("full" or "process")."""
    return request.param


@pytest.fixture(scope="session", params=PRIVILEGES)
def privilege(request) -> str:
    """"root" or "unprivileged": who the servers a hostile test starts run as."""
    return request.param


def variant(item) -> str:
    """The variant a collected test runs in ("full", "process", "root", "unprivileged"), or "" for none."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    return "-".join(str(params[name]) for name in ("sandbox_mode", "privilege") if name in params)


# The browser tests run in two lanes of about equal time (as --durations counts it), each with its own session
# server and Chromium: one lane alone takes longer than all the rest of the suite's share of a process, and more
# lanes than cores leave pages unresponsive.
BROWSER_LANE_2 = {"test_first_hour", "test_train_tab", "test_busy_ui", "test_compiler_tab", "test_languages",
                  "test_local_mode", "test_preset_pick", "test_inspect_ui", "test_class_edits", "test_race"}
# The end-to-end modules that use their mode's shared server (tests/e2e/conftest.py) run together, one group per
# mode, so that each mode's server starts once a run instead of once in every test process that got one of them,
# and leaves no idle servers up (docs/development.md's measurements). These start servers of their own.
E2E_OWN_SERVERS = {"test_docs_corpus", "test_device_check"}


@pytest.hookimpl(tryfirst=True)  # the groups are read by pytest-xdist's own hook, after this one
def pytest_collection_modifyitems(config, items) -> None:
    """Each module's tests run together, per variant, in one pytest-xdist worker, so its servers start once there;
    the browser tests in their two lanes, the end-to-end modules on the shared servers one group per mode. The suites
    of real servers are `slow`; tests that hold only in the full sandbox are skipped in the process mode."""
    for item in items:
        where = item.nodeid.split("::")[0]
        if where.startswith("tests/browser/"):
            where = f"tests/browser:{2 if Path(where).stem in BROWSER_LANE_2 else 1}"
        elif where.startswith("tests/e2e/") and Path(where).stem not in E2E_OWN_SERVERS and variant(item):
            where = "tests/e2e"
        # No "]" at the end of a group's name: pytest-xdist would take it for a parameter's, not a group.
        item.add_marker(pytest.mark.xdist_group(f"{where}:{variant(item)}" if variant(item) else where))
        if item.nodeid.startswith(SLOW_PATHS):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("full_sandbox_only") and variant(item) == "process":
            item.add_marker(pytest.mark.skip(reason=_PROCESS_MODE_READS_FILES))


# Stands in for the worker pool behind a real PlaygroundAPI: ``OnePool(reply)`` records jobs, answers with ``reply``.
OnePool = ScriptedPool


@pytest.fixture(scope="session")
def graphviz() -> str:
    """Graphviz's dot, which draws the Compiler tab's graphs; missing means fail on CI (.ci/run installs it), skip
    on a laptop (the app then says it cannot draw, which other tests check)."""
    import shutil

    dot = shutil.which("dot")
    if dot is None:
        reason = "Graphviz's dot not found: install it (apt-get install graphviz, brew install graphviz)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return dot


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    url: str
    port: int
    process: subprocess.Popen
    log_path: Path

    def alive(self) -> bool:
        return self.process.poll() is None

    def client(self):
        """A gradio_client Client of this server. Its URL is plain HTTP on loopback, so there is no certificate to
        verify: with ssl_verify (the default) every request built an SSL context from certifi's bundle (16 ms of
        CPU each, measured: 40 % of what a test process spent). Its requests wait up to ``CLIENT_TIMEOUT_S`` for
        the server to answer, not httpx's 5 s."""
        from gradio_client import Client

        return Client(self.url, verbose=False, ssl_verify=False, httpx_kwargs={"timeout": CLIENT_TIMEOUT_S})


# The ceiling of a server's start, from ``python app.py`` to its port answering, on a loaded machine.
SERVER_START_S = 120
# The ceiling of one HTTP request of a test's client (joining the queue, a file, /about): httpx's default, 5 s, can
# run out for a client of a 20-request burst against a local-process-mode server on a loaded machine, which then
# gets a ReadTimeout instead of the result or the "busy" the test checks for.
CLIENT_TIMEOUT_S = 60.0


def start_server(tmp_dir: Path, *, unprivileged: bool = False, wrapper: tuple[str, ...] = (),
                 **env_overrides: str) -> Server:
    """Launch ``python app.py`` on a free port and wait until it answers; ``unprivileged``: run it as a Space does
    (as DROP_UID with no capabilities, where this process is root; else as this process's own user); ``wrapper``:
    the command that runs it (e.g. tests/without_syscalls.py's)."""
    refuse_in_quick_run("a real server")
    port = free_port()
    env = {
        **os.environ,
        "PLAYGROUND_PORT": str(port),
        "PLAYGROUND_HOST": "127.0.0.1",
        "HF_TOKEN": FAKE_SECRET,  # must never reach a worker
        "GRADIO_ANALYTICS_ENABLED": "False",
        **env_overrides,
    }
    log_path = tmp_dir / f"server-{port}.log"
    command = [*wrapper, sys.executable, "app.py"]
    if unprivileged and os.geteuid() == 0:
        command = drop_privileges(command, env, tmp_dir,
                               *(Path(value) for value in env_overrides.values() if os.path.isdir(value)))
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log_path.open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early:\n{log_path.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return Server(url=url, port=port, process=process, log_path=log_path)
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"server did not start:\n{log_path.read_text()}")


def refuse_in_quick_run(what: str) -> None:
    """In `make test-quick`, a test that starts ``what`` fails, naming the mark it lacks."""
    if QUICK:
        pytest.fail(f"this test starts {what}, which `make test-quick` never does: mark its module "
                    "`pytestmark = pytest.mark.slow`", pytrace=False)


@pytest.fixture(scope="session", autouse=True)
def _quick_run_starts_nothing_slow():
    """In `make test-quick`: worker pools and device owners refuse to start (refuse_in_quick_run)."""
    if not QUICK:
        yield
        return
    from playground.server.device_owner.handle import DeviceOwner
    from playground.server.pools.warm_pool import WarmPool

    spawning, starting = WarmPool._start_spawning, DeviceOwner.start

    def refuse(what, original):
        def refused(*args, **kwargs):
            refuse_in_quick_run(what)
            return original(*args, **kwargs)
        return refused

    WarmPool._start_spawning = refuse("a worker pool", spawning)
    DeviceOwner.start = refuse("a device owner", starting)
    try:
        yield
    finally:
        WarmPool._start_spawning, DeviceOwner.start = spawning, starting


@pytest.fixture(scope="session", autouse=True)
def _compile_cache_outside_the_checkout(tmp_path_factory):
    """The device owners' compilation cache (PLAYGROUND_COMPILE_CACHE) in one folder that every test and server of
    the run shares, outside the checkout: its default, .cache/xla in the checkout, would change the files the
    hostile suite checks no job changed, while other tests' owners write to it."""
    if "PLAYGROUND_COMPILE_CACHE" in os.environ:
        yield
        return
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "xla-cache"
    folder.mkdir(exist_ok=True)
    os.environ["PLAYGROUND_COMPILE_CACHE"] = str(folder)
    try:
        yield
    finally:
        del os.environ["PLAYGROUND_COMPILE_CACHE"]


def drop_privileges(command: list[str], env: dict[str, str], *folders: Path) -> list[str]:
    """``command`` run as DROP_UID with every capability dropped (as a Space runs the app), and what it needs:
    ``folders`` made its own, and the way to them, to the interpreter and to this checkout traversable. Its
    compilation cache is one of its own beside the run's (a cache's lock file made by root is not DROP_UID's to
    take), shared by every server that runs as DROP_UID."""
    cache = [Path(f"{env['PLAYGROUND_COMPILE_CACHE']}-uid{DROP_UID}")] if "PLAYGROUND_COMPILE_CACHE" in env else []
    for folder in cache:
        folder.mkdir(exist_ok=True)
        env["PLAYGROUND_COMPILE_CACHE"] = str(folder)
    for folder in (*folders, *cache):
        os.chown(folder, DROP_UID, DROP_UID)
    make_traversable(*folders, *cache)
    env["HOME"] = str(folders[0])  # Gradio and pip caches; the real HOME is root's
    return ["setpriv", f"--reuid={DROP_UID}", f"--regid={DROP_UID}", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--", *command]


def make_traversable(*paths: Path) -> None:
    """The way to each of ``paths``, to the interpreter and to this checkout made traversable for every uid, as a
    deployment that runs the app's processes as users other than its files' owner has it."""
    for path in (*paths, Path(sys.executable).resolve(), Path(sys.base_prefix).resolve(), ROOT):
        for above in path.parents:
            mode = above.stat().st_mode
            if not mode & 0o001:  # e.g. /root (a pyenv interpreter) or pytest's own 0700 base folder
                above.chmod(mode | 0o001)  # traversal only: nothing becomes listable or readable


def stop_server(server: Server) -> None:
    """SIGTERM, then wait for the server to end by itself: it removes its folders first, which a loaded machine
    may take a while to do for a job's hundreds of thousands of folders (up to three 30 s budgets)."""
    server.process.terminate()
    try:
        server.process.wait(timeout=120)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()


# The wall clock of the shared servers (the session's, the end-to-end suite's per mode, the docs corpus's): a
# minute, not the default 10 s. Inspect skips its behavioural checks, with a warning, when the stages took over a
# fifth of the clock, which a loaded machine can make of any job; tests that expect their findings, or no
# warning, would then fail by the clock. Tests of the clock itself start servers of their own.
SHARED_CLOCK_S = "60"


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Server:
    """One real server for the whole session (2 workers, default limits but SHARED_CLOCK_S)."""
    srv = start_server(tmp_path_factory.mktemp("server"), PLAYGROUND_WORKERS="2", PLAYGROUND_TIMEOUT_S=SHARED_CLOCK_S)
    yield srv
    stop_server(srv)


@pytest.fixture(scope="session")
def client(server):
    return server.client()


@pytest.fixture(scope="session")
def pool():
    """A real sandbox pool in this test process (no Gradio), for unit-level sandbox tests."""
    from playground.ipc.limits import Limits
    from playground.server.pools import WorkerPool

    p = WorkerPool(2, Limits(timeout_s=5.0), HANDLERS)
    p.start()
    yield p
    p.close()
