"""playground.server.device_owner.kept_ceilings: the device's ceilings measured once per dtype, kept, and put under each
speed_of_light reply. DeviceCeilings alone runs its measurement through a fake ``run`` (no JAX, no worker): what it
was asked, and what it answers, are the test's. Through a real job runner (its line, its result cache, the
registry's finish), a scripted pool answers the jobs."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator

import pytest

from playground import jobs
from playground.errors import error_dict
from playground.jobs.speed_of_light import MEASURED_AGAIN
from playground.server import roofline
from playground.server.answering.result_cache import ResultCache
from playground.server.answering.runner import JobRunner
from playground.server.device_owner.kept_ceilings import KIND, DeviceCeilings
from tests.pool_doubles import ScriptedPool

WAIT_S = 60.0  # the longest a thread of these tests may take for what is microseconds of work
QUEUED = {"ok": True, "done": False, "phase": "queued", "queue": {"position": 1, "running": 1, "workers": 1,
                                                                  "wait_s": 2.0}, "shared": False}
RUNNING = {"ok": True, "done": False, "phase": "running", "queue": {"position": 0, "running": 1, "workers": 1,
                                                                    "wait_s": 0.0}, "shared": False}
CODE = "def f(x):\n    return x * 2\n"


def timed(median_s: float) -> dict:
    return {"min_s": median_s, "median_s": median_s, "iqr_s": 0.0, "q1_s": median_s, "q3_s": median_s, "runs": 5}


def ceilings(dtype: str = "float32", device: str = "cpu", bandwidth: float = 8e9, peak: float = 2e11) -> dict:
    """A device_ceilings job's reply, as its worker sends it: one roof, memory's, and the matmul's peak."""
    memory = {"name": "memory", "cache_bytes": None, "stream_bytes": 1 << 28, "passes": 1,
              "bandwidth_bytes_s": bandwidth, "run": timed(0.01)}
    return {"ok": True, "device": device, "platform": "cpu", "dtype": dtype, "levels": [memory],
            "bandwidth_bytes_s": bandwidth, "stream_bytes": 1 << 28, "bandwidth_run": timed(0.01),
            "peak_flops_s": peak, "matmul_n": 2048, "matmul_run": timed(0.01)}


def measured(dtype: str = "float32", **fields) -> dict:
    """A device_ceilings job's final update, as the job runner hands it over (``done``, ``cache``)."""
    return {**ceilings(dtype, **fields), "done": True, "cache": None}


def speed_of_light_reply(dtype: str = "float32", device: str = "cpu") -> dict:
    """A speed_of_light job's final update: one program, memory-bound (32 MB in 6.4 ms: 5 GB/s)."""
    program = {"label": "as written", "what": "the function as written",
               "cost": {"flops": 1.6e7, "bytes_accessed": 3.2e7, "transcendentals": 0.0, "unavailable": {}},
               "memory": {"argument_bytes": 16_000_000, "output_bytes": 16_000_000, "temp_bytes": 0},
               "kernels": 1, "loops": 0, "run": timed(0.0064)}
    kernels = {"events": [], "calls": 0, "fusions": [], "left_out": 0, "plane": "", "unavailable": None}
    return {"ok": True, "done": True, "cache": None, "function": "f", "device": device, "dtype": dtype,
            "programs": [program], "memory": None, "memory_unavailable": None, "gradient": None,
            "kernels": kernels, "notes": []}


class FakeRun:
    """Stands in for the runner's jobs (Finishing.updates): records each (kind, values) asked, answers with the next
    script (a list of updates; the last script again once they run out)."""

    def __init__(self, *scripts: list[dict]) -> None:
        self.scripts = list(scripts)
        self.asked: list[tuple[str, dict]] = []
        self._lock = threading.Lock()

    def __call__(self, kind: str, values: dict) -> Iterator[dict]:
        with self._lock:
            self.asked.append((kind, dict(values)))
            script = self.scripts[min(len(self.asked), len(self.scripts)) - 1]
        yield from (dict(update) for update in script)


