"""Gradio's Sketchpad value read as ink: RGBA on transparent or white pads, layers, blanks; then the model's input."""

from __future__ import annotations

import numpy as np
import pytest

from playground.mnist.preprocess import model_input, to_mnist_frame
from playground.server.ui.train_sketch import sketch_to_ink


def blob(shape=(300, 400), centre=(60, 330), radii=(45, 25)) -> np.ndarray:
    """A filled ellipse: a small off-centre mark on a big canvas, like a digit drawn in a corner."""
    y, x = np.mgrid[: shape[0], : shape[1]]
    return (((y - centre[0]) / radii[0]) ** 2 + ((x - centre[1]) / radii[1]) ** 2 <= 1).astype(float)


def ink_height(frame: np.ndarray) -> int:
    rows = np.flatnonzero(frame.any(axis=1))
    return rows[-1] - rows[0] + 1


def rgba(background: tuple[int, int, int, int], stroke: tuple[int, int, int, int]) -> np.ndarray:
    image = np.empty((120, 160, 4), dtype=np.uint8)
    image[:] = background
    image[30:90, 100:112] = stroke  # a "1" towards the right
    return image


def test_dark_strokes_on_a_transparent_pad():
    ink = sketch_to_ink({"composite": rgba((0, 0, 0, 0), (0, 0, 0, 255)), "background": None, "layers": []})
    assert ink.dtype == np.float32 and ink.shape == (120, 160)
    assert ink[60, 105] == 1.0 and ink[5, 5] == 0.0 and ink.sum() == 60 * 12


def test_dark_strokes_on_a_white_pad_and_the_white_is_not_ink():
    ink = sketch_to_ink({"composite": rgba((255, 255, 255, 255), (20, 20, 20, 255))})
    assert ink[60, 105] == pytest.approx(235 / 255) and ink[5, 5] == 0.0
    assert np.count_nonzero(ink) == 60 * 12


def test_light_strokes_count_too():
    # a dark-theme pad: white strokes on a transparent or black background
    for background in ((0, 0, 0, 0), (0, 0, 0, 255)):
        ink = sketch_to_ink({"composite": rgba(background, (255, 255, 255, 255))})
        assert ink[60, 105] == 1.0 and np.count_nonzero(ink) == 60 * 12


def test_rgb_and_greyscale_composites():
    rgb = rgba((255, 255, 255, 255), (0, 0, 0, 255))[..., :3]
    grey = rgb[..., 0]
    for composite in (rgb, grey, grey[..., None], rgb.astype(np.float32) / 255):
        ink = sketch_to_ink({"composite": composite})
        assert ink[60, 105] == pytest.approx(1.0) and ink[5, 5] == 0.0


def test_layers_are_used_when_there_is_no_composite():
    layer = rgba((0, 0, 0, 0), (0, 0, 0, 255))
    ink = sketch_to_ink({"composite": None, "background": None, "layers": [layer, np.zeros_like(layer)]})
    assert ink.sum() == 60 * 12


def test_a_plain_2d_array_is_already_ink():
    ink = sketch_to_ink(blob() * 200)  # white on black, like MNIST itself
    assert ink.max() == 1.0 and ink[0, 0] == 0.0


@pytest.mark.parametrize("value", [
    None, {}, {"composite": None, "layers": []}, {"composite": rgba((0, 0, 0, 0), (0, 0, 0, 0))},
    {"composite": np.full((50, 50, 4), 255, np.uint8)}, np.zeros((20, 20)),
], ids=["none", "empty-dict", "no-images", "transparent", "white", "zeros"])
def test_blank_sketches_are_none(value):
    assert sketch_to_ink(value) is None


def test_a_sketch_becomes_the_models_input():
    sketch = {"composite": rgba((255, 255, 255, 255), (0, 0, 0, 255))}
    frame = model_input(sketch_to_ink(sketch))
    assert frame.shape == (28, 28) and frame.dtype == np.float32
    assert frame.min() == 0.0 and frame.max() == 1.0
    np.testing.assert_allclose(frame, to_mnist_frame(sketch_to_ink(sketch)) / 255.0)
    assert ink_height(frame) == 20
