"""Pure figure builders for the live MNIST training tab: metric streams in, plotly Figures out.

The tab redraws the loss, accuracy and throughput figures a few times a second
while training, so every builder here is cheap: plain SVG ``Scatter`` traces
thinned to at most ``MAX_POINTS`` points (WebGL traces would each hold a GL
context, and browsers cap those per page), numpy arrays (plotly ships them as
compact typed arrays), and one small template built once at import instead of
resolving ``"plotly_white"`` on every call (~10 ms each). ``uirevision`` is set
on every figure so a user's zoom and legend clicks survive the redraws.

Accuracies and probabilities come in as fractions in [0, 1] and are shown in
percent. Plots only: the numbers behind the confusion matrix and the digit grid come from
playground/owner/training/results.py. No gradio, no jax: the Gradio server process imports this module.
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


def confusion_figure(matrix: np.ndarray, class_names: Sequence[str], language: str = "en") -> go.Figure:
    """Heatmap of the confusion matrix: rows true class, columns predicted; correct cells green, mistakes red.

    The two colour scales are separate, so a handful of mistakes stays visible next to a diagonal of thousands.
    """
    matrix = np.asarray(matrix)
    title = say("plot.confusion", language)
    if matrix.size == 0 or matrix.sum() == 0:
        return empty_figure(title, say("plot.start", language), "confusion")
    n = len(class_names)
    if matrix.shape != (n, n):
        raise ValueError(f"matrix must be ({n}, {n}) for {n} class names, got {matrix.shape}")
    names = [str(name) for name in class_names]
    diagonal = np.eye(n, dtype=bool)
    total, correct = int(matrix.sum()), int(np.trace(matrix))
    hover = say("plot.confusion_hover", language) + "<extra></extra>"
    traces = []
    for mask, colors, label in ((diagonal, "Greens", say("plot.correct", language)),
                                (~diagonal, "Reds", say("plot.mistakes", language))):
        # Lists with None (not NaN) for the other trace's cells: plotly.js leaves None cells as gaps.
        z = [[int(matrix[i, j]) if mask[i, j] else None for j in range(n)] for i in range(n)]
        text = [[str(int(matrix[i, j])) if mask[i, j] else "" for j in range(n)] for i in range(n)]
        high = max(1, int(matrix[mask].max()))
        traces.append(go.Heatmap(z=z, x=names, y=names, text=text, texttemplate="%{text}", colorscale=colors,
                                 zmin=0, zmax=high, showscale=False, name=label, hovertemplate=hover,
                                 xgap=1, ygap=1))
    fig = go.Figure(traces)
    accuracy = say("plot.confusion_accuracy", language, accuracy=number(100 * correct / total, language, 2),
                   correct=number(correct, language), total=number(total, language))
    fig.update_layout(title=f"{title}<br><sup>{accuracy}</sup>",
                      xaxis={"title": say("plot.predicted", language), "type": "category", "side": "bottom"},
                      yaxis={"title": say("plot.true", language), "type": "category", "autorange": "reversed"},
                      uirevision="confusion", separators=plotly_separators(language), **{**LAYOUT, "height": 480})
    return fig


def _grid_title(shown_wrong: int, shown: int, test_mistakes: tuple[int, int] | None, language: str = "en") -> str:
    """The grid's title, and below it in small type how its digits were picked (two short lines: one long
    line is cut off on a phone).

    >>> print(_grid_title(16, 32, (213, 10_000)).replace("<br>", "\\n"))
    Test digits, mistakes first
    <sup>16 of the 213 the model got wrong</sup>
    <sup>(2.13 % of 10,000), then 16 right</sup>
    >>> print(_grid_title(0, 32, (0, 10_000)))
    Test digits and the model's predictions<br><sup>no mistakes in all 10,000</sup>
    """
    def say_(key: str, **params: object) -> str:
        return say(key, language, **params)

    if test_mistakes is None:
        return say_("plot.digits")
    wrong, total = test_mistakes
    if wrong == 0:
        return f"{say_('plot.digits')}<br><sup>{say_('plot.digits_none_wrong', total=number(total, language))}</sup>"
    share = say_("plot.digits_share", share=number(100 * wrong / total, language, 2), total=number(total, language),
                 right=shown - shown_wrong)
    picked = say_("plot.digits_wrong", shown=shown_wrong, wrong=number(wrong, language))
    return f"{say_('plot.digits_mistakes')}<br><sup>{picked}</sup><br><sup>{share}</sup>"


def digit_grid_figure(images: np.ndarray, labels: Sequence[int], predictions: Sequence[int],
                      class_names: Sequence[str], columns: int = 8,
                      test_mistakes: tuple[int, int] | None = None, language: str = "en") -> go.Figure:
    """Test digits stitched into one grayscale image, each captioned with its prediction; mistakes framed in red.

    ``test_mistakes`` is ``(wrong, total)`` over the whole test set: the title then says how the grid
    (``results.pick_digits``) picked its digits, mistakes first, and how many more than the test set's share
    that is. One heatmap trace (plus annotations and shapes) draws far faster than
    one subplot per digit.
    """
    images = np.asarray(images)
    if images.size == 0:
        return empty_figure(say("plot.digits", language), say("plot.start", language), "digits")
    if images.ndim != 3 or not len(images) == len(labels) == len(predictions):
        raise ValueError(f"images must be (k, height, width) with k labels and k predictions, got {images.shape}, "
                         f"{len(labels)} labels and {len(predictions)} predictions")
    title = _grid_title(sum(int(a) != int(b) for a, b in zip(labels, predictions, strict=True)), len(labels),
                        test_mistakes, language)
    k, height, width = images.shape
    columns = max(1, min(columns, k))
    rows = -(-k // columns)
    # Pixels between cells, and above each cell for its caption: a mistake's caption is two short lines (one
    # line, "✗ 4 (true 7)", ran into its neighbours at a phone's 40 px per digit).
    pad, caption = 4, 24
    cell_w, cell_h = width + pad, height + caption
    canvas = np.zeros((rows * cell_h, columns * cell_w), dtype=np.uint8)
    annotations, shapes = [], []
    for i, (image, label, prediction) in enumerate(zip(images, labels, predictions, strict=True)):
        top, left = (i // columns) * cell_h + caption, (i % columns) * cell_w
        canvas[top:top + height, left:left + width] = image
        ok = int(label) == int(prediction)
        text = (f"✓ {class_names[prediction]}" if ok else
                f"✗ {class_names[prediction]}<br>{say('plot.digit_true', language, label=class_names[label])}")
        annotations.append({"text": text, "x": left + width / 2 - 0.5, "y": top - 2, "xref": "x", "yref": "y",
                            "showarrow": False, "yanchor": "bottom",
                            "font": {"size": 10, "color": GOOD if ok else BAD}})
        if not ok:
            shapes.append({"type": "rect", "xref": "x", "yref": "y", "x0": left - 1.5, "x1": left + width + 0.5,
                           "y0": top - 1.5, "y1": top + height + 0.5, "line": {"color": BAD, "width": 2}})
    # MNIST is white ink on black; drawn dark on white it reads like paper and matches the page.
    fig = go.Figure(go.Heatmap(z=canvas, colorscale=[[0, "white"], [1, "black"]], zmin=0, zmax=255,
                               showscale=False, hoverinfo="skip"))
    hidden = {"visible": False, "showgrid": False, "zeroline": False}
    fig.update_layout(title=title, annotations=annotations, shapes=shapes, uirevision="digits",
                      separators=plotly_separators(language),
                      xaxis={**hidden, "range": [-2, columns * cell_w - pad + 1], "constrain": "domain"},
                      yaxis={**hidden, "autorange": "reversed", "scaleanchor": "x", "constrain": "domain",
                             "constraintoward": "top"},  # on a phone: the grid under its title, the room below
                      **{**LAYOUT, "margin": {"l": 10, "r": 10, "t": 70, "b": 10}, "height": 80 + 100 * rows})
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
