"""playground.server.compiler.text_diff: unified diffs and side-by-side rows, checked against difflib and by hand."""

from __future__ import annotations

import difflib

from playground.server.compiler import text_diff
from playground.server.compiler.text_diff import without_frame_ids


def unified(before: str, after: str, before_label: str, after_label: str, context: int = 3) -> str:
    return text_diff.compare(before, after, before_label, after_label, context).unified


def side_by_side(before: str, after: str) -> list:
    return text_diff.compare(before, after, "", "").rows


def test_the_same_texts_give_an_empty_diff():
    assert unified("a\nb\n", "a\nb\n", "A", "B") == ""
    assert unified("", "", "A", "B") == ""


def test_unified_labels_both_sides_and_marks_each_changed_line():
    diff = unified("a\nb\nc", "a\nB\nc\nd", "A: as written", "B: fusion off")
    assert diff.splitlines() == ["--- A: as written", "+++ B: fusion off", "@@ -1,3 +1,4 @@", " a", "-b", "+B", " c",
                                 "+d"]


def test_unified_is_difflibs_with_the_context_asked_for():
    before = "\n".join(f"line {i}" for i in range(30))
    after = before.replace("line 15", "LINE 15")
    for context in (0, 1, 3):
        expected = "\n".join(difflib.unified_diff(before.splitlines(), after.splitlines(), "a", "b", n=context,
                                                  lineterm=""))
        assert unified(before, after, "a", "b", context) == expected
    assert len(unified(before, after, "a", "b", 0).splitlines()) == 5
    assert len(unified(before, after, "a", "b", 3).splitlines()) == 11


def test_long_texts_are_compared_on_their_first_lines_and_say_so(monkeypatch):
    monkeypatch.setattr(text_diff, "MAX_LINES", 5)
    before = "\n".join(str(i) for i in range(10))
    after = before.replace("2", "two").replace("8", "eight")
    diff = unified(before, after, "a", "b")
    assert "-2" in diff and "+two" in diff
    assert "eight" not in diff  # past the first five lines
    assert diff.endswith("… (only the first 5 lines of each were compared)")


def test_texts_of_exactly_max_lines_lines_are_compared_whole_without_a_notice(monkeypatch):
    monkeypatch.setattr(text_diff, "MAX_LINES", 3)
    assert unified("a\nb\nc", "a\nB\nc", "a", "b").splitlines()[-1] == " c"
    assert unified("a\nb\nc\n", "a\nB\nc\n", "a", "b").splitlines()[-1] == " c"  # a final newline is no line


def test_long_texts_that_differ_only_past_the_cap_give_no_diff(monkeypatch):
    monkeypatch.setattr(text_diff, "MAX_LINES", 3)
    assert unified("a\nb\nc\nd\ne", "a\nb\nc\nd\nE", "a", "b") == ""


def test_side_by_side_rows_for_each_kind():
    rows = side_by_side("keep\nold\ngone\nend", "keep\nnew\nend\nadded")
    assert rows == [("same", "keep", "keep"), ("changed", "old", "new"), ("changed", "gone", None),
                    ("same", "end", "end"), ("added", None, "added")]


def test_side_by_side_removed_and_added_lines():
    assert side_by_side("a\nb\nc", "a\nc") == [("same", "a", "a"), ("removed", "b", None), ("same", "c", "c")]
    assert side_by_side("a\nc", "a\nb\nc") == [("same", "a", "a"), ("added", None, "b"), ("same", "c", "c")]
    assert side_by_side("", "x") == [("added", None, "x")]
    assert side_by_side("x", "") == [("removed", "x", None)]


def test_side_by_side_keeps_every_line_of_both_texts_in_order():
    before = "\n".join(f"{i % 7}" for i in range(50))
    after = "\n".join(f"{i % 5}" for i in range(45))
    rows = side_by_side(before, after)
    assert [left for _, left, _ in rows if left is not None] == before.splitlines()
    assert [right for _, _, right in rows if right is not None] == after.splitlines()
    assert all(left == right for kind, left, right in rows if kind == "same")


def test_side_by_side_of_long_texts_stops_at_max_lines(monkeypatch):
    monkeypatch.setattr(text_diff, "MAX_LINES", 4)
    rows = side_by_side("\n".join("abcdefgh"), "\n".join("abcdefgh"))
    assert rows == [("same", c, c) for c in "abcd"]


def test_without_frame_ids_removes_only_the_frame_numbers():
    hlo = ('%add = f32[] add(%a, %b), metadata={op_name="jit(f)/add" stack_frame_id=12}\n'
           '%mul = f32[] multiply(%a, %b), metadata={op_name="jit(f)/mul" source_line=3 stack_frame_id=7}')
    assert without_frame_ids(hlo) == ('%add = f32[] add(%a, %b), metadata={op_name="jit(f)/add"}\n'
                                      '%mul = f32[] multiply(%a, %b), metadata={op_name="jit(f)/mul" source_line=3}')
    assert without_frame_ids("no frames here") == "no frames here"
