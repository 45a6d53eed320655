"""playground.worker.jobs.vmap: jax.vmap against plain Python loops, axes parsing, no time shown for a wrong result."""

from __future__ import annotations

import base64
import math

import gradio as gr
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from playground import device_ops
from playground.errors import UserCodeError
from playground.gallery import VMAP_PRESETS
from playground.measure import numerics
from playground.owner import calls
from playground.server.api import PlaygroundAPI, final
from playground.server.config import Settings
from playground.server.ui import vmap_tab
from playground.server.ui.markdown import verdict
from playground.server.ui.vmap_views import render
from playground.worker.functions import usercode
from playground.worker.jobs import vmap as vectorize
from playground.worker.jobs import vmap_axes
from playground.worker.jobs.device import wire_leaves
from playground.worker.jobs.vmap_axes import parse_axes
from tests.conftest import OnePool
from tests.device_requests import ops, recording_device
from tests.owner_doubles import local_device
from tests.tab_context import tab_context

ERROR, OK = (verdict("error"), verdict("ok"))  # the labels that replaced emoji

RUNNING_VMAP = verdict("busy") + " Checking a Python loop, vmap and jit(vmap) against each other, then timing them…"
PRESETS = {name: (p.code, p.args, p.in_axes) for name, p in VMAP_PRESETS.items()}

SUCCESS_KEYS = {"ok", "function", "device", "in_axes", "out_axes", "jaxpr", "batched_jaxpr", "batch_sizes",
                "loop_s", "vmap_s", "jit_vmap_s", "equal", "max_abs_diff", "checked_examples", "stdout",
                "pending_sizes"}
CUBIC = "def f(x):\n    return x + x*x + x*x*x\n"


def compare(code, args, in_axes, out_axes, batch_sizes, **options):
    """The vmap job (playground/worker/jobs/vmap.py) measuring on an owner's session in this process, on the CPU."""
    return vectorize.compare(code, args, in_axes, out_axes, batch_sizes, local_device(), **options)


def leaf_axes(example: tuple, in_axes) -> list:
    """Each leaf's axis, as the job sends them to the owner (a prefix of the example's tree, made flat)."""
    axes = vectorize._flat_axes(vmap_axes.conform_in_axes(in_axes, example), example)
    return [None if a is None else a % (np.ndim(leaf) + 1)
            for leaf, a in zip(jax.tree.leaves(example), axes, strict=True)]


def owner_batch(example: tuple, in_axes, size: int) -> tuple:
    """The batch the owner makes of ``example`` (owner/batches.py, asked through a session), as the example's tree."""
    device = local_device()
    leaves, tree = jax.tree.flatten(example)
    batch = device.batch(device.put(wire_leaves(leaves)[0]), leaf_axes(example, in_axes), size)
    return jax.tree.unflatten(tree, [device.fetch([leaf])[0] for leaf in batch])


def owner_loop(f, batch: list, in_axes: list, out_axes: list, size: int, limit_s: float = math.inf) -> tuple:
    """The owner's Python loop (owner/calls.py ``run_loop``) of ``f`` over a batch of flat leaves: (the outputs
    stacked, the examples it reached)."""
    device = local_device()
    one = [jax.ShapeDtypeStruct(np.delete(np.shape(x), a).tolist() if a is not None else np.shape(x),
                                np.asarray(x).dtype) for x, a in zip(batch, in_axes, strict=True)]
    program = device.export(f, *one)
    looped, done = device.run({"loop": {"program": program.id, "batch": device.put(batch), "in_axes": in_axes,
                                        "out_axes": out_axes, "count": size, "limit_s": limit_s}})
    return [device.fetch([leaf])[0] for leaf in looped], done


def numpy_batch(example, in_axes, size):
    """The batch the module docstring promises, built with a Python loop and numpy: an independent reference."""
    def one(leaf, axis, i):
        leaf = np.asarray(leaf)
        return leaf * np.float32(1 + 0.01 * (i % 100)) if np.issubdtype(leaf.dtype, np.floating) else leaf

    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(example)
    batch = []
    for arg, axis in zip(example, axes, strict=True):
        if axis is None:
            batch.append(arg)
        else:
            batch.append(jax.tree.map(lambda leaf, a=axis: np.stack([one(leaf, a, i) for i in range(size)], a), arg))
    return tuple(batch)


