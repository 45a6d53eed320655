"""The Speed of light tab's figures, drawn from real replies: the worker's speed_of_light run in this process on
small functions, measured by an owner's session in this process (tests/owner_doubles.py) and placed under the
ceilings that session measured (playground/server/roofline.py)."""

from __future__ import annotations

import html
import math
import re

import pytest

from playground.line_colours import colours
from playground.messages import say
from playground.server import roofline as rl
from playground.server.ui.figures import speed_plots as sp
from playground.server.ui.figures import timeline_plots as tp
from playground.server.ui.speed_views import explanation
from tests.owner_doubles import local_device
from tests.test_training_plots import words

KERNEL_POINTS = say("plot.sol_kernel_points", "en")

POLY = "def f(x):\n    return x + x*x + x*x*x\n"
SCAN = """def f(ws, x):
    def layer(h, w):
        return jnp.tanh(jnp.sin(h @ w)), None
    x, _ = jax.lax.scan(jax.checkpoint(layer), x, ws)
    return x
"""


@pytest.fixture(scope="module")
def ceilings() -> dict:
    found = local_device(memory_mb=2048).ceilings("float32")  # measured in the owner: a second or two, once
    assert found["ok"], found
    return found


def _reply(code: str, args: str, ceilings: dict) -> dict:
    from playground.worker.jobs.speed_of_light import speed_of_light

    reply = speed_of_light(code, args, local_device())
    assert reply["ok"], reply
    return {**reply, "roofline": rl.place(reply, ceilings, None)}


@pytest.fixture(scope="module")
def poly(ceilings) -> dict:
    return _reply(POLY, "jnp.ones((300, 300))", ceilings)


@pytest.fixture(scope="module")
def scan(ceilings) -> dict:
    return _reply(SCAN, "jnp.ones((4, 64, 64)) * 0.01, jnp.ones((128, 64))", ceilings)


def _lines(fig) -> list:
    return [trace for trace in fig.data if trace.mode == "lines"]


def _name(trace) -> str:
    """A trace's name as one line (plots.fit_legend breaks a long one into lines that fit a phone)."""
    return trace.name.replace("<br>", " ")


def _points(fig) -> list:
    """The programs' points (the traced kernels' are a trace of their own: _kernel_points)."""
    return [trace for trace in fig.data if trace.mode == "markers" and _name(trace) != KERNEL_POINTS]


def _kernel_points(fig):
    return next((trace for trace in fig.data if _name(trace) == KERNEL_POINTS), None)


# The roofline.


def test_each_levels_roof_rises_with_its_bandwidth_to_its_ridge_then_the_peak_stays(poly):
    ceilings = poly["roofline"]["ceilings"]
    peak, levels = ceilings["peak_flops_s"], ceilings["levels"]
    lines = _lines(sp.roofline_figure(poly["roofline"]))
    assert len(lines) == len(levels) + 1 and levels[-1]["name"] == "memory"
    for slant, level in zip(lines, levels, strict=False):
        assert all(y == pytest.approx(level["bandwidth_bytes_s"] * x) for x, y in zip(slant.x, slant.y, strict=True))
        assert (slant.x[-1], slant.y[-1]) == pytest.approx((level["ridge"], peak))  # it ends where the peak starts
        rate = rl.amount(level["bandwidth_bytes_s"], "B/s", "en")
        assert slant.name == f"{rl.level_name(level['name'], 'en')}: {rate}"
    flat = lines[-1]
    assert list(flat.y) == pytest.approx([peak, peak]) and flat.x[0] == pytest.approx(min(lv["ridge"] for lv in levels))
    assert flat.name == f"{rl.amount(peak, 'FLOP/s', 'en')} (float32 matmul)"
    assert lines[-2].line.dash == "solid" and len({line.line.dash for line in lines[:-2]}) == len(levels) - 1


def test_the_roofs_are_named_in_the_legend_and_the_title_says_where(poly):
    fig = sp.roofline_figure(poly["roofline"])
    assert all(line.showlegend is not False for line in _lines(fig))
    assert fig.layout.title.text == "Roofline on cpu"


def test_each_program_is_a_point_at_its_intensity_and_achieved_flops(poly):
    placed = poly["roofline"]
    points = _points(sp.roofline_figure(placed))
    assert [point.name for point in points] == ["as written", "fusion off"]
    for point, program in zip(points, placed["programs"], strict=True):
        assert (point.x[0], point.y[0]) == (program["intensity"], program["achieved_flops_s"])
        hover = point.hovertext[0].replace("<br>", " ")
        assert rl.verdict(program, placed["ceilings"], "en") in hover
        assert rl.duration(program["seconds"], "en") in hover
    assert points[0].marker.color != points[1].marker.color and points[0].marker.symbol != points[1].marker.symbol


