"""Training-tab figures: the data drawn are the data given, empty states say what to do, helpers match loops."""

from __future__ import annotations

import json
import re

import numpy as np
import plotly.graph_objects as go
import pytest

from playground.server.training.loss_series import LossSeries
from playground.server.ui.figures import result_plots as rp
from playground.server.ui.figures import training_plots as tp
from playground.server.ui.figures.plots import log_ticks
from playground.server.ui.figures.race_plots import race_figure

NAMES = [str(d) for d in range(10)]


def _empty_message(fig: go.Figure) -> str:
    assert len(fig.data) == 0
    return fig.layout.annotations[0].text


def _serialises(fig: go.Figure) -> dict:
    return json.loads(fig.to_json())


def test_loss_figure_draws_the_smoothed_losses_it_is_given():
    steps, losses = [0, 10, 20, 30], [2.3, 1.0, 0.5, 0.4]
    fig = tp.loss_figure(steps, losses)
    (line,) = fig.data
    np.testing.assert_allclose(line.x, steps)
    np.testing.assert_allclose(line.y, losses)
    assert fig.layout.yaxis.type == "log" and fig.layout.uirevision == "loss"
    assert fig.layout.xaxis.title.text == "step" and "loss" in fig.layout.title.text.lower()
    _serialises(fig)


def test_the_loss_figure_draws_each_steps_loss_and_in_a_long_run_each_buckets_mean_and_spread():
    series = LossSeries(limit=4)
    series.add(1, [2.0, 1.0, 0.8])
    fig = tp.loss_figure([3], [1.2], per_step=series.buckets())
    each, smoothed = fig.data
    assert (each.name, list(each.x), list(each.y)) == ("each step", [1, 2, 3], [2.0, 1.0, 0.8])
    assert smoothed.name == "smoothed (about 50 steps)" and list(smoothed.y) == [1.2]
    series.add(4, [0.5, 0.4, 0.3])  # six steps: buckets of two
    low, high, mean, _ = tp.loss_figure([6], [0.6], per_step=series.buckets()).data
    assert list(mean.x) == [1.5, 3.5, 5.5] and list(mean.y) == pytest.approx([1.5, 0.65, 0.35])
    assert list(low.y) == [1.0, 0.5, 0.3] and list(high.y) == [2.0, 0.8, 0.4] and high.fill == "tonexty"
    assert mean.name == "mean of 2 steps" and high.name == "lowest to highest of 2 steps"
    _serialises(fig)


@pytest.mark.parametrize(("low", "high", "ticks"), [
    (0.08, 2.3, [0.1, 0.2, 0.5, 1.0, 2.0]),  # a first epoch: labels read as the values they are
    (0.0012, 2.3, [0.01, 0.1, 1.0]),  # wide: decades only
    (0.3, 0.5, [0.3, 0.4, 0.5]),  # narrow: every digit
    (0.31, 0.39, []),  # nothing to label between: plotly's own
    (0.0, 1.0, []), (float("nan"), 1.0, []),  # no log axis to label
])
def test_log_ticks_label_whole_values(low, high, ticks):
    assert log_ticks(low, high) == pytest.approx(ticks)


def test_the_loss_axis_labels_its_ticks_with_whole_values_not_lone_digits():
    fig = tp.loss_figure([0, 100, 200, 300], [2.3, 0.6, 0.2, 0.09])
    assert list(fig.layout.yaxis.tickvals) == pytest.approx([0.1, 0.2, 0.5, 1.0, 2.0])
    assert list(fig.layout.yaxis.ticktext) == ["0.1", "0.2", "0.5", "1", "2"]


def test_long_series_are_thinned_but_keep_both_ends():
    n = 3 * tp.MAX_POINTS + 7
    fig = tp.loss_figure(list(range(n)), list(np.linspace(3, 0.1, n)))
    assert len(fig.data[0].x) <= tp.MAX_POINTS
    assert fig.data[0].x[0] == 0 and fig.data[0].x[-1] == n - 1
    assert fig.data[0].y[-1] == pytest.approx(0.1)


