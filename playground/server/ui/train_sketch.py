"""Gradio's Sketchpad value -> ink: the editor dict (layers, composite, background) read as one 2-D array.

``gr.Sketchpad(type="numpy")`` hands the server a dict of RGBA images; the
model wants ink, bright where the strokes are. This module reads Gradio's dict
(and only this one knows its keys), so mnist/ receives a plain numpy image:

    >>> rgba = np.zeros((280, 280, 4), np.uint8); rgba[100:180, 130:150] = (0, 0, 0, 255)   # a black stroke
    >>> ink = sketch_to_ink({"composite": rgba, "layers": [rgba], "background": None})
    >>> ink.shape, ink.dtype, float(ink.max())
    ((280, 280), dtype('float32'), 1.0)

numpy only: no gradio import is needed to parse its value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

BLANK_INK = 0.02  # a sketch whose strongest ink is below this is treated as empty


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
