"""Pure builders for the vmap tab: a /vmap response in, Markdown and a figure out."""

from __future__ import annotations

from playground import messages
from playground.messages import numbers
from playground.server.ui import markdown as md
from playground.server.ui import progress
from playground.server.ui.error_views import error_markdown
from playground.server.ui.field_labels import LABELS
from playground.server.ui.figures import plots
from playground.server.ui.timing_views import times_table

# Verdict labels: a word on a colour (markdown.verdict), read right without an emoji font.
OK, ERROR, BUSY = (md.verdict(kind) for kind in ("ok", "error", "busy"))

def running(language: str = "en") -> str:
    """The status while the job runs."""
    return f"{md.verdict('busy', language)} {messages.say('vmap.running', language)}"


def render(response: dict, language: str = "en") -> tuple:
    """(status, jaxpr, batched jaxpr, time chart, times table) for a /vmap response; our words in ``language``."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    def number(value: int) -> str:
        return numbers.number(value, language)

    if not response.get("ok"):
        return error_markdown(response["error"], language, labels=LABELS["vmap"]), "", "", None, ""
    jaxprs = response.get("jaxpr", ""), response.get("batched_jaxpr", "")
    sizes, checked = response["batch_sizes"], response.get("checked_examples") or []
    if not response.get("equal"):
        difference = response.get("max_abs_diff")
        by = (say("vmap.by_difference", difference=numbers.figures(difference, language)) if difference is not None
              else say("vmap.by_not_finite"))
        at = say("vmap.disagree_at", size=number(sizes[len(checked) - 1])) if 0 < len(checked) <= len(sizes) else ""
        status = f"{md.verdict('error', language)} {say('vmap.disagree', at=at, by=by)}"
        return status, *jaxprs, None, ""
    loop = say("plot.python_loop")
    series = {loop: response["loop_s"], "vmap": response["vmap_s"], "jit(vmap)": response["jit_vmap_s"]}
    chart = plots.timings_figure(say("plot.vmap"), say("plot.vmap_x"), sizes, series, language)
    measured_on = f"\n\n{say('vmap.measured_on', device=md.text(response['device']))}" if response.get("device") \
        else ""
    for note in progress.source_notes(response, language):
        measured_on += f" {note}"
    status = agreement(response["function"], sizes, checked, language) + measured_on
    if pending := response.get("pending_sizes"):  # an early reply: the table so far, the next size on its way
        every = [number(size) for size in [*sizes, *pending]]
        measuring = say("vmap.measuring", done=messages.listed(every[:len(sizes)], language),
                        all=messages.listed(every, language), next=every[len(sizes)])
        status = f"{md.verdict('busy', language)} {measuring}\n\n{status}"
    return (status, *jaxprs, chart,
            times_table(say("vmap.table_size"), sizes, series, loop, language))


def agreement(function: str, sizes: list[int], checked: list[int], language: str = "en") -> str:
    """What was compared: every example at the sizes the loop finished, the first ones at the others.

    >>> print(agreement("f", [1, 10, 1000], [1, 10, 312]))
    ... # doctest: +NORMALIZE_WHITESPACE
    <span class='pg-verdict pg-verdict-ok'>OK</span> Python loop, vmap and jit(vmap) agree for `f` on every example
    at batch sizes 1 and 10.
    At batch size 1,000 the Python loop stopped at its time limit after 312 examples:
    those were compared and agree, the other 688 were not compared.
    """
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    def number(value: int) -> str:
        return numbers.number(value, language)

    whole = [size for size, done in zip(sizes, checked, strict=False) if done == size]
    cut = [(size, done) for size, done in zip(sizes, checked, strict=False) if done < size]
    name = md.code(function)
    ok = md.verdict("ok", language)
    if whole:
        key = "vmap.agree_many" if len(whole) > 1 else "vmap.agree_one"
        parts = [f"{ok} {say(key, name=name, sizes=messages.listed([number(size) for size in whole], language))}"]
    else:
        parts = [f"{ok} {say('vmap.agree_finished', name=name)}"]
    for size, done in cut:
        parts.append(say("vmap.cut_one" if done == 1 else "vmap.cut_many", size=number(size), done=number(done),
                         rest=number(size - done)))
    return " ".join(parts)
