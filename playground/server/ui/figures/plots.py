"""Pure figure builders: API results in, plotly Figures out (no I/O, no gradio)."""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Callable

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from playground.messages import say
from playground.messages.numbers import duration, figures, plotly_separators

_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_LAYOUT = {"template": "plotly_white", "margin": {"l": 60, "r": 20, "t": 50, "b": 50}, "height": 420}
# Several series: their names in rows under the x axis's title, not in a column on the right, which on a phone takes
# most of the width (it leaves the growth figure's bars 64 px of 390). Plotly wraps the row where it is too narrow.
LEGEND_BELOW = {"orientation": "h", "x": 0, "xanchor": "left", "y": -0.22, "yanchor": "top"}
_LAYOUT_LEGEND_BELOW = {**_LAYOUT, "margin": {**_LAYOUT["margin"], "b": 60}, "legend": LEGEND_BELOW}
# Characters of a legend entry's line that fit a phone: plotly never wraps an entry, and cuts one wider than the
# figure at its edge. On a 390 px screen an entry's text has about 260 px, from the plot's left edge and after
# its symbol (a legend from the figure's own edge made plotly widen the plot's margin instead, leaving it 60 px);
# Chinese characters are twice as wide.
_LEGEND_LINE = {"zh": 20}  # 38 elsewhere
_ENTITY = re.compile(r"&#?\w+;")  # names are HTML to plotly: an escaped character is never split
_AMOUNT = re.compile(r"(\d) (?=\S)")  # nor a number from its unit: "3.19 MFLOP"
_GLUE = "\uf8ff"  # the space between them while wrapping: no space to textwrap, which breaks at ASCII's alone


def order_label(n: int) -> str:
    """f, f′, f″, f‴, then f⁽⁴⁾, f⁽⁵⁾, ..."""
    return {0: "f", 1: "f′", 2: "f″", 3: "f‴"}.get(n, f"f⁽{str(n).translate(_SUPERSCRIPTS)}⁾")


def derivatives_figure(xs: list[float], orders: list[dict], point_by_point: bool = False,
                       language: str = "en") -> go.Figure:
    """Small multiples: one panel per derivative order over the same x, each on its own y scale; how they were
    computed (vmap of nested grad, or ``point_by_point`` without jit) goes under the title (a line of its own: one
    line is cut off on a phone). The words in ``language``.

    On one shared axis f⁽⁵⁾ at ±16 flattens f and f′ into lines; one panel each keeps every order readable.
    """
    rows = max(1, len(orders))
    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=min(0.04, 0.3 / rows))
    for row, order in enumerate(orders, start=1):
        label = order_label(order["n"])
        fig.add_trace(go.Scatter(x=xs, y=order["ys"], mode="lines", name=label,
                                 hovertemplate=f"{label}(%{{x:.3g}}) = %{{y:.4g}}<extra></extra>"), row=row, col=1)
        fig.update_yaxes(title_text=label, row=row, col=1)
    fig.update_xaxes(title_text="x", row=rows, col=1)
    how = say("plot.derivatives_pointwise" if point_by_point else "plot.derivatives_vmap", language)
    fig.update_layout(title=f"{say('plot.derivatives', language)}<br><sup>{how}</sup>", showlegend=False,
                      separators=plotly_separators(language),
                      **{**_LAYOUT, "height": max(_LAYOUT["height"], 60 + 130 * rows)})
    return fig


def growth_figure(eqn_counts: list[int], hlo_op_counts: list[int], language: str = "en") -> go.Figure:
    """How the program grows with the order: jaxpr equations before, HLO instructions after XLA."""
    orders = [order_label(n) for n in range(len(eqn_counts))]
    fig = go.Figure([
        go.Bar(x=orders, y=eqn_counts, name=say("plot.growth_jaxpr", language)),
        go.Bar(x=orders, y=hlo_op_counts, name=say("plot.growth_hlo", language)),
    ])
    fig.update_layout(title=say("plot.growth", language), barmode="group", yaxis_title=say("plot.count", language),
                      separators=plotly_separators(language), **_LAYOUT_LEGEND_BELOW)
    return fit_legend(fig, language)


NUMBERED_CELLS = 12  # up to 12 × 12 a Hessian's cells show their numbers; beyond, they would not fit


