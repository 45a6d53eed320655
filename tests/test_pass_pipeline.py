"""playground.worker.jobs.passes: XLA's passes one by one, from synthetic dumps and from a real compile."""

from __future__ import annotations

import os

import pytest

from playground.ipc.limits import Limits
from playground.measure import xla_dump
from playground.measure.xla_dump import Snapshot
from playground.worker.jobs import passes as pass_pipeline
from playground.worker.jobs.passes import pass_records
from tests.device_requests import recording_device
from tests.owner_doubles import local_device

CUBIC = "def f(x):\n    return x + x*x + x*x*x\n"
BIG = "jnp.ones((1000, 1000))"
BUDGET = 32 << 20


def _module(name: str, negates: int) -> str:
    """A small HLO module with ``negates`` instructions after its parameter (its text names it ``name``)."""
    lines = [f"HloModule {name}", "", "ENTRY %main (x: f32[4]) -> f32[4] {", "  %v0 = f32[4]{0} parameter(0)"]
    for i in range(1, negates + 1):
        root = "ROOT " if i == negates else ""
        lines.append(f"  {root}%v{i} = f32[4]{{0}} negate(%v{i - 1})")
    lines.append("}")
    return "\n".join(lines)


M0, M1, M2, M3 = (_module(f"m{i}", i + 1) for i in range(4))


def _snapshots(*steps: tuple[str, str, str]) -> list[Snapshot]:
    return [Snapshot(order, pipeline, after, text) for order, (pipeline, after, text) in enumerate(steps)]


# An outer pipeline that runs two passes, then an inner pipeline (two passes), summarised in the outer one as a pass
# named after it, then one more pass that changes nothing.
NESTED = _snapshots(
    ("outer", "pipeline-start", M0),
    ("outer", "algsimp", M1),
    ("outer", "dce", M1),
    ("inner", "pipeline-start", M1),
    ("inner", "cse", M2),
    ("inner", "dce", M3),
    ("outer", "inner", M3),
    ("outer", "fusion", M3),
)


def _summary(records: list[dict]) -> list[tuple]:
    return [(r["pipeline"], r["name"], r["nested"], r["changed"], r["before"], r["after"]) for r in records]


def test_pipeline_starts_are_no_passes_and_indices_count_the_passes():
    records, modules, _ = pass_records(NESTED, 200_000)
    assert [r["name"] for r in records] == ["algsimp", "dce", "cse", "dce", "inner", "fusion"]
    assert [r["index"] for r in records] == list(range(6))
    assert "pipeline-start" not in {r["name"] for r in records}
    assert modules == [M0, M1, M2, M3]


def test_each_pass_reads_the_module_before_it_and_unchanged_ones_reuse_its_index():
    records, modules, _ = pass_records(NESTED, 200_000)
    assert _summary(records) == [
        ("outer", "algsimp", False, True, 0, 1),
        ("outer", "dce", False, False, 1, 1),
        ("inner", "cse", False, True, 1, 2),
        ("inner", "dce", False, True, 2, 3),
        ("outer", "inner", True, True, 1, 3),  # the whole inner pipeline: from the module it started from
        ("outer", "fusion", False, False, 3, 3),
    ]
    for record in records:
        assert (modules[record["before"]] != modules[record["after"]]) is record["changed"]


def test_instructions_are_counted_after_each_pass_parameters_left_out():
    records, _, _ = pass_records(NESTED, 200_000)
    assert [r["instructions"] for r in records] == [2, 2, 3, 4, 4, 4]


def test_a_nested_pipeline_that_changed_nothing_is_nested_and_unchanged():
    records, modules, _ = pass_records(_snapshots(
        ("outer", "pipeline-start", M0),
        ("outer", "algsimp", M1),
        ("inner", "pipeline-start", M1),
        ("inner", "dce", M1),
        ("outer", "inner", M1),
    ), 200_000)
    assert _summary(records) == [("outer", "algsimp", False, True, 0, 1), ("inner", "dce", False, False, 1, 1),
                                 ("outer", "inner", True, False, 1, 1)]
    assert len(modules) == 2


def test_an_inner_pipeline_run_twice_is_measured_from_each_start():
    records, _, _ = pass_records(_snapshots(
        ("outer", "pipeline-start", M0),
        ("inner", "pipeline-start", M0),
        ("inner", "algsimp", M1),
        ("outer", "inner", M1),
        ("outer", "cse", M2),
        ("inner", "pipeline-start", M2),
        ("inner", "algsimp", M3),
        ("outer", "inner", M3),
    ), 200_000)
    nested = [r for r in records if r["nested"]]
    assert [(r["before"], r["after"]) for r in nested] == [(0, 1), (2, 3)]


