"""Every kind of JAX value as an input and an output: typed PRNG keys, legacy keys, bfloat16, complex, 0-d,
empty arrays and ShapeDtypeStructs, through ``staging.inspect`` (in-process) and the other tabs' jobs.

Each view is checked against plain JAX run here: the type as a jaxpr spells it
(``jax.typeof(v).str_short``), the key data as ``str(key)`` prints it after
"overlaying:", and the numbers as JAX computes them.
"""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from playground.server.ui.inspect_views import pytree_markdown
from playground.worker.functions import pytrees, values
from playground.worker.jobs import derivatives, hessians, vmap
from playground.worker.jobs import inspect as staging
from playground.worker.jobs import shard as parallel
from tests.owner_doubles import local_device

PRINTED = 5e-7  # half the last digit of the 6 decimals the result shows


def inspect(code: str, args: str, **options) -> dict:
    out = staging.inspect(code, args, 200_000, **options)
    assert out["ok"], out
    return out


def jaxpr_type(value) -> str:
    """How a jaxpr spells the value's type: ``f32[2,3]``, ``key<fry>[]``."""
    return jax.typeof(value).str_short(short_dtypes=True)


def shown_type(text: str) -> str:
    """The type at the start of a described leaf, without the spaces of ``[2, 3]``."""
    return text[:text.index("]") + 1].replace(" ", "")


def numbers(text: str) -> np.ndarray:
    """The numbers after a described leaf's type: ``f32[2] [1. 2.]`` -> [1., 2.]; complex ones as complex."""
    tokens = text[text.index("]") + 1:].replace("[", " ").replace("]", " ").split()
    return np.array([complex(t) if t.endswith("j") else float(t) for t in tokens])


def printed_by_jax(key: jax.Array) -> tuple[str, np.ndarray]:
    """(dtype, key data) from JAX's own ``str(key)``: ``Array((), dtype=key<fry>) overlaying:\\n[0 0]``."""
    header, data = str(key).split(" overlaying:\n")
    dtype = re.fullmatch(r"Array\(.*, dtype=(.+)\)", header).group(1)
    return dtype, np.array(data.replace("[", " ").replace("]", " ").split(), dtype=np.float64)


def key_lines(text: str) -> tuple[str, str]:
    """A described key: (its type line, its key data text after the label)."""
    head, data = text.split("\n", 1)
    label = f"  {values.KEY_DATA}: "
    assert data.startswith(label), text
    return head, data[len(label):]


# --- typed PRNG keys ----------------------------------------------------------------------------------------------


def test_a_key_argument_is_traced_run_and_described():
    key = jax.random.key(0)
    out = inspect("def f(k):\n    return jax.random.normal(k, (3,))", "jax.random.key(0)")
    expected = jax.random.normal(key, (3,))
    assert shown_type(out["result"]) == jaxpr_type(expected)
    np.testing.assert_allclose(numbers(out["result"]), expected, atol=PRINTED)
    assert f"a:{jaxpr_type(key)}" in out["jaxpr"]
    (leaf,) = out["pytree"]["inputs"]["leaves"]
    dtype, data = printed_by_jax(key)
    assert (leaf["key_path"], leaf["shape"], leaf["dtype"]) == ("[0]", [], dtype)
    assert shown_type(leaf["key_data"]) == jaxpr_type(jax.random.key_data(key))
    np.testing.assert_array_equal(numbers(leaf["key_data"]), data)
    assert out["purity"] == []


