"""Which way round to build a Jacobian: jit(jacfwd) against jit(jacrev), timed on a wide and a tall one.

Runs inside a worker, in float64 (the gradient job's ``jax.enable_x64``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from playground.measure import timing

EXPLANATION = ("Forward mode (jacfwd) costs one pass per input and reverse mode (jacrev) one pass per output, "
               "so jacrev wins for wide Jacobians (few outputs, many inputs) and jacfwd for tall ones "
               "(many outputs, few inputs).")


def compare_jacobian_modes(key: jax.Array, repeats: int = 7) -> dict:
    """Time jit(jacfwd) against jit(jacrev) on x -> tanh(W @ x), for a wide and a tall W.

    wide: R¹⁰⁰⁰ -> R⁴ (a 4 × 1000 Jacobian); tall: R⁴ -> R¹⁰⁰⁰ (1000 × 4).
    Each entry: ``{"shape": [m, n], "jacfwd_s", "jacrev_s", "faster"}``, the
    times being the median of ``repeats`` runs after a compiling warm-up.
    """
    wide_key, tall_key = jax.random.split(key)
    return {"wide": _time_modes(wide_key, 4, 1000, repeats), "tall": _time_modes(tall_key, 1000, 4, repeats)}


def _time_modes(key: jax.Array, outputs: int, inputs: int, repeats: int) -> dict:
    weights = jax.random.normal(key, (outputs, inputs), dtype=jnp.float64) / np.sqrt(inputs)
    x = jnp.linspace(-1.0, 1.0, inputs)

    def layer(w, v):
        return jnp.tanh(w @ v)

    times = {}
    for mode in (jax.jacfwd, jax.jacrev):
        jitted = jax.jit(mode(layer, argnums=1))
        times[f"{mode.__name__}_s"] = timing.measure(lambda f=jitted: f(weights, x), min_total_s=0, min_runs=repeats,
                                                     max_runs=repeats).median_s
    faster = "jacfwd" if times["jacfwd_s"] < times["jacrev_s"] else "jacrev"
    return {"shape": [outputs, inputs], **times, "faster": faster}
