"""The figures of a finished (or stopped) training run: its confusion matrix and a grid of its test digits.

Plots only: the numbers behind them come from playground/owner/training/test_report.py, computed once per run in
the device owner. They share the live training figures' look (training_plots.py). No gradio, no jax: the Gradio
server process imports this module.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from playground.messages import number, say
from playground.messages.numbers import plotly_separators
from playground.server.ui.figures.training_plots import BAD, GOOD, LAYOUT, empty_figure


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