def placed(ceilings_kept: DeviceCeilings, run: FakeRun, **reply) -> list[dict]:
    """What DeviceCeilings yields for a speed_of_light reply: a first measurement's progress, then the reply."""
    return list(ceilings_kept.on_the_roofline(speed_of_light_reply(**reply), run))


def final(updates: list[dict]) -> dict:
    assert updates and updates[-1]["done"] is True, updates
    return updates[-1]


def test_the_ceilings_are_measured_once_per_dtype_and_kept():
    run = FakeRun([measured("float32")], [measured("bfloat16", peak=4e11)])
    kept = DeviceCeilings()

    first = final(placed(kept, run, dtype="float32"))
    second = final(placed(kept, run, dtype="float32"))
    assert run.asked == [(KIND, {"dtype": "float32", "again": 0})]  # the second reply found them kept
    assert first["roofline"] == second["roofline"]
    assert first["roofline"]["ceilings"]["peak_flops_s"] == 2e11

    other = final(placed(kept, run, dtype="bfloat16"))
    assert run.asked == [(KIND, {"dtype": "float32", "again": 0}), (KIND, {"dtype": "bfloat16", "again": 0})]
    assert other["roofline"]["ceilings"]["dtype"] == "bfloat16"
    assert other["roofline"]["ceilings"]["peak_flops_s"] == 4e11
    final(placed(kept, run, dtype="bfloat16"))
    final(placed(kept, run, dtype="float32"))
    assert len(run.asked) == 2


def test_the_reply_is_placed_under_the_kept_ceilings():
    reply = final(placed(DeviceCeilings(), FakeRun([measured()])))
    kept = {key: value for key, value in measured().items() if key not in ("done", "cache")}
    assert reply["roofline"] == roofline.place(reply, kept, None)
    assert reply["roofline"]["ceilings"]["ridge"] == pytest.approx(2e11 / 8e9)
    assert reply["roofline"]["ceilings_unavailable"] is None
    program = reply["roofline"]["programs"][0]
    assert program["bound"] == "memory" and program["achieved_bytes_s"] == pytest.approx(5e9)
    assert program["verdict"].startswith("memory-bound"), program["verdict"]
    # the reply's own fields are all still there
    assert {key: reply[key] for key in speed_of_light_reply()} == speed_of_light_reply()


def test_roofs_a_point_beat_are_measured_again_for_the_next_reply_a_few_times_at_most():
    """Measured while other work slowed the machine, the roofs were below a program's 5 GB/s: that reply says why
    (no share), and the next request has them measured again (``again``: 1), once they hold, kept again."""
    run = FakeRun([measured(bandwidth=1e9)], [measured(bandwidth=8e9)])
    kept = DeviceCeilings()
    beaten = final(placed(kept, run))
    assert beaten["roofline"]["programs"][0]["above_roof"] == "highest"
    assert "A roof bounds what runs under it" in beaten["roofline"]["programs"][0]["verdict"]
    held = final(placed(kept, run))
    assert held["roofline"]["programs"][0]["above_roof"] is None and held["roofline"]["programs"][0]["fraction"] < 1
    final(placed(kept, run))
    assert run.asked == [(KIND, {"dtype": "float32", "again": 0}), (KIND, {"dtype": "float32", "again": 1})]
    always_beaten = FakeRun([measured(bandwidth=1e9)])
    stubborn = DeviceCeilings()
    for _ in range(MEASURED_AGAIN + 3):
        final(placed(stubborn, always_beaten))
    assert [values["again"] for _, values in always_beaten.asked] == list(range(MEASURED_AGAIN + 1))


def test_the_measurements_progress_comes_before_the_reply_in_order():
    got = placed(DeviceCeilings(), FakeRun([dict(QUEUED), dict(RUNNING), measured()]))
    assert got[:2] == [QUEUED, RUNNING]
    assert len(got) == 3 and got[2]["done"] is True and got[2]["roofline"]["ceilings"] is not None


def test_a_kept_measurement_shows_no_progress():
    run = FakeRun([dict(QUEUED), dict(RUNNING), measured()])
    kept = DeviceCeilings()
    placed(kept, run)
    assert [update["done"] for update in placed(kept, run)] == [True]  # the reply alone
    assert len(run.asked) == 1


