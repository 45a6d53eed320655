"""playground.worker.measurement.hlo_text: HLO text as computations, instructions, operands, calls, made-up and real."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from playground.worker.measurement.hlo_text import parse

FUSED = """HloModule jit_f, is_scheduled=true, entry_computation_layout={(f32[1000,1000]{1,0})->f32[1000,1000]{1,0}}

%fused_computation (param_0.1: f32[1000,1000]) -> f32[1000,1000] {
  %param_0.1 = f32[1000,1000]{1,0} parameter(0)
  %mul.1 = f32[1000,1000]{1,0} multiply(%param_0.1, %param_0.1), metadata={op_name="jit(f)/mul" stack_frame_id=1}
  ROOT %add.1 = f32[1000,1000]{1,0} add(%param_0.1, %mul.1), metadata={op_name="jit(f)/add"}
}

ENTRY %main.5 (x.1: f32[1000,1000]) -> f32[1000,1000] {
  %x.1 = f32[1000,1000]{1,0} parameter(0), metadata={op_name="x"}
  ROOT %multiply_add_fusion = f32[1000,1000]{1,0} fusion(%x.1), kind=kLoop, calls=%fused_computation
}
"""

LOOP = """HloModule jit_f

%body (state: (f32[], s32[5])) -> (f32[], s32[5]) {
  %state = (f32[], s32[5]{0}) parameter(0)
  %total = f32[] get-tuple-element(%state), index=0
  %xs = s32[5]{0} get-tuple-element(%state), index=1
  ROOT %next = (f32[], s32[5]{0}) tuple(%total, %xs)
}

%cond (state.1: (f32[], s32[5])) -> pred[] {
  %state.1 = (f32[], s32[5]{0}) parameter(0)
  ROOT %yes = pred[] constant(true)
}

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}

%left (p: f32[4]) -> f32[4] {
  ROOT %p = f32[4]{0} parameter(0)
}

%right (q: f32[4]) -> f32[4] {
  %q = f32[4]{0} parameter(0)
  ROOT %neg = f32[4]{0} negate(%q)
}

