"""Pure figure builders for the Speed of light tab: a speed_of_light reply's parts in, plotly Figures out. This
module: the roofline, and the look the tab's figures share; timeline_plots.py: the memory and kernel timelines.

- The roofline: the device's measured roofs (a bandwidth per memory level, a
  matmul's FLOP/s), each program (as written, fusion off) a point at its
  arithmetic intensity and achieved FLOP/s (playground/server/roofline.py).
- The memory over XLA's schedule: the live bytes at each step, stacked by kind,
  under what XLA reserves; and the gradient's, with and without jax.checkpoint.
- The kernels of a few calls as a timeline, coloured by the line of the user's
  code that made them (the caller's colours: playground/line_colours.py).

Bytes and seconds are written with the SI prefixes of roofline.amount (32.0 MB is 32 × 10⁶ bytes) in the
figures' own words and in plotly's axis ticks alike. No JAX, no gradio: the server process imports this module.
"""

from __future__ import annotations

import html
import math
import textwrap

import plotly.graph_objects as go

from playground.messages import say
from playground.messages.numbers import figures, plotly_separators
from playground.server.roofline import amount, duration, level_name, verdict
from playground.server.ui.figures.plots import LEGEND_BELOW, fit_legend, log_ticks

MAIN, OTHER = "#636efa", "#EF553B"  # the figures' first colour (plots.py's plotly_white), and its contrast
ROOF, RESERVED, NO_LINE = "#2a3f5f", "#7f7f7f", "#c8ccd4"  # NO_LINE: what no line of the user's code made
LAYOUT = {"template": "plotly_white", "margin": {"l": 60, "r": 20, "t": 50, "b": 50}, "height": 420}
# Several series: their names in rows under the x axis (as plots.py: a legend column on the right takes a phone's
# width).
LAYOUT_LEGEND_BELOW = {**LAYOUT, "margin": {**LAYOUT["margin"], "b": 60}, "legend": LEGEND_BELOW}
_LABELS = {"as written": "plot.sol_as_written", "fusion off": "plot.sol_fusion_off"}  # the worker's program labels
_HOVER_WIDTH = {"zh": 30}  # characters a hover line holds before it wraps (a phone's width); 60 elsewhere
_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))
_DASHES = ("dot", "dashdot", "dash", "longdash")  # the caches' roofs, fastest first; memory's solid
_BELOW_AXIS_PX, _LEGEND_LINE_PX = 75, 19  # an x axis's ticks and title; a legend line at plotly's 12 px


def layout(language: str, **settings: object) -> dict:
    """The figures' look, with numbers as ``language`` writes them (German: 1.234,5) in ticks and hovers."""
    return {"separators": plotly_separators(language), **settings}


def _label(label: str, language: str) -> str:
    """A program's label ("as written", "fusion off") in ``language``; one the catalogue lacks as it came, escaped
    (a figure's names and hovers are HTML to plotly)."""
    return say(_LABELS[label], language) if label in _LABELS else html.escape(label)


def _wrapped(text: str, language: str) -> str:
    """A long sentence as hover lines short enough for a phone (plotly never wraps a hover label)."""
    return "<br>".join(textwrap.wrap(text, _HOVER_WIDTH.get(language, 60)))


def _figures(value: float, language: str) -> str:
    """A plain number to three figures: 34.0, 0.0909, 341."""
    return amount(value, "", language, 3).strip()


def _tick(value: float, language: str) -> str:
    """A log axis's tick as written in ``language``, with an SI prefix from a thousand on: 0.1, 50, 2k, 200G
    (0,1 in German)."""
    scale, prefix = next(((s, p) for s, p in _PREFIXES if value >= s), (1.0, ""))
    return f"{figures(value / scale, language, 6)}{prefix}"


# The roofline.


def roofline_figure(roofline: dict, language: str = "en", line_colours: dict[int, str] | None = None
                    ) -> go.Figure | None:
    """Log-log FLOP/s against arithmetic intensity: the measured roof (bandwidth × intensity up to the ridge, then
    the peak), each program with an intensity (above 0) a point where it ran, and each traced kernel whose FLOPs
    are counted a small point of its own, in the colour of its line (``line_colours``). None when there is
    nothing to draw.

    A point above its roof is drawn where it ran, and its hover says why (roofline.verdict): no share of a roof.
    """
    ceilings = roofline["ceilings"]
    # No FLOPs (a transpose, a copy): intensity 0, which a log axis has no place for.
    points = [p for p in roofline["programs"] if p["intensity"] and p["achieved_flops_s"]]
    kernels = [k for k in roofline.get("kernels", []) if k["intensity"] and k["achieved_flops_s"]]
    if not points and ceilings is None:
        return None
    xs, ys = _roofline_ranges(points + kernels, ceilings)
    fig = go.Figure()
    if ceilings is not None:
        _add_roof(fig, ceilings, xs, language)
    for index, point in enumerate(points):
        fig.add_trace(_program_point(point, ceilings, index, language))
    if kernels:
        fig.add_trace(_kernel_points(kernels, ceilings, line_colours or {}, language))
    title = (say("plot.sol_roofline", language, device=html.escape(ceilings["device"])) if ceilings is not None else
             f"{say('plot.sol_roofline_plain', language)}<br><sup>{say('plot.sol_no_ceilings', language)}</sup>")
    fig.update_layout(**layout(language, title=title, **LAYOUT_LEGEND_BELOW),
                      xaxis=_log_axis(xs, say("plot.sol_intensity_axis", language), language),
                      yaxis=_log_axis(ys, say("plot.sol_flops_axis", language), language))
    fit_legend(fig, language)
    fig.update_layout(**_legend_room(fig))
    return fig


