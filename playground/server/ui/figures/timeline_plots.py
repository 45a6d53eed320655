"""The Speed of light tab's timelines: the memory over XLA's schedule (and the gradient's, with and without
jax.checkpoint), and the kernels of a few calls, coloured by the line of the user's code that made them (the
caller's colours: playground/line_colours.py). Their look is the roofline's (speed_plots.py)."""

from __future__ import annotations

import html
import math

import plotly.graph_objects as go

from playground.messages import say
from playground.server.roofline import amount, duration
from playground.server.ui.figures.plots import fit_legend
from playground.server.ui.figures.speed_plots import (
    LAYOUT,
    LAYOUT_LEGEND_BELOW,
    MAIN,
    NO_LINE,
    OTHER,
    RESERVED,
    ROOF,
    layout,
)

OUTLINE = "#5b6478"  # a bar's edge
KIND_COLOURS = ("#636efa", "#00cc96", "#FFA15A")  # arguments, outputs, temporaries
_BYTES_AXIS = {"tickformat": "~s", "ticksuffix": "B", "rangemode": "tozero"}  # 20MB: d3's SI prefixes, as amount's
MIN_BAR = 1 / 200  # a kernel's bar is at least this share of the timeline wide: a 1 µs kernel in 5 ms stays visible


def _totals(memory: dict) -> list[int]:
    """The live bytes at each point: arguments, outputs and temporaries together."""
    return [sum(kinds) for kinds in zip(memory["arguments"], memory["outputs"], memory["temporaries"], strict=True)]


