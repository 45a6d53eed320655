"""The NumPy forward pass for /predict: agrees with a JAX reference, is stable, refuses bad shapes, imports no JAX."""

from __future__ import annotations

import numpy as np
import pytest

from playground.server.training import inference
from tests.test_mnist_params_file import random_params


def _jax_probabilities(params, image):
    import jax
    import jax.numpy as jnp

    x = jnp.asarray(image, dtype=jnp.float32).reshape(-1)
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return np.asarray(jnp.exp(jax.nn.log_softmax(x @ w + b)))


def test_probabilities_match_jax_and_sum_to_one():
    params = random_params()
    rng = np.random.default_rng(3)
    for _ in range(5):
        image = rng.random((28, 28))
        p = inference.probabilities(params, image)
        assert p.shape == (10,) and p.dtype == np.float64
        assert p.sum() == pytest.approx(1.0, abs=1e-12) and np.all(p >= 0)
        np.testing.assert_allclose(p, _jax_probabilities(params, image), atol=1e-5)
        np.testing.assert_array_equal(p, inference.probabilities(params, image.reshape(784)))


def test_probabilities_are_stable_for_huge_logits():
    w, b = np.zeros((784, 10), np.float32), np.zeros(10, np.float32)
    b[4] = 1e4  # naive exp(1e4) overflows to inf and gives nan
    p = inference.probabilities([(w, b)], np.zeros((28, 28)))
    assert np.all(np.isfinite(p)) and p[4] == pytest.approx(1.0)


def test_probabilities_reject_a_wrong_image_shape():
    with pytest.raises(ValueError, match=r"\(28, 28\)"):
        inference.probabilities(random_params(), np.zeros((32, 32)))
