"""The first answer fast, the cache, and the line, end to end: real servers, gradio_client, real workers.

/inspect streams: its early update (the stages) comes before the purity and
retrace checks, and the last update holds everything. An identical job is
served from the cache, saying when it was measured, even while every worker
is busy. A job that must wait hears its place in line and the estimated
wait; a full line answers "busy" at once with when to retry.
"""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from tests.conftest import start_server, stop_server
from tests.e2e.responses import assert_error, ok
from tests.held_jobs import held_job, release

IMPURE = "counter = [0]\ndef f(x):\n    counter[0] += 1\n    return x * counter[0]\n"
SLOW = "import time\ndef f(x):\n    time.sleep({seconds})\n    return x  # {tag}\n"
# The ceiling of a wait for what takes a second or less (a job taking its worker, a request joining the line): far
# beyond it on a loaded machine.
WAIT_S = 60.0
# The ceiling of the first job's hold of the one worker while the test sends three more requests after it (a
# second or two): the test releases it once the line is full (held_jobs.py), so the line stays as the test built
# it however loaded the machine, and nobody waits the hold out.
HOLD_S = 120


def updates(client, code: str, args: str, second_args: str = "") -> list[dict]:
    job = client.submit(code, args, None, second_args, False, api_name="/inspect")
    seen = list(job)
    return seen or [job.result()]


def until(condition, what: str) -> None:
    """Wait for ``condition`` (polled), failing after WAIT_S."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.1)


def line(client) -> dict:
    """The sandbox pool's line as /about reports it: {"workers", "running", "waiting", ...}."""
    return client.predict(api_name="/about")["queue"]["lines"]["sandbox"]


def jobs_run(client) -> int:
    """How many jobs the sandbox pool has handed to a worker so far (it only grows)."""
    return client.predict(api_name="/about")["sandbox"]["pool"]["jobs"]


def test_inspect_sends_the_stages_first_then_the_checks(client):
    seen = updates(client, IMPURE + "# streamed\n", "jnp.arange(3.0)", second_args="jnp.arange(5.0)")
    early, last = seen[-2], seen[-1]
    assert early["done"] is False and early["pending"] == ["purity", "retrace"]
    assert last["done"] is True and last["pending"] == []
    for key in ("result", "jaxpr", "stablehlo", "hlo", "cost", "line_map"):
        assert early[key] == last[key], key  # the first answer is already the whole of the stages
    assert early["retrace"] is None and last["retrace"]["retraced"] is True
    assert not any(f["check"] == "behavioural" for f in early["purity"])
    assert any(f["check"] == "behavioural" for f in last["purity"])  # the counter changed between two traces


def test_vmap_sends_each_batch_size_as_it_is_measured(client):
    """One early reply per size but the last: the table grows a row at a time, the rest said pending."""
    code = "def f(x):\n    return jnp.sin(x) * 2  # per size\n"
    job = client.submit(code, "jnp.ones(3)", "0", [1, 10, 100], "0", api_name="/vmap")
    seen = [update for update in job if "batch_sizes" in update]
    assert [update["batch_sizes"] for update in seen] == [[1], [1, 10], [1, 10, 100]], seen
    assert [update["pending_sizes"] for update in seen] == [[10, 100], [100], []]
    assert [update["done"] for update in seen] == [False, False, True]
    assert seen[1]["vmap_s"] == seen[2]["vmap_s"][:2]  # an early row is the final one, not a guess


def test_an_identical_job_comes_from_the_cache_and_says_when_it_was_measured(client):
    code = "def f(x):\n    return jnp.cos(x) * 3  # cached\n"
    first = ok(client.predict(code, "jnp.arange(3.0)", None, "", False, api_name="/inspect"))
    time.sleep(0.3)
    again = ok(client.predict(code, "jnp.arange(3.0)", None, "", False, api_name="/inspect"))
    assert first["cache"]["hit"] is False
    assert again["cache"]["hit"] is True and again["cache"]["measured_at"] == first["cache"]["measured_at"]
    assert again["cache"]["age_s"] >= 0.3
    assert {k: v for k, v in again.items() if k != "cache"} == {k: v for k, v in first.items() if k != "cache"}
    other = ok(client.predict(code, "jnp.arange(4.0)", None, "", False, api_name="/inspect"))
    assert other["cache"]["hit"] is False  # other arguments: another job


def test_a_users_error_is_kept_but_a_time_out_is_not(client):
    broken = "def f(x):\n    return x +\n"
    assert_error(client.predict(broken, "1.0", None, "", False, api_name="/inspect"), "syntax")
    before = client.predict(api_name="/about")["queue"]["cache"]["hits"]
    assert_error(client.predict(broken, "1.0", None, "", False, api_name="/inspect"), "syntax")
    assert client.predict(api_name="/about")["queue"]["cache"]["hits"] == before + 1