def test_accuracy_figure_in_percent_with_full_and_quick_points():
    fig = tp.accuracy_figure([(1.0, 0.9), (2.0, 0.955)], [(0.25, 0.5), (0.5, 0.8), (1.5, 0.93)])
    estimate, full = fig.data
    np.testing.assert_allclose(full.x, [1.0, 2.0])
    np.testing.assert_allclose(full.y, [90.0, 95.5])
    assert full.mode == "lines+markers"
    np.testing.assert_allclose(estimate.x, [0.25, 0.5, 1.5])
    np.testing.assert_allclose(estimate.y, [50.0, 80.0, 93.0])
    assert estimate.line.dash == "dot"
    assert "%{y:.2f}" in full.hovertemplate and "%{x:.2f}" in estimate.hovertemplate
    assert tuple(fig.layout.yaxis.range) == (0, 100)
    _serialises(fig)


def test_accuracy_figure_draws_training_accuracy_in_its_own_colour():
    fig = tp.accuracy_figure([(1.0, 0.9)], [], [(1.0, 0.97)], [(0.5, 0.8)])
    by_name = {trace.name: trace for trace in fig.data}
    assert set(by_name) == {"test (epoch end)", "training (epoch end)", "training, quick estimate"}
    assert by_name["training (epoch end)"].line.color == by_name["training, quick estimate"].line.color != \
        by_name["test (epoch end)"].line.color
    np.testing.assert_allclose(by_name["training (epoch end)"].y, [97.0])
    assert by_name["training, quick estimate"].line.dash == "dot"
    _serialises(fig)


def test_accuracy_figure_with_only_estimates_so_far():
    fig = tp.accuracy_figure([], [(0.1, 0.3)])
    assert len(fig.data) == 1 and fig.data[0].y[0] == pytest.approx(30.0)


def test_throughput_figure():
    fig = tp.throughput_figure([0.5, 1.0, 1.5], [1000.0, 52000.0, 55000.0])
    np.testing.assert_allclose(fig.data[0].y, [1000.0, 52000.0, 55000.0])
    assert fig.layout.xaxis.title.text == "elapsed (s)"
    _serialises(fig)


@pytest.mark.parametrize("fig", [
    tp.loss_figure([], []),
    tp.accuracy_figure([], []),
    tp.throughput_figure([], []),
    rp.confusion_figure(np.zeros((10, 10), dtype=int), NAMES),
    rp.digit_grid_figure(np.zeros((0, 28, 28), np.uint8), [], [], NAMES),
])
def test_empty_training_figures_say_press_start(fig):
    assert _empty_message(fig) == "Press Start to train"
    assert fig.layout.title.text and fig.layout.uirevision
    _serialises(fig)


def test_mismatched_series_are_a_clear_error():
    with pytest.raises(ValueError, match="equal length"):
        tp.loss_figure([1, 2], [0.5])


def test_confusion_figure_splits_correct_and_mistakes_and_reports_accuracy():
    matrix = np.diag(np.arange(10, 20))
    matrix[3, 5], matrix[7, 1] = 4, 2
    fig = rp.confusion_figure(matrix, NAMES)
    correct, mistakes = fig.data
    as_array = [np.array([[np.nan if v is None else v for v in row] for row in t.z], dtype=float) for t in fig.data]
    np.testing.assert_array_equal(np.nan_to_num(as_array[0]) + np.nan_to_num(as_array[1]), matrix)
    assert np.isnan(as_array[0][3, 5]) and as_array[1][3, 5] == 4 and np.isnan(as_array[1][4, 4])
    assert correct.colorscale != mistakes.colorscale
    assert correct.text[2][2] == "12" and mistakes.text[3][5] == "4" and mistakes.text[2][2] == ""
    accuracy = 100 * np.trace(matrix) / matrix.sum()
    assert f"{accuracy:.2f} %" in fig.layout.title.text
    assert fig.layout.yaxis.autorange == "reversed" and fig.layout.xaxis.type == "category"
    assert "predicted" in fig.layout.xaxis.title.text and "true" in fig.layout.yaxis.title.text
    _serialises(fig)


def test_confusion_figure_rejects_a_wrong_shape():
    with pytest.raises(ValueError, match=r"\(10, 10\)"):
        rp.confusion_figure(np.ones((3, 3), int), NAMES)


def _digits(k: int) -> np.ndarray:
    images = np.zeros((k, 28, 28), dtype=np.uint8)
    for i in range(k):
        images[i, 2:8, 10:18] = 255  # a bar near the top of each digit, to check orientation
        images[i, 20, 5] = i
    return images