@pytest.mark.parametrize("code, args, function", [
    ("def f(k):\n    return jax.random.split(k)", "jax.random.key(0)", jax.random.split),
    ("def f(k):\n    return k", "jax.random.key(42)", lambda k: k),
    ("def f(k):\n    return jax.random.fold_in(k, 3)", "jax.random.key(1, impl='rbg')",
     lambda k: jax.random.fold_in(k, 3)),
])
def test_a_key_result_is_shown_as_jax_types_it_with_its_key_data(code, args, function):
    argument = eval(args, {"jax": jax})
    expected = jax.jit(function)(argument)
    out = inspect(code, args)
    head, data = key_lines(out["result"])
    dtype, jax_data = printed_by_jax(expected)
    assert head == jaxpr_type(expected) and head.startswith(dtype)
    assert shown_type(data) == jaxpr_type(jax.random.key_data(expected))
    np.testing.assert_array_equal(numbers(data), jax_data)
    (output,) = out["pytree"]["outputs"]["leaves"]
    assert (output["shape"], output["dtype"]) == (list(expected.shape), dtype)
    assert "key_data" not in output  # out_info has no values: the result holds them


def test_keys_inside_dicts_and_tuples_in_and_out():
    code = "def f(d):\n    return {'a': d['k'], 'b': (d['pair'][0], d['pair'][1] * 2)}"
    args = "{'k': jax.random.key(1), 'pair': (jax.random.key(2), jnp.ones(2))}"
    k1, k2 = jax.random.key(1), jax.random.key(2)
    out = inspect(code, args)
    leaves = out["pytree"]["inputs"]["leaves"]
    assert [(leaf["key_path"], leaf["dtype"]) for leaf in leaves] == [
        ("[0]['k']", str(k1.dtype)), ("[0]['pair'][0]", str(k2.dtype)), ("[0]['pair'][1]", "float32")]
    for leaf, key in zip(leaves[:2], (k1, k2), strict=True):
        np.testing.assert_array_equal(numbers(leaf["key_data"]), printed_by_jax(key)[1])
    assert "key_data" not in leaves[2]
    lines = out["result"].split("\n")
    assert lines[0] == f"['a']: {jaxpr_type(k1)}" and lines[2] == f"['b'][0]: {jaxpr_type(k2)}"
    for line, key in ((lines[1], k1), (lines[3], k2)):
        assert line.startswith(f"  {values.KEY_DATA}: ")
        np.testing.assert_array_equal(numbers(line.split(": ", 1)[1]), printed_by_jax(key)[1])
    assert lines[4].startswith("['b'][1]: f32[2] ")
    np.testing.assert_array_equal(numbers(lines[4].split(": ", 1)[1]), np.ones(2) * 2)
    assert [leaf["dtype"] for leaf in out["pytree"]["outputs"]["leaves"]] == [str(k1.dtype), str(k2.dtype), "float32"]


def test_a_batch_of_keys_lines_up_its_key_data():
    keys = jax.random.split(jax.random.key(0), 3)
    out = inspect("def f(k):\n    return k", "jax.random.split(jax.random.key(0), 3)")
    head, data = key_lines(out["result"])
    assert head == jaxpr_type(keys) == "key<fry>[3]"
    lines = out["result"].split("\n")
    column = lines[1].index("[[") + 1  # each row of key data starts under the first row
    assert [row.index("[") for row in lines[2:]] == [column, column]
    np.testing.assert_array_equal(numbers(data), printed_by_jax(keys)[1])


def test_the_pytrees_view_folds_input_key_data_away():
    keys = jax.random.split(jax.random.key(0), 2)
    out = inspect("def f(k, x):\n    return x", "jax.random.split(jax.random.key(0), 2), jnp.ones(2)")
    inputs, outputs = pytree_markdown(out["pytree"]).split("#### Outputs")
    assert "| `[0]` | [2] | key&lt;fry&gt; |" in inputs and "| `[1]` | [2] | float32 |" in inputs
    block = inputs[inputs.index("<details>"):inputs.index("</details>")]
    assert "<summary>Key data (jax.random.key_data)</summary>" in block
    code = block[block.index("```\n") + 4:block.rindex("\n```")].split("\n")
    assert code[0].startswith("[0]: u32[2, 2] [[") and code[1].index("[") == code[0].index("[[") + 1
    np.testing.assert_array_equal(numbers("\n".join(code)[len("[0]: "):]), printed_by_jax(keys)[1])
    assert "<details>" not in outputs


