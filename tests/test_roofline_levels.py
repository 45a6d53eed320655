"""The hierarchical roofline with stand-in measurements (no clock): each program under the roof of the level its
working set lives in, every point made at or under its roof placed at or under it, and a point above a roof given
the reason instead of a share over 100 % (playground/server/roofline.py); the comparison of the two versions
(playground/server/comparison.py) and how the tab says it."""

from __future__ import annotations

import itertools

import pytest

from playground import messages
from playground.server import roofline as rl
from playground.server.comparison import compared
from playground.server.ui import roofline_views

LANGUAGES = ("en", "de", "zh")
LEVELS = [{"name": "L1", "cache_bytes": 48 << 10, "stream_bytes": 24 << 10, "passes": 2730,
           "bandwidth_bytes_s": 2.0e11},
          {"name": "L2", "cache_bytes": 2 << 20, "stream_bytes": 192 << 10, "passes": 341, "bandwidth_bytes_s": 8.0e10},
          {"name": "L3", "cache_bytes": 32 << 20, "stream_bytes": 8 << 20, "passes": 8, "bandwidth_bytes_s": 4.0e10},
          {"name": "memory", "cache_bytes": None, "stream_bytes": 64 << 20, "passes": 1, "bandwidth_bytes_s": 1.0e10}]
CEILINGS = {"device": "cpu", "platform": "cpu", "dtype": "float32", "levels": LEVELS, "bandwidth_bytes_s": 1.0e10,
            "stream_bytes": 64 << 20, "peak_flops_s": 1.0e11, "matmul_n": 1024}


def program(held: float, moved: float, flops: float, seconds: float, label: str = "as written") -> dict:
    """A program holding ``held`` bytes (arguments and outputs), moving ``moved`` and computing ``flops`` in
    ``seconds``, as a speed_of_light reply has it."""
    return {"label": label, "cost": {"flops": flops, "bytes_accessed": moved, "unavailable": {}},
            "memory": {"argument_bytes": held / 2, "output_bytes": held / 2, "temp_bytes": 0, "alias_bytes": 0},
            "run": {"median_s": seconds, "iqr_s": seconds / 20, "runs": 9}}


def at_most_the_roof(held: float, moved: float, flops: float, slower: float) -> dict:
    """A program that took ``slower`` (>= 1) times the least its level's roof and the peak allow."""
    roof = rl.level_of(held, LEVELS)["bandwidth_bytes_s"]
    return program(held, moved, flops, slower * max(moved / roof, flops / CEILINGS["peak_flops_s"]))


@pytest.mark.parametrize("held, expected", [(24 << 10, "L1"), (40 << 10, "L2"), (1 << 20, "L2"), (16 << 20, "L3"),
                                            (30 << 20, "memory"), (1 << 34, "memory")])
def test_a_program_is_placed_under_the_smallest_level_it_fills_at_most_half_of(held, expected):
    placed = rl.place_program(at_most_the_roof(held, held, held / 8, 1.5), CEILINGS)
    assert (placed["working_set"], placed["level"]) == (held, expected)
    level = next(level for level in LEVELS if level["name"] == expected)
    assert placed["roof_bytes_s"] == level["bandwidth_bytes_s"]
    assert placed["ridge"] == CEILINGS["peak_flops_s"] / level["bandwidth_bytes_s"]


def test_every_point_made_at_or_under_its_roof_is_placed_at_or_under_it():
    sizes = [16 << 10, 1 << 20, 16 << 20, 1 << 30]
    intensities = [0.05, 0.5, 1.0, 2.5, 10.0, 100.0]
    for held, intensity, slower in itertools.product(sizes, intensities, (1.0, 1.3, 7.0)):
        placed = rl.place_program(at_most_the_roof(held, 2 * held, 2 * held * intensity, slower), CEILINGS)
        assert placed["above_roof"] is None and 0 < placed["fraction"] <= 1.0, placed
        assert placed["fraction"] == pytest.approx(1 / slower)
        # The bound is the lower roof at the point's intensity: the level's bandwidth left of its ridge.
        assert placed["bound"] == ("memory" if intensity < placed["ridge"] else "compute")
        for language in LANGUAGES:
            said = rl.verdict(placed, CEILINGS, language)
            assert messages.number(round(100 / slower), language) in said or slower == 1.3