def test_a_failed_measurement_is_said_and_not_kept():
    failed = {"ok": False, "done": True, "error": {"kind": "timeout", "message": "The job ran past its 60 s limit.",
                                                  "line": None}}
    run = FakeRun([dict(QUEUED), failed], [measured()])
    kept = DeviceCeilings()

    reply = final(placed(kept, run))
    assert reply["ok"] is True  # the job's own reply stands; only its roofline lacks the ceilings
    assert reply["roofline"]["ceilings"] is None
    why = reply["roofline"]["ceilings_unavailable"]
    assert "measuring this machine's ceilings failed" in why and "ran past its 60 s limit" in why, why
    program = reply["roofline"]["programs"][0]
    assert program["bound"] is None and program["fraction"] is None
    assert program["achieved_bytes_s"] == pytest.approx(5e9)  # the point is there, only not under a ceiling

    again = final(placed(kept, run))  # the next request tries again
    assert len(run.asked) == 2
    assert again["roofline"]["ceilings"]["bandwidth_bytes_s"] == 8e9
    assert again["roofline"]["ceilings_unavailable"] is None


def test_a_measurement_without_a_final_reply_is_said_and_not_kept():
    run = FakeRun([dict(RUNNING)], [measured()])
    kept = DeviceCeilings()
    reply = final(placed(kept, run))
    assert reply["roofline"]["ceilings"] is None
    assert "no reply" in reply["roofline"]["ceilings_unavailable"]
    assert final(placed(kept, run))["roofline"]["ceilings"] is not None
    assert len(run.asked) == 2


def test_ceilings_of_another_device_are_not_used():
    run = FakeRun([measured(device="cpu")])
    kept = DeviceCeilings()
    reply = final(placed(kept, run, device="cuda:0 NVIDIA H100 80GB HBM3"))
    assert reply["roofline"]["ceilings"] is None
    why = reply["roofline"]["ceilings_unavailable"]
    assert "measured on cpu" in why and "ran on cuda:0 NVIDIA H100 80GB HBM3" in why, why
    assert reply["roofline"]["programs"][0]["bound"] is None
    # the measurement itself is kept: a reply from the measured device is placed without measuring again
    same = final(placed(kept, run, device="cpu"))
    assert same["roofline"]["ceilings"]["device"] == "cpu" and same["roofline"]["ceilings_unavailable"] is None
    assert len(run.asked) == 1


def test_two_requests_at_once_run_one_measurement():
    release, first_running = threading.Event(), threading.Event()

    class HeldRun(FakeRun):
        """The first measurement waits for ``release``; any other answers at once."""

        def __call__(self, kind, values):
            with self._lock:
                self.asked.append((kind, dict(values)))
                first = len(self.asked) == 1
            if first:
                first_running.set()
                yield dict(RUNNING)
                assert release.wait(WAIT_S), "the test never released the first measurement"
                yield measured(peak=2e11)
            else:
                yield measured(peak=9e11)  # a second measurement: told apart by its numbers

    run = HeldRun()
    kept = DeviceCeilings()
    replies: dict[str, list[dict]] = {}

    def ask(name: str) -> None:
        replies[name] = placed(kept, run)

    a = threading.Thread(target=ask, args=("a",), daemon=True)
    a.start()
    assert first_running.wait(WAIT_S)
    b = threading.Thread(target=ask, args=("b",), daemon=True)
    b.start()
    # Until b is inside the measurement's step: waiting for a's (or, were it not waiting, running its own).
    deadline = time.monotonic() + WAIT_S
    while not (_in_ceilings(b) or len(run.asked) > 1 or not b.is_alive()):
        assert time.monotonic() < deadline, "b never reached the ceilings"
        time.sleep(0.001)  # a poll of b's state, not a wait for time to pass
    release.set()
    a.join(WAIT_S)
    b.join(WAIT_S)
    assert not a.is_alive() and not b.is_alive()

    assert run.asked == [(KIND, {"dtype": "float32", "again": 0})], \
        "b measured again instead of waiting for a's measurement"
    for name in "ab":
        assert replies[name][-1]["roofline"]["ceilings"]["peak_flops_s"] == 2e11, name
    assert RUNNING in replies["a"]  # the measurement's progress went to the request that ran it