def test_a_legacy_prng_key_is_a_uint32_array():
    key = jax.random.PRNGKey(0)
    out = inspect("def f(k):\n    return jax.random.normal(k, (3,)), k", "jax.random.PRNGKey(0)")
    (leaf,) = out["pytree"]["inputs"]["leaves"]
    assert leaf == {"key_path": "[0]", "shape": list(key.shape), "dtype": str(key.dtype)}
    normal, same = out["result"].split("\n")
    np.testing.assert_allclose(numbers(normal.split(": ", 1)[1]), jax.random.normal(key, (3,)), atol=PRINTED)
    assert shown_type(same.split(": ", 1)[1]) == jaxpr_type(key) == "u32[2]"
    np.testing.assert_array_equal(numbers(same.split(": ", 1)[1]), key)


def test_grad_with_respect_to_a_key_is_a_clear_error_on_the_users_line():
    out = staging.inspect("def f(k):\n    return jax.grad(lambda k: jax.random.normal(k))(k)", "jax.random.key(0)",
                          200_000)
    assert out["ok"] is False
    assert out["error"]["kind"] == "user_exception" and out["error"]["line"] == 2
    assert "key<fry>" in out["error"]["message"] and "Traceback" not in out["error"]["message"]


# --- other dtypes and shapes -------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [
    "jnp.arange(3.0, dtype=jnp.bfloat16)",
    "jnp.array([1 + 2j, 3 - 1j], dtype=jnp.complex64)",
    "jnp.float32(2.5)",
    "jnp.zeros((0, 3))",
    "jnp.arange(3, dtype=jnp.int4)",
    "np.ones(3)",  # NumPy's float64: jit sees float32
])
def test_inputs_and_outputs_of_every_dtype_and_shape(args):
    value = eval(args, {"jnp": jnp, "np": np})
    code = "def f(x):\n    return x, x * 2"
    expected = jax.jit(lambda x: (x, x * 2))(value)
    out = inspect(code, args)
    (leaf,) = out["pytree"]["inputs"]["leaves"]
    aval = jax.typeof(value)
    assert (leaf["shape"], leaf["dtype"]) == (list(aval.shape), np.dtype(aval.dtype).name)
    assert f"a:{jaxpr_type(value)}" in out["jaxpr"]
    lines = out["result"].split("\n")
    assert len(lines) == 2
    for line, path, want in zip(lines, ("[0]", "[1]"), expected, strict=True):
        assert line.startswith(f"{path}: ")
        shown = line.split(": ", 1)[1]
        assert shown_type(shown) == jaxpr_type(want)
        np.testing.assert_allclose(numbers(shown), np.asarray(want, np.complex128).ravel(), atol=PRINTED)
    assert [o["dtype"] for o in out["pytree"]["outputs"]["leaves"]] == [np.dtype(w.dtype).name for w in expected]


def test_float0_tangents_are_shown_as_their_type_alone():
    code = "def f(x, n):\n    return jax.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(x, n)"
    out = inspect(code, "1.0, 3")
    assert out["result"] == "[0]: f32[] 3.0\n[1]: float0[]"
    assert "float0[]" in out["jaxpr"]
    assert [leaf["dtype"] for leaf in out["pytree"]["outputs"]["leaves"]] == ["float32", "float0"]


# --- ShapeDtypeStructs: shapes without values ---------------------------------------------------------------------


