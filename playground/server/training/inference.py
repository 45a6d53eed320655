"""The trained MLP's forward pass in NumPy, for ``/predict`` (a digit drawn in the browser).

The Gradio server never imports JAX, so the forward pass of playground/mlp.py is
written again here in NumPy, and must agree with it: for each layer
``x @ w + b``, ReLU between layers, softmax at the end::

    >>> rng = np.random.default_rng(0)
    >>> params = [(rng.normal(0, 0.05, (784, 32)), np.zeros(32)), (rng.normal(0, 0.05, (32, 10)), np.zeros(10))]
    >>> p = probabilities(params, rng.random((28, 28)))   # image: (28, 28) floats in [0, 1]
    >>> p.shape, round(float(p.sum()), 6)
    ((10,), 1.0)
"""

from __future__ import annotations

import numpy as np

from playground.mnist.config import IMAGE_PIXELS
from playground.mnist.params_file import Params


def probabilities(params: Params, image: np.ndarray) -> np.ndarray:
    """Class probabilities ``(10,)`` (float64, summing to 1) for one ``(28, 28)`` or ``(784,)`` image in [0, 1]."""
    x = np.asarray(image, dtype=np.float64)
    if x.shape not in ((28, 28), (IMAGE_PIXELS,)):
        raise ValueError(f"image must have shape (28, 28) or ({IMAGE_PIXELS},), got {x.shape}")
    x = x.reshape(IMAGE_PIXELS)
    for w, b in params[:-1]:
        x = np.maximum(x @ w + b, 0.0)
    w, b = params[-1]
    logits = x @ w + b
    # Softmax via the max shift: exp never overflows, and the largest term is exactly 1 so the sum is >= 1.
    shifted = np.exp(logits - logits.max())
    return shifted / shifted.sum()
