"""The race (server/training/race_stream.py): both sides followed at once, their curves on one clock, then compared.

The merge and the comparison are tested with scripted streams; a real race, on an owner of two simulated CPU devices
standing in for the host's CPU and its accelerator, in test_race_owner.py.
"""

from __future__ import annotations

import itertools
import threading

import pytest

from playground.messages import render
from playground.server.training import race_stream

NAMES = {"cpu": "CPU", "device": "TPU"}


def side(name: str, chunks: int, median: float | None, reached_s: float | None) -> list[dict]:
    """A side's updates: compiling, ``chunks`` training updates of 3 steps' losses each, and its last update with
    the run record's figures (the service's: run_record.py)."""
    updates = [{"phase": "compiling", "device": name, "loss": None, "losses": [], "done": False}]
    for i in range(chunks):
        updates.append({"phase": "training", "device": name, "loss": 2.0 / (i + 1), "losses": [2.1, 2.0, 1.9],
                        "first_loss_step": 3 * i + 1, "done": False})
    return [*updates, {"phase": "finished", "device": name, "losses": [], "done": True, "stopped": False,
                       "median_samples_per_s": median, "time_to_target_s": reached_s}]


def test_both_sides_are_followed_to_their_ends_and_compared():
    stop = threading.Event()
    updates = list(race_stream.follow({"cpu": iter(side("CPU", 3, 200.0, 41.5)),
                                       "device": iter(side("TPU", 2, 6000.0, 3.1))},
                                      NAMES, stop))
    final = updates[-1]
    assert final["done"] and final["phase"] == "finished" and not stop.is_set()
    assert [u["done"] for u in updates[:-1]] == [False] * (len(updates) - 1)
    assert len(final["cpu"]["history"]) == 9 and len(final["device"]["history"]) == 6  # every step's loss
    assert all(a[0] <= b[0] for a, b in itertools.pairwise(final["cpu"]["history"]))  # one clock
    comparison = final["comparison"]
    assert comparison["cpu"]["samples_per_s"] == 200.0 and comparison["device"]["samples_per_s"] == 6000.0
    assert comparison["speedup"] == pytest.approx(30.0)
    assert (comparison["cpu"]["to_target_s"], comparison["device"]["to_target_s"]) == (41.5, 3.1)
    assert comparison["message"] == ("TPU trained 30× faster than this host's CPU: 6,000 against 200 samples/s. "
                                     "97 % test accuracy: TPU after 3.1 s, the CPU after 41.5 s.")


def test_a_side_that_never_reaches_the_target_says_so():
    updates = list(race_stream.follow({"cpu": iter(side("CPU", 1, 100.0, None)),
                                       "device": iter(side("TPU", 1, 900.0, 2.0))},
                                      NAMES, threading.Event()))
    comparison = updates[-1]["comparison"]
    assert comparison["cpu"]["to_target_s"] is None
    assert "the CPU not in this run" in comparison["message"] and "9.0× faster" in comparison["message"]


def test_a_side_too_brief_to_measure_gives_no_ratio():
    updates = list(race_stream.follow({"cpu": iter(side("CPU", 0, None, None)),
                                       "device": iter(side("TPU", 1, 10.0, None))},
                                      NAMES, threading.Event()))
    comparison = updates[-1]["comparison"]
    assert comparison["speedup"] is None and comparison["message_words"] == ["race.unmeasured", {}]


def test_a_failing_side_stops_the_other_and_raises():
    stop = threading.Event()
    other_ended = threading.Event()

    def failing():
        yield {"phase": "compiling", "done": False}
        raise RuntimeError("the owner ended")

    def patient():
        yield {"phase": "compiling", "done": False}
        stop.wait(60)  # a real side ends once the race's stop is set
        other_ended.set()

    with pytest.raises(RuntimeError, match="the owner ended"):
        list(race_stream.follow({"cpu": failing(), "device": patient()}, NAMES, stop))
    assert stop.is_set() and other_ended.wait(60)


def test_a_consumer_that_goes_away_stops_both_sides():
    stop = threading.Event()

    def endless():
        while not stop.is_set():
            yield {"phase": "training", "loss": 1.0, "samples_per_s": 1.0, "done": False}
            stop.wait(0.01)

    followed = race_stream.follow({"cpu": endless(), "device": endless()}, NAMES, stop)
    next(followed)
    followed.close()
    assert stop.is_set()


def test_the_comparison_is_written_in_the_readers_language():
    sides = {"cpu": {"name": "CPU", "samples_per_s": 51426.5, "to_target_s": 12.25},
             "device": {"name": "TPU", "samples_per_s": 2_200_000.0, "to_target_s": 1.5}}
    german = render([race_stream.said(sides, 42.78, "de")], "de")
    assert "43× schneller" in german and "2.200.000 gegen 51.426" in german and "nach 12,2 s" in german
    assert "倍" in render([race_stream.said(sides, 42.78, "zh")], "zh")


def test_a_long_race_keeps_its_history_light():
    updates = list(race_stream.follow({"cpu": iter(side("CPU", race_stream.MAX_POINTS, 1.0, None)),
                                "device": iter(side("TPU", 1, 2.0, None))}, NAMES, threading.Event()))
    assert race_stream.MAX_POINTS // 2 <= len(updates[-1]["cpu"]["history"]) <= race_stream.MAX_POINTS


def test_a_slower_device_is_said_to_be_slower():
    sides = {"cpu": {"name": "CPU", "samples_per_s": 300.0, "to_target_s": None},
             "device": {"name": "CPU 1", "samples_per_s": 100.0, "to_target_s": None}}
    assert render([race_stream.said(sides, 1 / 3, "en")]).startswith("CPU 1 trained 3.0× slower than this host's CPU")


def test_a_race_on_a_test_sets_part_is_timed_to_its_own_target():
    """Both sides train on the classroom's test-set split: the record's target (95 %) is the sentence's."""
    sides = {name: [*updates[:-1], {**updates[-1], "target_accuracy": 0.95}]
             for name, updates in (("cpu", side("CPU", 1, 100.0, 30.0)), ("device", side("TPU", 1, 900.0, 2.0)))}
    comparison = list(race_stream.follow({name: iter(updates) for name, updates in sides.items()}, NAMES,
                                  threading.Event()))[-1]["comparison"]
    assert comparison["target_accuracy"] == 0.95 and "95 % test accuracy: TPU after 2.0 s" in comparison["message"]
    german = render([race_stream.said(comparison, comparison["speedup"], "de")], "de")
    assert "95 % Testgenauigkeit" in german