def test_the_cache_answers_while_every_worker_is_busy(server, client):
    code = "def f(x):\n    return jnp.tan(x)  # kept\n"
    ok(client.predict(code, "jnp.ones(2)", None, "", False, api_name="/inspect"))
    before = jobs_run(client)
    slow_done = []

    tags = [f"busy-{uuid.uuid4().hex}" for _ in range(2)]

    def slow(tag: str) -> None:  # another visitor, in a session of its own (one Client is not for many threads)
        server.client().predict(held_job(tag, WAIT_S), "1.0", None, "", False, api_name="/inspect")
        slow_done.append(tag)

    threads = [threading.Thread(target=slow, args=(tag,)) for tag in tags]  # both workers
    for t in threads:
        t.start()
    until(lambda: jobs_run(client) >= before + 2, "both slow jobs have a worker")
    seen = updates(client, code, "jnp.ones(2)")
    for tag in tags:
        release(server, tag)
    for t in threads:
        t.join(timeout=WAIT_S)
    assert ok(seen[-1])["cache"]["hit"] is True
    # It did not wait behind them: a request that waits for a worker is told its place in line first.
    assert not any(u.get("phase") == "queued" for u in seen), seen
    assert len(slow_done) == 2


@pytest.fixture(scope="module")
def one_worker(tmp_path_factory, sandbox_mode):
    """A server with one worker, a line of two places and no kept results (every job runs). A wall clock well past
    HOLD_S: the first job is held, not stopped."""
    server = start_server(tmp_path_factory.mktemp("one-worker"), PLAYGROUND_WORKERS="1", PLAYGROUND_QUEUE_SIZE="2",
                          PLAYGROUND_RESULT_CACHE="0", PLAYGROUND_SANDBOX=sandbox_mode,
                          PLAYGROUND_TIMEOUT_S=str(HOLD_S + WAIT_S))
    yield server
    stop_server(server)


def test_a_waiting_job_hears_its_place_and_a_full_line_says_when_to_retry(one_worker):
    clients = [one_worker.client() for _ in range(4)]
    seen: dict[int, list[dict]] = {}

    holder = f"line-{uuid.uuid4().hex}"

    def run(i: int) -> None:
        code = held_job(holder, HOLD_S) if i == 0 else SLOW.format(seconds=0.5, tag=f"{holder}-{i}")
        seen[i] = updates(clients[i], code, "1.0")

    ok(clients[0].predict("def f(x):\n    return x\n", "1.0", None, "", False, api_name="/inspect"))  # one measured
    first = threading.Thread(target=run, args=(0,))
    first.start()
    until(lambda: line(clients[3])["running"] == 1, "the first job has the only worker")
    waiting = [threading.Thread(target=run, args=(i,)) for i in (1, 2)]
    for place, t in enumerate(waiting, start=1):
        t.start()
        until(lambda place=place: line(clients[3])["waiting"] == place, f"job {place} is in line")
    run(3)  # the line (2 places) is full
    release(one_worker, holder)
    for t in [first, *waiting]:
        t.join(timeout=HOLD_S + WAIT_S)
    assert not any(t.is_alive() for t in [first, *waiting])
    busy = assert_error(seen[3][-1], "busy")
    assert busy["retry_after_s"] >= 1 and "try again in" in busy["message"]
    for i in (1, 2):
        queued = [u for u in seen[i] if u.get("phase") == "queued"]
        assert queued, seen[i]
        assert queued[0]["queue"]["position"] == i and queued[0]["queue"]["workers"] == 1
        # From the job measured before: the running one may have outlived it (then it counts as ending now), the
        # one ahead of number 2 not.
        assert queued[0]["queue"]["wait_s"] >= 0 if i == 1 else queued[0]["queue"]["wait_s"] > 0
        assert any(u.get("phase") == "running" for u in seen[i])
        ok(seen[i][-1])
    ok(seen[0][-1])


def test_with_the_cache_off_every_job_runs(one_worker):
    client = one_worker.client()
    code = "def f(x):\n    return x * 7\n"
    jobs_before = client.predict(api_name="/about")["sandbox"]["pool"]["jobs"]
    replies = [ok(client.predict(code, "1.0", None, "", False, api_name="/inspect")) for _ in range(2)]
    assert [r["cache"] for r in replies] == [None, None]
    about = client.predict(api_name="/about")
    assert about["queue"]["cache"] is None
    assert about["sandbox"]["pool"]["jobs"] >= jobs_before + 2  # both ran
