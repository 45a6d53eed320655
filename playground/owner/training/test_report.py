"""What a finished run reports about the test set: the confusion matrix and a grid of test digits to show.

Plain numpy: the device owner computes these once per run and sends them to
the server; result_plots.py only draws them. ::

    >>> confusion_matrix(np.array([0, 1, 1]), np.array([0, 1, 0]), n_classes=2)
    array([[1, 0],
           [1, 1]])
"""

from __future__ import annotations

import numpy as np

GRID_DIGITS = 32


def _labels_and_predictions(labels: np.ndarray, predictions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    labels, predictions = np.asarray(labels), np.asarray(predictions)
    if labels.shape != predictions.shape or labels.ndim != 1:
        raise ValueError(f"labels and predictions must be 1-D and of equal length, got {labels.shape} "
                         f"and {predictions.shape}")
    return labels, predictions


def confusion_matrix(labels: np.ndarray, predictions: np.ndarray, n_classes: int = 10) -> np.ndarray:
    """Counts ``(n_classes, n_classes)``: entry [t, p] is how many images of class t were predicted as p."""
    labels, predictions = _labels_and_predictions(labels, predictions)
    for name, values in (("labels", labels), ("predictions", predictions)):
        if values.size and (not np.issubdtype(values.dtype, np.integer) or values.min() < 0
                            or values.max() >= n_classes):
            raise ValueError(f"{name} must be integers in [0, {n_classes}), got {values.dtype} values "
                             f"from {values.min()} to {values.max()}")
    flat = labels.astype(np.int64) * n_classes + predictions.astype(np.int64)
    return np.bincount(flat, minlength=n_classes * n_classes).reshape(n_classes, n_classes)


def pick_digits(labels: np.ndarray, predictions: np.ndarray, k: int = GRID_DIGITS, seed: int = 0) -> np.ndarray:
    """Indices of ``k`` test images to show: up to half of them mistakes, first, then right ones (each in index order).

    A good model gets one digit in fifty wrong, so a fair sample would show
    none or one: the grid oversamples the mistakes, which teach more, and its
    title says so (``result_plots.digit_grid_figure``).

    Deterministic for a given ``seed`` (the generator's, not the run's), so the
    grid does not reshuffle between redraws of the same epoch.
    """
    labels, predictions = _labels_and_predictions(labels, predictions)
    wrong = np.flatnonzero(labels != predictions)
    right = np.flatnonzero(labels == predictions)
    k = min(k, len(labels))
    n_wrong = min(len(wrong), k // 2)
    n_wrong = max(n_wrong, k - len(right))  # too few right ones: fill the grid with more mistakes
    rng = np.random.default_rng(seed)
    mistakes = np.sort(rng.choice(wrong, n_wrong, replace=False))
    return np.concatenate([mistakes, np.sort(rng.choice(right, k - n_wrong, replace=False))]).astype(np.int64)


def summarise_test_set(test_images: np.ndarray, test_labels: np.ndarray, predictions: np.ndarray) -> dict:
    """JSON-able: ``{"confusion": rows of counts, "samples": {"indices", "images", "labels", "predictions"}}``."""
    labels = np.asarray(test_labels)
    picked = pick_digits(labels, predictions)
    return {
        "confusion": confusion_matrix(labels, predictions).tolist(),
        "samples": {
            "indices": picked.tolist(),
            "images": np.asarray(test_images)[picked].tolist(),
            "labels": labels[picked].tolist(),
            "predictions": np.asarray(predictions)[picked].tolist(),
        },
    }
