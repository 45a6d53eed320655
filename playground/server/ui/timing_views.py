"""Pure helpers shared by the tabs that time things: parse size lists, tabulate medians and speed-ups."""

from __future__ import annotations

from playground import validation


def parse_sizes(text: str, name: str) -> list[int]:
    """'1, 10, 100' -> [1, 10, 100] for argument ``name``; anything else, or nothing, is validation.Refused."""
    sizes = validation.whole_numbers_text(name, text)
    if not sizes:
        raise validation.Refused(validation.invalid("invalid.no_whole_numbers", field=validation.field(name)))
    return sizes


def seconds(value: float | None) -> str:
    if value is None:
        return "—"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value / 1e-9:.3g} ns"


def ratio(value: float) -> str:
    """A speed-up as people write it, without the ×: 160, 1,600, 16, 1.6, 0.17 (never 1.6e+02).

    >>> [ratio(v) for v in (1612.3, 163.4, 16.34, 4.0, 1.634, 0.1734)]
    ['1,612', '163', '16', '4', '1.6', '0.17']
    """
    return f"{value:,.0f}" if value >= 10 else f"{value:.2g}"


def times_table(size_label: str, sizes: list, series: dict[str, list], baseline: str) -> str:
    """Median times per size, then each way's speed-up over the baseline (above 1× means faster).

    A time keeps its number and unit on one line (a no-break space): a narrow column wraps between cells'
    words, never between "9.75" and "µs".
    """
    names = list(series)
    others = [n for n in names if n != baseline]
    header = f"| {size_label} | " + " | ".join(names) + " | " + " | ".join(f"{n} vs {baseline}" for n in others) + " |"
    rule = "|---" * (1 + len(names) + len(others)) + "|"
    rows = []
    for i, size in enumerate(sizes):
        base = series[baseline][i]
        times = " | ".join(seconds(series[n][i]).replace(" ", "\N{NO-BREAK SPACE}") for n in names)
        ups = " | ".join(
            f"{ratio(base / series[n][i])}×" if base and series[n][i] else "—" for n in others)
        rows.append(f"| {size} | {times} | {ups} |")
    return "\n".join([header, rule, *rows])
