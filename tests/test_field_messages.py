"""Empty or non-numeric fields on the Inspect and jit tabs: a message that names the field, never a crash."""

from __future__ import annotations

import pytest

from playground.server.ui.inspect_tab import parse_argnums
from playground.server.ui.timing_views import parse_sizes
from playground.worker import inspect, jit_speed
from tests.owner_doubles import local_device

F = "def f(x):\n    return x * 2\n"


@pytest.mark.parametrize("args", ["", "   "])
def test_empty_arguments_name_the_field(args):
    reply = inspect.inspect(F, args, 10_000)
    assert reply["error"]["kind"] == "invalid_input"
    assert reply["error"]["message"] == ("`f(x)` cannot be called on an empty Arguments field (no values): "
                                         "missing a required argument: 'x'.")


def test_too_many_arguments_say_how_many_the_field_gave():
    reply = inspect.inspect(F, "1.0, 2.0", 10_000)
    assert reply["error"]["kind"] == "invalid_input"
    assert reply["error"]["message"] == ("`f(x)` cannot be called on what the Arguments field gives (2 values): "
                                         "too many positional arguments.")


def test_a_user_jitted_function_is_checked_against_its_own_parameters():
    reply = inspect.inspect("@jax.jit\ndef f(x, y):\n    return x + y\n", "1.0", 10_000)
    assert reply["error"]["kind"] == "invalid_input" and "`f(x, y)`" in reply["error"]["message"]


@pytest.mark.parametrize("text", ["one", "1.5", "1, x"])
def test_static_argnums_that_are_not_whole_numbers_name_the_field(text):
    with pytest.raises(ValueError, match="static_argnums must be whole numbers"):
        parse_argnums(text)


@pytest.mark.parametrize("text, message", [("", "Give at least one of the sizes."),
                                           ("10, ten", "The sizes must be whole numbers")])
def test_sizes_that_are_empty_or_not_numbers_name_the_field(text, message):
    with pytest.raises(ValueError, match=message):
        parse_sizes(text, "sizes")


def test_the_jit_benchmark_needs_a_one_argument_function():
    reply = jit_speed.jit_speed("def fn(x, y):\n    return x\n", [10], 1, memory_mb=65_536,
                                device=local_device())  # in pytest's process, no worker
    assert reply["error"]["kind"] == "invalid_input" and "must take exactly one argument" in reply["error"]["message"]