ENTRY %main (x: f32[4], init: (f32[], s32[5]), i: s32[]) -> f32[] {
  %x = f32[4]{0} parameter(0)
  %init = (f32[], s32[5]{0}) parameter(1), sharding={replicated}
  %i = s32[] parameter(2)
  %loop = (f32[], s32[5]{0}) while(%init), condition=%cond, body=%body
  %zero = f32[] constant(0)
  %r = f32[] reduce(%x, %zero), dimensions={0}, to_apply=%add
  %c = f32[4]{0} conditional(%i, %x, %x), branch_computations={%left, %right}
  %two = f32[4]{0} conditional(%i, %x, %x), true_computation=%left, false_computation=%right
  %call = f32[4]{0} call(%x), to_apply=%right
  ROOT %out = f32[] get-tuple-element(%loop), index=0
}
"""


def _by_name(computations) -> dict:
    return {c.name: c for c in computations}


def _instruction(computation, name: str):
    return next(i for i in computation.instructions if i.name == name)


def test_every_computation_in_order_and_only_the_entry_flagged():
    computations = parse(FUSED)
    assert [(c.name, c.entry) for c in computations] == [("fused_computation", False), ("main.5", True)]
    assert [c.name for c in parse(LOOP)] == ["body", "cond", "add", "left", "right", "main"]
    assert [c.name for c in parse(LOOP) if c.entry] == ["main"]


def test_the_module_header_and_its_layout_braces_are_no_computation():
    assert parse("HloModule jit_f, entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n") == []


def test_instructions_with_their_opcode_operands_and_root():
    fused, entry = parse(FUSED)
    assert [(i.name, i.opcode, i.operands, i.root) for i in fused.instructions] == [
        ("param_0.1", "parameter", (), False),
        ("mul.1", "multiply", ("param_0.1", "param_0.1"), False),
        ("add.1", "add", ("param_0.1", "mul.1"), True),
    ]
    assert [i.name for i in entry.instructions if i.root] == ["multiply_add_fusion"]


def test_layouts_are_stripped_from_shapes():
    fused, entry = parse(FUSED)
    assert {i.shape for i in fused.instructions} == {"f32[1000,1000]"}
    assert _instruction(entry, "multiply_add_fusion").shape == "f32[1000,1000]"


def test_tuple_shapes_are_whole_and_without_layouts():
    main = _by_name(parse(LOOP))["main"]
    assert _instruction(main, "init").shape == "(f32[], s32[5])"
    assert _instruction(main, "loop").shape == "(f32[], s32[5])"
    assert _instruction(main, "loop").opcode == "while"
    body = _by_name(parse(LOOP))["body"]
    assert _instruction(body, "next").shape == "(f32[], s32[5])"
    assert _instruction(body, "next").operands == ("total", "xs")


def test_a_long_tuple_with_index_comments_keeps_its_shape():
    text = ("ENTRY %main (p: f32[]) -> f32[] {\n"
            "  %t = (f32[], f32[], f32[], f32[], f32[], /*index=5*/s32[2]{0}) tuple(%p, %p, %p, %p, %p, %q)\n"
            "}\n")
    [instruction] = parse(text)[0].instructions
    assert instruction.opcode == "tuple"
    assert instruction.shape.startswith("(f32[], f32[], ") and instruction.shape.endswith("s32[2])")
    assert instruction.operands == ("p", "p", "p", "p", "p", "q")


def test_parameter_numbers_are_read_and_parameters_have_no_operands():
    main = _by_name(parse(LOOP))["main"]
    parameters = [(i.name, i.parameter, i.operands) for i in main.instructions if i.opcode == "parameter"]
    assert parameters == [("x", 0, ()), ("init", 1, ()), ("i", 2, ())]
    assert all(i.parameter is None for i in main.instructions if i.opcode != "parameter")


def test_constants_have_no_operands():
    main = _by_name(parse(LOOP))["main"]
    assert _instruction(main, "zero").operands == ()
    cond = _by_name(parse(LOOP))["cond"]
    assert _instruction(cond, "yes").operands == ()


def test_calls_name_each_called_computation_with_its_role():
    main = _by_name(parse(LOOP))["main"]
    calls = {i.name: i.calls for i in main.instructions}
    assert set(calls["loop"]) == {("condition", "cond"), ("body", "body")}
    assert calls["r"] == (("to_apply", "add"),)
    assert calls["c"] == (("branch_computations", "left"), ("branch_computations", "right"))
    assert set(calls["two"]) == {("true_computation", "left"), ("false_computation", "right")}
    assert calls["call"] == (("to_apply", "right"),)
    assert calls["x"] == calls["zero"] == calls["out"] == ()
    fusion = _instruction(parse(FUSED)[1], "multiply_add_fusion")
    assert fusion.calls == (("calls", "fused_computation"),)


def test_operands_are_read_before_the_attributes():
    main = _by_name(parse(LOOP))["main"]
    assert _instruction(main, "loop").operands == ("init",)
    assert _instruction(main, "r").operands == ("x", "zero")
    assert _instruction(main, "c").operands == ("i", "x", "x")
    assert _instruction(main, "out").operands == ("loop",)


def test_operands_printed_with_their_shapes_give_their_names():
    text = ("ENTRY %main (a: f32[2,3], b: f32[2,3]) -> f32[2,3] {\n"
            "  %a = f32[2,3]{1,0} parameter(0)\n"
            "  %b = f32[2,3]{1,0} parameter(1)\n"
            "  ROOT %s = f32[2,3]{1,0} add(f32[2,3]{1,0} %a, f32[2,3]{1,0} %b)\n"
            "}\n")
    assert _instruction(parse(text)[0], "s").operands == ("a", "b")


def test_names_without_percent_signs_parse_too():
    text = ("ENTRY main.2 (x: f32[4]) -> f32[4] {\n"
            "  x = f32[4]{0} parameter(0)\n"
            "  ROOT neg.1 = f32[4]{0} negate(x)\n"
            "}\n")
    [computation] = parse(text)
    assert (computation.name, computation.entry) == ("main.2", True)
    assert [(i.name, i.opcode, i.operands) for i in computation.instructions] == [
        ("x", "parameter", ()), ("neg.1", "negate", ("x",))]


def test_user_lines_map_each_text_line_to_its_instruction():
    lines = FUSED.splitlines()
    user_lines: list[int | None] = [None] * len(lines)
    user_lines[lines.index(next(x for x in lines if "%mul.1 =" in x))] = 2
    user_lines[lines.index(next(x for x in lines if "%add.1 =" in x))] = 3
    fused, entry = parse(FUSED, user_lines)
    assert [(i.name, i.line) for i in fused.instructions] == [("param_0.1", None), ("mul.1", 2), ("add.1", 3)]
    assert all(i.line is None for i in entry.instructions)


def test_without_user_lines_or_with_too_few_every_line_is_none():
    assert all(i.line is None for c in parse(FUSED) for i in c.instructions)
    assert all(i.line is None for c in parse(FUSED, [7, 7]) for i in c.instructions)


def test_an_unclosed_computation_is_left_out():
    assert parse("ENTRY %main (x: f32[]) -> f32[] {\n  ROOT %x = f32[] parameter(0)\n") == []


def test_real_compiled_hlo_of_a_cond_and_a_scan():
    cond = jax.jit(lambda x: lax.cond(x.sum() > 0, lambda v: v * 2, lambda v: -v, x))
    computations = _by_name(parse(cond.lower(jnp.arange(4.0)).compile().as_text()))
    [entry] = [c for c in computations.values() if c.entry]
    [conditional] = [i for i in entry.instructions if i.opcode == "conditional"]
    branches = [callee for role, callee in conditional.calls if role == "branch_computations"]
    assert len(branches) == 2 and all(name in computations for name in branches)
    for computation in computations.values():
        names = {i.name for i in computation.instructions}
        for instruction in computation.instructions:
            assert set(instruction.operands) <= names, (computation.name, instruction)
            assert all(callee in computations for _, callee in instruction.calls), instruction

    def running_sum(xs):
        return lax.scan(lambda total, x: (total + x, total + x), 0.0, xs)

    computations = _by_name(parse(jax.jit(running_sum).lower(jnp.arange(5.0)).compile().as_text()))
    loops = [i for c in computations.values() for i in c.instructions if i.opcode == "while"]
    assert loops and {role for role, _ in loops[0].calls} == {"condition", "body"}
    assert any(i.shape.startswith("(") and "{" not in i.shape for i in loops)

