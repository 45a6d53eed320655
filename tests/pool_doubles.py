"""The tests' one stand-in for a pool of workers: a ``JobPool`` (playground/server/pools/pool_interface.py) with none.

``ScriptedPool`` records every job it is given and answers it from a script:
the kind's queue in ``answers`` if there is one, else ``reply`` (raised, when
it is an exception); a subclass that computes its answer (say, by running the
worker's own function in this process) overrides ``answer``. It can send an
early reply first and hold a job on a gate, for the job runner's tests.
tests/test_pool_interface.py checks it against the real pools' interface.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

GATE_WAIT_S = 60.0  # the longest a job waits for its gate: only a test that never opens it gets there


class ScriptedPool:
    """Stands in for WorkerPool: records jobs (and each one's ``timeout_s``), answers from a script.

    ``answers``: replies by job kind, used in turn, the last one again and again.
    ``reply``: the answer to any other job; an exception is raised instead.
    ``early``: sent to ``on_early`` (where the caller gave one) before the answer.
    ``gates``: a job whose ``args`` are here waits for that event before it answers.
    """

    def __init__(self, reply: dict | Exception | None = None, size: int = 1, early: dict | None = None,
                 gates: dict[str, threading.Event] | None = None, *, answers: dict[str, list[dict]] | None = None,
                 layers: dict[str, dict] | None = None, mechanisms: dict[str, dict] | None = None,
                 platform: str = "cpu") -> None:
        self.size, self.platform = size, platform
        self.reply, self.early, self.gates = reply, early, gates or {}
        self.answers = answers or {}
        self.layers: dict[str, dict] = dict(layers or {})
        self._mechanisms = dict(mechanisms or {})
        self.jobs: list[dict] = []
        self.timeouts: list[float | None] = []
        self.status_calls = 0
        self.started = self.closed = False
        self._ran = threading.Condition()
        self.early_sent = threading.Event()  # set once ``on_early`` has returned

    # -- JobPool ------------------------------------------------------------

    def start(self) -> None:
        self.started = True

    def run(self, job: dict, timeout_s: float | None = None,
            on_early: Callable[[dict], None] | None = None,
            on_ask: Callable[[object, float], object] | None = None) -> dict:
        with self._ran:
            self.jobs.append(job)
            self.timeouts.append(timeout_s)
            self._ran.notify_all()
        if self.early is not None and on_early is not None:
            on_early(self.early)
            self.early_sent.set()
        gate = self.gates.get(job.get("args"))
        if gate is not None and not gate.wait(GATE_WAIT_S):
            raise AssertionError("the test never opened this job's gate")
        return self.answer(job)

    def close(self) -> None:
        self.closed = True

    def status(self) -> dict:
        self.status_calls += 1
        return {"size": self.size, "warm": self.size, "jobs": len(self.jobs)}

    def mechanisms(self) -> dict[str, dict]:
        return dict(self._mechanisms)

    # -- the script -----------------------------------------------------------

    def answer(self, job: dict) -> dict:
        """The reply to ``job``: its kind's next scripted answer, else ``reply`` (raised if an exception)."""
        queue = self.answers.get(job["kind"])
        if queue:
            return queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply

    def wait_for_runs(self, count: int) -> None:
        """Until ``count`` jobs have reached ``run`` (failing after GATE_WAIT_S)."""
        with self._ran:
            assert self._ran.wait_for(lambda: len(self.jobs) >= count, GATE_WAIT_S), f"{count} jobs never started"
