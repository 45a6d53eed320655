"""Size parsing and the medians / speed-up tables of the timing tabs."""

from __future__ import annotations

import pytest

from playground.server.ui.timing_views import parse_sizes, seconds, times_table


def test_parse_sizes():
    assert parse_sizes("1, 10 100", "sizes") == [1, 10, 100]
    with pytest.raises(ValueError, match="`sizes` must be whole numbers"):
        parse_sizes("ten", "sizes")
    with pytest.raises(ValueError, match="`batch_sizes` is empty: give at least one whole number"):
        parse_sizes(" ", "batch_sizes")


@pytest.mark.parametrize(("value", "text"), [(None, "—"), (2.5, "2.5 s"), (0.0123, "12.3 ms"), (4.56e-5, "45.6 µs"),
                                             (7e-9, "7 ns")])
def test_seconds(value, text):
    assert seconds(value) == text


def test_times_table_has_speedups_over_the_baseline():
    table = times_table("n", [10, 100], {"NumPy": [1e-3, 1e-2], "jit": [1e-4, None]}, baseline="NumPy")
    lines = table.splitlines()
    assert lines[0] == "| n | NumPy | jit | jit vs NumPy |"
    assert lines[2] == "| 10 | 1\N{NO-BREAK SPACE}ms | 100\N{NO-BREAK SPACE}µs | 10× |"  # never split in a cell
    assert lines[3] == "| 100 | 10\N{NO-BREAK SPACE}ms | — | — |"


def test_small_speedups_keep_two_significant_figures():
    table = times_table("n", [100], {"NumPy": [5.29e-6], "eager JAX": [1.16e-4]}, baseline="NumPy")
    assert table.splitlines()[2].endswith("| 0.046× |")


def test_big_speed_ups_are_written_as_people_write_them():
    table = times_table("n", [10, 1000], {"eager": [1.63e-2, 2.0], "jit": [1e-4, 1e-3]}, "eager")
    assert "| 163× |" in table and "| 2,000× |" in table
    assert "e+0" not in table