def test_digit_grid_marks_each_mistake_and_keeps_digits_upright():
    images = _digits(10)
    labels = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    predictions = [0, 1, 5, 3, 4, 5, 6, 1, 8, 9]
    fig = rp.digit_grid_figure(images, labels, predictions, NAMES, columns=4)
    assert len(fig.data) == 1 and fig.data[0].type == "heatmap"
    captions = [a.text for a in fig.layout.annotations]
    wrong_captions = [c for c in captions if c.startswith("✗")]
    assert wrong_captions == ["✗ 5<br>true 2", "✗ 1<br>true 7"]
    assert captions[0] == "✓ 0" and len(captions) == 10
    assert len(fig.layout.shapes) == 2 and all(s.line.color == tp.BAD for s in fig.layout.shapes)
    assert {a.font.color for a in fig.layout.annotations if a.text.startswith("✓")} == {tp.GOOD}
    # Every image appears unchanged in the stitched canvas, rows top to bottom with the y axis reversed.
    canvas = np.asarray(fig.data[0].z)
    assert canvas.shape == (3 * (28 + 24), 4 * (28 + 4))
    assert fig.layout.yaxis.autorange == "reversed" and fig.layout.yaxis.visible is False
    for i, image in enumerate(images):
        top, left = (i // 4) * 52 + 24, (i % 4) * 32
        np.testing.assert_array_equal(canvas[top:top + 28, left:left + 28], image)
        assert fig.layout.annotations[i].y < top  # caption above its digit
    # The red frame surrounds the wrong digit (index 2: row 0, column 2).
    frame = fig.layout.shapes[0]
    assert frame.x0 < 64 and frame.x1 > 64 + 27 and frame.y0 < 24 and frame.y1 > 24 + 27
    _serialises(fig)


def test_digit_grid_title_says_the_mistakes_come_first_and_how_many_there_are():
    images, labels = _digits(4), [0, 1, 2, 3]
    mistakes_first = rp.digit_grid_figure(images, labels, [5, 6, 2, 3], NAMES, test_mistakes=(213, 10_000))
    assert mistakes_first.layout.title.text == ("Test digits, mistakes first<br><sup>2 of the 213 the model got "
                                                "wrong</sup><br><sup>(2.13 % of 10,000), then 2 right</sup>")
    perfect = rp.digit_grid_figure(images, labels, labels, NAMES, test_mistakes=(0, 10_000))
    assert perfect.layout.title.text.endswith("<sup>no mistakes in all 10,000</sup>")
    assert rp.digit_grid_figure(images, labels, labels, NAMES).layout.title.text == \
        "Test digits and the model's predictions"


def test_digit_grid_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="predictions"):
        rp.digit_grid_figure(_digits(3), [1, 2, 3], [1, 2], NAMES)


def test_probability_figure_highlights_the_top_class():
    p = np.full(10, 0.02)
    p[7] = 0.82
    fig = tp.probability_figure(p, NAMES)
    bars = fig.data[0]
    np.testing.assert_allclose(bars.y, 100 * p)
    assert list(bars.x) == NAMES and fig.layout.xaxis.type == "category"
    colors = list(bars.marker.color)
    assert colors[7] == tp.GOOD and colors.count(tp.GOOD) == 1
    assert "7" in fig.layout.title.text and "82.0 %" in fig.layout.title.text
    _serialises(fig)


@pytest.mark.parametrize("probabilities", [None, [], np.array([])])
def test_probability_figure_empty_says_draw_a_digit(probabilities):
    fig = tp.probability_figure(probabilities, NAMES)
    assert _empty_message(fig) == "Draw a digit"
    _serialises(fig)


def test_probability_figure_needs_one_value_per_class():
    with pytest.raises(ValueError, match="10 probabilities"):
        tp.probability_figure([0.5, 0.5], NAMES)


def words(fig: go.Figure) -> list[str]:
    """Every text a figure shows or hovers, in a fixed order (titles, axis titles, notes, trace names and hovers),
    without its markup and plotly's fields."""
    layout = fig.layout
    found = [layout.title.text, layout.xaxis.title.text, layout.yaxis.title.text]
    found += [note.text for note in layout.annotations[:3]]  # the grid's first captions, or the empty plot's note
    for trace in fig.data:
        found += [trace.name, trace.hovertemplate]
    return [re.sub(r"<[^>]*>|%\{[^}]*\}", " ", text or "") for text in found]  # the words: no markup, no fields