def test_a_shape_dtype_struct_argument_is_compiled_not_run():
    spec = jax.ShapeDtypeStruct((2, 3), jnp.float32)
    out = inspect("def f(x):\n    return jnp.sin(x).sum(0)", "jax.ShapeDtypeStruct((2, 3), jnp.float32)")
    assert out["jaxpr"].split() == str(jax.make_jaxpr(lambda x: jnp.sin(x).sum(0))(spec)).split()
    assert out["hlo"] and out["stablehlo"]
    out_info = jax.eval_shape(lambda x: jnp.sin(x).sum(0), spec)
    assert out["result"] == f"{jaxpr_type(out_info)} (a ShapeDtypeStruct: a shape and a dtype, no values)"
    assert values.NOT_RUN in out["warnings"]
    assert not [f for f in out["purity"] if f["check"] == "behavioural"]
    assert out["pytree"]["inputs"]["leaves"] == [{"key_path": "[0]", "shape": [2, 3], "dtype": "float32"}]


def test_a_key_shaped_shape_dtype_struct_and_an_array_together():
    key_type = jax.random.key(0).dtype
    out = inspect("def f(k, x):\n    return jax.random.split(k, 2), x + 1",
                  "jax.ShapeDtypeStruct((), jax.random.key(0).dtype), jnp.ones(2)")
    keys, plus = out["result"].split("\n")
    assert keys == "[0]: key<fry>[2] (a ShapeDtypeStruct: a shape and a dtype, no values)"
    assert plus.startswith("[1]: f32[2] (a ShapeDtypeStruct")  # one argument without values: nothing ran
    assert [leaf["dtype"] for leaf in out["pytree"]["inputs"]["leaves"]] == [str(key_type), "float32"]
    assert "key_data" not in out["pytree"]["inputs"]["leaves"][0]


# --- what the views cannot render ---------------------------------------------------------------------------------


def test_leaves_without_numbers_are_shown_as_their_type():
    assert values.describe_leaf("text") == "str"
    assert values.describe({"s": np.array(["a", "b"])}) == "['s']: str32[2]"
    assert pytrees.describe_tree(("text",))["leaves"] == [{"key_path": "[0]", "shape": [], "dtype": "str"}]


def test_a_static_argument_whose_repr_raises_is_shown_by_its_type():
    class Opaque:
        def __repr__(self):
            raise RuntimeError("no")

        def __hash__(self):
            return 0

    described = pytrees.describe_inputs((Opaque(), jnp.ones(2)), (0,))
    assert described["static"] == [{"position": 0, "value": "<Opaque object>"}]


# --- the other tabs -----------------------------------------------------------------------------------------------


def test_vmap_over_keys_matches_the_loop():
    out = vmap.compare("def f(k):\n    return jax.random.normal(k, (2,))", "jax.random.key(0)", "0", "0", [4],
                       local_device())
    assert out["ok"] and out["equal"], out
    assert "a:key<fry>[]" in out["jaxpr"] and "key<fry>[4]" in out["batched_jaxpr"]  # the size asked for


@pytest.mark.parametrize("args", ["jax.random.key(0)", "jax.random.key(1, impl='rbg')"])
def test_vmap_returns_keys_made_from_keys(args):
    """A key output travels back from the device as its key data, compared bit for bit with the loop's."""
    out = vmap.compare("def f(k):\n    return jax.random.split(k)", args, "0", "0", [1, 4], local_device())
    assert out["ok"] and out["equal"], out
    assert out["max_abs_diff"] == 0.0 and out["checked_examples"] == [1, 4]
    assert f"{jaxpr_type(eval(args, {'jax': jax}))[:-2]}[4,2]" in out["batched_jaxpr"]


def test_vmap_refuses_a_shape_dtype_struct_plainly():
    out = vmap.compare("def f(x):\n    return x * 2", "jax.ShapeDtypeStruct((3,), jnp.float32)", "0", "0", [4],
                       local_device())
    assert out["ok"] is False and out["error"]["kind"] == "invalid_input"
    assert "ShapeDtypeStruct" in out["error"]["message"]


