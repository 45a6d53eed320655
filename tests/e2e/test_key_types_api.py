"""Typed PRNG keys through a real server and gradio_client: in, out, and as pytree leaves, with their key data.

The worker's reply passes the server's schema check on the way (a field it did
not know would get the whole reply refused), so this is the key case as a
visitor of the public API sees it, checked against plain JAX run here.
"""

from __future__ import annotations

import jax
import numpy as np

from playground.worker.functions.values import KEY_DATA
from tests.e2e.responses import ok

CODE = "def f(state):\n    new, sub = jax.random.split(state['key'])\n    return new, jax.random.normal(sub, (2,))\n"
ARGS = "{'key': jax.random.key(7)}"


def numbers_after_type(text: str) -> np.ndarray:
    """The numbers after the type: ``u32[2] [0 7]`` -> [0., 7.]."""
    return np.array(text[text.index("]") + 1:].replace("[", " ").replace("]", " ").split(), dtype=np.float64)


def test_a_key_in_a_pytree_goes_in_and_comes_out_with_its_key_data(client):
    response = ok(client.predict(CODE, ARGS, None, "", api_name="/inspect"))
    key = jax.random.key(7)
    new, sub = jax.random.split(key)
    (leaf,) = response["pytree"]["inputs"]["leaves"]
    assert (leaf["key_path"], leaf["shape"], leaf["dtype"]) == ("[0]['key']", [], str(key.dtype))
    np.testing.assert_array_equal(numbers_after_type(leaf["key_data"]), jax.random.key_data(key))
    outputs = response["pytree"]["outputs"]["leaves"]
    assert [(o["key_path"], o["dtype"]) for o in outputs] == [("[0]", str(new.dtype)), ("[1]", "float32")]

    key_line, data_line, normal_line = response["result"].split("\n")
    assert key_line == f"[0]: {jax.typeof(new).str_short(short_dtypes=True)}"  # [0]: key<fry>[]
    assert data_line.startswith(f"  {KEY_DATA}: u32[2] ")
    np.testing.assert_array_equal(numbers_after_type(data_line.split(": ", 1)[1]), jax.random.key_data(new))
    assert normal_line.startswith("[1]: f32[2] ")
    shown = numbers_after_type(normal_line.split(": ", 1)[1])
    np.testing.assert_allclose(shown, jax.random.normal(sub, (2,)), atol=5e-7)  # the result prints 6 decimals
    assert "a:key<fry>[]" in response["jaxpr"]
    assert response["purity"] == []