def _in_ceilings(thread: threading.Thread) -> bool:
    """Whether ``thread`` is inside DeviceCeilings._ceilings, waiting there (its innermost Python frame)."""
    frame = sys._current_frames().get(thread.ident)
    return frame is not None and frame.f_code.co_name == "_ceilings"


# -- through the job runner: the registry's finish, the device's line, the result cache -------------------------


@pytest.fixture(autouse=True)
def quick_updates(monkeypatch):
    """Waiting requests hear their place every 20 ms instead of every half second."""
    monkeypatch.setattr("playground.server.answering.runner.UPDATE_EVERY_S", 0.02)


def runner(pool: ScriptedPool, cache: ResultCache | None) -> JobRunner:
    return JobRunner(pools={"sandbox": pool, "parallel": pool, "device": pool}, max_waiting=4,
                     timeout_s=lambda kind: 10.0, cache=cache)


def speed_of_light_job(args: str = "jnp.ones(3)") -> dict:
    return jobs.build("speed_of_light", {"code": CODE, "args": args})


def worker_reply(update: dict) -> dict:
    """A final update as its worker sent it, without what the runner adds (``done``, ``cache``)."""
    return {key: value for key, value in update.items() if key not in ("done", "cache")}


def kinds(pool: ScriptedPool) -> list[str]:
    return [job["kind"] for job in pool.jobs]


def test_a_reply_from_the_cache_is_placed_under_the_ceilings_held_now():
    """The roofline is not kept with the result: a first measurement that failed leaves the first answer without
    ceilings, and the same job's kept result, served again, is placed under those measured for it."""
    pool = ScriptedPool(answers={"speed_of_light": [worker_reply(speed_of_light_reply())],
                                 "device_ceilings": [error_dict("timeout", "ran past its limit"), ceilings()]})
    cache = ResultCache(max_entries=16, max_bytes=1 << 24, version="test")
    jobs_runner = runner(pool, cache)

    first = final(list(jobs_runner.updates("speed_of_light", speed_of_light_job())))
    assert first["cache"]["hit"] is False and first["roofline"]["ceilings"] is None
    assert "ran past its limit" in first["roofline"]["ceilings_unavailable"]
    assert kinds(pool) == ["speed_of_light", "device_ceilings"]  # the measurement ran in line, as a job

    served = final(list(jobs_runner.updates("speed_of_light", speed_of_light_job())))
    assert served["cache"]["hit"] is True
    assert served["roofline"]["ceilings"]["bandwidth_bytes_s"] == 8e9
    assert served["roofline"]["ceilings_unavailable"] is None
    assert kinds(pool) == ["speed_of_light", "device_ceilings", "device_ceilings"]
    kept = cache.get(cache.key(speed_of_light_job(), "device")).reply
    assert "roofline" not in kept and kept["programs"] == speed_of_light_reply()["programs"]

    again = final(list(jobs_runner.updates("speed_of_light", speed_of_light_job("jnp.ones(4)"))))
    assert again["roofline"]["ceilings"] == served["roofline"]["ceilings"]  # kept: measured no more
    assert kinds(pool) == ["speed_of_light", "device_ceilings", "device_ceilings", "speed_of_light"]