def hessian_figure(hessian: list[list[float]], language: str = "en") -> go.Figure:
    """A heatmap centred on 0, each cell with its value written in it (up to 12 × 12) as ``language`` writes it."""
    # 6, 12.5, 0.0312: no trailing zeros.
    numbered = {"texttemplate": "%{z:.4~g}"} if len(hessian) <= NUMBERED_CELLS else {}
    fig = go.Figure(go.Heatmap(z=hessian, colorscale="RdBu", zmid=0, **numbered,
                               hovertemplate="∂²f/∂x%{y}∂x%{x} = %{z:.4g}<extra></extra>"))
    fig.update_layout(title="Hessian: jacfwd(jacrev(f))", xaxis_title="j", yaxis_title="i",
                      yaxis_autorange="reversed", xaxis_dtick=1, yaxis_dtick=1, separators=plotly_separators(language),
                      **{**_LAYOUT, "height": 380})
    return fig


def timings_figure(title: str, x_title: str, xs: list[int], series: dict[str, list], language: str = "en") -> go.Figure:
    """Seconds against size on log-log axes, one line per way of running; missing values are skipped. ``title``,
    ``x_title`` and the series' names come written in ``language``, which the axis and hover texts follow."""
    fig = go.Figure()
    for name, seconds in series.items():
        points = [(x, s) for x, s in zip(xs, seconds, strict=True) if s is not None]
        if points:
            fig.add_trace(go.Scatter(x=[p[0] for p in points], y=[p[1] for p in points], mode="lines+markers",
                                     name=name, hovertemplate=say("plot.seconds_at", language, name=name)
                                     + "<extra></extra>"))
    xs_drawn, ys_drawn = [x for trace in fig.data for x in trace.x], [y for trace in fig.data for y in trace.y]
    fig.update_layout(title=title, xaxis=_labelled(xs_drawn, lambda x: figures(x, language)),
                      yaxis=_labelled(ys_drawn, lambda y: duration(y, language)), xaxis_title=x_title,
                      yaxis_title=say("plot.seconds", language), xaxis_type="log", yaxis_type="log",
                      separators=plotly_separators(language), **_LAYOUT_LEGEND_BELOW)
    return fit_legend(fig, language)


def _labelled(values: list[float], write: Callable[[float], str]) -> dict:
    """A log axis's ticks at whole values (log_ticks) over ``values``, each label written by ``write`` (10 µs,
    1.000 in German); plotly's own where there are too few."""
    ticks = log_ticks(min(values), max(values)) if values else []
    return {"tickvals": ticks, "ticktext": [write(tick) for tick in ticks]} if ticks else {}


def fit_legend(fig: go.Figure, language: str = "en") -> go.Figure:
    """``fig`` with each legend entry's name broken into lines that fit a phone's width (a name with ``<br>``
    already is left as it is).

    >>> fit_legend(go.Figure(go.Scatter(name="kernels (traced; FLOPs counted from HLO, 3.19 MFLOP &amp; more)"))
    ...            ).data[0].name
    'kernels (traced; FLOPs counted from<br>HLO, 3.19 MFLOP &amp; more)'
    """
    width = _LEGEND_LINE.get(language, 38)
    for trace in fig.data:
        if trace.name and "<br>" not in trace.name:
            trace.name = _wrapped_html(trace.name, width)
    return fig


def _wrapped_html(text: str, width: int) -> str:
    """``text`` (HTML) in lines of ``width`` characters or fewer, joined by <br>, an entity counted as one."""
    entities: dict[str, str] = {}  # each as one character of Unicode's private use area while it is wrapped
    plain = _ENTITY.sub(lambda match: entities.setdefault(match.group(), chr(0xE000 + len(entities))), text)
    plain = _AMOUNT.sub("\\1" + _GLUE, plain)
    back = {char: entity for entity, char in entities.items()} | {_GLUE: " "}
    return "<br>".join("".join(back.get(char, char) for char in line)
                       for line in textwrap.wrap(plain, width, break_on_hyphens=False))


def log_ticks(low: float, high: float) -> list[float]:
    """Where a log axis over [low, high] is labelled, each tick with its whole value: plotly's own minor labels
    are lone digits ("2, 1, 5, 2, 0.1" read as values). Powers of ten where they give three ticks or more, else
    1, 2 and 5 times them, else every digit times them; [] where even those give fewer than two (plotly's own).

    >>> log_ticks(0.08, 2.3)
    [0.1, 0.2, 0.5, 1.0, 2.0]
    >>> log_ticks(1e-4, 3.0)
    [0.0001, 0.001, 0.01, 0.1, 1.0]
    """
    if not (0 < low <= high < math.inf):
        return []
    decades = range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
    for mantissas, enough in (((1,), 3), ((1, 2, 5), 2), (range(1, 10), 2)):
        ticks = [float(f"{m}e{k}") for k in decades for m in mantissas if low <= m * 10.0 ** k <= high]
        if len(ticks) >= enough:
            return ticks
    return []
