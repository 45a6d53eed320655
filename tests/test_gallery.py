"""playground.gallery: every Inspect example runs (in-process, through staging.inspect) and teaches what it says."""

from __future__ import annotations

import pytest

from playground.gallery import EXAMPLES, Example
from playground.server.ui.call_fields import parse_argnums
from playground.worker.jobs import inspect as staging


def run(example: Example) -> dict:
    """As the Run button does: static_argnums parsed from the text, then the worker-side inspect."""
    static = tuple(parse_argnums(example.static_argnums) or ())
    return staging.inspect(example.code, example.args, 200_000, static, example.second_args)


def by_name(part: str) -> Example:
    (example,) = [e for e in EXAMPLES if part in e.name]
    return example


def test_names_are_unique_and_there_are_enough():
    names = [e.name for e in EXAMPLES]
    assert len(names) >= 8
    assert len(set(names)) == len(names)
    assert all(name.strip() == name and name for name in names)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_every_example_runs(example):
    response = run(example)
    if example.pure:
        assert response["ok"], response
        assert response["purity"] == [], "false alarm on a pure example"
        assert response["result"]
        assert response["jaxpr"].startswith("{ lambda")
        assert response["static_argnums"] == list(parse_argnums(example.static_argnums) or ())
    else:
        assert "error" in response or response["purity"], "an impure example must have something to show"


def test_python_if_example_explains_the_tracer_error():
    response = run(by_name("Python if"))
    assert response["ok"] is False
    error = response["error"]
    assert error["title"].startswith("TracerBoolConversionError")
    assert error["line"] == 2
    assert "tracers" in error["explanation"]
    assert "jnp.where" in error["fix"] and "lax.cond" in error["fix"]
    assert error["doc_url"].endswith("TracerBoolConversionError")


def test_print_example_is_flagged_with_jax_debug_print():
    response = run(by_name("prints"))
    assert response["ok"], response
    assert response["stdout"].startswith("x is ")
    assert response["purity"], "print inside a jitted function must be flagged"
    assert any("jax.debug.print" in finding["message"] and finding["line"] == 2 for finding in response["purity"])


def test_examples_with_a_second_call_retrace():
    examples = [e for e in EXAMPLES if e.second_args]
    assert len(examples) == 2
    for example in examples:
        response = run(example)
        assert response["ok"], response
        assert response["retrace"]["retraced"] is True, (example.name, response["retrace"])
        assert "TRACING CACHE MISS" in response["retrace"]["explanation"]


def test_static_argnums_example_unrolls_the_loop():
    example = by_name("static_argnums")
    response = run(example)
    assert response["static_argnums"] == [1]
    assert response["jaxpr"].count("mul") == 3  # n = 3: three multiplications, no loop
    assert response["pytree"]["inputs"]["static"] == [{"position": 1, "value": "3"}]
    assert "Static(val=4)" in response["retrace"]["explanation"]


def test_lax_cond_example_fixes_the_python_if():
    response = run(by_name("lax.cond"))
    assert response["result"] == "f32[] 2.0"
    assert "cond" in response["jaxpr"]


def test_the_mlp_preset_is_the_train_tabs_mlp():
    """One MLP: the vmap preset's code gives the same params and the same predictions as playground/mlp.py."""
    import jax
    import numpy as np

    from playground import mlp as model
    from playground.gallery import VMAP_PRESETS
    from playground.worker.functions import usercode

    preset = usercode.load(VMAP_PRESETS["batched MLP predict"].code).namespace
    key, sizes = jax.random.key(3), (784, 32, 16, 10)
    theirs, ours = preset["init_params"](key, sizes), model.init_params(key, sizes)
    for (w1, b1), (w2, b2) in zip(theirs, ours, strict=True):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)
    image = jax.random.uniform(jax.random.key(4), (784,))
    np.testing.assert_allclose(preset["predict"](ours, image), model.predict(ours, image), rtol=1e-6, atol=1e-6)
