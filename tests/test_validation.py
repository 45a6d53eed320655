"""API argument checks: each names the argument and what is allowed."""

from __future__ import annotations

import math

import pytest

from playground import validation as check


@pytest.mark.parametrize("value", [None, 3, b"code"])
def test_text_must_be_text(value):
    assert "must be text" in check.text("args", value, 10)["error"]["message"]


def test_text_limit_names_the_numbers():
    message = check.text("args", "x" * 11, 10)["error"]["message"]
    assert "`args`" in message and "11" in message and "10" in message
    assert check.text("args", "x" * 10, 10) is None


def test_blank_code_is_refused():
    assert "no code" in check.code("  \n", 100)["error"]["message"]
    assert check.code("def f(x): return x", 100) is None


@pytest.mark.parametrize(("value", "ok"), [(1, True), (8, True), (3.0, True), (0, False), (9, False), (2.5, False),
                                           (True, False), ("3", False), (None, False)])
def test_whole_number_range(value, ok):
    result = check.whole_number("order", value, 1, 8)
    assert (result is None) == ok
    if not ok:
        assert result["error"]["kind"] == "invalid_input" and "`order`" in result["error"]["message"]


@pytest.mark.parametrize(("value", "ok"), [(0, True), (-3.5, True), (math.nan, False), (math.inf, False),
                                           ("1", False), (None, False)])
def test_number_is_finite(value, ok):
    assert (check.number("x_min", value) is None) == ok


@pytest.mark.parametrize(("value", "ok"), [(None, True), ([1, 10], True), ([], False), ([0], False),
                                           ([1] * 9, False), ([1.5], False), ("1, 2", False), ([True], False)])
def test_whole_numbers_list(value, ok):
    assert (check.whole_numbers("sizes", value, 1, 100, 8) is None) == ok


def test_first_problem_is_the_first_not_none():
    first, second = check.number("a", math.nan), check.number("b", math.nan)
    assert check.first_problem(None, first, second) is first
    assert check.first_problem(None, None) is None


@pytest.mark.parametrize(("value", "ok"), [(["data"], True), (["data", "model"], True), ([], False),
                                           (["data", "data"], False), (["1x"], False), ("data", False),
                                           (["a", "b", "c", "d", "e"], False), ([3], False)])
def test_names_are_distinct_identifiers(value, ok):
    assert (check.names("axis_names", value, 4) is None) == ok