def _per_step(steps: int, limit: int):
    series = LossSeries(limit)
    series.add(1, np.linspace(2.0, 0.5, steps))
    return series.buckets()


SAMPLES = np.zeros((3, 28, 28), np.uint8)
BUILDERS = {
    "loss": lambda lang: tp.loss_figure([1, 2, 3], [2.0, 1.0, 0.5], lang),
    "loss per step": lambda lang: tp.loss_figure([4], [1.0], lang, _per_step(4, 4)),
    "loss in buckets": lambda lang: tp.loss_figure([8], [1.0], lang, _per_step(8, 3)),
    "accuracy": lambda lang: tp.accuracy_figure([(1.0, 0.9)], [(0.5, 0.8)], [(1.0, 0.95)], [(0.5, 0.85)], lang),
    "throughput": lambda lang: tp.throughput_figure([1.0, 2.0], [100.0, 200.0], lang),
    "confusion": lambda lang: rp.confusion_figure(np.eye(10, dtype=int) * 5 + 1, [str(d) for d in range(10)], lang),
    "grid": lambda lang: rp.digit_grid_figure(SAMPLES, [1, 2, 3], [1, 7, 3], [str(d) for d in range(10)],
                                              test_mistakes=(120, 10_000), language=lang),
    "probabilities": lambda lang: tp.probability_figure([0.1] * 10, [str(d) for d in range(10)], lang),
    "empty": lambda lang: tp.loss_figure([], [], lang),
    "nothing drawn": lambda lang: tp.probability_figure(None, [], lang),
}
# Names that are the same in every language: JAX's and the model's terms, numbers and marks.
SAME_EVERYWHERE = {"loss"}


@pytest.mark.parametrize("language", ["de", "zh"])
@pytest.mark.parametrize("name", BUILDERS)
def test_every_word_in_a_training_figure_is_in_the_readers_language(name, language):
    english, other = words(BUILDERS[name]("en")), words(BUILDERS[name](language))
    assert len(english) == len(other)
    left = [e for e, o in zip(english, other, strict=True) if e == o and re.search("[a-z]{3}", e)]
    assert set(left) <= SAME_EVERYWHERE, left


def test_numbers_in_a_training_figure_are_written_as_the_readers_language_does():
    confusion = rp.confusion_figure(np.eye(10, dtype=int) * 999 + 1, [str(d) for d in range(10)], "de")
    assert "Genauigkeit 99,11 % (10.000 / 10.090)" in confusion.layout.title.text


@pytest.mark.parametrize("name", [name for name in BUILDERS if name not in ("empty", "nothing drawn")])
def test_plotly_writes_a_training_figures_numbers_as_the_readers_language_does(name):
    """Ticks and hovers are plotly's to write: the layout's separators tell it 0,5 in German."""
    assert [BUILDERS[name](language).layout.separators for language in ("en", "de", "zh")] == [".,", ",.", ".,"]


def test_the_loss_axis_labels_its_ticks_in_the_readers_language():
    fig = tp.loss_figure([1, 2, 3], [2.0, 0.5, 0.08], "de")
    assert list(fig.layout.yaxis.ticktext) == ["0,1", "0,2", "0,5", "1", "2"]
    assert fig.layout.yaxis.title.text == "Loss"


def test_the_races_figure_writes_its_numbers_and_its_loss_axis_in_the_readers_language():
    sides = {"cpu": {"device": "CPU", "history": [[0.5, 2.0], [3.0, 0.08]]},
             "device": {"device": "TPU", "history": [[0.2, 2.0], [1.0, 0.1]]}}
    german = race_figure(sides, "de")
    assert german.layout.separators == ",." and list(german.layout.yaxis.ticktext) == ["0,1", "0,2", "0,5", "1", "2"]
    assert german.layout.yaxis.title.text == "Loss" and race_figure(sides, "zh").layout.yaxis.title.text == "损失"


def test_before_a_race_the_plot_says_what_to_press_or_that_this_host_has_none():
    def words(fig) -> str:
        return " ".join(annotation.text for annotation in fig.layout.annotations)

    assert "Press Race" in words(race_figure({}))
    assert "No race on this host" in words(race_figure({}, offered=False))  # Race is greyed out there
    assert "Kein Rennen" in words(race_figure({}, "de", offered=False))
