"""Pure figure builders for the live MNIST training tab: metric streams in, plotly Figures out.

The tab redraws the loss, accuracy and throughput figures a few times a second
while training, so every builder here is cheap: plain SVG ``Scatter`` traces
thinned to at most ``MAX_POINTS`` points (WebGL traces would each hold a GL
context, and browsers cap those per page), numpy arrays (plotly ships them as
compact typed arrays), and one small template built once at import instead of
resolving ``"plotly_white"`` on every call (~10 ms each). ``uirevision`` is set
on every figure so a user's zoom and legend clicks survive the redraws.

Accuracies and probabilities come in as fractions in [0, 1] and are shown in
percent; a finished run's confusion matrix and digit grid are drawn by result_plots.py. No gradio, no jax: the
Gradio server process imports this module.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from playground.messages import number, say
from playground.messages.numbers import figures, plotly_separators
from playground.server.training.loss_series import Buckets
from playground.server.ui.figures.plots import log_ticks

MAX_POINTS = 2000
GOOD, BAD, NEUTRAL = "#2ca02c", "#d62728", "#636efa"

# The look of plotly_white (as in plots.py), resolved once: the live figures are rebuilt constantly.
_GRID = {"gridcolor": "#EBF0F8", "zerolinecolor": "#EBF0F8", "linecolor": "#EBF0F8"}
_TEMPLATE = go.layout.Template(layout={
    "colorway": ["#636efa", "#EF553B", "#00cc96", "#ab63fa", "#FFA15A", "#19d3f3"],
    "font": {"color": "#2a3f5f"}, "paper_bgcolor": "white", "plot_bgcolor": "white", "hovermode": "closest",
    "xaxis": _GRID, "yaxis": _GRID,
})
LAYOUT = {"template": _TEMPLATE, "margin": {"l": 60, "r": 20, "t": 50, "b": 50}, "height": 360}


def empty_figure(title: str, message: str, revision: str) -> go.Figure:
    """A blank figure that says what to do, with the same title and size as the full one."""
    fig = go.Figure()
    fig.add_annotation(text=message, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False,
                       font={"size": 16, "color": "#8c8c8c"})
    fig.update_layout(title=title, xaxis_visible=False, yaxis_visible=False, uirevision=revision, **LAYOUT)
    return fig


def _series(xs: Sequence[float], ys: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Two equal-length 1-D float arrays thinned to at most ``MAX_POINTS``, or a ValueError saying what was wrong."""
    x, y = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be 1-D and of equal length, got shapes {x.shape} and {y.shape}")
    keep = thin(len(x))
    return x[keep], y[keep]


def pairs(points: Sequence[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """``[(x, y), ...]`` as two float arrays, thinned like :func:`_series`."""
    array = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    return _series(array[:, 0], array[:, 1])


def thin(n: int, limit: int = MAX_POINTS) -> np.ndarray | slice:
    """Which of ``n`` points to draw: all of them, or ``limit`` evenly spaced ones that keep the first and newest."""
    if n <= limit:
        return slice(None)
    return np.unique(np.linspace(0, n - 1, limit).round().astype(np.int64))


def loss_figure(steps: Sequence[int], losses: Sequence[float], language: str = "en",
                per_step: Buckets | None = None) -> go.Figure:
    """Training loss against step on a log axis: every step's own loss (``per_step``), and the smoothed loss.

    The smoothed losses come from the training loop (an exponential moving
    average over about 50 steps), one per update. ``per_step`` holds every
    step's loss in at most ``MAX_POINTS`` buckets (``LossSeries.buckets``):
    where a bucket holds one step it is that step's loss; where it holds
    several (a long run), the line is their mean and a shaded band spans
    their lowest to highest, so the spread of a long run's steps stays in
    sight while the page draws a few thousand points, not 100,000.
    """
    title = say("plot.loss", language)
    if len(steps) == 0 and (per_step is None or not len(per_step.mean)):
        return empty_figure(title, say("plot.start", language), "loss")
    x, y = _series(steps, losses)
    hover = f"{say('plot.step', language)} %{{x:.0f}}: %{{y:.4f}}<extra>%{{fullData.name}}</extra>"
    fig = go.Figure()
    shown = [y]
    if per_step is not None and len(per_step.mean):
        middle = per_step.middle
        width = int(per_step.steps.max())
        if width > 1:
            fig.add_trace(go.Scatter(x=middle, y=per_step.low, mode="lines", line={"width": 0}, hoverinfo="skip",
                                     showlegend=False))
            fig.add_trace(go.Scatter(x=middle, y=per_step.high, mode="lines", line={"width": 0}, fill="tonexty",
                                     fillcolor="rgba(99, 110, 250, 0.2)", hoverinfo="skip",
                                     name=say("plot.loss_spread", language, steps=number(width, language))))
        name = say("plot.loss_each_step", language) if width == 1 else say(
            "plot.loss_mean_of", language, steps=number(width, language))
        fig.add_trace(go.Scatter(x=middle, y=per_step.mean, mode="lines", name=name, hovertemplate=hover,
                                 line={"width": 1, "color": "rgba(99, 110, 250, 0.6)"}))
        shown += [per_step.low, per_step.high]
    fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=say("plot.loss_smoothed", language),
                             line={"width": 2, "color": NEUTRAL}, hovertemplate=hover))
    values = np.concatenate(shown)
    values = values[np.isfinite(values) & (values > 0)]
    ticks = log_ticks(float(values.min()), float(values.max())) if len(values) else []
    axis = {"tickvals": ticks, "ticktext": [figures(tick, language) for tick in ticks]} if ticks else {}
    fig.update_layout(title=title, xaxis_title=say("plot.step", language),
                      yaxis_title=say("plot.loss_axis", language), yaxis_type="log",
                      yaxis=axis, uirevision="loss", separators=plotly_separators(language),
                      legend={"x": 1, "xanchor": "right", "y": 1, "yanchor": "top"},
                      **LAYOUT)
    return fig