def reference_loop(f, batch, in_axes, size, out_axis=0):
    """f on each example, numpy slicing and np.stack: what vmap must equal."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(batch)
    outputs = []
    for i in range(size):
        args = [arg if a is None else jax.tree.map(lambda leaf, a=a, i=i: np.take(np.asarray(leaf), i, axis=a), arg)
                for arg, a in zip(batch, axes, strict=True)]
        outputs.append(f(*args))
    return jax.tree.map(lambda *leaves: np.stack([np.asarray(x) for x in leaves], out_axis), *outputs)


def load(preset):
    code, args, in_axes = PRESETS[preset]
    program = usercode.load(code)
    return program, usercode.evaluate_args(args, program.namespace), parse_axes(in_axes, "in_axes")


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_presets_vmap_equals_a_python_loop(preset):
    program, example, in_axes = load(preset)
    in_axes = tuple(in_axes) if isinstance(in_axes, list) else in_axes
    size = 7
    batch = owner_batch(example, in_axes, size)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-6), batch, numpy_batch(example, in_axes, size))
    expected = reference_loop(program.function, batch, in_axes, size)
    for batched in (jax.vmap(program.function, in_axes), jax.jit(jax.vmap(program.function, in_axes))):
        jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6), batched(*batch), expected)

    code, args, axes_text = PRESETS[preset]
    out = compare(code, args, axes_text, "0", [1, size])
    assert out["ok"], out
    assert set(out) == SUCCESS_KEYS
    assert out["equal"] is True and out["max_abs_diff"] < 1e-4
    assert out["batch_sizes"] == [1, size]
    assert out["function"] == program.name
    assert out["jaxpr"].startswith("{ lambda") and out["batched_jaxpr"].startswith("{ lambda")


def test_preset_outputs_and_jaxprs():
    out = compare(*PRESETS["x + x² + x³"], "0", [5])
    assert out["in_axes"] == 0 and out["out_axes"] == 0
    assert "f32[3]" in out["jaxpr"] and "f32[5,3]" not in out["jaxpr"]
    assert "f32[5,3] = mul" in out["batched_jaxpr"]  # printed for the smallest size asked for above 1
    mlp = compare(*PRESETS["batched MLP predict"], "0", [4])
    assert mlp["function"] == "predict" and mlp["in_axes"] == [None, 0]
    assert "f32[784,1024]" in mlp["batched_jaxpr"] and "f32[4,10]" in mlp["batched_jaxpr"]
    _, example, _ = load("batched MLP predict")
    params, image = example
    assert [w.shape for w, _ in params] == [(784, 1024), (1024, 1024), (1024, 10)] and image.shape == (784,)


def test_per_example_gradients_equal_a_loop_of_grad():
    program, example, in_axes = load("per-example gradients")
    loss = program.namespace["loss"]
    params, _, _ = example
    size = 6
    _, xs, ys = owner_batch(example, tuple(in_axes), size)
    grads = jax.vmap(program.function, in_axes=(None, 0, 0))(params, xs, ys)
    assert grads["w"].shape == (size, 3) and grads["b"].shape == (size,)
    for i in range(size):
        one = jax.grad(loss)(params, xs[i], ys[i])
        np.testing.assert_allclose(grads["w"][i], one["w"], rtol=1e-6)
        np.testing.assert_allclose(grads["b"][i], one["b"], rtol=1e-6)
        residual = float(jnp.dot(xs[i], params["w"]) + params["b"] - ys[i])  # d/dp (p·x + b - y)^2, by hand
        np.testing.assert_allclose(one["w"], 2 * residual * np.asarray(xs[i]), rtol=1e-5)
    assert not np.allclose(grads["w"][0], grads["w"][1])  # the examples really differ


def test_two_batched_arguments_with_in_axes_0_and_1():
    code = "def f(x, y):\n    return jnp.dot(x, y) * jnp.sin(x)\n"
    example = (jnp.arange(1.0, 4.0), jnp.array([0.5, -1.0, 2.0]))
    batch = owner_batch(example, (0, 1), 5)
    assert batch[0].shape == (5, 3) and batch[1].shape == (3, 5)
    np.testing.assert_allclose(batch[1][:, 2], example[1] * 1.02, rtol=1e-6)

    def f(x, y):
        return jnp.dot(x, y) * jnp.sin(x)
    np.testing.assert_allclose(jax.vmap(f, (0, 1))(*batch), reference_loop(f, batch, (0, 1), 5), rtol=1e-5)
    out = compare(code, "(jnp.arange(1.0, 4.0), jnp.array([0.5, -1.0, 2.0]))", "(0, 1)", "0", [64, 5])
    assert out["ok"], out
    assert out["equal"] is True and out["in_axes"] == [0, 1]
    assert "f32[3,5]" in out["batched_jaxpr"]  # printed for the smallest size asked for above 1


def test_out_axes_1_stacks_along_axis_1():
    example, size = (jnp.arange(3.0),), 4
    batch = owner_batch(example, 0, size)
    (stacked,), done = owner_loop(lambda x: x * 2, list(batch), [0], [1], size)
    assert done == size and stacked.shape == (3, size)
    np.testing.assert_allclose(stacked, np.asarray(batch[0]).T * 2)
    np.testing.assert_allclose(jax.vmap(lambda x: x * 2, 0, 1)(*batch), stacked)
    out = compare("def f(x):\n    return x * 2\n", "jnp.arange(3.0)", "0", "1", [size])
    assert out["ok"] and out["equal"] and out["out_axes"] == 1
    assert "f32[3,4]" in out["batched_jaxpr"]  # printed for the size asked for


@pytest.mark.parametrize("n", ["3", "jnp.int32(3)"])  # a Python number leaf, and an array one
def test_pytree_arguments_and_outputs(n):
    code = "def f(p, x):\n    return {'y': p['w'] * x, 's': jnp.sum(p['w'])}\n"
    out = compare(code, f"({{'w': jnp.ones(2), 'n': {n}}}, jnp.ones(2))", "({'w': None, 'n': None}, 0)",
                  "{'y': 0, 's': None}", [3])
    assert out["ok"], out
    assert out["equal"] and out["in_axes"] == [{"w": None, "n": None}, 0] and out["out_axes"] == {"y": 0, "s": None}


def test_integer_and_bool_leaves_are_repeated_not_varied():
    ints = owner_batch((jnp.arange(3), True), 0, 4)
    assert ints[0].dtype == jnp.int32 and np.all(np.asarray(ints[0]) == np.arange(3))
    assert ints[1].shape == (4,) and bool(np.all(ints[1]))


def test_list_argument_takes_a_list_of_axes():
    out = compare("def f(ws):\n    return ws[0] + ws[1]\n", "[jnp.ones(2), jnp.ones(2)]", "([0, None],)", "0", [3])
    assert out["ok"], out
    assert out["equal"] and out["in_axes"] == [[0, None]]


@pytest.mark.parametrize(("text", "expected"), [
    ("0", 0), (" 1 ", 1), ("-1", -1), ("None", None), ("", 0), ("(None, 0, 0)", (None, 0, 0)),
    ("[0, 1]", [0, 1]), ("({'w': 0, 'b': None}, 0)", ({"w": 0, "b": None}, 0)),
])
def test_parse_axes_accepts_literals(text, expected):
    assert parse_axes(text, "in_axes") == expected


@pytest.mark.parametrize("text", [
    "__import__('os')", "__import__('os').system('touch /tmp/vectorize_pwned')", "1.5", "True", "'a'",
    "{1: 0}", "(0, 'x')", "0 if 1 else 1", "x", "[0", "{0}", "1j", "[" * 40 + "0" + "]" * 40,
    "[" * 200 + "]" * 200,
])
def test_parse_axes_rejects_everything_else(text, tmp_path):
    with pytest.raises(UserCodeError) as info:
        parse_axes(text, "in_axes")
    assert info.value.kind == "invalid_input"


def test_code_in_axes_is_never_evaluated(tmp_path):
    marker = tmp_path / "pwned"
    attempt = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    for in_axes, out_axes in ((attempt, "0"), ("0", attempt)):
        out = compare(CUBIC, "jnp.ones(3)", in_axes, out_axes, [2])
        assert out["ok"] is False and out["error"]["kind"] == "invalid_input"
    assert not marker.exists()


@pytest.mark.parametrize(("code", "args", "in_axes", "out_axes", "words"), [
    ("def f(a, b):\n    return a + b\n", "(jnp.ones(2), jnp.ones(2))", "(0, 0, 0)", "0", "3 entries"),
    ("def f(a, b):\n    return a + b\n", "(jnp.ones(2), jnp.ones(2))", "(None, None)", "0", "maps nothing"),
    ("def f(a):\n    return a\n", "jnp.ones(2)", "2", "0", "axis 2"),
    ("def f(a):\n    return a\n", "jnp.ones(2)", "0", "-3", "axis -3"),
    ("def f(a):\n    return a\n", "jnp.ones(2)", "0", "None", "out_axes"),
    ("def f(p):\n    return p['a']\n", "{'a': jnp.ones(2)}", "{'a': 0}", "0", "top level"),
    ("def f(p):\n    return p['a']\n", "{'a': jnp.ones(2)}", "({'b': 0},)", "0", "structure"),
    ("def f(a):\n    return a\n", "jnp.ones(1000)", "0", "0", "MiB"),
])
def test_axes_that_do_not_fit_the_function_are_invalid_input(code, args, in_axes, out_axes, words):
    out = compare(code, args, in_axes, out_axes, [100_000])
    assert out["ok"] is False, out
    assert out["error"]["kind"] == "invalid_input"
    assert words in out["error"]["message"]


def test_times_are_positive_and_one_per_size():
    sizes = [1, 3, 30]
    out = compare(CUBIC, "jnp.ones(3)", "0", "0", sizes)
    assert out["ok"] and out["equal"]
    for key in ("loop_s", "vmap_s", "jit_vmap_s"):
        assert len(out[key]) == len(sizes)
        assert all(isinstance(t, float) and 0 < t < 5 for t in out[key]), out[key]


def test_a_real_mismatch_shows_no_times():
    """A Python side effect at trace time: each program the job exports (the loop's per-example one, vmap's
    equations, jit(vmap)'s) is traced anew and sees another count, so no two of them agree."""
    code = "calls = [0]\n\ndef f(x):\n    calls[0] += 1\n    return x + calls[0]\n"
    out = compare(code, "jnp.ones(3)", "0", "0", [4, 8])
    assert out["ok"] is True
    assert out["equal"] is False
    assert out["loop_s"] == out["vmap_s"] == out["jit_vmap_s"] == []
    assert out["max_abs_diff"] >= 1


def test_any_mismatch_drops_every_time(monkeypatch):
    calls = []

    def differs_on_the_second_size(value, reference, program_rounding):
        calls.append(1)
        return numerics.Comparison(len(calls) <= 2, 0.5)  # two comparisons (vmap, jit) per size
    monkeypatch.setattr(numerics, "compare_within_rounding", differs_on_the_second_size)
    out = compare(CUBIC, "jnp.ones(3)", "0", "0", [2, 3, 4])
    assert out["ok"] and out["equal"] is False
    assert out["loop_s"] == out["vmap_s"] == out["jit_vmap_s"] == []
    assert out["max_abs_diff"] == 0.5


def test_slow_loop_is_checked_on_a_prefix_and_not_timed(monkeypatch):
    monkeypatch.setattr(vectorize, "LOOP_PASS_LIMIT_S", 0.0)
    out = compare(CUBIC, "jnp.ones(3)", "0", "1", [1, 500])
    assert out["ok"] and out["equal"]
    assert isinstance(out["loop_s"][0], float) and out["loop_s"][1] is None
    assert out["checked_examples"] == [1, 1]  # the loop stops after one example: only that one was compared
    status = render(out)[0]
    assert "on every example at batch size 1." in status
    assert "At batch size 500 the Python loop stopped at its time limit after 1 example:" in status
    assert "the other 499 were not compared" in status
    assert all(t > 0 for t in out["vmap_s"] + out["jit_vmap_s"])
    batch = owner_batch((jnp.ones(3),), 0, 500)
    (stacked,), done = owner_loop(lambda x: x * 2, list(batch), [0], [1], 500, limit_s=0.0)
    assert done == 1 and stacked.shape == (3, 1)


def test_difference_handles_nan_inf_shapes_and_structure():
    nan = np.array([np.nan, np.inf, 1.0])
    assert numerics.tree_difference(nan, nan.copy()) == (True, 0.0)
    assert numerics.tree_difference(np.ones(2), np.ones(3)) == (False, None)
    assert numerics.tree_difference((np.ones(2),), [np.ones(2)]) == (False, None)
    equal, diff = numerics.tree_difference(np.zeros(2), np.array([0.0, 1e-3]))
    assert not equal and math.isclose(diff, 1e-3)
    assert numerics.tree_difference(np.array([1.0]), np.array([np.nan])) == (False, None)


def test_stacking_in_chunks_equals_one_stack():
    leaves = [jnp.full((2,), float(i)) for i in range(300)]
    np.testing.assert_array_equal(calls.stacked(leaves, 1), np.stack([np.asarray(x) for x in leaves], 1))


def test_user_errors_keep_their_line_and_prints_are_captured():
    out = compare("def f(x):\n    y = x * 2\n    return y / undefined\n", "jnp.ones(3)", "0", "0", [2])
    assert out["error"]["kind"] == "user_exception" and out["error"]["line"] == 3
    out = compare("def f(x):\n    print('seen', x.shape)\n    return x\n", "jnp.ones(3)", "0", "0", [2])
    assert out["ok"] and "seen (3,)" in out["stdout"]


def test_every_example_is_compared_when_the_loop_finishes():
    out = compare(CUBIC, "jnp.ones(3)", "0", "0", [1, 7, 40])
    assert out["checked_examples"] == [1, 7, 40]
    assert render(out)[0] == (f"{OK} Python loop, vmap and jit(vmap) agree for `f` on every example at batch sizes "
                              "1, 7 and 40.\n\nMeasured on **cpu**.")


def test_a_mismatch_says_at_which_batch_size():
    code = "calls = [0]\n\ndef f(x):\n    calls[0] += 1\n    return x + calls[0]\n"
    out = compare(code, "jnp.ones(3)", "0", "0", [4, 8])
    assert out["checked_examples"] == [4]  # the first size already disagrees; the second is never run
    assert render(out)[0].startswith(f"{ERROR} The three ways disagree at batch size 4 (largest difference")


@pytest.mark.parametrize(("code", "args", "words"), [
    (CUBIC, "", "“One example's arguments” (`args`) is empty"),
    (CUBIC, "  \n ", "“One example's arguments” (`args`) is empty"),
    (CUBIC, "(jnp.ones(3), jnp.ones(3))", "`f(x)` cannot be called on “One example's arguments” (`args`, 2 values)"),
    ("def f(x, y):\n    return x * y\n", "jnp.ones(3)", "(`args`, 1 value): missing a required argument: 'y'"),
])
def test_missing_or_surplus_arguments_are_named(code, args, words):
    out = compare(code, args, "0", "0", [2])
    assert out["ok"] is False and out["error"]["kind"] == "invalid_input", out
    assert words in out["error"]["message"]


@pytest.mark.parametrize(("sizes", "language", "words"), [
    ("", "en", "“Batch sizes” is empty: give at least one whole number, such as 1, 10, 100."),
    (None, "de", "„Batch-Größen“ ist leer"),
    ("1, ten", "en", "“Batch sizes” must be whole numbers separated by commas, got '1, ten'."),
    ("1, ten", "zh", "“批大小” 必须是用逗号分隔的整数，收到的是 '1, ten'。"),
])
def test_an_empty_or_non_numeric_batch_sizes_box_is_named_and_no_job_runs(sizes, language, words):
    pool = OnePool({"ok": True})
    out = final(vmap_tab.run_vmap(PlaygroundAPI(pool=pool, settings=Settings()), CUBIC, "jnp.ones(3)", "0", "0",
                                  sizes))
    assert out["ok"] is False and out["error"]["kind"] == "invalid_input"
    assert words in render(out, language)[0]
    assert pool.jobs == []


def test_a_new_comparison_first_clears_the_last_one_then_shows_its_own():
    reply = compare(CUBIC, "jnp.ones(3)", "0", "0", [1, 5])
    pool = OnePool(reply)
    steps = list(vmap_tab.compare(PlaygroundAPI(pool=pool, settings=Settings()), CUBIC, "jnp.ones(3)", "0", "0",
                                  "1, 5"))
    # the previous error or chart is gone at once, and Measure again with it (what comes is measured now)
    assert steps[0] == (RUNNING_VMAP, "", "", None, "", {"__type__": "update", "visible": False})
    assert pool.jobs[0]["batch_sizes"] == [1, 5]
    assert steps[1][0].startswith(f"{OK} Python loop, vmap and jit(vmap) agree") and steps[1][3] is not None


def test_the_compare_button_streams_so_that_the_first_update_can_clear_the_last_run():
    context = tab_context(PlaygroundAPI(pool=OnePool({"ok": True}), settings=Settings()))
    with gr.Blocks() as demo:
        vmap_tab.build(context)
    (handler,) = [f for f in demo.fns.values() if f.name == "on_run"]
    assert handler.types_generator


def test_a_batched_matrix_product_agrees_with_the_loop_within_its_rounding():
    """Thinking in JAX's apply_matrix: vmap sums each row's 100 products in another order than the loop."""
    code = ("key1, key2 = jax.random.split(jax.random.key(1701))\nmat = jax.random.normal(key1, (150, 100))\n"
            "batched_x = jax.random.normal(key2, (10, 100))\n\ndef apply_matrix(x):\n    return jnp.dot(mat, x)\n")
    out = compare(code, "batched_x[0]", "0", "0", [10, 100])
    assert out["ok"] and out["equal"] is True, out
    assert 0 < out["max_abs_diff"] < 1e-4  # not bit-identical: the docs compare with atol=1e-4 too


def test_each_size_but_the_last_goes_ahead_with_the_rest_pending():
    sent = []
    out = compare(CUBIC, "jnp.ones(3)", "0", "0", [1, 4, 9], early=sent.append)
    assert [reply["batch_sizes"] for reply in sent] == [[1], [1, 4]]
    assert [reply["pending_sizes"] for reply in sent] == [[4, 9], [9]]
    assert all(set(reply) == SUCCESS_KEYS for reply in sent)
    assert out["pending_sizes"] == [] and sent[1]["vmap_s"] == out["vmap_s"][:2]
    assert sent[0]["loop_s"] is not out["loop_s"]  # a copy of the times so far, not the list that grows


# --- on the device: what the worker sends the owner, and what the owner makes of it ------------------------------


def test_the_owner_varies_float_leaves_and_repeats_the_others():
    batch = owner_batch((jnp.float32([1.0, 2.0]), jnp.int32(7), jnp.bool_(True), jnp.ones(2)), (1, 0, 0, None), 3)
    np.testing.assert_array_equal(batch[0], np.float32([[1.0, 1.01, 1.02], [2.0, 2.02, 2.04]]))  # along axis 1
    assert batch[1].dtype == np.int32 and batch[1].tolist() == [7, 7, 7]
    assert batch[2].dtype == np.bool_ and batch[2].tolist() == [True, True, True]
    np.testing.assert_array_equal(batch[3], np.ones(2, np.float32))  # shared as it is
    assert batch[3].shape == (2,)


def test_the_owner_varies_examples_by_less_than_2x_in_a_cycle_of_100():
    (batch,) = owner_batch((jnp.float32([80.0]),), 0, 250)
    scale = batch[:, 0] / np.float32(80.0)
    assert scale[0] == 1 and 1 <= scale.min() and scale.max() < 2  # so that exp of an example's values stays near
    np.testing.assert_array_equal(batch[100:200], batch[:100])  # example i is scaled by 1 + 0.01 * (i % 100)


def test_the_batch_is_made_in_the_owner_from_the_one_example():
    device, requests = recording_device()
    out = vectorize.compare(CUBIC, "jnp.arange(1_000_000.0)", "0", "0", [5], device)
    assert out["ok"] and out["equal"], out
    assert [r["size"] for r in requests if r["op"] == "batch"] == [5]
    sent = [array for r in requests if r["op"] == "put" for array in r["arrays"]]
    assert [a["shape"] for a in sent] == [[1_000_000]]  # the example, 4 MB; its batch of 20 MB never travels
    assert "upload" not in ops(requests)


def test_an_argument_larger_than_one_request_goes_in_parts():
    device, requests = recording_device()
    code = "def f(w, x):\n    return x * w[:3] + w[-3:]\n"
    out = vectorize.compare(code, "(jnp.arange(3_000_000.0), jnp.arange(3.0))", "(None, 0)", "0", [4], device)
    assert out["ok"] and out["equal"], out
    [upload] = [r for r in requests if r["op"] == "upload"]
    assert upload["shape"] == [3_000_000] and upload["dtype"] == "float32"  # 12 MB, more than one request carries
    parts = [r for r in requests if r["op"] == "append"]
    assert len(parts) == math.ceil(12_000_000 / device_ops.MAX_PUT_BYTES)
    assert all(len(r["data"]) <= 4 * (device_ops.MAX_PUT_BYTES // 3 + 1) for r in parts)


def test_an_argument_of_one_repeated_value_travels_as_that_value():
    device, requests = recording_device()
    code = "def f(w, x):\n    return x * w[:3]\n"
    out = vectorize.compare(code, "(jnp.full(4_000_000, 2.0), jnp.arange(3.0))", "(None, 0)", "0", [4], device)
    assert out["ok"] and out["equal"], out
    assert "upload" not in ops(requests)
    [filled] = [a for r in requests if r["op"] == "put" for a in r["arrays"] if a["shape"] == [4_000_000]]
    assert set(filled) == {"dtype", "shape", "fill"}  # 16 MB made in the owner from one element
    assert np.frombuffer(base64.b64decode(filled["fill"]), np.float32).tolist() == [2.0]


def test_vmap_over_a_typed_key_and_a_batch_of_floats():
    code = "def f(k, x):\n    return jax.random.normal(k, x.shape) * x\n"
    for in_axes in ("(0, 0)", "(None, 0)"):
        out = compare(code, "(jax.random.key(0), jnp.arange(1.0, 4.0))", in_axes, "0", [1, 5])
        assert out["ok"] and out["equal"], out
        assert out["checked_examples"] == [1, 5]
        assert "key<fry>[]" in out["jaxpr"]
    assert "key<fry>[5]" in compare(code, "(jax.random.key(0), jnp.ones(3))", "(0, 0)", "0", [5])["batched_jaxpr"]


def test_a_typed_key_argument_travels_as_its_key_data():
    device, requests = recording_device()
    out = vectorize.compare("def f(k, x):\n    return jax.random.uniform(k) * x\n",
                            "(jax.random.key(3), jnp.ones(3))", "(None, 0)", "0", [2], device)
    assert out["ok"] and out["equal"], out
    sent = [a for r in requests if r["op"] == "put" for a in r["arrays"]]
    key_data = np.asarray(jax.random.key_data(jax.random.key(3)))
    assert [(a["dtype"], a["shape"]) for a in sent] == [("uint32", list(key_data.shape)), ("float32", [3])]


@pytest.mark.parametrize(("args", "in_axes"), [("(jnp.ones(3), 2.0)", "(0, None)"), ("(jnp.ones(3), 2)", "(0, None)"),
                                               ("2.0", "0")])
def test_a_python_number_in_the_arguments_is_a_leaf_like_any_other(args, in_axes):
    out = compare("def f(x, s=1.0):\n    return x * s\n", args, in_axes, "0", [1, 4])
    assert out["ok"] and out["equal"], out
    assert out["checked_examples"] == [1, 4]
    assert "f32[4" in out["batched_jaxpr"] and "f64" not in out["batched_jaxpr"]  # a Python number is weak
