"""What the server asks of a pool of workers: the one interface of WorkerPool, ProcessPool and the tests' doubles.

The server (api.py, answering/runner.py, worker_pools.py, launch.py) uses these
members of its pools and nothing else; both real pools are WarmPools
(warm_pool.py), which declare it. A test's stand-in pool implements it without
inheriting it, and tests/test_pool_interface.py checks each one, and the real
pools, against it: the members here, with signatures that take the same calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable


@runtime_checkable
class JobPool(Protocol):
    """Runs jobs in workers; ``run`` is safe to call from many threads at once.

    ``size``: how many jobs may run at once (the workers it keeps warm); the
    server's line in front of the pool (answering/line.py) lets that many through.

    ``layers``: the sandbox's layers as its newest warm worker reported them,
    by name (``{"landlock": {"active": bool, "detail": str}, ...}``); empty
    before ``start``. About shows them.
    """

    size: int
    layers: dict[str, dict]

    def start(self) -> None:
        """Make the workers, and return once the first is warm (``layers`` are then known).

        Raises when none could be made in time. A pool may take optional arguments (how long to wait); the server
        passes none.
        """
        ...

    def run(self, job: dict, timeout_s: float | None = None,
            on_early: Callable[[dict], None] | None = None,
            on_ask: Callable[[object, float], object] | None = None) -> dict:
        """Run one built job (playground/jobs/) in a fresh worker and return its reply: a result or an error dict.

        Never raises for what the user's code did, and answers "busy" when no worker is free in time.
        ``timeout_s`` replaces the pool's wall clock for this job (None: the pool's own); ``on_early`` is called
        with each reply the worker sends ahead of its final one; ``on_ask(request, seconds left)`` answers each
        question the worker asks while it runs (a device job's requests to the device owner).
        """
        ...

    def close(self) -> None:
        """Stop every worker, and remove every folder (and whatever else) the pool made; safe before ``start``."""
        ...

    def status(self) -> dict:
        """The pool's counts now, fresh on each call: at least ``size``; the real pools add warm workers, jobs,
        timeouts and other ends, failed starts, and the backend their workers opened (the CPU)."""
        ...

    def mechanisms(self) -> dict[str, dict]:
        """What bounds each job's processes, disk, memory, tasks and time here, by name
        (``{"memory": {"active": bool, "detail": str}, ...}``), and why anything is missing; for About."""
        ...
