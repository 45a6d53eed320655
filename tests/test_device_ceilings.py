"""playground.server.device_ceilings: the device's ceilings measured once per dtype, kept, and put under each
speed_of_light reply. The measurement job is a fake ``run`` here (no JAX, no worker): what it was asked, and what
it answers, are the test's."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator

import pytest

from playground.jobs.speed_of_light import MEASURED_AGAIN
from playground.server import roofline
from playground.server.device_ceilings import KIND, DeviceCeilings

WAIT_S = 60.0  # the longest a thread of these tests may take for what is microseconds of work
QUEUED = {"ok": True, "done": False, "phase": "queued", "queue": {"position": 1, "running": 1, "workers": 1,
                                                                  "wait_s": 2.0}, "shared": False}
RUNNING = {"ok": True, "done": False, "phase": "running", "queue": {"position": 0, "running": 1, "workers": 1,
                                                                    "wait_s": 0.0}, "shared": False}


def measured(dtype: str = "float32", device: str = "cpu", bandwidth: float = 8e9, peak: float = 2e11) -> dict:
    """A device_ceilings job's final update, as the job runner hands it over (``done``, ``cache``)."""
    run = {"min_s": 0.01, "median_s": 0.01, "iqr_s": 0.0, "q1_s": 0.01, "q3_s": 0.01, "runs": 5}
    return {"ok": True, "done": True, "cache": None, "device": device, "dtype": dtype, "bandwidth_bytes_s": bandwidth,
            "stream_bytes": 1 << 28, "bandwidth_run": run, "peak_flops_s": peak, "matmul_n": 2048,
            "matmul_run": run}


def speed_of_light_updates(dtype: str = "float32", device: str = "cpu") -> list[dict]:
    """A speed_of_light job's updates: its place in line, then its reply (one program, memory-bound)."""
    program = {"label": "as written", "cost": {"flops": 1.6e7, "bytes_accessed": 3.2e7, "unavailable": {}},
               "run": {"median_s": 0.0064}}
    return [dict(QUEUED), {"ok": True, "done": True, "cache": None, "function": "f", "device": device,
                           "dtype": dtype, "programs": [program], "kernels": {"events": []}}]


class FakeRun:
    """Stands in for ``PlaygroundAPI.updates``: records each (kind, values) asked, answers with the next script
    (a list of updates; the last script again once they run out)."""

    def __init__(self, *scripts: list[dict]) -> None:
        self.scripts = list(scripts)
        self.asked: list[tuple[str, dict]] = []
        self._lock = threading.Lock()

    def __call__(self, kind: str, values: dict) -> Iterator[dict]:
        with self._lock:
            self.asked.append((kind, dict(values)))
            script = self.scripts[min(len(self.asked), len(self.scripts)) - 1]
        yield from (dict(update) for update in script)


def final(updates: Iterator[dict]) -> dict:
    got = list(updates)
    assert got and got[-1]["done"] is True, got
    return got[-1]


def test_the_ceilings_are_measured_once_per_dtype_and_kept():
    run = FakeRun([measured("float32")], [measured("bfloat16", peak=4e11)])
    ceilings = DeviceCeilings(run)

    first = final(ceilings.on_the_roofline(iter(speed_of_light_updates("float32"))))
    second = final(ceilings.on_the_roofline(iter(speed_of_light_updates("float32"))))
    assert run.asked == [(KIND, {"dtype": "float32", "again": 0})]  # the second reply found them kept
    assert first["roofline"] == second["roofline"]
    assert first["roofline"]["ceilings"]["peak_flops_s"] == 2e11

    other = final(ceilings.on_the_roofline(iter(speed_of_light_updates("bfloat16"))))
    assert run.asked == [(KIND, {"dtype": "float32", "again": 0}), (KIND, {"dtype": "bfloat16", "again": 0})]
    assert other["roofline"]["ceilings"]["dtype"] == "bfloat16"
    assert other["roofline"]["ceilings"]["peak_flops_s"] == 4e11
    final(ceilings.on_the_roofline(iter(speed_of_light_updates("bfloat16"))))
    final(ceilings.on_the_roofline(iter(speed_of_light_updates("float32"))))
    assert len(run.asked) == 2


def test_the_reply_is_placed_under_the_kept_ceilings():
    run = FakeRun([measured()])
    reply = final(DeviceCeilings(run).on_the_roofline(iter(speed_of_light_updates())))
    kept = {key: value for key, value in measured().items() if key not in ("done", "cache")}
    assert reply["roofline"] == roofline.place(reply, kept, None)
    assert reply["roofline"]["ceilings"]["ridge"] == pytest.approx(2e11 / 8e9)
    assert reply["roofline"]["ceilings_unavailable"] is None
    program = reply["roofline"]["programs"][0]
    assert program["bound"] == "memory" and program["achieved_bytes_s"] == pytest.approx(5e9)
    assert program["verdict"].startswith("memory-bound"), program["verdict"]
    # the reply's own fields are all still there
    assert {key: reply[key] for key in speed_of_light_updates()[-1]} == speed_of_light_updates()[-1]