def test_derivatives_refuse_a_key_result_with_its_type():
    out = derivatives.derivatives("def f(x):\n    return jax.random.key(0)", 1, -1.0, 1.0, 5)
    assert out["ok"] is False and out["error"]["kind"] == "invalid_input"
    assert "returned key<fry>[]" in out["error"]["message"]
    out = hessians.gradient_and_hessian("def f(x):\n    return jax.random.key(0)", "jnp.ones(2)")
    assert out["ok"] is False and "returned key<fry>[]" in out["error"]["message"]


def test_shard_places_keys_and_describes_the_keys_it_returns():
    mesh = [len(jax.devices())]
    out = parallel.shard("def f(k):\n    return jax.random.split(k[0], 4)", "jax.random.split(jax.random.key(0), 4)",
                         mesh, ["data"], "()", "()")
    assert out["ok"], out
    expected = jax.random.split(jax.random.split(jax.random.key(0), 4)[0], 4)
    head, data = key_lines(out["result"])
    assert head == jaxpr_type(expected)
    np.testing.assert_array_equal(numbers(data), printed_by_jax(expected)[1])
    assert out["matches_unsharded"] is True
    assert all(len(shard["index"]) == 1 for shard in out["placement"][0] + out["out_placement"])


# --- on the device: each kind of value travels to the owner and back ----------------------------------------------

ON_DEVICE = [
    ("def f(k):\n    return jax.random.normal(k, (3,))", "jax.random.key(0)"),
    ("def f(k):\n    return jax.random.split(k)", "jax.random.key(0)"),
    ("def f(k):\n    return jax.random.fold_in(k, 3)", "jax.random.key(1, impl='rbg')"),
    ("def f(k):\n    return k", "jax.random.split(jax.random.key(0), 3)"),
    ("def f(d):\n    return {'a': d['k'], 'b': (d['pair'][0], d['pair'][1] * 2)}",
     "{'k': jax.random.key(1), 'pair': (jax.random.key(2), jnp.ones(2))}"),
    ("def f(k):\n    return jax.random.normal(k, (3,)), k", "jax.random.PRNGKey(0)"),
    *[("def f(x):\n    return x, x * 2", args) for args in (
        "jnp.arange(3.0, dtype=jnp.bfloat16)", "jnp.array([1 + 2j, 3 - 1j], dtype=jnp.complex64)", "jnp.float32(2.5)",
        "jnp.zeros((0, 3))", "np.ones(3)")],
]


@pytest.mark.parametrize(("code", "args"), ON_DEVICE)
def test_on_the_device_each_kind_of_value_comes_back_as_on_the_cpu(code, args):
    here = inspect(code, args)
    there = inspect(code, args, device=local_device())
    assert there["result"] == here["result"]
    assert there["pytree"] == here["pytree"] and there["jaxpr"] == here["jaxpr"]


def test_on_the_device_an_int4_argument_comes_back_as_on_the_cpu():
    code, args = "def f(x):\n    return x, x * 2", "jnp.arange(3, dtype=jnp.int4)"
    assert inspect(code, args, device=local_device())["result"] == inspect(code, args)["result"]


def test_on_the_device_float0_tangents_are_shown_as_their_type_alone():
    code = "def f(x, n):\n    return jax.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(x, n)"
    assert inspect(code, "1.0, 3", device=local_device())["result"] == "[0]: f32[] 3.0\n[1]: float0[]"


@pytest.mark.parametrize("args", ["jax.ShapeDtypeStruct((2, 3), jnp.float32)",
                                  "jax.ShapeDtypeStruct((), jax.random.key(0).dtype), jnp.ones(2)"])
def test_on_the_device_a_shape_dtype_struct_argument_is_compiled_not_run(args):
    code = "def f(x, y=None):\n    return jnp.sin(x).sum(0) if y is None else (jax.random.split(x, 2), y + 1)"
    there = inspect(code, args, device=local_device())
    assert there["result"] == inspect(code, args)["result"] and "a ShapeDtypeStruct" in there["result"]
    assert there["hlo"] and values.NOT_RUN in there["warnings"]
