"""Size parsing and the medians / speed-up tables of the timing tabs, in each language."""

from __future__ import annotations

import pytest

from playground.server.ui.timing_views import parse_sizes, times_table

NBSP = "\N{NO-BREAK SPACE}"


def test_parse_sizes():
    assert parse_sizes("1, 10 100", "sizes") == [1, 10, 100]
    with pytest.raises(ValueError, match="`sizes` must be whole numbers"):
        parse_sizes("ten", "sizes")
    with pytest.raises(ValueError, match="`batch_sizes` is empty: give at least one whole number"):
        parse_sizes(" ", "batch_sizes")


def test_times_table_has_speedups_over_the_baseline():
    table = times_table("n", [10, 100], {"NumPy": [1e-3, 1e-2], "jit": [1e-4, None]}, baseline="NumPy")
    lines = table.splitlines()
    assert lines[0] == "| n | NumPy | jit | jit vs NumPy |"
    assert lines[2] == f"| 10 | 1{NBSP}ms | 100{NBSP}µs | 10× |"  # never split in a cell
    assert lines[3] == f"| 100 | 10{NBSP}ms | — | — |"


def test_small_speedups_keep_two_significant_figures():
    table = times_table("n", [100], {"NumPy": [5.29e-6], "eager JAX": [1.16e-4]}, baseline="NumPy")
    assert table.splitlines()[2].endswith("| 0.046× |")


def test_big_speed_ups_are_written_as_people_write_them():
    table = times_table("n", [10, 1000], {"eager": [1.63e-2, 2.0], "jit": [1e-4, 1e-3]}, "eager")
    assert "| 163× |" in table and "| 2,000× |" in table
    assert "e+0" not in table


@pytest.mark.parametrize(("language", "head", "row"), [
    ("de", "| n | NumPy | jit | jit gegen NumPy |", f"| 3.000 | 5,54{NBSP}ms | 9,01{NBSP}µs | 615× |"),
    ("zh", "| n | NumPy | jit | jit 相对 NumPy |", f"| 3,000 | 5.54{NBSP}ms | 9.01{NBSP}µs | 615× |"),
])
def test_the_table_writes_its_numbers_and_heads_in_the_readers_language(language, head, row):
    table = times_table("n", [3000], {"NumPy": [5.54e-3], "jit": [9.01e-6]}, "NumPy", language).splitlines()
    assert table[0] == head
    assert table[2] == row


def test_a_german_ratio_groups_its_thousands_with_a_point_and_a_small_one_has_a_decimal_comma():
    table = times_table("n", [10, 100], {"NumPy": [5.537, 4.1e-6], "jit": [1e-3, 1e-5]}, "NumPy", "de")
    assert "| 5.537× |" in table and "| 0,41× |" in table