def _legend_room(fig: go.Figure, plot_px: int = 300) -> dict:
    """Height and margin for a plot of ``plot_px`` with ``fig``'s legend below its axis's title, an entry's line a
    row as on a phone: the figure grows with its legend (the roofline's eight entries left a phone 80 px of plot,
    the legend over the axis's title)."""
    lines = sum(trace.name.count("<br>") + 1 for trace in fig.data if trace.name and trace.showlegend is not False)
    bottom = _BELOW_AXIS_PX + _LEGEND_LINE_PX * lines
    return {"height": LAYOUT["margin"]["t"] + plot_px + bottom, "margin": {**LAYOUT["margin"], "b": bottom},
            "legend": {**LEGEND_BELOW, "y": -_BELOW_AXIS_PX / plot_px}}


def _log_axis(span: tuple[float, float], title: str, language: str) -> dict:
    """A log axis over ``span`` labelled with whole values (plots.log_ticks: plotly's own minor labels
    are lone digits, or 9G 8G 7G piled up), written with SI prefixes: 0.1, 10, 200G."""
    ticks = log_ticks(*span)
    labels = {"tickvals": ticks, "ticktext": [_tick(t, language) for t in ticks]} if ticks else {}
    return {"type": "log", "range": [math.log10(end) for end in span], "title": title, **labels}


def _roofline_ranges(points: list[dict], ceilings: dict | None) -> tuple[tuple[float, float], tuple[float, float]]:
    """The axes' (low, high): every point, and with ceilings a decade each side of the ridges and the slowest roof
    under the points' intensities; a margin around it all (a factor of 3, and 5 above the peak)."""
    xs = [p["intensity"] for p in points]
    ys = [p["achieved_flops_s"] for p in points]
    if ceilings is not None:
        ridges = [level["ridge"] for level in ceilings["levels"]]
        xs += [min(ridges) / 10, max(ridges) * 10]
        ys += [ceilings["peak_flops_s"], ceilings["bandwidth_bytes_s"] * min(xs) / 3]
    return (min(xs) / 3, max(xs) * 3), (min(ys) / 3, max(ys) * 5)


def _add_roof(fig: go.Figure, ceilings: dict, xs: tuple[float, float], language: str) -> None:
    """A slanted roof per memory level (its bandwidth × intensity, up to where it meets the peak), fastest first,
    each dashed its own way, and the compute roof flat from the first ridge on; each named with its measured value
    in the legend (labels on the lines would pile up where two levels are close)."""
    peak = ceilings["peak_flops_s"]
    levels = ceilings["levels"]
    for index, level in enumerate(levels):
        bandwidth, ridge = level["bandwidth_bytes_s"], level["ridge"]
        name = say("plot.sol_roof_level", language, level=level_name(level["name"], language),
                   rate=amount(bandwidth, "B/s", language))
        dash = "solid" if index == len(levels) - 1 else _DASHES[index % len(_DASHES)]
        fig.add_trace(go.Scatter(x=[xs[0], ridge], y=[bandwidth * xs[0], peak], mode="lines", name=name,
                                 line={"color": ROOF, "width": 2.5, "dash": dash}, hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=[min(level["ridge"] for level in levels), xs[1]], y=[peak, peak], mode="lines",
                             name=say("plot.sol_roof_compute", language, rate=amount(peak, "FLOP/s", language),
                                      dtype=ceilings["dtype"]),
                             line={"color": ROOF, "width": 2.5}, hoverinfo="skip"))


def _program_point(point: dict, ceilings: dict | None, index: int, language: str) -> go.Scatter:
    """One program at (intensity, achieved FLOP/s): as written in the main colour, the others in contrast."""
    # The first larger: where both programs ran alike (a matmul, fused or not), its circle rings the other.
    style = ({"color": MAIN, "symbol": "circle", "size": 15} if index == 0
             else {"color": OTHER, "symbol": "diamond", "size": 10})
    name = _label(point["label"], language)
    return go.Scatter(x=[point["intensity"]], y=[point["achieved_flops_s"]], mode="markers", name=name,
                      marker={**style, "line": {"color": "white", "width": 1}},
                      hovertext=[_point_hover(point, name, ceilings, language)],
                      hovertemplate="%{hovertext}<extra></extra>")


def _kernel_points(kernels: list[dict], ceilings: dict | None, colours: dict[int, str], language: str) -> go.Scatter:
    """The traced kernels, one small point each, in their lines' colours (grey where no line made them)."""
    return go.Scatter(x=[k["intensity"] for k in kernels], y=[k["achieved_flops_s"] for k in kernels], mode="markers",
                      name=say("plot.sol_kernel_points", language),
                      marker={"color": [colours.get(k["line"], NO_LINE) for k in kernels], "size": 8,
                              "symbol": "square", "line": {"color": ROOF, "width": 1}},
                      hovertext=[_point_hover(k, html.escape(k["label"]), ceilings, language) for k in kernels],
                      hovertemplate="%{hovertext}<extra></extra>")


def _point_hover(point: dict, name: str, ceilings: dict | None, language: str) -> str:
    """The program's name, its FLOPs, bytes and time, its rates, and the verdict (in ``language``)."""
    work = say("plot.sol_point_work", language, flops=amount(point["flops"], "FLOP", language, 1),
               bytes=amount(point["bytes"], "B", language, 1), seconds=duration(point["seconds"], language))
    rates = say("plot.sol_point_rates", language, intensity=_figures(point["intensity"], language),
                flops_rate=amount(point["achieved_flops_s"], "FLOP/s", language),
                bytes_rate=amount(point["achieved_bytes_s"], "B/s", language))
    return f"<b>{name}</b><br>{work}<br>{rates}<br>{_wrapped(verdict(point, ceilings, language), language)}"
