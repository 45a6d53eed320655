"""The MNIST MLP classifier, written as JAX's ``mnist_classifier_fromscratch`` writes it: the device owner trains
it, the Parallel tab's data-parallel demo steps it.

The network is the one of the German blog post "Need for Speed: JAX" (a
784-512-256-10 MLP trained with SGD); its code is pure functions of pytrees.

Parameters are a list of ``(W, b)`` pairs, one per layer; nothing is hidden in
an object. ``predict`` handles ONE image, and ``jax.vmap`` turns it into the
batched version, so the code reads like the maths:

    >>> params = init_params(jax.random.key(0), (784, 32, 10))
    >>> [(w.shape, b.shape) for w, b in params]
    [((784, 32), (32,)), ((32, 10), (10,))]
    >>> predict(params, jnp.zeros((28, 28))).shape   # log-probabilities of the 10 classes
    (10,)
    >>> batched_predict(params, jnp.zeros((5, 28, 28))).shape
    (5, 10)
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp

Params = list[tuple[jax.Array, jax.Array]]


def init_params(key: jax.Array, layers: Sequence[int]) -> Params:
    """Random weights for an MLP with the given layer sizes, e.g. ``(784, 512, 256, 10)``.

    Each layer gets its own key from ``jax.random.split`` (same key in, same
    params out). W is ``(n_in, n_out)`` with He scaling, normal * sqrt(2 / n_in):
    ReLU zeroes half its inputs, and this keeps the activations' variance about
    constant from layer to layer, so deep stacks neither vanish nor explode at
    the start. Biases start at zero.
    """
    keys = jax.random.split(key, len(layers) - 1)
    return [
        (jax.random.normal(k, (n_in, n_out), jnp.float32) * jnp.sqrt(2.0 / n_in).astype(jnp.float32),
         jnp.zeros((n_out,), jnp.float32))
        for k, n_in, n_out in zip(keys, layers[:-1], layers[1:], strict=True)
    ]


def predict(params: Params, image: jax.Array) -> jax.Array:
    """Log-probabilities ``(n_classes,)`` for ONE image, ``(28, 28)`` or ``(784,)`` floats in [0, 1].

    Hidden layers are affine + ReLU; the last layer's logits are normalised
    with ``logsumexp`` (log-softmax), which stays finite where
    ``log(exp(z) / sum(exp(z)))`` would overflow.
    """
    activations = jnp.ravel(image)
    for w, b in params[:-1]:
        activations = jax.nn.relu(activations @ w + b)
    w, b = params[-1]
    logits = activations @ w + b
    return logits - jax.nn.logsumexp(logits)


# Written for one example, batched by vmap: the params are shared (None), images are mapped along axis 0.
batched_predict = jax.vmap(predict, in_axes=(None, 0))


def loss(params: Params, images: jax.Array, labels: jax.Array) -> jax.Array:
    """Mean cross-entropy of a batch: minus the log-probability given to each true (integer) label."""
    log_probs = batched_predict(params, images)
    return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], axis=1))


def accuracy(params: Params, images: jax.Array, labels: jax.Array) -> jax.Array:
    """Fraction of ``images`` whose most probable class is the label (what we report; not what we optimise)."""
    return jnp.mean(jnp.argmax(batched_predict(params, images), axis=1) == labels)