def test_each_counted_kernel_is_a_small_point_in_its_lines_colour(poly):
    placed = poly["roofline"]
    line_colours = {2: "#abcdef"}
    kernels = _kernel_points(sp.roofline_figure(placed, "en", line_colours))
    assert placed["kernels"], placed  # x + x*x + x*x*x: one fusion, its FLOPs counted
    assert list(kernels.x) == [k["intensity"] for k in placed["kernels"]]
    assert list(kernels.y) == [k["achieved_flops_s"] for k in placed["kernels"]]
    assert list(kernels.marker.color) == [line_colours.get(k["line"], sp.NO_LINE) for k in placed["kernels"]]
    assert "#abcdef" in kernels.marker.color  # the fusion came from line 2
    assert all(k["label"] in hover for k, hover in zip(placed["kernels"], kernels.hovertext, strict=True))
    assert _kernel_points(sp.roofline_figure({**placed, "kernels": []})) is None


def test_a_point_above_its_roof_stays_where_it_ran_in_view_and_its_hover_says_why(poly, ceilings):
    """With every roof a hundred times lower, the programs are above them all: no share, the reason instead."""
    slow = {**ceilings, "bandwidth_bytes_s": ceilings["bandwidth_bytes_s"] / 100,
            "levels": [{**level, "bandwidth_bytes_s": level["bandwidth_bytes_s"] / 100}
                       for level in ceilings["levels"]]}
    placed = rl.place(poly, slow, None)
    assert all(p["fraction"] is None and p["above_roof"] == "highest" for p in placed["programs"]), placed
    fig = sp.roofline_figure(placed)
    for point, program in zip(_points(fig), placed["programs"], strict=True):
        assert (point.x[0], point.y[0]) == (program["intensity"], program["achieved_flops_s"])
        assert fig.layout.xaxis.range[0] < math.log10(program["intensity"]) < fig.layout.xaxis.range[1]
        assert fig.layout.yaxis.range[0] < math.log10(program["achieved_flops_s"]) < fig.layout.yaxis.range[1]
        hover = point.hovertext[0]
        assert "A roof bounds what runs under it" in hover.replace("<br>", " ") and "%" not in hover


def test_without_ceilings_only_the_points_and_the_title_says_why(poly):
    fig = sp.roofline_figure(rl.place(poly, None, "measuring failed"))
    assert fig.data and all(trace.mode == "markers" for trace in fig.data)
    assert "ceilings are unavailable" in fig.layout.title.text


def test_programs_without_an_intensity_are_not_drawn_and_nothing_to_draw_is_none(poly):
    pointless = [{**p, "intensity": None} for p in poly["roofline"]["programs"]]
    pointless[1] = {**pointless[1], "flops": 0.0, "intensity": 0.0, "achieved_flops_s": 0.0}  # nowhere on a log axis
    assert sp.roofline_figure({**poly["roofline"], "programs": pointless, "ceilings": None}) is None
    fig = sp.roofline_figure({**poly["roofline"], "programs": pointless})
    assert len(_lines(fig)) == len(poly["roofline"]["ceilings"]["levels"]) + 1 and not _points(fig)  # roofs alone


# The memory timelines.


def _stacked(fig) -> list:
    return [trace for trace in fig.data if trace.stackgroup]


def test_the_stack_reaches_the_peak_at_its_step_where_the_marker_says_its_size(scan):
    memory = scan["memory"]
    fig = tp.memory_figure(memory)
    stacked = _stacked(fig)
    assert [trace.name for trace in stacked] == ["arguments", "outputs", "temporaries"]
    assert sum(trace.y[memory["peak_step"]] for trace in stacked) == memory["peak_bytes"]
    steps = list(range(1, len(memory["steps"]) + 1))  # counted from 1, as the text counts them
    assert list(stacked[0].customdata) == memory["steps"] and list(stacked[0].x) == steps
    marker = next(trace for trace in fig.data if trace.mode == "markers+text")
    assert (marker.x[0], marker.y[0]) == (memory["peak_step"] + 1, memory["peak_bytes"])
    assert f"step {memory['peak_step'] + 1} of" in explanation(memory)  # where the marker is
    axis = fig.layout.xaxis
    assert (axis.tick0, axis.tickformat) == (1, "d") and axis.dtick == int(axis.dtick) >= 1  # whole steps
    assert marker.text[0] == f"peak {rl.amount(memory['peak_bytes'], 'B', 'en')}"