def test_a_point_above_its_levels_roof_but_under_a_faster_one_says_so_without_a_share():
    held = 16 << 20  # in L3 (40 GB/s), measured at 60 GB/s: under L2's 80
    placed = rl.place_program(program(held, held, held / 8, held / 6.0e10), CEILINGS)
    assert (placed["level"], placed["bound"], placed["fraction"], placed["above_roof"]) == \
           ("L3", "memory", None, "level")
    said = rl.verdict(placed, CEILINGS, "en")
    assert "above the roof of the L3 cache" in said and "under the roof of the L1 cache" in said
    assert "%" not in said and "150" not in said
    for language in LANGUAGES:
        assert "%" not in rl.verdict(placed, CEILINGS, language)


def test_a_point_above_every_roof_gets_the_reason_never_a_share_over_100_percent():
    """A memory roof measured while other work slowed the machine, 4.9 GB/s, under a program's 33.6 GB/s: 686 %."""
    stale = {**CEILINGS, "levels": [{**LEVELS[-1], "bandwidth_bytes_s": 4.9e9}], "bandwidth_bytes_s": 4.9e9}
    held = 32e6
    placed = rl.place_program(program(held, held, 16e6, held / 33.6e9), stale)
    assert (placed["fraction"], placed["above_roof"]) == (None, "highest")
    for language in LANGUAGES:
        said = rl.verdict(placed, stale, language)
        assert "%" not in said and "686" not in said and "6.86" not in said
    assert "A roof bounds what runs under it" in rl.verdict(placed, stale, "en")
    compute = rl.place_program(program(1 << 20, 1 << 20, 1e12, 1.0), CEILINGS)  # 1 TFLOP/s over a 100 GFLOP/s peak
    assert (compute["bound"], compute["fraction"], compute["above_roof"]) == ("compute", None, "highest")
    assert "%" not in rl.verdict(compute, CEILINGS, "en")


def test_a_point_within_a_timings_noise_of_its_roof_is_at_it():
    held = 1 << 30
    placed = rl.place_program(program(held, held, held / 8, held / (1.01 * 1.0e10)), CEILINGS)
    assert (placed["fraction"], placed["above_roof"]) == (1.0, None)


def test_a_kernel_is_placed_by_the_bytes_it_moves():
    events = [{"name": "fusion", "call": 0, "duration_s": 1e-5, "bytes": 20_000.0, "flops": 2_000.0, "line": 2}]
    [kernel] = rl.place_kernels(events, CEILINGS)
    assert (kernel["working_set"], kernel["level"], kernel["above_roof"]) == (20_000.0, "L1", None)


def test_ceilings_from_before_the_levels_have_memorys_roof_alone():
    old = {key: value for key, value in CEILINGS.items() if key != "levels"}
    assert [level["name"] for level in rl.shown(old)["levels"]] == ["memory"]
    assert rl.place_program(program(1 << 10, 1 << 10, 64, 1.0), old)["level"] == "memory"


def test_each_roof_says_in_one_line_how_it_was_measured_in_every_language():
    placed = {"ceilings": rl.shown(CEILINGS)}
    for language in LANGUAGES:
        said = roofline_views.ceilings_markdown(placed, language)
        bullets = [line for line in said.splitlines() if line.startswith("- ")]
        assert len(bullets) == len(LEVELS) + 1, said  # a line per level and the compute roof
        for level, line in zip(LEVELS, bullets, strict=False):
            assert rl.amount(level["bandwidth_bytes_s"], "B/s", language) in line
        assert "`v * -1`" in said or language != "en"
    tpu = {"ceilings": rl.shown({**CEILINGS, "platform": "tpu", "levels": LEVELS[-1:]})}
    assert "bfloat16 passes" in roofline_views.ceilings_markdown(tpu, "en")
    assert "bfloat16" not in roofline_views.ceilings_markdown(placed, "en")


# -- the comparison ----------------------------------------------------------------------------------------------


