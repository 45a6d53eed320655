"""Empty or non-numeric fields on the Inspect and jit tabs: a message that names the field as the page labels it,
in the page's language, never a crash."""

from __future__ import annotations

import pytest

from playground.server.ui.call_fields import parse_argnums
from playground.server.ui.error_views import error_markdown
from playground.server.ui.field_labels import LABELS
from playground.server.ui.timing_views import parse_sizes
from playground.validation import Refused
from playground.worker.jobs import inspect, jit_speed
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
    with pytest.raises(Refused, match="`static_argnums` must be whole numbers") as refused:
        parse_argnums(text)
    shown = error_markdown(refused.value.error["error"], "de", labels=LABELS["inspect"])
    assert "`static_argnums` müssen ganze Zahlen sein, durch Kommas getrennt" in shown  # labelled with its API name


@pytest.mark.parametrize(("text", "language", "shown"), [
    ("", "en", "“Sizes n (n × n inputs)” is empty: give at least one whole number"),
    ("10, ten", "en", "“Sizes n (n × n inputs)” must be whole numbers separated by commas, got '10, ten'."),
    ("", "de", "„Größen n (n × n-Eingaben)“ ist leer"),
    ("10, ten", "zh", "“尺寸 n（n × n 的输入）” 必须是用逗号分隔的整数"),
])
def test_sizes_that_are_empty_or_not_numbers_name_the_field_as_the_page_labels_it(text, language, shown):
    with pytest.raises(Refused) as refused:
        parse_sizes(text, "sizes")
    assert "`sizes`" in str(refused.value)  # the API's name, where no page names it
    assert shown in error_markdown(refused.value.error["error"], language, labels=LABELS["jit_speed"])


def test_the_jit_benchmark_needs_a_one_argument_function():
    reply = jit_speed.jit_speed("def fn(x, y):\n    return x\n", [10], 1, memory_mb=65_536,
                                device=local_device())  # in pytest's process, no worker
    assert reply["error"]["kind"] == "invalid_input" and "must take exactly one argument" in reply["error"]["message"]
