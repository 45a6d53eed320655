"""Numbers as each language writes them (playground/messages/numbers.py), and no view of the page writing one the
English way behind the language's back."""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

from playground import messages
from playground.messages import numbers

SERVER = pathlib.Path(messages.__file__).parents[1] / "server"
# Every module that writes what the page shows: the tabs and their views, the figures, the sentences of the
# Speed of light tab and the training service's.
VIEW_MODULES = sorted({*SERVER.glob("ui/*.py"), *SERVER.glob("*plots.py"), SERVER / "roofline.py",
                       *SERVER.glob("training/*.py")})
# A format specification that writes a number the English way: grouping (","), a precision or a number's type.
ENGLISH_NUMBER = re.compile(r"[,_]|\.\d|[eEfFgGn%]$")
PERCENT_FORMAT = re.compile(r"%[-+ #0]*\d*(\.\d+)?[dfgeGE]")


@pytest.mark.parametrize(("language", "written"), [
    ("en", ["3,000", "0.41", "9.01 µs", "5,537", "0.0123", "1.23e-04", "51,426.5"]),
    ("de", ["3.000", "0,41", "9,01 µs", "5.537", "0,0123", "1,23e-04", "51.426,5"]),
    ("zh", ["3,000", "0.41", "9.01 µs", "5,537", "0.0123", "1.23e-04", "51,426.5"]),
])
def test_each_language_writes_its_thousands_and_its_decimal_sign(language, written):
    assert [numbers.number(3000, language), numbers.figures(0.41, language), numbers.duration(9.01e-6, language),
            numbers.speedup(5537.2, language), numbers.figures(0.0123, language),
            numbers.scientific(1.23e-4, language), numbers.number(51426.5, language, 1)] == written


@pytest.mark.parametrize(("seconds", "written"), [
    (None, "—"), (2.5, "2.5 s"), (0.0123, "12.3 ms"), (4.56e-5, "45.6 µs"), (7e-9, "7 ns"), (1234.5, "1,234 s"),
])
def test_a_duration_picks_its_unit_and_keeps_three_figures(seconds, written):
    assert numbers.duration(seconds) == written


@pytest.mark.parametrize(("value", "written"), [
    (1612.3, "1,612"), (163.4, "163"), (16.34, "16"), (4.0, "4"), (1.634, "1.6"), (0.1734, "0.17"), (0.046, "0.046"),
])
def test_a_speedup_never_has_an_exponent_and_keeps_two_figures_below_ten(value, written):
    assert numbers.speedup(value) == written


@pytest.mark.parametrize(("value", "written"), [
    (0.0, "0"), (2.4e-6, "2,4e-06"), (4.2e-5, "4,2e-05"), (0.00012, "0,00012"), (12345.6, "12.346"),
    (999.96, "1.000"), (2e15, "2e+15"), (float("inf"), "inf"),
])
def test_figures_use_an_exponent_only_far_from_one(value, written):
    assert numbers.figures(value, "de") == written


def test_plotly_gets_the_languages_decimal_sign_then_its_thousands_separator():
    assert [numbers.plotly_separators(language) for language in messages.LANGUAGES] == [".,", ",.", ".,"]


def test_a_messages_float_parameter_is_written_in_the_readers_language():
    assert messages.render([messages.piece("train.stopped_time_limit", limit=1800.0)], "de") \
        == "Am Zeitlimit von 1.800 s pro Lauf beendet"
    assert messages.say("vmap.by_difference", "de", difference=0.5) == "größte Abweichung 0,5"


def english_numbers(source: str) -> list[tuple[int, str]]:
    """Where ``source`` writes a number with Python's own formatting, which only knows English: an f-string's or
    format()'s specification that groups, rounds or picks a number's type, and printf-style %-formatting."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            spec = "".join(part.value for part in node.format_spec.values if isinstance(part, ast.Constant))
            if ENGLISH_NUMBER.search(spec):
                found.append((node.lineno, spec))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "format":
            found.append((node.lineno, "format()"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
                and isinstance(node.func.value, ast.Constant) and re.search(r"\{[^}]*:[^}]*\}", node.func.value.value):
            found.append((node.lineno, "str.format"))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) \
                and isinstance(node.left.value, str) and PERCENT_FORMAT.search(node.left.value):
            found.append((node.lineno, "%"))
    return sorted(found)


def test_the_scan_finds_each_way_python_writes_a_number_the_english_way():
    source = ('a = f"{n:,}"\nb = f"{t:.2f} ms"\nc = f"{r:g}×"\nd = format(v, ".3g")\ne = "{:,}".format(n)\n'
              'f = "%.1f s" % t\ng = f"{i:>3}  {name!r} {text}"\n')
    assert english_numbers(source) == [(1, ","), (2, ".2f"), (3, "g"), (4, "format()"), (5, "str.format"), (6, "%")]


@pytest.mark.parametrize("module", VIEW_MODULES, ids=lambda path: str(path.relative_to(SERVER)))
def test_no_view_writes_a_number_the_english_way(module):
    """Every number the page shows goes through playground/messages/numbers.py: Python's format specifications
    write 3,000 and 0.41 on a German page, where a reader takes 3,0 for three."""
    assert english_numbers(module.read_text()) == []