def test_the_dashed_line_is_what_xla_reserves(scan):
    memory = scan["memory"]
    reserved = memory["reserved"]
    expected = reserved["argument_bytes"] + reserved["output_bytes"] + reserved["temp_bytes"] - reserved["alias_bytes"]
    line = next(trace for trace in tp.memory_figure(memory).data if trace.line.dash == "dash")
    assert set(line.y) == {expected} and line.name == f"XLA reserves {rl.amount(expected, 'B', 'en')}"
    unknown = {**memory, "reserved": {**reserved, "temp_bytes": None}}
    assert not [trace for trace in tp.memory_figure(unknown).data if trace.line.dash == "dash"]
    assert tp.memory_figure(memory, title="Gradient").layout.title.text == "Gradient"


def test_a_merged_schedule_puts_each_point_at_its_first_step_and_the_peak_on_its_span():
    memory = {"steps": ["a", "b", "c"], "merged": 3, "arguments": [8, 8, 8], "outputs": [0, 0, 4],
              "temporaries": [0, 16, 0], "peak_step": 4, "peak_bytes": 24, "schedule_length": 9, "at_peak": [],
              "buffers_at_peak": 2, "reserved": {"argument_bytes": 8, "output_bytes": 4, "temp_bytes": 16,
                                                 "alias_bytes": None, "generated_code_bytes": 0},
              "explained": [], "flops": None}
    fig = tp.memory_figure(memory)
    assert list(_stacked(fig)[0].x) == [1, 4, 7]
    marker = next(trace for trace in fig.data if trace.mode == "markers+text")
    assert (marker.x[0], marker.y[0]) == (5, 24)  # step 5, in the span of steps 4 to 6
    assert "step 5 of 9" in explanation(memory)
    assert "3 per point" in fig.layout.xaxis.title.text
    assert next(trace for trace in fig.data if trace.line.dash == "dash").y[0] == 28  # no alias reported: none


def test_the_checkpointed_gradient_peaks_lower_and_its_legend_says_both_peaks_and_flops(scan):
    gradient = scan["gradient"]
    fig = tp.gradient_memory_figure(gradient)
    plain, checkpointed = fig.data
    assert max(plain.y) == gradient["plain"]["peak_bytes"] > max(checkpointed.y) == \
        gradient["checkpointed"]["peak_bytes"]
    for trace, memory, what in ((plain, gradient["plain"], "without"), (checkpointed, gradient["checkpointed"],
                                                                         "with")):
        assert _name(trace) == (f"{what} jax.checkpoint: peak {rl.amount(memory['peak_bytes'], 'B', 'en')}, "
                                f"{rl.amount(memory['flops'], 'FLOP', 'en')}")
        assert (trace.x[0], trace.x[-1]) == (0, 1) and len(trace.x) == len(memory["steps"])
        peak = [i for i, size in enumerate(trace.marker.size) if size]
        assert [trace.y[i] for i in peak] == [memory["peak_bytes"]]  # one marker, at the peak


def test_a_gradient_without_checkpoint_calls_is_one_line_and_none_is_no_figure(poly):
    fig = tp.gradient_memory_figure(poly["gradient"])
    assert len(fig.data) == 1 and "no jax.checkpoint" in fig.layout.title.text
    assert tp.gradient_memory_figure(None) is None
    assert tp.gradient_memory_figure({**poly["gradient"], "plain": None}) is None


# The kernel timeline.


def _bars(fig) -> list:
    return [trace for trace in fig.data if trace.type == "bar"]


def test_each_kernel_is_a_bar_in_its_calls_row_coloured_by_its_line(scan):
    events = scan["kernels"]["events"]
    line_colours = colours(event["line"] for event in events)
    fig = tp.kernel_figure(scan["kernels"], line_colours)
    bars = _bars(fig)
    assert sum(len(trace.x) for trace in bars) == len(events)
    assert {row for trace in bars for row in trace.y} == {f"call {e['call'] + 1}" for e in events}
    for trace in bars:
        line = int(trace.name.split()[1]) if trace.name.startswith("line ") else None
        assert trace.marker.color == (line_colours[line] if line is not None else tp.NO_LINE)
    legend = sorted((trace.legendrank, trace.name) for trace in bars if trace.showlegend is not False)
    assert [name for _, name in legend] == [f"line {line}" for line in sorted(line_colours)] + \
        (["no line of your code"] if None in {e["line"] for e in events} else [])  # once each, in order


