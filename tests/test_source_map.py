"""The user-line maps of jaxpr, StableHLO and optimised HLO, on real JAX output."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from playground.errors import USER_FILENAME
from playground.worker.functions import source_map

THREE_LINES = "def f(x):\n    y = x * x\n    z = jnp.sin(y)\n    return z + x\n"


def _stages(source: str, *args):
    namespace = {"jnp": jnp, "jax": jax}
    exec(compile(source, USER_FILENAME, "exec"), namespace)
    traced = jax.jit(namespace["f"]).trace(*args)
    lowered = traced.lower()
    return traced, lowered, lowered.compile()


@pytest.fixture(scope="module")
def three_lines():
    return _stages(THREE_LINES, jnp.arange(4.0))


def _pairs(text: str, lines: list) -> dict[str, int]:
    """Each mapped IR line's operation name -> user line."""
    assert len(text.splitlines()) == len(lines)
    return {row.strip(): line for row, line in zip(text.splitlines(), lines, strict=True) if line is not None}


def test_jaxpr_equations_map_to_their_lines(three_lines):
    text, lines = source_map.jaxpr_with_lines(three_lines[0].jaxpr)
    assert _pairs(text, lines) == {"b:f32[4] = mul a a": 2, "c:f32[4] = sin b": 3, "d:f32[4] = add c a": 4}
    assert "#" not in text  # the source comments are gone from what the user sees


def test_stablehlo_ops_map_to_their_lines(three_lines):
    text, lines = source_map.stablehlo_with_lines(three_lines[1])
    by_op = {row.split("=")[1].split()[0]: line for row, line in _pairs(text, lines).items()}
    assert by_op == {"stablehlo.multiply": 2, "stablehlo.sine": 3, "stablehlo.add": 4}
    assert "loc(" not in text and "#loc" not in text
    assert text.splitlines() == three_lines[1].as_text().splitlines()  # the same text as as_text()


def test_compiled_hlo_instructions_map_to_their_lines(three_lines):
    text = three_lines[2].as_text()
    lines = source_map.hlo_lines(text)
    assert len(lines) == len(text.splitlines())
    ops = {row.split("=")[1].split("(")[0].split()[-1]: line
           for row, line in zip(text.splitlines(), lines, strict=True) if line and " = " in row}
    assert ops["multiply"] == 2 and ops["sine"] == 3 and ops["add"] == 4


def test_nested_user_functions_map_to_the_innermost_line():
    source = "def g(v):\n    return jnp.sin(v)\n\ndef f(x):\n    return g(x * 2)\n"
    traced, lowered, _ = _stages(source, jnp.ones(3))
    jaxpr_pairs = _pairs(*source_map.jaxpr_with_lines(traced.jaxpr))
    assert [line for row, line in jaxpr_pairs.items() if "sin" in row] == [2]
    assert [line for row, line in jaxpr_pairs.items() if "mul" in row] == [5]
    hlo_pairs = _pairs(*source_map.stablehlo_with_lines(lowered))
    assert [line for row, line in hlo_pairs.items() if "sine" in row] == [2]


def test_a_short_jaxpr_still_gets_one_equation_per_line():
    traced, _, _ = _stages("def f(x):\n    return x * 2\n", 1.0)
    text, lines = source_map.jaxpr_with_lines(traced.jaxpr)
    assert len(text.splitlines()) >= 3 and lines.count(2) == 1


def test_code_from_elsewhere_maps_to_nothing():
    traced = jax.jit(lambda x: x + 1).trace(1.0)  # defined in this test file, not the user's
    text, lines = source_map.jaxpr_with_lines(traced.jaxpr)
    assert set(lines) == {None}
    assert "#" not in text
    assert set(source_map.hlo_lines(traced.lower().compile().as_text())) == {None}


def test_resolving_cyclic_or_missing_locations_terminates():
    definitions = {"#loc1": '"x"(#loc2)', "#loc2": '"y"(#loc1)'}
    assert source_map._resolve("#loc1", definitions) is None
    assert source_map._resolve("#loc9", {}) is None


def test_operations_without_a_location_leave_no_stray_comment_mark():
    traced = jax.jit(jax.vmap(lambda x: x * 2.0, out_axes=1)).trace(jnp.ones((8, 3)))
    text, _ = source_map.jaxpr_with_lines(traced.jaxpr)
    assert "transpose" in text and "#" not in text


def test_hlo_file_names_keep_only_the_users_file(three_lines):
    text = source_map.redact_file_names(three_lines[2].as_text())
    names = source_map._section(text, "FileNames").splitlines()
    assert any(line.endswith(f'"{USER_FILENAME}"') for line in names)
    assert all(line.endswith(('"<internal>"', f'"{USER_FILENAME}"')) for line in names)
    assert __file__ not in text
    assert source_map.hlo_lines(text) == source_map.hlo_lines(three_lines[2].as_text())  # the map is unchanged