def test_a_pass_named_like_its_own_pipeline_is_not_nested():
    records, _, _ = pass_records(_snapshots(
        ("simplification", "pipeline-start", M0),
        ("simplification", "simplification", M1),
    ), 200_000)
    assert _summary(records) == [("simplification", "simplification", False, True, 0, 1)]


def test_a_pass_named_like_an_earlier_pipeline_is_nested_only_right_after_it():
    records, _, _ = pass_records(_snapshots(
        ("outer", "pipeline-start", M0),
        ("inner", "pipeline-start", M0),
        ("inner", "algsimp", M1),
        ("outer", "inner", M1),
        ("outer", "inner", M2),  # a pass of the outer pipeline that happens to share the name
    ), 200_000)
    assert [(r["nested"], r["before"], r["after"]) for r in records][1:] == [(True, 0, 1), (False, 1, 2)]


def test_no_snapshots_no_passes():
    assert pass_records([], 200_000) == ([], [], [])


def test_a_dump_without_a_pipeline_start_takes_its_first_file_as_the_module_before():
    records, _, _ = pass_records(_snapshots(("outer", "algsimp", M1), ("outer", "dce", M2)), 200_000)
    assert _summary(records) == [("outer", "algsimp", False, False, 0, 0), ("outer", "dce", False, True, 0, 1)]


def test_module_lines_give_one_entry_per_line_of_each_module():
    _, modules, lines = pass_records(NESTED, 200_000)
    assert len(lines) == len(modules)
    for text, line_map in zip(modules, lines, strict=True):
        assert len(line_map) == text.count("\n") + 1


def test_a_module_longer_than_max_chars_is_cut_with_a_notice():
    _, modules, lines = pass_records(NESTED, 60)
    assert all(len(m) < 60 + 100 and "output truncated" in m for m in modules)
    assert all(len(line_map) == m.count("\n") + 1 for m, line_map in zip(modules, lines, strict=True))


def test_past_max_module_chars_new_modules_have_no_index(monkeypatch):
    monkeypatch.setattr(pass_pipeline, "MAX_MODULE_CHARS", len(M0) + len(M1))
    records, modules, lines = pass_records(NESTED, 200_000)
    assert modules == [M0, M1] and len(lines) == 2
    assert _summary(records) == [
        ("outer", "algsimp", False, True, 0, 1),
        ("outer", "dce", False, False, 1, 1),
        ("inner", "cse", False, True, 1, None),
        ("inner", "dce", False, True, None, None),
        ("outer", "inner", True, True, 1, None),
        ("outer", "fusion", False, False, None, None),
    ]


# -- a real compile -------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scratch")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)  # the dump goes below the working directory, as in a worker
        yield folder


@pytest.fixture(scope="module")
def cubic(scratch) -> dict:
    return pass_pipeline.passes(CUBIC, BIG, 200_000, BUDGET)


def test_the_fusion_pass_changes_the_module_and_makes_a_fusion(cubic):
    assert cubic["ok"] is True, cubic
    assert cubic["function"] == "f"
    fusion = next(p for p in cubic["passes"] if p["name"] == "fusion")
    assert fusion["changed"] is True
    assert "fusion(" in cubic["modules"][fusion["after"]]
    assert "fusion(" not in cubic["modules"][fusion["before"]]


def test_the_real_dump_is_complete_and_its_counts_add_up(cubic):
    assert cubic["exhaustive"] is True
    assert cubic["notices"] == []
    records = cubic["passes"]
    counts = cubic["counts"]
    assert counts["passes"] == len(records) > 20
    assert counts["changed"] + counts["unchanged"] == counts["passes"]
    assert counts["changed"] == sum(r["changed"] for r in records) >= 1
    assert counts["pipelines"] == len({r["pipeline"] for r in records})
    assert [r["index"] for r in records] == list(range(len(records)))
    assert len(cubic["module_lines"]) == len(cubic["modules"])
    assert cubic["dump_bytes"] > 0 and cubic["compile_s"] > 0


def test_every_unchanged_pass_reads_and_writes_one_module(cubic):
    for record in cubic["passes"]:
        assert (record["before"] == record["after"]) is (not record["changed"]), record
        assert 0 <= record["before"] < len(cubic["modules"]) and 0 <= record["after"] < len(cubic["modules"])


def test_the_module_lines_tie_the_fused_instructions_to_the_return_line(cubic):
    last = cubic["passes"][-1]
    text, lines = cubic["modules"][last["after"]], cubic["module_lines"][last["after"]]
    multiply = [number for number, line in zip(lines, text.splitlines(), strict=True) if " multiply(" in line]
    assert multiply and set(multiply) == {2}


def test_the_dump_folder_is_removed_once_read(cubic, scratch):
    assert not [name for name in os.listdir(scratch) if name.startswith("xla-dump-")]


