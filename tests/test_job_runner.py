"""playground.server.answering.runner: cached, shared and queued jobs, early replies and failures, with fake pools.

A fake pool answers with a real Inspect reply (made once, here, by the worker's own code) so that the
schema check passes; a job can be held on a gate (a threading.Event) to keep it "running". Every
blocking wait is for an event and has a ceiling, so a broken runner fails these tests instead of hanging them.
"""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

from playground import jobs, replies
from playground.errors import error_dict
from playground.schema import Record, Whole
from playground.server.answering.result_cache import ResultCache
from playground.server.answering.runner import JobRunner
from playground.worker.jobs import inspect as staging
from tests.pool_doubles import ScriptedPool

CODE = "def f(x):\n    return x * 2\n"
# The ceiling of every wait here: what it waits for takes milliseconds, so only a broken runner (a lost wake-up, a
# lock held) reaches it, however loaded the machine.
WAIT_S = 60.0


def job(args: str = "jnp.arange(3.0)") -> dict:
    return jobs.build("inspect", {"code": CODE, "args": args})


@pytest.fixture(scope="module")
def inspect_replies() -> tuple[dict, dict]:
    """A schema-valid early Inspect reply (checks pending) and the final one, from the real worker code."""
    early: list[dict] = []
    final = staging.inspect(CODE, "jnp.arange(3.0)", 10_000, early=early.append)
    assert final["ok"] and len(early) == 1 and early[0]["pending"], (final, early)
    return early[0], final


@pytest.fixture(autouse=True)
def quick_updates(monkeypatch):
    """Waiting requests hear their place every 20 ms instead of every half second."""
    monkeypatch.setattr("playground.server.answering.runner.UPDATE_EVERY_S", 0.02)


# Stands in for WorkerPool: records jobs and answers ``reply`` (or raises it, if it is an exception). A job whose
# ``args`` are in ``gates`` first sends ``early`` (if any) and then waits for its gate.
FakePool = ScriptedPool


def runner(pool: FakePool, cache: ResultCache | None = None, max_waiting: int = 4) -> JobRunner:
    return JobRunner(pools={"sandbox": pool, "parallel": pool, "accelerator": pool}, max_waiting=max_waiting,
                     timeout_s=lambda kind: 10.0, cache=cache)


def new_cache() -> ResultCache:
    return ResultCache(max_entries=16, max_bytes=1 << 24, version="test")


def until(condition, what: str) -> None:
    """Poll ``condition`` every 10 ms, failing after WAIT_S."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.01)


class Request:
    """One request's updates, collected in a thread of its own."""

    def __init__(self, jobs_runner: JobRunner, built: dict) -> None:
        self.updates: list[dict] = []
        self._thread = threading.Thread(target=lambda: self.updates.extend(jobs_runner.updates("inspect", built)),
                                        daemon=True)
        self._thread.start()

    def result(self, timeout_s: float = WAIT_S) -> list[dict]:
        self._thread.join(timeout_s)
        assert not self._thread.is_alive(), "the request never got its final reply"
        return self.updates


def finals_only(updates: list[dict]) -> dict:
    """The last update, after checking that it is the only one marked done."""
    assert [u["done"] for u in updates].count(True) == 1 and updates[-1]["done"] is True, updates
    return updates[-1]


def test_an_identical_request_is_answered_from_the_cache(inspect_replies):
    """The second identical request never reaches the pool; its result says hit, measured when the first ended."""
    _, reply = inspect_replies
    pool = FakePool(reply)
    jobs_runner = runner(pool, new_cache())
    first = finals_only(list(jobs_runner.updates("inspect", job())))
    second_updates = list(jobs_runner.updates("inspect", job()))
    assert len(second_updates) == 1
    second = finals_only(second_updates)
    assert len(pool.jobs) == 1 and pool.timeouts == [10.0]
    assert first["cache"]["hit"] is False and first["cache"]["shared"] is False
    assert second["cache"]["hit"] is True and second["cache"]["shared"] is False
    assert second["cache"]["measured_at"] == first["cache"]["measured_at"]
    assert second["cache"]["age_s"] >= 0
    assert second["result"] == reply["result"] and second["ok"] is True