def test_a_first_measurement_waiting_in_line_is_shown_in_the_callers_stream():
    """The device's one worker is taken when the first reply comes: the ceilings' job waits in line, and the
    request it is measured for hears where it stands, then gets its reply placed under them."""
    held, behind = threading.Event(), threading.Event()
    pool = ScriptedPool(answers={"speed_of_light": [worker_reply(speed_of_light_reply())],
                                 "device_ceilings": [ceilings()]},
                        gates={"jnp.ones(3)": held, "jnp.ones(4)": behind})
    jobs_runner = runner(pool, cache=None)
    first: list[dict] = []
    reading = threading.Thread(target=lambda: first.extend(jobs_runner.updates("speed_of_light",
                                                                                speed_of_light_job())), daemon=True)
    reading.start()
    pool.wait_for_runs(1)
    second = jobs_runner.updates("speed_of_light", speed_of_light_job("jnp.ones(4)"))
    assert next(second)["phase"] == "queued"  # in line behind the first job
    held.set()  # the first job ends; the second takes the worker; the first reply's ceilings wait behind it
    pool.wait_for_runs(2)
    deadline = time.monotonic() + WAIT_S
    while not any(update.get("phase") == "queued" for update in first):  # list.extend appends as they come
        assert time.monotonic() < deadline, "the first request never heard that the ceilings' job waits in line"
        time.sleep(0.01)
    assert jobs_runner.status()["lines"]["device"]["waiting"] == 1
    behind.set()
    reading.join(WAIT_S)
    assert not reading.is_alive(), "the first request never got its reply"
    shown = [update["phase"] for update in first[:-1]]
    # the ceilings' job waiting (and running, if a poll came before its reply)
    assert shown[0] == "queued" and set(shown) <= {"queued", "running"}, first
    assert first[-1]["done"] is True and first[-1]["roofline"]["ceilings"]["peak_flops_s"] == 2e11
    assert final(list(second))["roofline"]["ceilings"] == first[-1]["roofline"]["ceilings"]
    assert kinds(pool) == ["speed_of_light", "speed_of_light", "device_ceilings"]


@pytest.mark.parametrize("reply", [error_dict("timeout", "ran past its limit"),
                                   error_dict("syntax", "SyntaxError", line=2)], ids=["timeout", "syntax"])
def test_a_failed_job_is_passed_on_untouched_and_measures_nothing(reply):
    pool = ScriptedPool(answers={"speed_of_light": [reply], "device_ceilings": [ceilings()]})
    got = final(list(runner(pool, cache=None).updates("speed_of_light", speed_of_light_job())))
    assert got == {**reply, "done": True}
    assert kinds(pool) == ["speed_of_light"]


def test_roofs_measured_again_on_a_busy_machine_stay_the_higher_ones():
    """A point beat the first roofs; measured again while other work slowed the machine, the roofs came out lower
    still. The roofs kept are the higher of the two, so no later reply (one from the cache among them) is judged
    against roofs lower than those it was first placed under."""
    run = FakeRun([measured(bandwidth=4e9, peak=1e11)], [measured(bandwidth=2e9, peak=5e10)])
    kept = DeviceCeilings()
    first = final(placed(kept, run))
    assert first["roofline"]["programs"][0]["above_roof"] == "highest"  # 5 GB/s over a 4 GB/s roof
    second = final(placed(kept, run))
    assert [values["again"] for _, values in run.asked] == [0, 1]
    assert second["roofline"]["ceilings"]["bandwidth_bytes_s"] == 4e9
    assert second["roofline"]["ceilings"]["peak_flops_s"] == 1e11


def test_a_faster_level_measured_below_a_slower_one_takes_its_roof_and_says_so():
    from playground.server.ui.roofline_views import ceilings_markdown

    l2 = {"name": "L2", "cache_bytes": 2 << 20, "stream_bytes": 1 << 20, "passes": 8, "bandwidth_bytes_s": 1.25e11,
          "run": timed(0.01)}
    l3 = {**l2, "name": "L3", "cache_bytes": 32 << 20, "stream_bytes": 8 << 20, "bandwidth_bytes_s": 1.31e11}
    reply = {**measured(), "levels": [l2, l3, measured()["levels"][0]]}
    got = final(placed(DeviceCeilings(), FakeRun([reply])))
    roofs = got["roofline"]["ceilings"]["levels"]
    assert [level["bandwidth_bytes_s"] for level in roofs] == [1.31e11, 1.31e11, 8e9]  # in level order
    assert roofs[0]["measured_bytes_s"] == 1.25e11
    said = ceilings_markdown(got["roofline"])
    assert "(measured 125 GB/s, below a slower level's roof" in said
    assert "gemessen 125 GB/s" in ceilings_markdown(got["roofline"], "de")