def accuracy_figure(epoch_points: Sequence[tuple[float, float]], estimates: Sequence[tuple[float, float]],
                    train_epoch_points: Sequence[tuple[float, float]] = (),
                    train_estimates: Sequence[tuple[float, float]] = (), language: str = "en") -> go.Figure:
    """Accuracy in percent against (fractional) epoch, on test images and on training images.

    Each set has its epoch-end points (solid, with markers) and its quick estimates between (dotted, fainter);
    test in green, training in blue. The gap between the two is how much the model fits its training images
    better than images it has never seen.
    """
    title = say("plot.accuracy", language)
    series = [(estimates, say("plot.test_estimate", language), GOOD, False),
              (epoch_points, say("plot.test_epoch", language), GOOD, True),
              (train_estimates, say("plot.train_estimate", language), NEUTRAL, False),
              (train_epoch_points, say("plot.train_epoch", language), NEUTRAL, True)]
    if not any(len(points) for points, *_ in series):
        return empty_figure(title, say("plot.start", language), "accuracy")
    fig = go.Figure()
    for points, name, colour, epoch_end in series:
        if not len(points):
            continue
        x, y = pairs(points)
        style = ({"mode": "lines+markers", "line": {"width": 2, "color": colour}, "marker": {"size": 8}}
                 if epoch_end else {"mode": "lines", "opacity": 0.6,
                                    "line": {"dash": "dot", "width": 1.5, "color": colour}})
        fig.add_trace(go.Scatter(x=x, y=100 * y, name=name, hovertemplate=f"{say('plot.epoch', language)} "
                                 f"%{{x:.2f}}: %{{y:.2f}} %<extra>{name}</extra>", **style))
    fig.update_layout(title=title, xaxis_title=say("plot.epoch", language),
                      yaxis_title=say("plot.accuracy_axis", language), yaxis_range=[0, 100],
                      uirevision="accuracy", separators=plotly_separators(language),
                      legend={"x": 1, "xanchor": "right", "y": 0, "yanchor": "bottom"},
                      **LAYOUT)
    return fig


def throughput_figure(elapsed_s: Sequence[float], samples_per_s: Sequence[float], language: str = "en") -> go.Figure:
    """Training images per second against wall-clock time since Start."""
    title = say("plot.throughput", language)
    if len(elapsed_s) == 0:
        return empty_figure(title, say("plot.start", language), "throughput")
    x, y = _series(elapsed_s, samples_per_s)
    fig = go.Figure(go.Scatter(x=x, y=y, mode="lines", name=say("plot.samples_per_s", language),
                               line={"width": 2, "color": "#ab63fa"},
                               hovertemplate=f"%{{x:.1f}} s: %{{y:,.0f}} {say('plot.samples_per_s', language)}"
                                             "<extra></extra>"))
    fig.update_layout(title=title, xaxis_title=say("plot.elapsed", language),
                      yaxis_title=say("plot.samples_per_s", language),
                      yaxis_rangemode="tozero", uirevision="throughput", separators=plotly_separators(language),
                      **LAYOUT)
    return fig


def probability_figure(probabilities: Sequence[float] | None, class_names: Sequence[str],
                       language: str = "en") -> go.Figure:
    """Bar chart of the model's class probabilities in percent, the most likely class highlighted."""
    title = say("plot.thinks", language)
    if probabilities is None or len(probabilities) == 0:
        return empty_figure(title, say("plot.draw", language), "probabilities")
    p = 100 * np.asarray(probabilities, dtype=np.float64)
    if p.shape != (len(class_names),):
        raise ValueError(f"expected {len(class_names)} probabilities, one per class, got shape {p.shape}")
    top = int(np.argmax(p))
    colors = [GOOD if i == top else "#c7cbd6" for i in range(len(p))]
    fig = go.Figure(go.Bar(x=[str(name) for name in class_names], y=p, marker_color=colors,
                           text=[f"{number(v, language, 1)} %" for v in p], textposition="outside", cliponaxis=False,
                           hovertemplate="%{x}: %{y:.2f} %<extra></extra>"))
    fig.update_layout(title=f"{title}: {class_names[top]} ({number(p[top], language, 1)} %)",
                      xaxis_title=say("plot.class", language), yaxis_title=say("plot.probability", language),
                      xaxis_type="category", yaxis_range=[0, 105],
                      uirevision="probabilities", separators=plotly_separators(language), **{**LAYOUT, "height": 320})
    return fig