@pytest.mark.parametrize("fresh", [False, True])
def test_identical_requests_while_the_first_runs_share_its_job(inspect_replies, fresh):
    """A request identical to a running job follows it: told it is shared and running, the pool runs once. So does
    a fresh one (Measure again): the job running measures now."""
    _, reply = inspect_replies
    gate = threading.Event()
    pool = FakePool(reply, gates={"jnp.arange(3.0)": gate})
    jobs_runner = runner(pool, new_cache())
    first = Request(jobs_runner, job())
    pool.wait_for_runs(1)
    second = jobs_runner.updates("inspect", job(), fresh=fresh)
    told = next(second)
    assert (told["done"], told["phase"], told["shared"]) == (False, "running", True)
    assert told["queue"]["position"] == 0
    gate.set()
    second_final = finals_only([told, *second])
    first_final = finals_only(first.result())
    assert len(pool.jobs) == 1
    assert second_final["cache"]["shared"] is True and second_final["cache"]["hit"] is False
    assert first_final["cache"]["shared"] is False
    assert second_final["cache"]["measured_at"] == first_final["cache"]["measured_at"]


def test_without_a_cache_every_request_runs(inspect_replies):
    """With no cache, identical requests each run, and the result's ``cache`` is None."""
    _, reply = inspect_replies
    pool = FakePool(reply)
    jobs_runner = runner(pool, cache=None)
    finals = [finals_only(list(jobs_runner.updates("inspect", job()))) for _ in range(2)]
    assert len(pool.jobs) == 2
    assert [f["cache"] for f in finals] == [None, None]
    assert jobs_runner.status()["cache"] is None


def test_a_job_behind_another_is_told_its_place_then_that_it_runs(inspect_replies):
    """With one worker busy, another job hears "queued" at position 1, then "running" once it has the worker,
    then its result."""
    _, reply = inspect_replies
    first_gate, second_gate = threading.Event(), threading.Event()
    pool = FakePool(reply, gates={"jnp.arange(3.0)": first_gate, "jnp.arange(4.0)": second_gate})
    jobs_runner = runner(pool, new_cache())
    first = Request(jobs_runner, job("jnp.arange(3.0)"))
    pool.wait_for_runs(1)
    second = jobs_runner.updates("inspect", job("jnp.arange(4.0)"))
    told = next(second)
    assert (told["ok"], told["done"], told["phase"], told["shared"]) == (True, False, "queued", False)
    assert told["queue"] == {"position": 1, "running": 1, "workers": 1, "wait_s": None}

    first_gate.set()
    heard = [told]
    deadline = time.monotonic() + WAIT_S
    while heard[-1]["phase"] == "queued" and time.monotonic() < deadline:
        heard.append(next(second))
    assert heard[-1]["phase"] == "running" and heard[-1]["done"] is False
    assert all(u["queue"]["position"] == 1 for u in heard[:-1])
    assert heard[-1]["queue"]["position"] == 0
    pool.wait_for_runs(2)
    second_gate.set()
    result = finals_only([*heard, *second])
    assert result["ok"] is True and result["cache"]["hit"] is False
    finals_only(first.result())
    assert [j["args"] for j in pool.jobs] == ["jnp.arange(3.0)", "jnp.arange(4.0)"]


def test_a_full_line_answers_busy_at_once(inspect_replies):
    """With one running and max_waiting=1 waiting, a third distinct request gets one busy final, with when to
    retry, and never reaches the pool."""
    _, reply = inspect_replies
    gates = {f"jnp.arange({n}.0)": threading.Event() for n in (3, 4, 5)}
    pool = FakePool(reply, gates=gates)
    jobs_runner = runner(pool, new_cache(), max_waiting=1)
    running = Request(jobs_runner, job("jnp.arange(3.0)"))
    pool.wait_for_runs(1)
    waiting = jobs_runner.updates("inspect", job("jnp.arange(4.0)"))
    assert next(waiting)["phase"] == "queued"

    refused = list(jobs_runner.updates("inspect", job("jnp.arange(5.0)")))
    busy = finals_only(refused)
    assert len(refused) == 1
    assert busy["ok"] is False and busy["error"]["kind"] == "busy"
    retry = busy["error"]["retry_after_s"]
    assert isinstance(retry, int) and retry >= 1
    assert f"try again in {retry} s" in busy["error"]["message"]
    assert "1 jobs are waiting for 1 worker," in busy["error"]["message"]

    for gate in gates.values():
        gate.set()
    assert finals_only(list(waiting))["ok"] is True
    finals_only(running.result())
    assert "jnp.arange(5.0)" not in [j["args"] for j in pool.jobs]


