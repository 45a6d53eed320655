"""The device's line: the jobs that measure on the device, one at a time, each in a CPU worker that asks the owner.

A job of this line (the registry's ``pool="device"`` rows) runs the user's code
in a sandboxed CPU worker of this line's own pool, as every job does; what it
lowers for the device it hands to the device owner (playground/owner/), the one
process that holds the device, through ``on_ask``: a session of the owner's for
this job, opened when the job gets a worker and closed when it ends. One job at
a time, so nothing else runs on the device while a job measures, and the jobs
behind it wait in the server's line, told their place (answering/line.py).

The job's clock counts its own time: a request that waited for the owner's own
work (a training run finishing its queued chunk before it pauses) is timed from
when the owner began it, and the job is given the wait back.

When the owner has to be killed on a job's account (its program ran past the
job's time, its memory passed the limit, it crashed), that job ends with the
reason (``AskEnded``), the owner is started again, and the next job runs on it.
"""

from __future__ import annotations

from collections.abc import Callable

from playground import device_ops
from playground.errors import said_error
from playground.messages import piece
from playground.server.device_owner.handle import DeviceOwner
from playground.server.device_owner.sessions import OwnerLost, Session
from playground.server.pools import JobPool
from playground.server.pools.watch import Answer, AskEnded

ASK_MARGIN_S = 0.5  # a request gets the job's time less this, so the owner's verdict comes before the job's clock
OWNER_WAIT_S = 120.0  # how long a job waits for an owner that is starting again


class DevicePool:
    """A JobPool (pool_interface.py) of one job at a time, over ``workers`` (the CPU workers this line runs jobs in)
    and ``owner``."""

    size = 1

    def __init__(self, workers: JobPool, owner: DeviceOwner) -> None:
        self._workers = workers
        self.owner = owner

    @property
    def platform(self) -> str:
        return self.owner.setup.platform

    @property
    def layers(self) -> dict[str, dict]:
        """The owner's layers, as it reported them when it started."""
        return self.owner.hello.get("layers", {})

    def start(self) -> None:
        """The CPU workers (the owner is started by itself: worker_pools.py)."""
        self._workers.start()

    def close(self) -> None:
        self._workers.close()

    def status(self) -> dict:
        return {**self._workers.status(), "size": self.size, "owner": self.owner.status()}

    def mechanisms(self) -> dict[str, dict]:
        return self._workers.mechanisms()

    def run(self, job: dict, timeout_s: float | None = None, on_early: Callable[[dict], None] | None = None,
            on_ask: Callable[[object, float], object] | None = None) -> dict:
        """The job in a CPU worker, with a session of the owner's for its requests (``on_ask`` is this line's own)."""
        if not self.owner.wait_ready(OWNER_WAIT_S):
            return said_error("unavailable", piece("device.restarting"))
        try:
            session = self.owner.open_session()
        except OwnerLost as lost:
            return said_error(lost.kind, lost.piece)
        try:
            return self._workers.run(job, timeout_s, on_early, lambda request, left: self._relay(
                session, request, left, timeout_s))
        finally:
            self.owner.close_session(session)

    def _relay(self, session: Session, request: object, left_s: float, clock_s: float | None) -> Answer | dict:
        problem = device_ops.problem(request)
        if problem:
            return {"error": problem}
        try:
            reply, waited = self.owner.ask_timed(session, request, max(0.1, left_s - ASK_MARGIN_S))
            return Answer(reply, not_the_jobs_s=waited)  # the owner's own work before it began: not the job's time
        except OwnerLost as lost:
            words = lost.piece
            if words[0] == "device.timeout" and clock_s is not None:  # named by the job's clock, as any timeout is
                words = ["device.timeout", {"seconds": f"{clock_s:,.0f}"}]
            raise AskEnded(said_error(lost.kind, words)) from None
