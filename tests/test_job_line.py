"""playground.server.answering.line: first-come admission, places in line, and wait estimates from measured durations.

The estimates run on an injected fake clock, so every expected number is exact.
"""

from __future__ import annotations

import threading

import pytest

from playground.server.answering.line import JobLine, LineFull


class Clock:
    """A clock that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def measure(line: JobLine, clock: Clock, kind: str, seconds: float) -> None:
    """Run one ``kind`` job that takes ``seconds`` on the fake clock (the line must have a free worker)."""
    ticket = line.join(kind)
    assert line.wait_turn(ticket, 0)
    clock.advance(seconds)
    line.leave(ticket)


def test_admits_up_to_slots_first_come_first_served():
    """With 2 workers the first two jobs get one at once; the third waits until one of them leaves."""
    line = JobLine(slots=2, max_waiting=5)
    first, second, third = line.join("inspect"), line.join("inspect"), line.join("inspect")
    assert line.wait_turn(first, 0) and line.wait_turn(second, 0)
    assert not line.wait_turn(third, 0)
    assert line.place(first).position == line.place(second).position == 0
    assert line.place(third).position == 1
    line.leave(second)
    assert line.wait_turn(third, 0)
    assert line.place(third).position == 0


def test_positions_move_up_as_jobs_ahead_leave():
    """Waiting jobs are numbered 1, 2, 3 in the order they came, and each moves up by one when the job ahead ends."""
    line = JobLine(slots=1, max_waiting=5)
    running = line.join("inspect")
    waiting = [line.join("inspect") for _ in range(3)]
    assert [line.place(t).position for t in waiting] == [1, 2, 3]
    line.leave(running)
    assert [line.place(t).position for t in waiting] == [0, 1, 2]
    line.leave(waiting[0])
    assert [line.place(t).position for t in waiting[1:]] == [0, 1]


def test_leaving_while_waiting_frees_the_place_and_measures_nothing():
    """A job that gives up its place lets the ones behind it move up, makes room, and counts for no estimate."""
    clock = Clock()
    line = JobLine(slots=1, max_waiting=2, clock=clock)
    running = line.join("inspect")
    gives_up, behind = line.join("inspect"), line.join("inspect")
    with pytest.raises(LineFull):
        line.join("inspect")
    clock.advance(7.0)
    line.leave(gives_up)
    assert line.place(behind).position == 1
    assert line.status()["waiting"] == 1
    assert line.typical_s("inspect") is None  # the one that left had not run
    line.join("inspect")  # there is room again
    line.leave(running)
    assert line.wait_turn(behind, 0)


def test_line_full_says_how_many_wait_and_none_before_anything_was_measured():
    """A full line refuses at once with the number waiting, and no wait estimate while no job has ended."""
    line = JobLine(slots=1, max_waiting=2)
    line.join("inspect")
    line.join("inspect")
    line.join("inspect")
    with pytest.raises(LineFull) as full:
        line.join("inspect")
    assert full.value.waiting == 2
    assert full.value.wait_s is None
    assert line.status()["waiting"] == 2


def test_estimates_are_none_until_a_job_ended_then_come_from_its_duration():
    """Before any job ended the wait is unknown; after a 4 s job, one waiting behind a job 1 s in has 3 s to go."""
    clock = Clock()
    line = JobLine(slots=1, max_waiting=3, clock=clock)
    running = line.join("inspect")
    waiting = line.join("inspect")
    assert line.place(waiting).wait_s is None
    assert line.typical_s("inspect") is None
    clock.advance(4.0)
    line.leave(running)
    assert line.typical_s("inspect") == pytest.approx(4.0)

    assert line.wait_turn(waiting, 0)
    clock.advance(1.0)
    behind = line.join("inspect")
    assert line.place(behind).wait_s == pytest.approx(3.0)
    assert line.place(behind).to_dict() == {"position": 1, "running": 1, "workers": 1, "wait_s": 3.0}
    clock.advance(10.0)  # 11 s in, past its 4 s estimate: it is expected to need as long again
    assert line.place(behind).wait_s == pytest.approx(11.0)


def test_a_job_past_its_estimate_never_waits_past_its_wall_clock():
    """As long again as it ran, but no job outlives its wall clock: 11 s into a 15 s limit leaves 4 s."""
    clock = Clock()
    line = JobLine(slots=1, max_waiting=3, clock=clock, limit_s=lambda kind: 15.0)
    measure(line, clock, "inspect", 4.0)
    running = line.join("inspect")
    behind = line.join("inspect")
    clock.advance(11.0)
    assert line.place(behind).wait_s == pytest.approx(4.0)
    clock.advance(5.0)  # over its limit: the watchdog is killing it
    assert line.place(behind).wait_s == 0.0
    line.leave(running)


def test_moving_average_per_kind():
    """Each kind keeps its own moving average: 4 s then 8 s gives 4 + 0.3 * (8 - 4) = 5.2 s; other kinds unchanged."""
    clock = Clock()
    line = JobLine(slots=1, max_waiting=1, clock=clock)
    measure(line, clock, "inspect", 4.0)
    measure(line, clock, "vmap", 1.0)
    measure(line, clock, "inspect", 8.0)
    assert line.typical_s("inspect") == pytest.approx(5.2)
    assert line.typical_s("vmap") == pytest.approx(1.0)


def test_kind_never_measured_uses_the_average_of_measured_kinds():
    """A kind that never ran here is estimated as the mean of the kinds that did (2 s and 6 s: 4 s)."""
    clock = Clock()
    line = JobLine(slots=1, max_waiting=2, clock=clock)
    measure(line, clock, "inspect", 2.0)
    measure(line, clock, "vmap", 6.0)
    assert line.typical_s("shard") == pytest.approx(4.0)
    running = line.join("shard")
    waiting = line.join("inspect")
    assert line.wait_turn(running, 0)
    assert line.place(waiting).wait_s == pytest.approx(4.0)


def test_list_scheduling_over_two_workers():
    """Each job ahead takes the first worker free.

    Kind a takes 3 s and kind b 5 s. One a and one b run, 1 s in (free at 2 s and 4 s); waiting: a, a, b.
    The first a starts at 2 s (ends 5); the second a at 4 s (ends 7); b at 5 s (ends 10); a new job would
    start at 7 s, which is what a full line reports.
    """
    clock = Clock()
    line = JobLine(slots=2, max_waiting=3, clock=clock)
    a, b = line.join("a"), line.join("b")
    clock.advance(3.0)
    line.leave(a)
    clock.advance(2.0)
    line.leave(b)
    assert (line.typical_s("a"), line.typical_s("b")) == (pytest.approx(3.0), pytest.approx(5.0))

    line.join("a")
    line.join("b")
    clock.advance(1.0)
    waiting = [line.join("a"), line.join("a"), line.join("b")]
    assert [line.place(t).wait_s for t in waiting] == [pytest.approx(2.0), pytest.approx(4.0), pytest.approx(5.0)]
    with pytest.raises(LineFull) as full:
        line.join("a")
    assert full.value.waiting == 3
    assert full.value.wait_s == pytest.approx(7.0)


def test_a_free_worker_means_no_wait():
    """With a worker idle, a job is estimated to start at once even when the running kind was never measured."""
    line = JobLine(slots=2, max_waiting=1)
    ticket = line.join("inspect")
    assert line.place(ticket).wait_s == 0.0
    assert line.place(ticket).to_dict() == {"position": 0, "running": 1, "workers": 2, "wait_s": 0.0}


def test_wait_turn_times_out_keeping_the_place_then_wakes_when_admitted():
    """``wait_turn`` gives False after its timeout (the job still waits, first in line) and True once it has a
    worker: a thread waiting on it wakes when the job ahead leaves, long before its own timeout."""
    line = JobLine(slots=1, max_waiting=1)
    running = line.join("inspect")
    waiting = line.join("inspect")
    assert line.wait_turn(waiting, 0.01) is False
    assert line.place(waiting).position == 1

    results: list[bool] = []
    waiter = threading.Thread(target=lambda: results.append(line.wait_turn(waiting, 5.0)))
    waiter.start()
    line.leave(running)
    waiter.join(timeout=2.0)
    assert not waiter.is_alive(), "wait_turn did not wake when the job ahead left"
    assert results == [True]


def test_status_reports_workers_running_waiting_and_typical_durations():
    """``status()`` has the workers, the jobs running and waiting, the line's room and each kind's average."""
    clock = Clock()
    line = JobLine(slots=2, max_waiting=4, clock=clock)
    assert line.status() == {"workers": 2, "running": 0, "waiting": 0, "max_waiting": 4, "typical_s": {}}
    measure(line, clock, "vmap", 1.23456)
    measure(line, clock, "inspect", 0.5)
    for _ in range(3):
        line.join("inspect")
    assert line.status() == {"workers": 2, "running": 2, "waiting": 1, "max_waiting": 4,
                             "typical_s": {"inspect": 0.5, "vmap": 1.235}}
    assert list(line.status()["typical_s"]) == ["inspect", "vmap"]
