"""What every hostile test needs: a victim job running beside the attack, and checks that nothing broke.

The attacks run through a real ``python app.py`` server (tests.conftest.start_server),
as a visitor of a public Space would send them.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

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


@dataclass
class Victim:
    """Another user's job, running in a sibling worker while the attack runs."""

    server: object
    result: dict = field(default_factory=dict)
    thread: threading.Thread | None = None

    def __enter__(self) -> Victim:
        def run() -> None:
            try:
                self.result = self.server.client().predict(VICTIM_CODE, DEFAULT_ARGS, api_name="/inspect")
            except Exception as exc:  # the assertion below reports it
                self.result = {"ok": False, "client_error": repr(exc)}

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.thread.join(timeout=60)

    def assert_unaffected(self) -> None:
        assert not self.thread.is_alive(), "the victim's job never finished"
        assert self.result.get("ok") is True, self.result
        assert self.result["result"] == DEFAULT_RESULT, self.result


def assert_still_healthy(server, client) -> None:
    """The server lives, its template lives, and a normal job gives the right answer."""
    assert server.alive(), server.log_path.read_text()[-4000:]
    about = client.predict(api_name="/about")
    assert about["sandbox"]["pool"]["template_alive"] is True, about["sandbox"]["pool"]
    normal = client.predict(DEFAULT_CODE, DEFAULT_ARGS, api_name="/inspect")
    assert normal["ok"] is True, normal
    assert normal["result"] == DEFAULT_RESULT, normal


def children(pid: int) -> list[int]:
    """Direct children of ``pid``, from /proc (the test runs as the server's user)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid:
            found.append(int(entry))
    return found


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (the template, its workers, the training worker)."""
    found, todo = [], [pid]
    while todo:
        for child in children(todo.pop()):
            found.append(child)
            todo.append(child)
    return found


def template_pid(server) -> int:
    """The sandbox template: the server's child that runs playground.sandbox.template."""
    for child in children(server.process.pid):
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"playground.sandbox.template" in cmdline:
            return child
    raise AssertionError("no sandbox template process found under the server")


def limits_of(pid: int) -> str:
    """/proc/<pid>/limits, to compare before and after an attack."""
    return Path(f"/proc/{pid}/limits").read_text()


def scheduling_of(pid: int) -> tuple:
    """Niceness, CPU affinity and scheduling policy: what setpriority/sched_* attacks would change."""
    return (os.getpriority(os.PRIO_PROCESS, pid), sorted(os.sched_getaffinity(pid)), os.sched_getscheduler(pid))
