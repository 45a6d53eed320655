"""A run's test-set results: the confusion matrix against a Python loop, the digits picked for the grid."""

from __future__ import annotations

import json

import numpy as np
import pytest

from playground.owner.training import test_report


def test_confusion_matrix_matches_a_python_loop():
    rng = np.random.default_rng(1)
    labels, predictions = rng.integers(0, 10, 500), rng.integers(0, 10, 500)
    expected = np.zeros((10, 10), dtype=int)
    for t, p in zip(labels, predictions, strict=True):
        expected[t, p] += 1
    np.testing.assert_array_equal(test_report.confusion_matrix(labels, predictions), expected)
    assert test_report.confusion_matrix(np.array([], int), np.array([], int), 3).shape == (3, 3)


@pytest.mark.parametrize("labels, predictions", [([1, 2], [1]), ([1, 10], [1, 2]), ([-1, 0], [0, 0]),
                                                  ([0.5, 1.0], [0, 1])])
def test_confusion_matrix_rejects_bad_input(labels, predictions):
    with pytest.raises(ValueError, match="of equal length|must be integers in"):
        test_report.confusion_matrix(np.array(labels), np.array(predictions))


def test_pick_digits_is_deterministic_and_shows_mistakes_first():
    rng = np.random.default_rng(2)
    labels = rng.integers(0, 10, 1000)
    predictions = labels.copy()
    wrong = rng.choice(1000, 50, replace=False)
    predictions[wrong] = (labels[wrong] + 1) % 10
    picked = test_report.pick_digits(labels, predictions, k=32, seed=0)
    np.testing.assert_array_equal(picked, test_report.pick_digits(labels, predictions, k=32, seed=0))
    assert len(picked) == 32 and len(set(picked)) == 32
    mistaken = labels[picked] != predictions[picked]
    assert mistaken[:16].all() and not mistaken[16:].any()  # half the grid, first: mistakes
    assert np.all(np.diff(picked[:16]) > 0) and np.all(np.diff(picked[16:]) > 0)  # each part in index order
    assert not np.array_equal(picked, test_report.pick_digits(labels, predictions, k=32, seed=1))


def test_pick_digits_with_few_mistakes_or_few_right_ones():
    labels = np.arange(100) % 10
    predictions = labels.copy()
    predictions[[7, 41, 93]] = 0
    picked = test_report.pick_digits(labels, predictions, k=32)
    assert picked[:3].tolist() == [7, 41, 93] and len(picked) == 32  # all three mistakes, first
    assert len(test_report.pick_digits(labels, labels, k=32)) == 32  # no mistakes: all right ones
    all_wrong = test_report.pick_digits(labels, (labels + 1) % 10, k=32)
    assert len(all_wrong) == 32  # no right ones: the grid fills with mistakes
    assert len(test_report.pick_digits(labels[:5], predictions[:5], k=32)) == 5


def test_the_summary_is_json_and_agrees_with_its_parts():
    rng = np.random.default_rng(3)
    images = rng.integers(0, 256, (200, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, 200).astype(np.uint8)
    predictions = np.where(rng.random(200) < 0.9, labels, (labels + 3) % 10).astype(np.int64)
    summary = json.loads(json.dumps(test_report.summarise_test_set(images, labels, predictions)))
    assert summary["confusion"] == test_report.confusion_matrix(labels, predictions).tolist()
    picked = summary["samples"]["indices"]
    assert picked == test_report.pick_digits(labels, predictions, k=test_report.GRID_DIGITS).tolist()
    assert summary["samples"]["images"] == images[picked].tolist()
    assert summary["samples"]["labels"] == labels[picked].tolist()
    assert summary["samples"]["predictions"] == predictions[picked].tolist()
