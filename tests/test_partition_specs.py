"""playground.worker.jobs.partition_specs: specs written as JAX spells them or as tuples, read without running."""

from __future__ import annotations

import pytest
from jax.sharding import PartitionSpec

from playground.errors import UserCodeError
from playground.worker.jobs.partition_specs import Spec, match_specs, parse_specs


def entries_for(text: str, count: int = 1, what: str = "argument", broadcast: bool = False) -> list[tuple]:
    return match_specs(parse_specs(text, "in_specs"), count, "in_specs", what, broadcast)


@pytest.mark.parametrize(("text", "count", "expected"), [
    ("P('data', None)", 1, [("data", None)]),                          # JAX's own spelling, as the demos use it
    ("PartitionSpec('data', None)", 1, [("data", None)]),
    ("jax.sharding.PartitionSpec('data')", 1, [("data",)]),
    ("P()", 1, [()]),                                                  # replicated
    ("P(('data', 'model'), None)", 1, [(("data", "model"), None)]),   # one dimension over two axes
    ("(P('data', None), P(None, 'model'))", 2, [("data", None), (None, "model")]),
    ("(P('data'), (None, 'model'))", 2, [("data",), (None, "model")]),  # the two spellings mixed
    ("[P('data'), P()]", 2, [("data",), ()]),
    ("('data', 'model')", 1, [("data", "model")]),                     # a tuple of entries: one spec
    ("(('data', 'model'),)", 1, [("data", "model")]),                  # a tuple of one spec
    ("(('data', None), (None,))", 2, [("data", None), (None,)]),
    ("((('data', 'model'), None),)", 1, [(("data", "model"), None)]),
    ("('data', [])", 1, [("data", None)]),                             # an empty tuple of axes is None
    ("()", 1, [()]),
    ("()", 0, []),                                                     # no arguments, no specs
])
def test_specs_in_either_spelling(text, count, expected):
    assert entries_for(text, count) == expected


def test_the_entries_are_what_jax_builds_from_the_same_text():
    for text in ("P('data', None)", "P(('data', 'model'), None)", "P()", "P(None, 'model')"):
        (entries,) = entries_for(text)
        assert PartitionSpec(*entries) == eval(text, {"P": PartitionSpec})  # noqa: S307 - our own constant text


@pytest.mark.parametrize(("text", "count", "what", "words"), [
    ("(P('data'), P())", 1, "argument", "in_specs has 2 specs for 1 argument"),
    ("(('data', None), (None,))", 1, "argument", "in_specs has 2 specs for 1 argument"),
    ("P('data')", 2, "argument", "in_specs has 1 spec for 2 arguments"),
    ("('data', None)", 2, "argument", "in_specs has 1 spec for 2 arguments"),
    ("(P('data'), P(), P())", 2, "output", "in_specs has 3 specs for 2 outputs"),
    ("P('data')", 0, "argument", "in_specs has 1 spec for 0 arguments"),
])
def test_a_count_that_does_not_match_says_so(text, count, what, words):
    with pytest.raises(UserCodeError, match="give one spec per") as caught:
        entries_for(text, count, what)
    assert words in str(caught.value)


def test_one_spec_covers_every_output_only_when_broadcast():
    assert entries_for("P('data')", 3, "output", broadcast=True) == [("data",)] * 3
    assert entries_for("(P('data'),)", 2, "output", broadcast=True) == [("data",)] * 2
    assert entries_for("('data', None)", 2, "output", broadcast=True) == [("data", None)] * 2


@pytest.mark.parametrize(("text", "words"), [
    ("", "in_specs is empty"),
    ("   ", "in_specs is empty"),
    ("('data',", "is not Python that reads as specs"),
    ("__import__('os').getcwd()", "`__import__('os').getcwd()` is none of these"),
    ("P('data', unreduced={'x'})", "is none of these"),               # keywords: not a plain spec
    ("P(*axes)", "is none of these"),
    ("Q('data')", "is none of these"),
    ("P('data', 3)", "`3` is none of these"),
    ("P('data') + P()", "is none of these"),
    ("'data'", "with the comma"),
    ("None", "with the comma"),
    ("((((('data',),),),),)", "nested too deeply"),
    ("P(" * 600 + ")" * 600, "in_specs"),                              # deep text: refused, never a crash
])
def test_anything_else_is_refused_in_words(text, words):
    with pytest.raises(UserCodeError) as caught:
        parse_specs(text, "in_specs")
    assert caught.value.kind == "invalid_input" and words in str(caught.value)


def test_entries_that_are_not_axes_are_refused():
    with pytest.raises(UserCodeError, match=r"in_specs for argument 0: each entry is None, an axis name .* P\('x'\)"):
        entries_for("P(P('x'))")
    with pytest.raises(UserCodeError, match="item 1 .* is not a spec"):
        entries_for("(P('data'), 'model')", 2)


def test_parsing_runs_nothing(tmp_path):
    target = tmp_path / "written"
    with pytest.raises(UserCodeError, match="is none of these"):
        parse_specs(f"P(open({str(target)!r}, 'w').name)", "in_specs")
    assert not target.exists() and parse_specs("P('data')", "in_specs") == Spec(("data",))
