"""Turn a drawing into a digit the way MNIST's digits were made, so a model trained on MNIST can read it.

MNIST's recipe (LeCun, Cortes, Burges): take the ink, fit its bounding box into
20×20 pixels keeping the aspect ratio (with anti-aliasing, hence the grey
edges), then place it in a 28×28 frame so the ink's centre of mass sits at the
frame's centre. A model trained on those frames expects exactly that: a digit
drawn small in a corner of a big canvas must be cropped, scaled and centred
first, or accuracy collapses. ::

    >>> canvas = np.zeros((400, 400)); canvas[20:100, 300:330] = 1.0   # a "1" in the top right
    >>> frame = to_mnist_frame(canvas)
    >>> frame.shape, frame.dtype, frame.max()
    ((28, 28), dtype('uint8'), 255)

Pure numpy + Pillow (no JAX): the Gradio server calls this on every drawing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image

FRAME = 28
BOX = 20  # the longer side of the digit's bounding box inside the frame
CENTRE = 14.0  # MNIST's centres of mass average (14.0, 14.0) in pixel-index coordinates (measured on t10k)
CROP_THRESHOLD = 0.01  # of the full scale: what counts as ink when cropping (ignores faint smudges only)
BLANK_INK = 0.02  # a sketch whose strongest ink is below this is treated as empty


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


def sketch_to_ink(value: Any) -> np.ndarray | None:
    """Ink intensity in [0, 1] (float32, 2-D) from what ``gr.Sketchpad(type="numpy")`` gives; None if blank.

    ``value`` is Gradio's editor dict (its ``"composite"`` image, or failing
    that its ``"layers"``) or an image array:

    - RGBA: ink is where the strokes are. On a transparent background that is
      the alpha (dark or light strokes alike); on an opaque background it is
      alpha × the luminance difference from the background, so dark strokes
      on white count and the white does not.
    - RGB or greyscale (including a 2-D ``"composite"``): the luminance
      difference from the background, whose colour is read off the border
      (light for the usual white pad, so ink = 1 − luminance).
    - A plain 2-D array (not inside a dict): already ink, white on black like MNIST.
    """
    if value is None:
        return None
    if isinstance(value, dict):
        images = [value.get("composite")] if value.get("composite") is not None else list(value.get("layers") or [])
        inks = [_image_ink(np.asarray(image)) for image in images if image is not None]
        if not inks:
            return None
        ink = np.maximum.reduce([i for i in inks if i.shape == inks[0].shape])
    else:
        array = np.asarray(value)
        if array.ndim == 2:
            array = np.nan_to_num(array.astype(np.float64))
            low, high = float(array.min(initial=0.0)), float(array.max(initial=0.0))
            return None if high - low <= 0 else ((array - low) / (high - low)).astype(np.float32)
        ink = _image_ink(array)
    return None if ink.size == 0 or float(ink.max()) < BLANK_INK else ink.astype(np.float32)


def model_input(ink: np.ndarray) -> np.ndarray:
    """Ink (any size and range) as the model's input: the MNIST frame as float32 (28, 28) in [0, 1]."""
    return to_mnist_frame(ink).astype(np.float32) / 255.0


def _image_ink(image: np.ndarray) -> np.ndarray:
    """Ink in [0, 1] from an image array: (h, w) greyscale, (h, w, 1|3|4) L/RGB/RGBA, uint8 or float in [0, 1]."""
    if image.ndim == 2:
        image = image[..., None]
    if image.ndim != 3 or image.shape[-1] not in (1, 2, 3, 4):
        raise ValueError(f"expected a greyscale, RGB or RGBA image, got shape {image.shape}")
    pixels = image.astype(np.float64)
    if np.issubdtype(image.dtype, np.integer) or pixels.max(initial=0.0) > 1.0:
        pixels /= 255.0
    channels = image.shape[-1]
    has_alpha = channels in (2, 4)
    colour = pixels[..., : channels - 1] if has_alpha else pixels
    # ITU-R BT.601 luma, the weights Pillow uses for convert("L")
    luminance = colour[..., 0] if colour.shape[-1] == 1 else colour @ np.array([0.299, 0.587, 0.114])
    alpha = pixels[..., -1] if has_alpha else np.ones(luminance.shape)
    border = _border(alpha)
    if has_alpha and np.median(border) < 0.5:
        return alpha  # transparent pad: every stroke is ink, whatever its colour
    background = float(np.median(_border(luminance)))
    return alpha * np.abs(luminance - background)


def _border(array: np.ndarray) -> np.ndarray:
    """The outermost pixels, where a drawing's background shows."""
    if min(array.shape) <= 2:
        return array.ravel()
    return np.concatenate([array[0], array[-1], array[1:-1, 0], array[1:-1, -1]])
