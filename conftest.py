"""Doctests in playground/ run with jax, jnp and np in scope, as the examples in JAX's own docstrings do."""

import pytest


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace):
    import jax
    import jax.numpy as jnp
    import numpy as np

    doctest_namespace.update(jax=jax, jnp=jnp, np=np)
