"""The MLP against references: shapes, normalised log-probs, vmap vs a Python loop, gradients vs finite differences."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

from playground.mlp import accuracy, batched_predict, init_params, loss, predict


@pytest.mark.parametrize("layers", [(784, 512, 256, 10), (4, 5, 3)])
def test_param_shapes_and_dtypes(layers):
    params = init_params(jax.random.key(0), layers)
    expected = [((n_in, n_out), (n_out,)) for n_in, n_out in zip(layers[:-1], layers[1:], strict=True)]
    assert [(w.shape, b.shape) for w, b in params] == expected
    assert all(w.dtype == jnp.float32 and b.dtype == jnp.float32 for w, b in params)
    assert all(not np.any(b) for _, b in params)


def test_he_scaling():
    (w, _), = init_params(jax.random.key(1), (784, 2000))
    assert np.std(np.asarray(w)) == pytest.approx(np.sqrt(2 / 784), rel=0.02)


def test_explicit_keys():
    a, b = init_params(jax.random.key(3), (784, 32, 10)), init_params(jax.random.key(3), (784, 32, 10))
    c = init_params(jax.random.key(4), (784, 32, 10))
    for (wa, _), (wb, _), (wc, _) in zip(a, b, c, strict=True):
        np.testing.assert_array_equal(wa, wb)
        assert not np.allclose(wa, wc)
    assert not np.allclose(a[0][0][:32, :10], a[1][0][:32, :10])  # each layer has its own key


def test_predict_gives_log_probabilities_for_both_image_shapes():
    params = init_params(jax.random.key(0), (784, 32, 10))
    image = jax.random.uniform(jax.random.key(1), (28, 28))
    log_probs = predict(params, image)
    assert log_probs.shape == (10,)
    assert float(jnp.sum(jnp.exp(log_probs))) == pytest.approx(1.0, abs=1e-5)
    np.testing.assert_allclose(predict(params, image.reshape(784)), log_probs, rtol=1e-6)


def test_batched_predict_matches_a_python_loop():
    params = init_params(jax.random.key(0), (784, 64, 32, 10))
    images = jax.random.uniform(jax.random.key(2), (7, 28, 28))
    looped = jnp.stack([predict(params, image) for image in images])
    np.testing.assert_allclose(batched_predict(params, images), looped, rtol=1e-5, atol=1e-5)


def test_loss_is_mean_cross_entropy():
    params = init_params(jax.random.key(0), (784, 16, 10))
    images = jax.random.uniform(jax.random.key(5), (6, 784))
    labels = jnp.array([0, 1, 2, 3, 4, 9])
    log_probs = np.asarray(batched_predict(params, images))
    expected = -np.mean(log_probs[np.arange(6), np.asarray(labels)])
    assert float(loss(params, images, labels)) == pytest.approx(expected, rel=1e-6)


def test_gradients_match_finite_differences():
    with jax.enable_x64(True):
        params = jax.tree.map(lambda a: a.astype(jnp.float64), init_params(jax.random.key(0), (4, 5, 3)))
        # Non-zero biases, so every ReLU sits away from its kink and finite differences are meaningful.
        params = [(w, jax.random.normal(jax.random.key(i), b.shape, jnp.float64) * 0.1)
                  for i, (w, b) in enumerate(params)]
        images = jax.random.normal(jax.random.key(9), (8, 4), jnp.float64)
        labels = jnp.array([0, 1, 2, 0, 1, 2, 0, 1])
        check_grads(lambda p: loss(p, images, labels), (params,), order=2, modes=("rev",), eps=1e-4)


def test_accuracy_on_a_hand_made_case():
    # One layer, W = identity: the predicted class is the index of the largest pixel.
    params = [(jnp.eye(3, dtype=jnp.float32), jnp.zeros(3, jnp.float32))]
    images = jnp.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]])
    assert float(accuracy(params, images, jnp.array([0, 1, 2, 0]))) == 1.0
    assert float(accuracy(params, images, jnp.array([0, 1, 2, 2]))) == 0.75
    assert float(accuracy(params, images, jnp.array([1, 2, 0, 1]))) == 0.0
