"""Pure builders for the vmap tab: a /vmap response in, Markdown and a figure out."""

from __future__ import annotations

from playground import plots
from playground.ui import markdown as md
from playground.ui import progress
from playground.ui.inspect_views import error_markdown
from playground.ui.timing_views import times_table

# Verdict labels: a word on a colour (markdown.verdict), read right without an emoji font.
OK, ERROR, BUSY = (md.verdict(kind) for kind in ("ok", "error", "busy"))

RUNNING = BUSY + " Checking a Python loop, vmap and jit(vmap) against each other, then timing them…"


def render(response: dict) -> tuple:
    """(status, jaxpr, batched jaxpr, time chart, times table) for a /vmap response."""
    if not response.get("ok"):
        return error_markdown(response["error"]), "", "", None, ""
    jaxprs = response.get("jaxpr", ""), response.get("batched_jaxpr", "")
    sizes, checked = response["batch_sizes"], response.get("checked_examples") or []
    if not response.get("equal"):
        difference = response.get("max_abs_diff")
        by = f"largest difference {difference:.3g}" if difference is not None else "by values that are not finite"
        at = f" at batch size {sizes[len(checked) - 1]:,}" if 0 < len(checked) <= len(sizes) else ""
        status = (f"{ERROR} The three ways disagree{at} ({by}), so no time is shown: a function batched with vmap must "
                  "compute each example independently.")
        return status, *jaxprs, None, ""
    series = {"Python loop": response["loop_s"], "vmap": response["vmap_s"], "jit(vmap)": response["jit_vmap_s"]}
    chart = plots.timings_figure("Python loop vs vmap vs jit(vmap)", "batch size", sizes, series)
    measured_on = f"\n\nMeasured on **{md.text(response['device'])}**." if response.get("device") else ""
    if note := progress.cache_note(response):
        measured_on += f" {note}"
    return (agreement(response["function"], sizes, checked) + measured_on, *jaxprs, chart,
            times_table("batch size", sizes, series, baseline="Python loop"))


def agreement(function: str, sizes: list[int], checked: list[int]) -> str:
    """What was compared: every example at the sizes the loop finished, the first ones at the others.

    >>> print(agreement("f", [1, 10, 1000], [1, 10, 312]))
    ... # doctest: +NORMALIZE_WHITESPACE
    <span class='pg-verdict pg-verdict-ok'>OK</span> Python loop, vmap and jit(vmap) agree for `f` on every example
    at batch sizes 1 and 10.
    At batch size 1,000 the Python loop stopped at its time limit after 312 examples:
    those were compared and agree, the other 688 were not compared.
    """
    whole = [size for size, done in zip(sizes, checked, strict=False) if done == size]
    cut = [(size, done) for size, done in zip(sizes, checked, strict=False) if done < size]
    name = md.code(function)
    parts = []
    if whole:
        plural = "s" if len(whole) > 1 else ""
        parts.append(f"{OK} Python loop, vmap and jit(vmap) agree for {name} on every example at batch size{plural} "
                     f"{_listed(whole)}.")
    else:
        parts.append(f"{OK} Python loop, vmap and jit(vmap) agree for {name} on every example the loop finished.")
    for size, done in cut:
        parts.append(f"At batch size {size:,} the Python loop stopped at its time limit after {done:,} "
                     f"example{'s' * (done != 1)}: those were compared and agree, the other {size - done:,} were not "
                     "compared.")
    return " ".join(parts)


def _listed(sizes: list[int]) -> str:
    words = [f"{size:,}" for size in sizes]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