def run(median: float, iqr: float, runs: int = 12) -> dict:
    return {"median_s": median, "iqr_s": iqr, "runs": runs}


@pytest.mark.parametrize("first, second, faster", [
    (run(0.010, 0.001), run(0.020, 0.001), 0),
    (run(0.020, 0.001), run(0.010, 0.001), 1),
    (run(0.010, 0.004), run(0.013, 0.001), None),  # the spread is larger than the difference
    (run(0.010, 0.001), run(0.011, 0.001), None),  # equal to it: no verdict either
    (run(0.066, 0.050), run(0.007, 0.001), 1),  # 66 against 7 ms, with a spread that allows it
])
def test_a_verdict_only_where_the_difference_is_larger_than_the_spread(first, second, faster):
    found = compared([first, second], 0)
    assert found["faster"] == faster and found["busy"] is False
    assert found["difference_s"] == pytest.approx(abs(first["median_s"] - second["median_s"]))
    assert found["spread_s"] == max(first["iqr_s"], second["iqr_s"])


@pytest.mark.parametrize("language", LANGUAGES)
def test_too_close_to_call_names_a_busy_machine(language):
    close = compared([run(0.010, 0.004), run(0.013, 0.001)], 2)
    said = roofline_views.comparison_markdown(close, ["as written", "fusion off"], language)
    assert messages.say("sol.compare.busy", language) in said
    assert {"en": "too close to call on this machine right now", "de": "gerade nicht zu entscheiden",
            "zh": "难分高下"}[language] in said
    quiet = roofline_views.comparison_markdown(compared([run(0.010, 0.004), run(0.013, 0.001)], 0),
                                            ["as written", "fusion off"], language)
    assert messages.say("sol.compare.busy", language) not in quiet


def test_a_told_apart_comparison_names_the_faster_version_and_the_calls():
    said = roofline_views.comparison_markdown(compared([run(0.020, 0.001), run(0.010, 0.001)], 0),
                                           ["as written", "fusion off"])
    assert said.startswith("**fusion off** was 2.00× as fast as **as written**") and "12 calls each" in said


def test_the_roofline_of_a_reply_carries_its_comparison():
    reply = {"programs": [program(1 << 20, 1 << 20, 1e6, 0.01), program(1 << 20, 2 << 20, 1e6, 0.03, "fusion off")],
             "kernels": {"events": []}, "others_meanwhile": 1}
    placed = rl.place(reply, CEILINGS, None)
    assert placed["comparison"]["faster"] == 0 and placed["comparison"]["busy"] is True
    assert "This machine was busy" in roofline_views.verdict_markdown(placed)


def test_a_point_near_the_ridge_says_both_roofs_are_close():
    """A TPU v5e's case: a float32 matmul (bfloat16 passes) whose intensity lies near its ridge is not called
    plainly memory-bound: the verdict says the two roofs are close there."""
    tpu = {"device": "TPU v5 lite", "platform": "tpu", "dtype": "float32", "bandwidth_bytes_s": 5.45e11,
           "stream_bytes": 1 << 30, "peak_flops_s": 1.71e14, "matmul_n": 8192,
           "levels": [{"name": "memory", "cache_bytes": None, "stream_bytes": 1 << 30, "passes": 1,
                       "bandwidth_bytes_s": 5.45e11}]}
    flops, moved = 2 * 2048**3, 83e6  # XLA's bytes with the bfloat16 copies: intensity 207, the ridge 314
    near = rl.place_program(program(50e6, moved, flops, flops / 28e12), tpu)
    assert near["bound"] == "memory" and near["near_ridge"] is True and near["fraction"] <= 1
    for language in LANGUAGES:
        note = messages.say("sol.near_ridge", language, intensity=messages.number(near["intensity"], language, 1),
                            ridge=messages.number(near["ridge"], language, 1))
        assert rl.verdict(near, tpu, language).endswith(note)
    far = rl.place_program(program(50e6, 50e6, 5e6, 1e-3), tpu)
    assert far["near_ridge"] is False and "ridge" not in rl.verdict(far, tpu, "en")
