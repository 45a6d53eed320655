"""The race's figure: both sides' training loss against the seconds since Start, on one plot
(server/training/race_stream.py).

Cheap, like training_plots.py's figures (it is redrawn a few times a second while the race runs): SVG traces of at
most ``MAX_POINTS`` points each, its look and thinning taken from there.
"""

from __future__ import annotations

import plotly.graph_objects as go

from playground.messages import say
from playground.messages.numbers import figures, plotly_separators
from playground.server.ui.figures.training_plots import BAD, LAYOUT, NEUTRAL, empty_figure, log_ticks, pairs

COLOURS = {"cpu": BAD, "device": NEUTRAL}


def race_figure(sides: dict[str, dict], language: str = "en", offered: bool = True) -> go.Figure:
    """``sides``: ``{"cpu": update, "device": update}``, each with its ``device`` and ``history`` ([seconds, loss]).
    Before a race: what to press, or (``offered`` False: Race is greyed out) that this host has no race."""
    title = say("plot.race", language)
    drawn = {side: update for side, update in sides.items() if update.get("history")}
    if not drawn:
        return empty_figure(title, say("plot.race_start" if offered else "plot.race_none", language), "race")
    fig = go.Figure()
    low, high = float("inf"), 0.0
    for side, update in drawn.items():
        x, y = pairs(update["history"])
        low, high = min(low, float(y.min())), max(high, float(y.max()))
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=update.get("device") or side,
                                 line={"width": 2, "color": COLOURS.get(side, NEUTRAL)},
                                 hovertemplate="%{x:.1f} s: %{y:.4f}<extra>%{fullData.name}</extra>"))
    ticks = log_ticks(low, high) if 0 < low <= high else []
    axis = {"tickvals": ticks, "ticktext": [figures(tick, language) for tick in ticks]} if ticks else {}
    fig.update_layout(title=title, xaxis_title=say("plot.since_start", language),
                      yaxis_title=say("plot.loss_axis", language),
                      yaxis_type="log", yaxis=axis, uirevision="race",
                      legend={"orientation": "h", "y": -0.25}, separators=plotly_separators(language), **LAYOUT)
    return fig
