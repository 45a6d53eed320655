"""Numbers as the reader's language writes them: every number the page shows goes through here.

German groups thousands with "." and writes the decimal sign as ","; English and Chinese write 3,000 and 0.5.
Python's format specifications (``f"{x:,}"``, ``f"{x:.3g}"``) only know the English way, and so does plotly unless
its layout's ``separators`` says otherwise (``plotly_separators``). Standard library only: the workers import it.

>>> number(3000, "de"), figures(0.0123, "de"), duration(9.01e-6, "de"), speedup(5537.2, "de")
('3.000', '0,0123', '9,01 µs', '5.537')
>>> scientific(0.000123, "de"), plotly_separators("de"), plotly_separators("zh")
('1,23e-04', ',.', '.,')
"""

from __future__ import annotations

import math

_GERMAN = str.maketrans(",.", ".,")
_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


def _written(english: str, language: str) -> str:
    """A number Python wrote the English way, as ``language`` writes it."""
    return english.translate(_GERMAN) if language == "de" else english


def number(value: float, language: str = "en", decimals: int = 0) -> str:
    """``value`` with ``decimals`` places and its thousands grouped, as ``language`` writes numbers (German swaps
    the comma and the point; Chinese writes them as English does).

    >>> number(51426.5, "de", 1), number(51426.5, "en", 1), number(0.3, "de", 4)
    ('51.426,5', '51,426.5', '0,3000')
    """
    return _written(f"{value:,.{decimals}f}", language)


def figures(value: float, language: str = "en", significant: int = 3) -> str:
    """``value`` to ``significant`` figures without trailing zeros, its thousands grouped, its whole part whole
    (12.3, 0.0456, 1,234); with an exponent as Python's ``g`` writes it below 0.0001 and from a quadrillion
    (2.4e-06), never for 160.

    >>> [figures(v) for v in (12.34, 0.045678, 1234.5, 7.0, 0.0)]
    ['12.3', '0.0457', '1,234', '7', '0']
    >>> figures(1234.5, "de"), figures(2.5e-9, "de")
    ('1.234', '2,5e-09')
    """
    if not math.isfinite(value) or value == 0:
        return _written(f"{value:g}", language)
    if not 1e-4 <= abs(value) < 1e15:
        return _written(f"{value:.{significant}g}", language)
    places = max(0, significant - 1 - math.floor(math.log10(abs(value))))
    text = f"{round(value, places):,.{places}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return _written(text, language)


def scientific(value: float, language: str = "en", decimals: int = 2) -> str:
    """An error or a tolerance, whose size is its exponent: 1.23e-04 (1,23e-04 in German).

    >>> scientific(0.000123), scientific(0.000123, "de", 1)
    ('1.23e-04', '1,2e-04')
    """
    return _written(f"{value:.{decimals}e}", language)


def duration(seconds: float | None, language: str = "en") -> str:
    """A time to three figures with its unit: 2.5 s, 12.3 ms, 45.6 µs, 7 ns; "—" for one not measured.

    >>> duration(0.0123), duration(9.01e-6, "de"), duration(None)
    ('12.3 ms', '9,01 µs', '—')
    """
    if seconds is None:
        return "—"
    scale, unit = next(((s, u) for s, u in _UNITS if seconds >= s), _UNITS[-1])
    return f"{figures(seconds / scale, language)} {unit}"


def speedup(value: float, language: str = "en") -> str:
    """A speed-up as people write it, without the ×: 1,612, 163, 16, 4, 1.6, 0.17 (never 1.6e+02).

    >>> [speedup(v) for v in (1612.3, 163.4, 16.34, 4.0, 1.634, 0.1734)]
    ['1,612', '163', '16', '4', '1.6', '0.17']
    >>> speedup(1612.3, "de"), speedup(1.634, "de")
    ('1.612', '1,6')
    """
    return number(value, language) if value >= 10 else figures(value, language, 2)


def plotly_separators(language: str = "en") -> str:
    """A plotly layout's ``separators`` (the decimal sign, then the thousands'), for its ticks and hover texts."""
    return ",." if language == "de" else ".,"
