"""Figure builders: the right traces, labels and axes for the data given."""

from __future__ import annotations

import re

import plotly.graph_objects as go
import pytest

from playground.server.ui.figures import plots
from tests.test_training_plots import words


def test_order_labels():
    assert [plots.order_label(n) for n in range(6)] == ["f", "f′", "f″", "f‴", "f⁽⁴⁾", "f⁽⁵⁾"]
    assert plots.order_label(12) == "f⁽¹²⁾"


def test_derivatives_figure_has_one_panel_per_order_each_on_its_own_scale():
    orders = [{"n": n, "ys": [n, n + 1]} for n in range(4)]
    fig = plots.derivatives_figure([0.0, 1.0], orders)
    assert [trace.name for trace in fig.data] == ["f", "f′", "f″", "f‴"]
    assert list(fig.data[2].y) == [2, 3]
    assert [trace.yaxis for trace in fig.data] == ["y", "y2", "y3", "y4"]  # a y axis (and scale) of its own
    assert [fig.layout[f"yaxis{i or ''}"].title.text for i in (0, 2, 3, 4)] == ["f", "f′", "f″", "f‴"]


def test_growth_figure_groups_two_counts_per_order():
    fig = plots.growth_figure([1, 4, 9], [2, 3, 5])
    assert len(fig.data) == 2 and list(fig.data[0].x) == ["f", "f′", "f″"]
    assert list(fig.data[1].y) == [2, 3, 5]


def test_hessian_figure_is_a_centred_heatmap():
    fig = plots.hessian_figure([[2.0, 1.0], [1.0, 6.0]])
    assert fig.data[0].type == "heatmap" and fig.data[0].zmid == 0
    assert fig.data[0].texttemplate == "%{z:.4~g}"  # each cell says its number
    assert plots.hessian_figure([[0.0] * 20] * 20).data[0].texttemplate is None  # too small to read at 20 × 20


def test_timings_figure_is_log_log_and_skips_missing_values():
    fig = plots.timings_figure("t", "size", [1, 10, 100], {"loop": [1e-3, None, 1e-1], "vmap": [1e-4, 2e-4, 3e-4],
                                                          "never": [None, None, None]})
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert [trace.name for trace in fig.data] == ["loop", "vmap"]
    assert list(fig.data[0].x) == [1, 100]


BUILDERS = {
    "derivatives": lambda lang: plots.derivatives_figure([0.0, 1.0], [{"n": 0, "ys": [0, 1]}], language=lang),
    "point by point": lambda lang: plots.derivatives_figure([0.0, 1.0], [{"n": 0, "ys": [0, 1]}], True, lang),
    "growth": lambda lang: plots.growth_figure([1, 4], [2, 3], lang),
    "timings": lambda lang: plots.timings_figure("t", "n", [1, 10], {"jit": [1e-3, 2e-3]}, lang),
}


@pytest.mark.parametrize("language", ["de", "zh"])
@pytest.mark.parametrize("name", BUILDERS)
def test_every_word_in_a_figure_is_in_the_readers_language(name, language):
    """The words the builder writes itself (a timing chart's title and series come written by its caller)."""
    english, other = words(BUILDERS[name]("en")), words(BUILDERS[name](language))
    left = [e for e, o in zip(english, other, strict=True) if e == o and re.search("[a-z]{3}", e)]
    assert set(left) <= {"jit"}, left  # JAX's names are the same in every language


@pytest.mark.parametrize("name", [*BUILDERS, "hessian"])
def test_plotly_writes_each_figures_numbers_as_the_readers_language_does(name):
    """Ticks, hovers and a Hessian's cells are plotly's to write: the layout's separators tell it 0,5 in German."""
    build = BUILDERS.get(name, lambda lang: plots.hessian_figure([[0.5, 1234.5], [1234.5, 2.0]], lang))
    assert [build(language).layout.separators for language in ("en", "de", "zh")] == [".,", ",.", ".,"]


def test_a_timing_charts_ticks_are_whole_values_written_in_the_readers_language():
    """Plotly's own labels on a log axis are lone digits between powers ("2, 5, 0.001"), English in any language."""
    series = {"NumPy": [2.5e-6, 8e-6, 2.9e-3], "jit": [3e-5, 9e-5, 2e-3]}
    german = plots.timings_figure("t", "n", [100, 10_000, 4_000_000], series, "de").layout
    assert german.yaxis.ticktext == ("10 µs", "100 µs", "1 ms") and list(german.yaxis.tickvals) == [1e-5, 1e-4, 1e-3]
    assert german.xaxis.ticktext == ("100", "1.000", "10.000", "100.000", "1.000.000")
    chinese = plots.timings_figure("t", "n", [1, 1000], {"loop": [1.5e-3, 0.25]}, "zh").layout
    assert chinese.xaxis.ticktext == ("1", "10", "100", "1,000")
    assert chinese.yaxis.ticktext == ("2 ms", "5 ms", "10 ms", "20 ms", "50 ms", "100 ms", "200 ms")


@pytest.mark.parametrize(("language", "width"), [("en", 38), ("de", 38), ("zh", 20)])
def test_legend_entries_are_broken_into_lines_a_phone_shows_whole(language, width):
    """Plotly never wraps a legend entry and cuts one wider than the figure: the builders break long names into
    lines, at spaces where there are some, never inside an escaped character or between a number and its unit."""
    long_name = ("kernels (traced; FLOPs counted from the HLO &lt;a&gt;, peak 803 kB, 3.19 MFLOP, "
                 "按 HLO 统计的每一个 kernel 都在这里，一个接一个地画出来")
    fig = plots.fit_legend(go.Figure([go.Scatter(name=long_name), go.Scatter(name="short"),
                                      go.Scatter(name="two<br>lines already")]), language)
    lines = fig.data[0].name.split("<br>")
    assert len(lines) > 1 and all(len(re.sub("&[a-z]+;", "x", line)) <= width for line in lines), lines
    assert "".join(lines).replace(" ", "") == long_name.replace(" ", "")  # nothing lost, only broken
    assert all(not re.search(r"&[a-z]*$|\d$", line) for line in lines[:-1]), lines
    assert [trace.name for trace in fig.data[1:]] == ["short", "two<br>lines already"]

