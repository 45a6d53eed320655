"""Pure helpers shared by the tabs that time things: parse size lists, tabulate medians and speed-ups."""

from __future__ import annotations

from playground import messages, validation
from playground.messages import numbers


def parse_sizes(text: str, name: str) -> list[int]:
    """'1, 10, 100' -> [1, 10, 100] for argument ``name``; anything else, or nothing, is validation.Refused."""
    sizes = validation.whole_numbers_text(name, text)
    if not sizes:
        raise validation.Refused(validation.invalid("invalid.no_whole_numbers", field=validation.field(name)))
    return sizes


def times_table(size_label: str, sizes: list, series: dict[str, list], baseline: str, language: str = "en") -> str:
    """Median times per size, then each way's speed-up over the baseline (above 1× means faster); ``size_label``
    and the series' names come written in ``language``, which the numbers and the speed-ups' heads follow.

    A time keeps its number and unit on one line (a no-break space): a narrow column wraps between cells'
    words, never between "9.75" and "µs".
    """
    names = list(series)
    others = [n for n in names if n != baseline]
    versus = [messages.say("timing.versus", language, way=n, baseline=baseline) for n in others]
    header = f"| {size_label} | " + " | ".join([*names, *versus]) + " |"
    rule = "|---" * (1 + len(names) + len(others)) + "|"
    rows = []
    for i, size in enumerate(sizes):
        base = series[baseline][i]
        times = " | ".join(numbers.duration(series[n][i], language).replace(" ", "\N{NO-BREAK SPACE}") for n in names)
        ups = " | ".join(
            f"{numbers.speedup(base / series[n][i], language)}×" if base and series[n][i] else "—" for n in others)
        rows.append(f"| {numbers.number(size, language)} | {times} | {ups} |")
    return "\n".join([header, rule, *rows])