def peak_point(memory: dict) -> int:
    """The point that shows the peak: of a merged span, the span that holds the peak's step (its bytes exact)."""
    return min(memory["peak_step"] // memory["merged"], len(memory["steps"]) - 1)


def _steps(memory: dict) -> list[str]:
    """The instructions of the schedule's points, for the hovers (HTML to plotly), escaped: they come from a
    worker's reply, and whatever a name holds shows as written."""
    return [html.escape(step) for step in memory["steps"]]


def reserved_bytes(memory: dict) -> int | None:
    """What XLA reserves for a call: arguments, outputs and the temporaries' block, less the outputs written into
    arguments (an alias counted as none where XLA reports none, as memory_timeline's ``explained`` does); None
    where XLA does not say."""
    reserved = memory["reserved"]
    parts = [reserved.get(key) for key in ("argument_bytes", "output_bytes", "temp_bytes")]
    if None in parts:
        return None
    return sum(parts) - (reserved.get("alias_bytes") or 0)


def memory_figure(memory: dict, language: str = "en", title: str | None = None) -> go.Figure:
    """The live bytes over XLA's schedule, stacked: arguments, outputs, temporaries; what XLA reserves as a dashed
    line above them, and the peak marked with its size. ``title``: the figure's own (the program's memory by
    default)."""
    xs = step_numbers(memory)
    fig = go.Figure()
    kinds = (("arguments", "plot.sol_arguments"), ("outputs", "plot.sol_outputs"),
             ("temporaries", "plot.sol_temporaries"))
    for (field, key), colour in zip(kinds, KIND_COLOURS, strict=True):
        name = say(key, language)
        # The instruction once, in the first kind's line of the shared hover (x unified). A step's bytes hold until
        # the next step: drawn as stairs ("hv"), not as slopes between steps.
        prefix = "<b>%{customdata}</b><br>" if field == "arguments" else ""
        fig.add_trace(go.Scatter(x=xs, y=memory[field], customdata=_steps(memory), mode="lines", name=name,
                                 stackgroup="live", line={"width": 0.5, "color": colour, "shape": "hv"},
                                 hovertemplate=f"{prefix}{name}: %{{y:.3~s}}B<extra></extra>"))
    reserved = reserved_bytes(memory)
    if reserved is not None:
        fig.add_trace(go.Scatter(x=[xs[0], xs[-1]], y=[reserved, reserved], mode="lines", hoverinfo="skip",
                                 name=say("plot.sol_reserved", language, bytes=amount(reserved, "B", language)),
                                 line={"color": RESERVED, "dash": "dash", "width": 2}))
    fig.add_trace(_peak_marker(memory["peak_step"] + 1, memory, language))
    fig.update_layout(**layout(language, title=title or say("plot.sol_memory", language), **LAYOUT_LEGEND_BELOW),
                      hovermode="x unified",
                      xaxis={"title": _step_axis(memory, language), "tick0": 1, "dtick": whole_step(xs[-1]),
                             "tickformat": "d"},
                      yaxis={**_BYTES_AXIS, "title": say("plot.sol_live_bytes", language)})
    return fit_legend(fig, language)


def step_numbers(memory: dict) -> list[int]:
    """Each point's step of the schedule, counted from 1 as the text counts them (of a merged span, its first).

    >>> step_numbers({"steps": ["a", "b", "c"], "merged": 2})
    [1, 3, 5]
    """
    return [1 + i * memory["merged"] for i in range(len(memory["steps"]))]


def whole_step(last: int, ticks: int = 8) -> int:
    """The distance between the step axis's ticks: a whole 1, 2 or 5 times a power of ten, for about ``ticks``
    ticks up to step ``last`` (plotly's own choice puts ticks at 0.5 on a short schedule).

    >>> whole_step(3), whole_step(40), whole_step(4000)
    (1, 5, 500)
    """
    rough = max(1.0, last / ticks)
    power = 10 ** math.floor(math.log10(rough))
    return next(int(n * power) for n in (1, 2, 5, 10) if n * power >= rough)


def _peak_marker(x: float, memory: dict, language: str) -> go.Scatter:
    """The peak: a marker on top of the stack at the peak's step (as the text says it), its size written above."""
    text = say("plot.sol_peak_bytes", language, bytes=amount(memory["peak_bytes"], "B", language))
    return go.Scatter(x=[x], y=[memory["peak_bytes"]], mode="markers+text", text=[text], textposition="top center",
                      marker={"color": ROOF, "size": 9, "symbol": "triangle-down"}, name=text, showlegend=False,
                      cliponaxis=False, hoverinfo="skip")


def _step_axis(memory: dict, language: str) -> str:
    """The x axis's title: the schedule's steps, and how many make a point where the schedule was merged."""
    if memory["merged"] > 1:
        return say("plot.sol_step_merged", language, merged=memory["merged"])
    return say("plot.sol_step", language)


def gradient_memory_figure(gradient: dict | None, language: str = "en") -> go.Figure | None:
    """The live bytes of jax.grad over its schedule, without and with the code's jax.checkpoint calls, each line
    with its peak marked and, in its legend entry, its peak and XLA's FLOPs: what rematerialisation trades. Each
    schedule is stretched to 0..1 (the two differ in length). None without a plain gradient's timeline."""
    if gradient is None or gradient["plain"] is None:
        return None
    fig = go.Figure()
    fig.add_trace(_gradient_line(gradient["plain"], "plot.sol_without_checkpoint", OTHER, language))
    if gradient["checkpointed"] is not None:
        fig.add_trace(_gradient_line(gradient["checkpointed"], "plot.sol_with_checkpoint", MAIN, language))
    which = say("plot.sol_gradient_both" if gradient["checkpointed"] is not None else "plot.sol_gradient_plain_only",
                language)  # under the title, a line of its own: one line is cut off on a phone
    title = f"{say('plot.sol_gradient', language)}<br><sup>{which}</sup>"
    fig.update_layout(**layout(language, title=title, **LAYOUT_LEGEND_BELOW),
                      xaxis={"title": say("plot.sol_schedule_fraction", language), "tickformat": ".0%",
                             "range": [-0.02, 1.02]},
                      yaxis={**_BYTES_AXIS, "title": say("plot.sol_live_bytes", language)})
    return fit_legend(fig, language)


def _gradient_line(memory: dict, key: str, colour: str, language: str) -> go.Scatter:
    """One gradient's total live bytes against the share of its schedule; its peak a marker (in the same trace)."""
    totals, peak = _totals(memory), peak_point(memory)
    last = max(1, len(totals) - 1)
    peak_text = amount(memory["peak_bytes"], "B", language)
    what = say(key, language)
    name = (say("plot.sol_line_peak_flops", language, name=what, bytes=peak_text,
                flops=amount(memory["flops"], "FLOP", language)) if memory["flops"] is not None
            else say("plot.sol_line_peak", language, name=what, bytes=peak_text))
    return go.Scatter(x=[i / last for i in range(len(totals))], y=totals, customdata=_steps(memory),
                      mode="lines+markers+text", name=name, line={"color": colour, "width": 2, "shape": "hv"},
                      marker={"color": colour, "size": [11 if i == peak else 0 for i in range(len(totals))]},
                      text=[say("plot.sol_peak_bytes", language, bytes=peak_text) if i == peak else ""
                            for i in range(len(totals))], textposition="top center", cliponaxis=False,
                      hovertemplate=f"{what}<br>%{{customdata}}: %{{y:.3~s}}B<extra></extra>")


# The kernel timeline.


def kernel_figure(kernels: dict, line_colours: dict[int, str] | None = None,
                  language: str = "en") -> go.Figure | None:
    """The kernels of each traced call as horizontal bars over time, one row per call, each bar coloured by the
    line of the user's code that made it (``line_colours``, line -> CSS colour; grey for none). A kernel inside
    another (a loop's body inside its while) is a thinner bar drawn over it. None without kernels.

    Each row's time is since its call's first kernel: the calls one under the other, comparable, and each as
    wide as the figure (on one clock the rows would share its width, the gaps between calls the tracer's own).
    """
    events = kernels["events"]
    if not events:
        return None
    colours = line_colours or {}
    starts = _call_starts(events)
    least = MIN_BAR * max(e["start_s"] + e["duration_s"] - starts[e["call"]] for e in events)
    depths = _depths(events)
    rows = sorted({e["call"] for e in events})
    fig = go.Figure()
    shown: set = set()  # the lines already in the legend: one entry each, whatever the depth
    for depth in sorted(set(depths)):  # the outer bars first, so that the thinner ones inside lie on top
        for line in sorted({e["line"] for e, d in zip(events, depths, strict=True) if d == depth},
                           key=lambda line: (line is None, line or 0)):
            group = [e for e, d in zip(events, depths, strict=True) if d == depth and e["line"] == line]
            fig.add_trace(_kernel_bars(group, line, colours, starts, least, depth, line not in shown, language))
            shown.add(line)
    fig.update_layout(**layout(language, **_kernel_size(len(rows))), title=_kernel_title(kernels, language),
                      barmode="overlay",
                      xaxis={"title": say("plot.sol_time", language), "tickformat": "~s", "ticksuffix": "s",
                             "rangemode": "tozero"},
                      yaxis={"type": "category", "autorange": "reversed",
                             "categoryarray": [_row(call, language) for call in rows]})
    return fit_legend(fig, language)


def _call_starts(events: list[dict]) -> dict[int, float]:
    """When each call's first kernel started."""
    starts: dict[int, float] = {}
    for event in events:
        starts[event["call"]] = min(starts.get(event["call"], math.inf), event["start_s"])
    return starts


def _kernel_size(rows: int) -> dict:
    """Height for ``rows`` calls (45 px each), the legend a fixed 70 px under the plot: the house legend's -0.22 of
    the plot's height is inside the axis's title on a plot this low."""
    height, margin = 160 + 45 * rows, {**LAYOUT["margin"], "b": 100}
    plot = height - margin["t"] - margin["b"]
    return {**LAYOUT_LEGEND_BELOW, "height": height, "margin": margin,
            "legend": {**LAYOUT_LEGEND_BELOW["legend"], "y": -70 / plot}}


def _depths(events: list[dict]) -> list[int]:
    """How many kernels of its call each kernel runs inside (a while loop's body is inside the while): in order of
    start, the kernels still open when it starts that end no sooner than it does."""
    depths = [0] * len(events)
    ends: list[float] = []  # the open kernels' ends, innermost last
    call = None
    for i in sorted(range(len(events)), key=lambda i: (events[i]["call"], events[i]["start_s"],
                                                       -events[i]["duration_s"])):
        event = events[i]
        end = event["start_s"] + event["duration_s"]
        if event["call"] != call:
            call, ends = event["call"], []
        while ends and ends[-1] < end:
            ends.pop()
        depths[i] = len(ends)
        ends.append(end)
    return depths


def _row(call: int, language: str) -> str:
    return say("plot.sol_call", language, number=call + 1)


def _kernel_bars(group: list[dict], line: int | None, colours: dict, starts: dict[int, float], least: float,
                 depth: int, legend: bool, language: str) -> go.Bar:
    """The kernels of one source line at one depth: bars from their start in their call for their duration (at
    least ``least`` wide), each hovering its name, time, bytes and rate."""
    name = say("plot.sol_line", language, line=line) if line is not None else say("plot.sol_no_line", language)
    colour = colours.get(line, NO_LINE) if line is not None else NO_LINE
    return go.Bar(orientation="h", y=[_row(e["call"], language) for e in group],
                  base=[e["start_s"] - starts[e["call"]] for e in group],
                  x=[max(e["duration_s"], least) for e in group],
                  width=max(0.25, 0.7 * 0.65 ** depth), name=name, legendgroup=name, showlegend=legend,
                  legendrank=1_000 + (line if line is not None else 1_000_000),  # by line, whatever the depth
                  marker={"color": colour, "line": {"color": OUTLINE, "width": 0.75}},
                  hovertext=[_kernel_hover(e, name, language) for e in group],
                  hovertemplate="%{hovertext}<extra></extra>")


def _kernel_hover(event: dict, where: str, language: str) -> str:
    """A kernel's name, how long it ran, its bytes and rate where XLA counts them, and its line."""
    seconds = event["duration_s"]
    # XLA's names are plain, but a hover label is HTML: whatever a name holds, it shows as written.
    lines = [f"<b>{html.escape(event['name'])}</b>",
             say("plot.sol_took", language, duration=duration(seconds, language))]
    if event["bytes"] is not None and seconds > 0:
        lines.append(say("plot.sol_kernel_bytes", language, bytes=amount(event["bytes"], "B", language),
                         rate=amount(event["bytes"] / seconds, "B/s", language)))
    return "<br>".join([*lines, where])


def _kernel_title(kernels: dict, language: str) -> str:
    """How many calls, and below it how many kernels were left out (the timeline keeps the first MAX_EVENTS)."""
    title = say("plot.sol_kernels", language, calls=kernels["calls"])
    if kernels["left_out"]:
        title += f"<br><sup>{say('plot.sol_kernels_left_out', language, left_out=kernels['left_out'])}</sup>"
    return title
