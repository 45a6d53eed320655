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

ROOT = Path(__file__).resolve().parent.parent
# --doctest-modules imports every module under testpaths; these break things when imported (a handler, an import),
# which only a test's own worker process may do.
collect_ignore = ["faulty_handlers.py", "broken_training_worker.py"]
FAKE_SECRET = "hf_FAKE_SECRET_TOKEN_0123456789"
HANDLERS = "playground.handlers"  # what the workers of a test pool run jobs with
# The sandbox the servers of this run use: `make test` runs the end-to-end suite in both (Makefile).
SANDBOX = os.environ.get("PLAYGROUND_SANDBOX") or ("full" if sys.platform.startswith("linux") else "process")
# The privilege of the servers of this run: `make test` runs the hostile suites again with the server dropped to an
# unprivileged uid with no capabilities (PLAYGROUND_TEST_PRIVILEGE=unprivileged), as a Hugging Face Space runs it:
# no namespaces, no cgroups, no tmpfs scratch folders. A test process that is not root runs its servers as itself.
UNPRIVILEGED = os.environ.get("PLAYGROUND_TEST_PRIVILEGE") == "unprivileged"
DROP_UID = 1000
full_sandbox_only = pytest.mark.skipif(
    SANDBOX != "full", reason="the local process mode has no Landlock or seccomp: a job may read the user's files, "
                              "by design (README: Run it); its own guards are tested in tests/test_process_pool.py")


class OnePool:
    """Stands in for the worker pool behind a real PlaygroundAPI: records jobs, answers with ``reply``."""

    def __init__(self, reply: dict) -> None:
        self.jobs, self.reply = [], reply

    size = 1

    def run(self, job: dict, timeout_s: float | None = None, on_early=None) -> dict:
        self.jobs.append(job)
        return self.reply


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
        from gradio_client import Client

        return Client(self.url, verbose=False)


def start_server(tmp_dir: Path, **env_overrides: str) -> Server:
    """Launch ``python app.py`` on a free port and wait until it answers."""
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
    command = [sys.executable, "app.py"]
    if UNPRIVILEGED and os.geteuid() == 0:
        command = unprivileged(command, env, tmp_dir,
                               *(Path(value) for value in env_overrides.values() if os.path.isdir(value)))
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log_path.open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 120
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


def unprivileged(command: list[str], env: dict[str, str], *folders: Path) -> list[str]:
    """``command`` run as DROP_UID with every capability dropped (as a Space runs the app), and what it needs:
    ``folders`` made its own, and the way to them, to the interpreter and to this checkout traversable."""
    for folder in folders:
        os.chown(folder, DROP_UID, DROP_UID)
    for path in (*folders, Path(sys.executable).resolve(), Path(sys.base_prefix).resolve(), ROOT):
        for above in path.parents:
            mode = above.stat().st_mode
            if not mode & 0o001:  # e.g. /root (a pyenv interpreter) or pytest's own 0700 base folder
                above.chmod(mode | 0o001)  # traversal only: nothing becomes listable or readable
    env["HOME"] = str(folders[0])  # Gradio and pip caches; the real HOME is root's
    return ["setpriv", f"--reuid={DROP_UID}", f"--regid={DROP_UID}", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--", *command]


def stop_server(server: Server) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Server:
    """One real server for the whole session (2 workers, default limits)."""
    srv = start_server(tmp_path_factory.mktemp("server"), PLAYGROUND_WORKERS="2")
    yield srv
    stop_server(srv)


@pytest.fixture(scope="session")
def client(server):
    return server.client()


@pytest.fixture(scope="session")
def pool():
    """A real sandbox pool in this test process (no Gradio), for unit-level sandbox tests."""
    from playground.sandbox import Limits, WorkerPool

    p = WorkerPool(2, Limits(timeout_s=5.0), HANDLERS)
    p.start()
    yield p
    p.close()