def test_a_busy_answer_does_not_hold_up_other_requests(inspect_replies):
    """After a request has read its busy answer (its last update) and not yet asked for more, other requests and
    the running job still proceed: nothing may stay locked while a request's stream is paused."""
    _, reply = inspect_replies
    gate = threading.Event()
    pool = FakePool(reply, gates={"jnp.arange(3.0)": gate, "jnp.arange(4.0)": gate})
    jobs_runner = runner(pool, new_cache(), max_waiting=1)
    running = Request(jobs_runner, job("jnp.arange(3.0)"))
    pool.wait_for_runs(1)
    waiting = Request(jobs_runner, job("jnp.arange(4.0)"))
    refused = jobs_runner.updates("inspect", job("jnp.arange(5.0)"))
    try:
        until(lambda: jobs_runner.status()["lines"]["sandbox"]["waiting"] == 1, "the second request waits")
        assert next(refused)["error"]["kind"] == "busy"
        gate.set()
        assert finals_only(running.result())["ok"] is True
        assert finals_only(waiting.result())["ok"] is True
    finally:
        gate.set()
        refused.close()


def test_an_early_reply_comes_before_the_final(inspect_replies):
    """An Inspect worker's schema-valid early reply reaches the request (done False) before the final result."""
    early, reply = inspect_replies
    gate = threading.Event()
    pool = FakePool(reply, early=early, gates={"jnp.arange(3.0)": gate})
    jobs_runner = runner(pool, new_cache())
    updates = jobs_runner.updates("inspect", job())
    first = next(updates)
    assert first["done"] is False and first["ok"] is True
    assert first["pending"] == early["pending"] and first["result"] == early["result"]
    gate.set()
    result = finals_only([first, *updates])
    assert result["pending"] == [] and result["cache"]["hit"] is False


def test_an_early_reply_that_fails_its_schema_is_never_shown(inspect_replies):
    """An early reply with a field the schema refuses is dropped: the request sees only the final result."""
    early, reply = inspect_replies
    gate = threading.Event()
    forged = {**early, "pending": ["forged"]}
    pool = FakePool(reply, early=forged, gates={"jnp.arange(3.0)": gate})
    jobs_runner = runner(pool, new_cache())
    request = Request(jobs_runner, job())
    try:
        assert pool.early_sent.wait(WAIT_S), "the pool never sent its early reply"
        (flight,) = jobs_runner._flights.values()
        # The runner has handled the early reply (it has returned) and kept nothing of it, so nothing of it can
        # reach the request, whenever the final reply comes.
        assert (flight.early, flight.earlies) == (None, 0)
    finally:
        gate.set()
    updates = request.result()
    assert len(pool.jobs) == 1
    assert [u["done"] for u in updates] == [True]
    assert updates[0]["ok"] is True and updates[0]["pending"] == []


def test_a_pool_that_raises_gives_every_follower_an_internal_error(inspect_replies, caplog):
    """Our own bug in running a job answers the request that started it and the one sharing it, frees the
    worker, and is not kept: the next identical request runs again."""
    gate = threading.Event()
    pool = FakePool(RuntimeError("pool broke"), gates={"jnp.arange(3.0)": gate})
    jobs_runner = runner(pool, new_cache())
    first = Request(jobs_runner, job())
    pool.wait_for_runs(1)
    second = Request(jobs_runner, job())
    until(lambda: second.updates, "the second request follows the running job")
    assert second.updates[0]["shared"] is True
    gate.set()
    for request in (first, second):
        error = finals_only(request.result())
        assert error["ok"] is False and error["error"]["kind"] == "internal"
        assert "bug in the playground" in error["error"]["message"]
    assert len(pool.jobs) == 1
    assert "internal error" in caplog.text
    assert jobs_runner.status()["lines"]["sandbox"]["running"] == 0

    pool.reply = inspect_replies[1]
    assert finals_only(list(jobs_runner.updates("inspect", job())))["ok"] is True
    assert len(pool.jobs) == 2


def test_an_error_that_depends_on_the_moment_is_not_cached():
    """A time-out is not a result: the next identical request runs the job again."""
    pool = FakePool(error_dict("timeout", "too slow this time"))
    jobs_runner = runner(pool, new_cache())
    for _ in range(2):
        result = finals_only(list(jobs_runner.updates("inspect", job())))
        assert result["error"]["kind"] == "timeout" and "cache" not in result
    assert len(pool.jobs) == 2