def test_roofs_a_point_beat_are_measured_again_for_the_next_reply_a_few_times_at_most():
    """Measured while other work slowed the machine, the roofs were below a program's 5 GB/s: that reply says why
    (no share), and the next request has them measured again (``again``: 1), once they hold, kept again."""
    run = FakeRun([measured(bandwidth=1e9)], [measured(bandwidth=8e9)])
    ceilings = DeviceCeilings(run)
    beaten = final(ceilings.on_the_roofline(iter(speed_of_light_updates())))
    assert beaten["roofline"]["programs"][0]["above_roof"] == "highest"
    assert "That cannot be" in beaten["roofline"]["programs"][0]["verdict"]
    held = final(ceilings.on_the_roofline(iter(speed_of_light_updates())))
    assert held["roofline"]["programs"][0]["above_roof"] is None and held["roofline"]["programs"][0]["fraction"] < 1
    final(ceilings.on_the_roofline(iter(speed_of_light_updates())))
    assert run.asked == [(KIND, {"dtype": "float32", "again": 0}), (KIND, {"dtype": "float32", "again": 1})]
    always_beaten = FakeRun([measured(bandwidth=1e9)])
    stubborn = DeviceCeilings(always_beaten)
    for _ in range(MEASURED_AGAIN + 3):
        final(stubborn.on_the_roofline(iter(speed_of_light_updates())))
    assert [values["again"] for _, values in always_beaten.asked] == list(range(MEASURED_AGAIN + 1))


def test_the_measurements_progress_is_passed_through_in_order():
    run = FakeRun([dict(QUEUED), dict(RUNNING), measured()])
    got = list(DeviceCeilings(run).on_the_roofline(iter(speed_of_light_updates())))
    # the job's own place in line, then the measurement's progress, then the job's reply with its roofline
    assert got[:3] == [QUEUED, QUEUED, RUNNING]
    assert len(got) == 4 and got[3]["done"] is True and got[3]["roofline"]["ceilings"] is not None


def test_a_kept_measurement_shows_no_progress():
    run = FakeRun([dict(QUEUED), dict(RUNNING), measured()])
    ceilings = DeviceCeilings(run)
    final(ceilings.on_the_roofline(iter(speed_of_light_updates())))
    got = list(ceilings.on_the_roofline(iter(speed_of_light_updates())))
    assert [update["done"] for update in got] == [False, True]  # the job's own place in line, its reply
    assert len(run.asked) == 1


def test_a_failed_measurement_is_said_and_not_kept():
    failed = {"ok": False, "done": True, "error": {"kind": "timeout", "message": "The job ran past its 60 s limit.",
                                                  "line": None}}
    run = FakeRun([dict(QUEUED), failed], [measured()])
    ceilings = DeviceCeilings(run)

    reply = final(ceilings.on_the_roofline(iter(speed_of_light_updates())))
    assert reply["ok"] is True  # the job's own reply stands; only its roofline lacks the ceilings
    assert reply["roofline"]["ceilings"] is None
    why = reply["roofline"]["ceilings_unavailable"]
    assert "measuring this machine's ceilings failed" in why and "ran past its 60 s limit" in why, why
    program = reply["roofline"]["programs"][0]
    assert program["bound"] is None and program["fraction"] is None
    assert program["achieved_bytes_s"] == pytest.approx(5e9)  # the point is there, only not under a ceiling

    again = final(ceilings.on_the_roofline(iter(speed_of_light_updates())))  # the next request tries again
    assert len(run.asked) == 2
    assert again["roofline"]["ceilings"]["bandwidth_bytes_s"] == 8e9
    assert again["roofline"]["ceilings_unavailable"] is None


def test_a_measurement_without_a_final_reply_is_said_and_not_kept():
    run = FakeRun([dict(RUNNING)], [measured()])
    ceilings = DeviceCeilings(run)
    reply = final(ceilings.on_the_roofline(iter(speed_of_light_updates())))
    assert reply["roofline"]["ceilings"] is None
    assert "no reply" in reply["roofline"]["ceilings_unavailable"]
    assert final(ceilings.on_the_roofline(iter(speed_of_light_updates())))["roofline"]["ceilings"] is not None
    assert len(run.asked) == 2


def test_ceilings_of_another_device_are_not_used():
    run = FakeRun([measured(device="cpu")])
    ceilings = DeviceCeilings(run)
    reply = final(ceilings.on_the_roofline(iter(speed_of_light_updates(device="cuda:0 NVIDIA H100 80GB HBM3"))))
    assert reply["roofline"]["ceilings"] is None
    why = reply["roofline"]["ceilings_unavailable"]
    assert "measured on cpu" in why and "ran on cuda:0 NVIDIA H100 80GB HBM3" in why, why
    assert reply["roofline"]["programs"][0]["bound"] is None
    # the measurement itself is kept: a reply from the measured device is placed without measuring again
    same = final(ceilings.on_the_roofline(iter(speed_of_light_updates(device="cpu"))))
    assert same["roofline"]["ceilings"]["device"] == "cpu" and same["roofline"]["ceilings_unavailable"] is None
    assert len(run.asked) == 1


@pytest.mark.parametrize("reply", [
    {"ok": False, "done": True, "error": {"kind": "timeout", "message": "ran past its limit", "line": None}},
    {"ok": False, "done": True, "error": {"kind": "syntax", "message": "SyntaxError", "line": 2}},
], ids=["timeout", "syntax"])
def test_a_failed_job_is_passed_on_untouched_and_measures_nothing(reply):
    run = FakeRun([measured()])
    got = list(DeviceCeilings(run).on_the_roofline(iter([dict(QUEUED), dict(reply)])))
    assert got == [QUEUED, reply]
    assert run.asked == []


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
    ceilings = DeviceCeilings(run)
    replies: dict[str, list[dict]] = {}

    def ask(name: str) -> None:
        replies[name] = list(ceilings.on_the_roofline(iter(speed_of_light_updates())))

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
