"""Turn a drawing into a digit the way MNIST's digits were made, so a model trained on MNIST can read it.

MNIST's recipe (LeCun, Cortes, Burges): take the ink, fit its bounding box into
20×20 pixels keeping the aspect ratio (with anti-aliasing, hence the grey
edges), then place it in a 28×28 frame so the ink's centre of mass sits at the
frame's centre. A model trained on those frames expects exactly that: a digit
drawn small in a corner of a big canvas must be cropped, scaled and centred
first, or accuracy collapses. ::

    >>> canvas = np.zeros((400, 400)); canvas[20:100, 300:330] = 1.0   # a "1" in the top right
    >>> frame = to_mnist_frame(canvas)
    >>> frame.shape, frame.dtype, int(frame.max())
    ((28, 28), dtype('uint8'), 255)

Pure numpy + Pillow (no JAX): the Gradio server calls this on every drawing (server/ui/train_sketch.py turns
Gradio's Sketchpad value into the ink array), the device owner on each of scikit-learn's 8×8 digits.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

FRAME = 28
BOX = 20  # the longer side of the digit's bounding box inside the frame
CENTRE = 14.0  # MNIST's centres of mass average (14.0, 14.0) in pixel-index coordinates (measured on t10k)
CROP_THRESHOLD = 0.01  # of the full scale: what counts as ink when cropping (ignores faint smudges only)


def to_mnist_frame(ink: np.ndarray) -> np.ndarray:
    """A 28×28 uint8 MNIST-style frame from a 2-D ink array of any size and range (larger = more ink).

    Scale to 0..255, crop to the ink's bounding box, resize so its longer side
    is 20 pixels, and paste it where its centre of mass lands on (14, 14),
    clipped so the digit stays inside. Blank input gives all zeros.
    """
    ink = np.asarray(ink, dtype=np.float64)
    if ink.ndim != 2:
        raise ValueError(f"expected a 2-D ink array, got shape {ink.shape}")
    frame = np.zeros((FRAME, FRAME), dtype=np.uint8)
    if ink.size == 0:
        return frame
    ink = np.nan_to_num(ink, nan=0.0, posinf=0.0, neginf=0.0)
    low, high = float(ink.min()), float(ink.max())
    if high - low <= 0:
        return frame
    scaled = (ink - low) * (255.0 / (high - low))  # subtracting the minimum drops a uniform background
    rows = np.flatnonzero((scaled > 255.0 * CROP_THRESHOLD).any(axis=1))
    cols = np.flatnonzero((scaled > 255.0 * CROP_THRESHOLD).any(axis=0))
    crop = scaled[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]
    digit = _resize_longer_side(crop, BOX)
    height, width = digit.shape
    total = digit.sum()
    if total <= 0:
        return frame
    com_y = (digit.sum(axis=1) @ np.arange(height)) / total
    com_x = (digit.sum(axis=0) @ np.arange(width)) / total
    top = int(np.clip(round(CENTRE - com_y), 0, FRAME - height))
    left = int(np.clip(round(CENTRE - com_x), 0, FRAME - width))
    frame[top:top + height, left:left + width] = np.clip(np.rint(digit), 0, 255).astype(np.uint8)
    return frame


def _resize_longer_side(image: np.ndarray, side: int) -> np.ndarray:
    """``image`` (float) resized so its longer side is ``side`` pixels, keeping the aspect ratio."""
    height, width = image.shape
    scale = side / max(height, width)
    size = (max(1, round(width * scale)), max(1, round(height * scale)))  # PIL wants (width, height)
    if size == (width, height):
        return image
    # Shrinking: Lanczos averages many source pixels (MNIST's anti-aliasing). Enlarging (an 8×8 digit):
    # bilinear, because Lanczos' overshoot would ring around the few big source pixels.
    method = Image.Resampling.LANCZOS if scale < 1 else Image.Resampling.BILINEAR
    resized = Image.fromarray(image.astype(np.float32)).resize(size, method)
    return np.clip(np.asarray(resized, dtype=np.float64), 0.0, 255.0)


def model_input(ink: np.ndarray) -> np.ndarray:
    """Ink (any size and range) as the model's input: the MNIST frame as float32 (28, 28) in [0, 1]."""
    return to_mnist_frame(ink).astype(np.float32) / 255.0