def test_a_repeatable_error_is_cached():
    """An exception in the user's code is the same every time: the second identical request does not run."""
    pool = FakePool(error_dict("user_exception", "ZeroDivisionError"))
    jobs_runner = runner(pool, new_cache())
    results = [finals_only(list(jobs_runner.updates("inspect", job()))) for _ in range(2)]
    assert results[0] == results[1] and results[0]["error"]["kind"] == "user_exception"
    assert len(pool.jobs) == 1


def test_a_failure_after_the_early_reply_keeps_its_result_and_says_what_did_not_finish(inspect_replies):
    """The checks ran out of time after the stages were sent: the result stands, a warning says so, nothing kept."""
    early, _ = inspect_replies
    pool = FakePool(error_dict("timeout", "Time limit: your code ran longer than 10 s."), early=early)
    jobs_runner = runner(pool, new_cache())
    for _ in range(2):
        result = finals_only(list(jobs_runner.updates("inspect", job())))
        assert result["ok"] is True and result["pending"] == [] and result["result"] == early["result"]
        assert result["warnings"][-1].startswith("The checks after the stages did not finish (too slow): Time limit")
        assert result["cache"]["hit"] is False  # measured now, both times: a time-out is not kept
    assert len(pool.jobs) == 2


def test_a_refused_reply_after_the_early_reply_keeps_nothing(inspect_replies):
    """A worker whose final reply is refused misbehaved: its early reply does not become the result."""
    early, _ = inspect_replies
    pool = FakePool(error_dict("forbidden", "The worker's reply was refused."), early=early)
    result = finals_only(list(runner(pool, new_cache()).updates("inspect", job())))
    assert result["ok"] is False and result["error"]["kind"] == "forbidden"


def test_a_fresh_request_measures_again_and_its_result_is_the_one_kept(inspect_replies):
    """Measure again: a fresh request runs the job though its result is kept, says it was measured for it, and a
    later plain request is answered with the new result."""
    _, reply = inspect_replies
    pool = FakePool(reply)
    jobs_runner = runner(pool, new_cache())
    first = finals_only(list(jobs_runner.updates("inspect", job())))
    again = finals_only(list(jobs_runner.updates("inspect", job(), fresh=True)))
    later = finals_only(list(jobs_runner.updates("inspect", job())))
    assert len(pool.jobs) == 2
    assert again["cache"]["hit"] is False and again["cache"]["shared"] is False
    assert later["cache"]["hit"] is True and later["cache"]["measured_at"] == again["cache"]["measured_at"]
    assert first["cache"]["hit"] is False


def test_a_timing_job_is_told_how_many_other_jobs_ran_beside_it(inspect_replies, monkeypatch):
    """A kind whose reply lets it in (replies.ok(meanwhile=True): a timing job's) gets the count of the other jobs
    that ran at some time while it ran: a comparison names a busy machine by it. Other kinds get nothing."""
    _, reply = inspect_replies
    plain = jobs.REGISTRY["inspect"]
    gates = {f"jnp.arange({n}.0)": threading.Event() for n in (3, 4)}
    pool = FakePool(reply, size=2, gates=gates)
    jobs_runner = runner(pool)
    untold = finals_only(list(jobs_runner.updates("inspect", job("jnp.arange(6.0)"))))
    assert replies.MEANWHILE not in untold
    timing = Record(plain.reply.required, {**plain.reply.optional, replies.MEANWHILE: Whole(0, 1 << 30)})
    monkeypatch.setitem(jobs.REGISTRY, "inspect", dataclasses.replace(plain, reply=timing))
    first = Request(jobs_runner, job("jnp.arange(3.0)"))
    pool.wait_for_runs(2)
    second = Request(jobs_runner, job("jnp.arange(4.0)"))
    pool.wait_for_runs(3)  # both running, one beside the other
    for gate in gates.values():
        gate.set()
    assert finals_only(first.result())[replies.MEANWHILE] == 1
    assert finals_only(second.result())[replies.MEANWHILE] == 1
    alone = finals_only(list(jobs_runner.updates("inspect", job("jnp.arange(5.0)"))))
    assert alone[replies.MEANWHILE] == 0