def test_a_large_program_records_only_the_key_passes_with_a_notice(cubic, scratch, monkeypatch):
    monkeypatch.setattr(pass_pipeline, "PASSES_PER_MODULE", 10**12)
    reply = pass_pipeline.passes(CUBIC, BIG, 200_000, BUDGET)
    assert reply["ok"] is True, reply
    assert reply["exhaustive"] is False
    assert any("only the passes a learner meets first" in n for n in reply["notices"])
    names = {p["name"] for p in reply["passes"]}
    assert "fusion" in names
    assert len(reply["passes"]) < len(cubic["passes"])


def test_a_dump_budget_too_small_for_every_pass_is_not_called_exhaustive(scratch, monkeypatch):
    """Every pass is dumped (the size estimate lets it), but the reading stops at the byte budget: most passes are
    left out, so the list is not every pass."""
    monkeypatch.setattr(pass_pipeline, "PASSES_PER_MODULE", 1)
    reply = pass_pipeline.passes(CUBIC, BIG, 200_000, 20_000)
    assert reply["ok"] is True, reply
    assert reply["dump_bytes"] <= 20_000
    assert reply["exhaustive"] is False, (reply["counts"], reply["notices"])


def test_a_capped_dump_says_so(scratch, monkeypatch):
    monkeypatch.setattr(pass_pipeline, "MAX_PASSES", 10)
    reply = pass_pipeline.passes(CUBIC, BIG, 200_000, BUDGET)
    assert reply["exhaustive"] is False
    assert len(reply["passes"]) <= 10
    assert any("cap of 10 passes" in n for n in reply["notices"])


def test_max_module_chars_leaves_later_modules_without_text_and_says_so(scratch, monkeypatch):
    monkeypatch.setattr(pass_pipeline, "MAX_MODULE_CHARS", 1)
    reply = pass_pipeline.passes(CUBIC, BIG, 200_000, BUDGET)
    assert reply["modules"] == []
    assert all(p["before"] is None and p["after"] is None for p in reply["passes"])
    assert any("too large to keep them all" in n for n in reply["notices"])


def _dumping_elsewhere(monkeypatch, elsewhere, swap: bool) -> None:
    """XLA dumps into ``elsewhere``, not into the folder the job made; ``swap``: that folder is moved there and an
    empty one put in its place (as a thread of the user's code can do while XLA writes)."""
    real = xla_dump.options

    def options(folder, pattern=xla_dump.EVERY_PASS):
        if swap:
            os.rename(folder, elsewhere)
            os.mkdir(folder)
        return real(str(elsewhere), pattern)

    monkeypatch.setattr(xla_dump, "options", options)


def test_a_dump_folder_left_empty_is_a_full_scratch_folder(scratch, tmp_path, monkeypatch):
    _dumping_elsewhere(monkeypatch, tmp_path / "elsewhere", swap=False)
    reply = pass_pipeline.passes(CUBIC, BIG, 200_000, BUDGET)
    assert reply["ok"] is False and reply["error"]["kind"] == "disk", reply
    assert "scratch folder is full" in reply["error"]["message"]


def test_a_dump_folder_swapped_for_an_empty_one_is_the_users_doing_not_a_full_disk(scratch, tmp_path, monkeypatch):
    """Where something moves the folder away after XLA's pass files (a hostile test's watcher on a loaded host),
    XLA makes a missing dump folder again for the files it writes last (after_optimizations, .ll, .o), so one
    stands there without a pass file: the reply must not blame a full scratch folder (kind disk)."""
    _dumping_elsewhere(monkeypatch, tmp_path / "moved", swap=True)
    reply = pass_pipeline.passes(CUBIC, BIG, 200_000, BUDGET)
    assert reply["ok"] is False and reply["error"]["kind"] == "user_exception", reply
    assert "was replaced while XLA wrote it" in reply["error"]["message"]
    assert os.listdir(tmp_path / "moved")  # XLA did write its passes, into the folder moved away
    assert not [name for name in os.listdir(scratch) if name.startswith("xla-dump-")]


@pytest.mark.parametrize(("code", "args", "kind"), [
    ("def f(x:\n    return x\n", "1.0", "syntax"),
    (CUBIC, "jnp.ones((2,)", "invalid_input"),  # the arguments' syntax
    ("def f(x):\n    return x\n", "(1.0, 2.0)", "invalid_input"),
])
def test_a_user_error_is_an_error_dict(scratch, code, args, kind):
    reply = pass_pipeline.passes(code, args, 200_000, BUDGET)
    assert reply["ok"] is False
    assert reply["error"]["kind"] == kind
    assert not [name for name in os.listdir(scratch) if name.startswith("xla-dump-")]


