"""The Pallas job in-process: every example runs in interpret mode and matches its reference, the grid's check finds
each kind of mistake, and each kernel mistake JAX reports gets its lesson, in every language."""

from __future__ import annotations

import pytest

from playground import messages, pallas_gallery
from playground.worker.jobs import pallas_grid
from playground.worker.jobs.pallas import run_kernel

IMPORT = pallas_gallery.IMPORT
COPY = "def copy_kernel(x_ref, o_ref):\n    o_ref[...] = x_ref[...]\n\n"


def _call(block: str, in_map: str, out_map: str, grid: str, out_block: str | None = None,
          out_shape: str = "jax.ShapeDtypeStruct(x.shape, x.dtype)") -> str:
    return (IMPORT + COPY + "def f(x):\n    return pl.pallas_call(copy_kernel, out_shape=" + out_shape +
            f", grid={grid},\n        in_specs=[pl.BlockSpec({block}, {in_map})],\n"
            f"        out_specs=pl.BlockSpec({out_block or block}, {out_map}))(x)\n\n"
            "def reference(x):\n    return x\n")


@pytest.mark.parametrize("example", pallas_gallery.EXAMPLES, ids=lambda e: e.name)
def test_every_example_runs_and_meets_its_reference_or_its_mistake_is_found(example):
    out = run_kernel(example.code, example.args)

    assert out["ok"], out
    assert out["mode"] == "interpret" and out["function"] == "f" and out["reference"] == "reference"
    kinds = [finding["kind"] for finding in out["findings"]]
    if example.mistake:
        assert example.mistake in kinds and not out["matches"]
    else:
        assert kinds == [] and out["matches"] and out["max_error"] <= out["tolerance"], out
    [call] = out["calls"]
    assert call["points"] == call["total"] and len(call["operands"]) >= 2
    for operand in call["operands"]:
        assert len(operand["blocks"]) == call["points"]


def test_the_matmul_grid_shows_which_blocks_each_program_reads_and_that_k_accumulates():
    [call] = run_kernel(pallas_gallery.MATMUL.code, pallas_gallery.MATMUL.args)["calls"]
    x, y, out = call["operands"]

    assert call["grid"] == [2, 2, 2]
    assert [x["role"], y["role"], out["role"]] == ["input", "input", "output"]
    assert x["blocks"] == [[i, k] for i in range(2) for j in range(2) for k in range(2)]
    assert y["blocks"] == [[k, j] for i in range(2) for j in range(2) for k in range(2)]
    assert out["blocks"] == [[i, j] for i in range(2) for j in range(2) for k in range(2)]  # twice in a row: summed


def test_a_block_shape_a_tpu_refuses_is_named_with_its_axis():
    out = run_kernel(_call("(8, 100)", "lambda i: (0, i)", "lambda i: (0, i)", "(2,)"), "jnp.ones((8, 200))")

    tiles = [finding for finding in out["findings"] if finding["kind"] == "tile"]
    assert {(t["role"], t["axis"], t["multiple"]) for t in tiles} == {("input", 1, 128), ("output", 1, 128)}
    assert out["matches"]  # interpret mode runs it anyway


def test_an_output_block_written_again_after_others_is_found_and_the_kernel_is_not_run():
    out = run_kernel(_call("(8, 128)", "lambda i: (i, 0)", "lambda i: (i % 2, 0)", "(4,)"), "jnp.ones((32, 128))")

    kinds = {finding["kind"]: finding for finding in out["findings"]}
    revisited = kinds["revisited"]
    assert revisited["block"] == [0, 0] and (revisited["first"], revisited["again"]) == (0, 2)
    assert kinds["missed"]["blocks"] == [[2, 0], [3, 0]]
    assert out["ok"] and out["ran"] is False and out["result"] == [] and not out["matches"]
    assert out["expected"] == [{"shape": [32, 128], "dtype": "float32"}]


def test_output_blocks_no_program_writes_are_found_and_read_as_nan():
    out = run_kernel(_call("(8, 128)", "lambda i: (i, 0)", "lambda i: (i, 0)", "(2,)"), "jnp.ones((32, 128))")

    [missed] = [finding for finding in out["findings"] if finding["kind"] == "missed"]
    assert missed["blocks"] == [[2, 0], [3, 0]] and missed["count"] == 2
    assert not out["matches"] and out["nans"] == 2 * 8 * 128 and out["max_error"] is None


def test_a_block_past_the_array_is_found_before_it_runs():
    out = run_kernel(_call("(8, 128)", "lambda i: (i + 1, 0)", "lambda i: (i, 0)", "(2,)"), "jnp.ones((16, 128))")

    [outside] = [finding for finding in out["findings"] if finding["kind"] == "outside"]
    assert (outside["role"], outside["point"], outside["block"], outside["extent"]) == ("input", 1, [2, 0], [2, 1])
    assert out["ran"] is False