def test_bars_start_in_their_call_and_even_the_shortest_stays_visible(poly):
    kernels = poly["kernels"]
    fig = tp.kernel_figure(kernels)
    bars = [(base, width) for trace in _bars(fig) for base, width in zip(trace.base, trace.x, strict=True)]
    assert sorted(base for base, _ in bars) == [0.0] * len(kernels["events"])  # one kernel per call, at its start
    assert all(trace.marker.color == tp.NO_LINE for trace in _bars(fig))  # no colours given: grey
    tiny = {**kernels, "events": [*kernels["events"], {**kernels["events"][0], "duration_s": 1e-9, "line": None}]}
    shortest = min(width for trace in _bars(tp.kernel_figure(tiny)) for width in trace.x)
    assert shortest == pytest.approx(tp.MIN_BAR * max(e["duration_s"] for e in kernels["events"]))


def test_a_kernel_inside_another_is_a_thinner_bar_drawn_over_it():
    event = {"name": "while.5", "call": 0, "start_s": 0.0, "duration_s": 1e-3, "line": 4, "bytes": 2e6}
    inner = {**event, "name": "body_fusion", "start_s": 2e-4, "duration_s": 1e-4, "bytes": None}
    fig = tp.kernel_figure({"events": [inner, event], "calls": 1, "left_out": 0})
    outer_bar, inner_bar = _bars(fig)
    assert (outer_bar.hovertext[0].split("<br>")[0], inner_bar.hovertext[0].split("<br>")[0]) == \
        ("<b>while.5</b>", "<b>body_fusion</b>")
    assert inner_bar.width < outer_bar.width and inner_bar.showlegend is False
    assert "2.00 GB/s" in outer_bar.hovertext[0] and "GB/s" not in inner_bar.hovertext[0]
    assert tp.kernel_figure({"events": [], "calls": 0, "left_out": 0}) is None


# Their words.


@pytest.fixture(scope="module")
def builders(poly, scan) -> dict:
    line_colours = colours(event["line"] for event in scan["kernels"]["events"])
    return {
        "roofline": lambda lang: sp.roofline_figure(poly["roofline"], lang),
        "no ceilings": lambda lang: sp.roofline_figure(rl.place(poly, None, "why"), lang),
        "memory": lambda lang: tp.memory_figure(scan["memory"], lang),
        "gradient": lambda lang: tp.gradient_memory_figure(scan["gradient"], lang),
        "gradient alone": lambda lang: tp.gradient_memory_figure(poly["gradient"], lang),
        "kernels": lambda lang: tp.kernel_figure(scan["kernels"], line_colours, lang),
    }


@pytest.mark.parametrize("language", ["de", "zh"])
def test_every_word_in_a_figure_is_in_the_readers_language(builders, language):
    for name, build in builders.items():
        english, other = build("en"), build(language)
        assert other.layout.title.text != english.layout.title.text, name
        same = [e for e, o in zip(words(english), words(other), strict=True)
                if e == o and re.search("[a-z]{3}", e)]
        assert not same, (name, same)
        hovers = [text for trace in english.data for text in (trace.hovertext or ())]
        assert hovers == [] or hovers != [text for trace in other.data for text in (trace.hovertext or ())], name


def test_names_from_the_workers_reply_show_as_written_never_as_markup(poly):
    """A worker's reply is whatever the code in it writes: its names reach plotly's HTML-like labels escaped."""
    hostile = "<a href='https://example.com'>x</a>"
    roofline = poly["roofline"]
    placed = {**roofline, "ceilings": {**roofline["ceilings"], "device": hostile},
              "programs": [{**roofline["programs"][0], "label": hostile}],
              "kernels": [{**kernel, "label": hostile} for kernel in roofline["kernels"]]}
    fig = sp.roofline_figure(placed)
    program, kernels = _points(fig)[0], _kernel_points(fig)
    assert "<a " not in fig.layout.title.text and "&lt;a href" in fig.layout.title.text
    assert program.name == html.escape(hostile) and "<a " not in program.hovertext[0]
    assert all("<a " not in text and "&lt;a href" in text for text in kernels.hovertext)
    memory = {**poly["memory"], "steps": [hostile] * len(poly["memory"]["steps"])}
    for fig in (tp.memory_figure(memory), tp.gradient_memory_figure({**poly["gradient"], "plain": memory})):
        shown = [step for trace in fig.data if trace.customdata is not None for step in trace.customdata]
        assert shown and all(step == html.escape(hostile) for step in shown), shown


def test_plotly_writes_each_figures_numbers_as_the_readers_language_does(builders):
    """Ticks and hovers are plotly's to write: the layout's separators tell it 0,5 in German; the roofline's own
    tick labels say so too."""
    for name, build in builders.items():
        assert [build(language).layout.separators for language in ("en", "de", "zh")] == [".,", ",.", ".,"], name
    ticks = builders["roofline"]("de").layout.xaxis.ticktext
    assert any("," in tick for tick in ticks) and not any("." in tick for tick in ticks), ticks
