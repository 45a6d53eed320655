"""Drawings become MNIST frames: cropped, 20-pixel box, centre of mass at (14, 14)."""

from __future__ import annotations

import numpy as np
import pytest

from playground.mnist.preprocess import model_input, to_mnist_frame
from tests.mnist_folders import NO_REAL_DIGITS, REAL_DIGITS, SHARED_MNIST


def bounding_box(frame: np.ndarray) -> tuple[int, int]:
    rows, cols = np.flatnonzero(frame.any(axis=1)), np.flatnonzero(frame.any(axis=0))
    return rows[-1] - rows[0] + 1, cols[-1] - cols[0] + 1


def centre_of_mass(frame: np.ndarray) -> tuple[float, float]:
    ink = frame.astype(float)
    rows, cols = ink.sum(axis=1), ink.sum(axis=0)
    return (rows @ np.arange(len(rows))) / ink.sum(), (cols @ np.arange(len(cols))) / ink.sum()


def blob(shape=(300, 400), centre=(60, 330), radii=(45, 25)) -> np.ndarray:
    """A filled ellipse: a small off-centre mark on a big canvas, like a digit drawn in a corner."""
    y, x = np.mgrid[: shape[0], : shape[1]]
    return (((y - centre[0]) / radii[0]) ** 2 + ((x - centre[1]) / radii[1]) ** 2 <= 1).astype(float)


def test_a_small_off_centre_blob_is_cropped_scaled_and_centred():
    frame = to_mnist_frame(blob())
    assert frame.shape == (28, 28) and frame.dtype == np.uint8 and frame.max() == 255
    height, width = bounding_box(frame)
    assert height == 20 and 10 <= width <= 12  # longer side 20, aspect ratio 45:25 kept
    com_y, com_x = centre_of_mass(frame)
    assert abs(com_y - 14) <= 1 and abs(com_x - 14) <= 1


def test_a_wide_mark_gets_its_width_scaled_to_20():
    frame = to_mnist_frame(blob(radii=(10, 60)))
    assert bounding_box(frame)[1] == 20 and bounding_box(frame)[0] <= 5


def test_the_range_and_dtype_of_the_input_do_not_matter():
    reference = to_mnist_frame(blob())
    for ink in (blob() * 255, (blob() * 7 - 3).astype(np.float32), blob().astype(np.uint8), blob().astype(bool)):
        np.testing.assert_array_equal(to_mnist_frame(ink), reference)


def test_a_small_digit_is_enlarged():
    tiny = np.zeros((8, 8))
    tiny[1:7, 3:5] = 16  # an 8×8 "1" the way scikit-learn's digits store it (0–16)
    frame = to_mnist_frame(tiny)
    assert bounding_box(frame)[0] == 20
    assert abs(centre_of_mass(frame)[1] - 14) <= 1


def test_a_lopsided_digit_stays_whole_inside_the_frame():
    ink = np.zeros((100, 100))
    ink[10:90, 10:90] = 0.05  # a faint 20×20 box...
    ink[10:14, 10:90] = 1.0  # ...with all the weight on its top edge: centring would push it out of the frame
    frame = to_mnist_frame(ink)
    assert bounding_box(frame) == (20, 20)


@pytest.mark.parametrize("ink", [np.zeros((50, 50)), np.full((9, 9), 3.0), np.zeros((0, 0)), np.full((4, 4), np.nan)])
def test_blank_input_gives_zeros(ink):
    frame = to_mnist_frame(ink)
    assert frame.shape == (28, 28) and not frame.any()


def test_non_2d_input_is_refused():
    with pytest.raises(ValueError, match="2-D"):
        to_mnist_frame(np.zeros((3, 28, 28)))


@pytest.mark.skipif(not REAL_DIGITS, reason=NO_REAL_DIGITS)
def test_real_mnist_digits_are_already_in_this_form():
    from playground.mnist.idx import read_idx

    images = read_idx(SHARED_MNIST / "t10k-images-idx3-ubyte.gz", ndim=3, trailing_shape=(28, 28))[:300]
    for image in images:
        again = to_mnist_frame(image).astype(float)
        correlation = np.corrcoef(again.ravel(), image.astype(float).ravel())[0, 1]
        assert correlation > 0.99
    # on the same 20-pixel box and centring rule, most come back byte for byte
    same = sum(np.array_equal(to_mnist_frame(image), image) for image in images)
    assert same > 0.8 * len(images)


def test_model_input_is_the_mnist_frame_as_floats():
    ink = blob() * 0.8
    frame = model_input(ink)
    assert frame.shape == (28, 28) and frame.dtype == np.float32
    assert frame.min() == 0.0 and frame.max() == 1.0
    np.testing.assert_allclose(frame, to_mnist_frame(ink) / 255.0)
    assert bounding_box(frame)[0] == 20