@pytest.mark.parametrize(("in_map", "out_map", "lesson"), [
    ("lambda i: (i + 1, 0)", "lambda i: (i, 0)", "pallas_block_outside"),
    ("lambda i: (i, 0)", "lambda i: (i % 2, 0)", "pallas_revisited"),
], ids=["a block outside", "a block revisited"])
def test_where_the_grid_cannot_be_mapped_interpret_modes_own_checks_get_their_lessons(monkeypatch, in_map, out_map,
                                                                                      lesson):
    """Index maps that read scalar-prefetched values are known only as the kernel runs: JAX's checks find these."""
    def unreadable(jaxpr):
        raise pallas_grid.GridUnreadable("its index maps read scalar-prefetched values")

    monkeypatch.setattr(pallas_grid, "read_calls", unreadable)
    out = run_kernel(_call("(8, 128)", in_map, out_map, "(4,)" if "%" in out_map else "(2,)"),
                     "jnp.ones((32, 128))" if "%" in out_map else "jnp.ones((16, 128))")

    assert out["ok"] is False
    assert out["error"]["words"]["title"][1][0] == f"lesson.{lesson}.title"
    assert out["error"]["fix"] and out["error"]["doc_url"].startswith("https://docs.jax.dev/")


@pytest.mark.parametrize(("code", "lesson"), [
    (IMPORT + "def k(x_ref, o_ref):\n    o_ref[...] = x_ref[pl.ds(4, 8), :]\n\n"
     "def f(x):\n    return pl.pallas_call(k, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype), grid=(1,),\n"
     "        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],\n"
     "        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)))(x)\n\ndef reference(x):\n    return x[:8]\n",
     "pallas_slice"),
    (_call("(16, 128)", "lambda: (0, 0)", "lambda: (0, 0)", "()", out_block="(8, 128)",
           out_shape="jax.ShapeDtypeStruct((8, 128), x.dtype)"), "pallas_write"),
    (IMPORT + COPY.replace("o_ref[...] = x_ref[...]", "kept.append(x_ref)\n    o_ref[...] = x_ref[...]") +
     "kept = []\n\ndef f(x):\n"
     "    y = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)\n"
     "    return y + kept[-1][...]\n\ndef reference(x):\n    return 2 * x\n", "pallas_ref_escaped"),
], ids=["slice past the block", "wrong out_shape", "a ref read outside its kernel"])
def test_each_kernel_mistake_gets_its_lesson_in_every_language(code, lesson):
    out = run_kernel(code, "jnp.ones((16, 128))")

    assert out["ok"] is False, out
    words = out["error"]["words"]
    assert words["title"][1][0] == f"lesson.{lesson}.title"
    assert words["fix"][0][0] == f"lfix.{lesson}"
    for language in messages.LANGUAGES:
        written = messages.render(words["explanation"], language) + messages.render(words["fix"], language)
        assert "{" not in written and len(written) > 40


def test_code_without_a_pallas_call_or_a_reference_is_told_what_to_write():
    no_call = run_kernel("def f(x):\n    return x\n\ndef reference(x):\n    return x\n", "jnp.ones(3)")
    no_reference = run_kernel(IMPORT + "def f(x):\n    return x\n", "jnp.ones(3)")

    assert no_call["error"]["kind"] == "invalid_input" and "pl.pallas_call" in no_call["error"]["message"]
    assert no_reference["error"]["kind"] == "invalid_input" and "def reference" in no_reference["error"]["message"]
    only_a_kernel = run_kernel(COPY + "def reference(x):\n    return x\n", "jnp.ones(3)")
    assert only_a_kernel["error"]["kind"] == "invalid_input" and "pl.pallas_call" in only_a_kernel["error"]["message"]


def test_the_caller_is_found_when_it_is_not_named_f():
    code = pallas_gallery.ELEMENTWISE.code.replace("def f(", "def add(")

    out = run_kernel(code, pallas_gallery.ELEMENTWISE.args)

    assert out["ok"] and out["function"] == "add" and out["matches"]


def test_a_result_of_another_shape_than_the_reference_is_said_so():
    code = pallas_gallery.SOFTMAX.code.replace("return jax.nn.softmax(x, axis=1)", "return jax.nn.softmax(x, axis=1).T")

    out = run_kernel(code, pallas_gallery.SOFTMAX.args)

    assert out["ok"] and not out["matches"] and out["max_error"] is None
    assert [finding["kind"] for finding in out["findings"]] == ["out_shape"]
    assert out["result"] == [{"shape": [64, 256], "dtype": "float32"}]
    assert out["expected"] == [{"shape": [256, 64], "dtype": "float32"}]


def test_element_and_squeezed_dimensions_are_drawn_in_blocks():
    """An Element dimension's map gives an element offset (drawn as the block it starts), a squeezed one a row."""
    code = (IMPORT + COPY + "def f(x):\n    return pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct("
            "(x.shape[0], 128), x.dtype), grid=(2,),\n"
            "        in_specs=[pl.BlockSpec((pl.Element(8), 128), lambda i: (i * 8, 0))],\n"
            "        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)))(x)\n\n"
            "def reference(x):\n    return x\n")
    rows = _call("(None, 128)", "lambda i: (i, 0)", "lambda i: (i, 0)", "(4,)")

    [element_call] = run_kernel(code, "jnp.ones((16, 128))")["calls"]
    [rows_call] = run_kernel(rows, "jnp.ones((4, 128))")["calls"]

    assert element_call["operands"][0]["blocks"] == [[0, 0], [1, 0]] and element_call["findings"] == []
    assert [(o["block_shape"], o["squeezed"]) for o in rows_call["operands"]] == [([1, 128], [True, False])] * 2
    assert rows_call["findings"] == []