def test_an_error_raised_by_the_function_is_the_users(scratch):
    reply = pass_pipeline.passes("def f(x):\n    raise ValueError('no')\n", "1.0", 200_000, BUDGET)
    assert reply["ok"] is False
    assert reply["error"]["kind"] != "internal"
    assert reply["error"]["line"] == 2


def test_the_job_gives_the_dump_a_quarter_of_the_scratch_folder(scratch, monkeypatch):
    seen = {}

    def fake(code, args, max_chars, budget, static_argnums=(), device=None, **_):
        seen.update(max_chars=max_chars, budget=budget, static_argnums=static_argnums, device=device)
        return {"ok": True}

    monkeypatch.setattr(pass_pipeline, "passes", fake)
    device = local_device()
    pass_pipeline.passes_job(Limits(scratch_mb=256, file_size_mb=64, output_chars=1234), CUBIC, "1.0", [0], False,
                             device)
    assert seen == {"max_chars": 1234, "budget": 64 << 20, "static_argnums": (0,), "device": None}
    pass_pipeline.passes_job(Limits(scratch_mb=100, file_size_mb=64), CUBIC, "1.0", [], False, device)
    assert seen["budget"] == 25 << 20
    pass_pipeline.passes_job(Limits(scratch_mb=400, file_size_mb=16), CUBIC, "1.0", [], True, device)
    assert seen["budget"] == 16 << 20 and seen["device"] is device  # "on the accelerator": the owner compiles


# -- on the device: the owner compiles and dumps, and sends each distinct module text once -------------------------


@pytest.fixture(scope="module")
def on_device(tmp_path_factory) -> tuple[dict, list[dict], str]:
    owners_scratch = str(tmp_path_factory.mktemp("owners-scratch"))
    device, requests = recording_device(scratch=owners_scratch)
    return pass_pipeline.passes(CUBIC, BIG, 200_000, BUDGET, device=device), requests, owners_scratch


def test_on_the_device_the_passes_are_those_of_a_compile_here(on_device, cubic):
    reply, _, _ = on_device
    assert reply["ok"] is True, reply
    assert reply["device"] == "cpu" and reply["function"] == "f" and reply["exhaustive"] is True
    # The owner's CPU runs this CPU's pipeline (on the exported program, whose wrapper call the call-inliner inlines).
    names = [(p["pipeline"], p["name"]) for p in reply["passes"]]
    assert names == [(p["pipeline"], p["name"]) for p in cubic["passes"]]
    fusion = next(p for p in reply["passes"] if p["name"] == "fusion")
    assert "fusion(" in reply["modules"][fusion["after"]] and "fusion(" not in reply["modules"][fusion["before"]]
    assert reply["counts"]["passes"] == len(reply["passes"]) > 20 and reply["dump_bytes"] > 0
    assert reply["compile_s"] > 0 and reply["notices"] == []


def test_on_the_device_each_distinct_module_text_travels_once(on_device):
    reply, requests, _ = on_device
    [compile_request] = [r for r in requests if r["op"] == "compile"]
    assert compile_request["dump"] == "passes" and compile_request["hlo"] is False  # the dump, not the HLO again
    assert len(reply["modules"]) == len(set(reply["modules"]))


def test_on_the_device_the_owners_dump_folder_is_removed_once_read(on_device):
    _, _, owners_scratch = on_device
    assert os.listdir(owners_scratch) == []


def test_on_the_device_a_large_program_has_the_owner_dump_only_the_key_passes(on_device, monkeypatch):
    monkeypatch.setattr(pass_pipeline, "PASSES_PER_MODULE", 10**12)
    device, requests = recording_device()
    reply = pass_pipeline.passes(CUBIC, BIG, 200_000, BUDGET, device=device)
    assert reply["ok"] is True and reply["exhaustive"] is False, reply
    assert [r["dump"] for r in requests if r["op"] == "compile"] == ["key_passes"]
    assert any("only the passes a learner meets first" in n for n in reply["notices"])
    assert "fusion" in {p["name"] for p in reply["passes"]} and len(reply["passes"]) < len(on_device[0]["passes"])


def test_on_the_device_a_user_error_is_an_error_dict_before_anything_is_sent():
    device, requests = recording_device()
    reply = pass_pipeline.passes("def f(x):\n    raise ValueError('no')\n", "1.0", 200_000, BUDGET, device=device)
    assert reply["ok"] is False and reply["error"]["kind"] == "user_exception" and reply["error"]["line"] == 2
    assert requests == []


def test_on_the_device_shape_dtype_struct_arguments_are_compiled_with_their_passes():
    reply = pass_pipeline.passes(CUBIC, "jax.ShapeDtypeStruct((1000, 1000), jnp.float32)", 200_000, BUDGET,
                                 device=local_device())
    assert reply["ok"] is True and any(p["name"] == "fusion" for p in reply["passes"]), reply

