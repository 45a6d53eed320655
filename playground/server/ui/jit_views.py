"""What the jit tab says about a measurement: only what the job checked and measured.

>>> reply = {"sizes": [10, 1000], "checked_sizes": [10, 1000], "numpy_checked_sizes": [10, 1000],
...          "numpy_unavailable": None, "numpy_s": [1e-6, 8e-3], "eager_s": [3e-5, 9e-3], "jit_s": [6e-6, 1e-3],
...          "jaxpr_ops": 5, "fused_kernels": 1}
>>> print(agreement_line(reply))
Eager JAX and jit agree at every size measured (n = 10, 1,000); NumPy agrees at each too.
>>> print(why_markdown(reply))  # doctest: +ELLIPSIS
**Why jit is faster than eager JAX** (9× at n = 1,000): the jaxpr has **5** operations; ...
<BLANKLINE>
**Where jit loses:** slower than NumPy at n = 10 (0.17×). At n = 10 a jitted call costs little ...
"""

from __future__ import annotations

from playground import messages
from playground.messages import numbers
from playground.server.ui import markdown as md

DISPATCH_BOUND = 3  # a call taking up to this many times jit's smallest-size time is mostly fixed cost
# Page faults per call worth a word: 64 fresh 4 KB pages cost about 0.1 ms (about 2 µs each: docs/development.md's
# "jit against a script"), enough to move a small size's ratio.
FRESH_PAGES = 64
# The share of the host's processors other processes may take while the calls are timed before the page says the
# figures are a busy machine's: on 2 cores, a quarter is half a core taken away from a timed call now and then.
BUSY_SHARE = 0.25


def _sizes(sizes: list[int], language: str) -> str:
    return ", ".join(numbers.number(n, language) for n in sizes)


def agreement_line(reply: dict, language: str = "en") -> str:
    """Which engines were compared, at which sizes: never more than the job checked (in ``language``)."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    checked, sizes = reply["checked_sizes"], reply["sizes"]
    where = say("jit.every_size" if checked == sizes else "jit.at_sizes", sizes=_sizes(checked, language))
    line = say("jit.agree", where=where)
    numpy_checked = reply.get("numpy_checked_sizes", [])
    reason = reply.get("numpy_unavailable")
    if numpy_checked and numpy_checked == checked:
        return line + say("jit.numpy_each")
    if numpy_checked:
        return line + say("jit.numpy_some", sizes=_sizes(numpy_checked, language), reason=md.text(reason or ""))
    return line + say("jit.numpy_none", reason=md.text(reason) if reason else say("jit.not_compared"))


def why_markdown(reply: dict, language: str = "en") -> str:
    """Why jit wins where it wins, and says so where it loses (against NumPy or eager JAX), from the numbers."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    sizes, jit = reply["sizes"], reply["jit_s"]
    parts = []
    versus_eager = _ratios(reply["eager_s"], jit)
    wins = [(n, r) for n, r in zip(sizes, versus_eager, strict=True) if r is not None and r > 1]
    if wins:
        n, ratio = wins[-1]
        kernels = reply["fused_kernels"]
        fused = messages.piece("jit.fused_one") if kernels == 1 else messages.piece("jit.fused_many", kernels=kernels)
        parts.append(say("jit.why", ratio=numbers.speedup(ratio, language), n=numbers.number(n, language),
                         ops=numbers.number(reply["jaxpr_ops"], language), fused=fused))
    losses = [("NumPy", n, r) for n, r in zip(sizes, _ratios(reply["numpy_s"], jit), strict=True)
              if r is not None and r < 1]
    losses += [(say("jit.eager"), n, r) for n, r in zip(sizes, versus_eager, strict=True) if r is not None and r < 1]
    if losses:
        listed = "; ".join(say("jit.slower_than", who=who, n=numbers.number(n, language),
                               ratio=numbers.speedup(r, language)) for who, n, r in losses)
        smallest = min(range(len(sizes)), key=lambda i: sizes[i])
        fixed = jit[smallest]  # jit's time where there is almost nothing to compute: its cost per call
        overhead = [n for _, n, _ in losses if jit[sizes.index(n)] <= DISPATCH_BOUND * fixed]
        compute = [n for _, n, _ in losses if n not in overhead]
        words = [say("jit.loses", listed=listed)]
        if overhead:
            words.append(say("jit.overhead", sizes=_sizes(sorted(set(overhead)), language),
                             fixed=numbers.duration(fixed, language),
                             smallest=numbers.number(sizes[smallest], language)))
        if compute:
            words.append(say("jit.compute", sizes=_sizes(sorted(set(compute)), language)))
        parts.append(" ".join(words))
    if not parts:
        parts.append(say("jit.nothing"))
    if faults := faults_line(reply, language):
        parts.append(faults)
    if busy := busy_line(reply, language):
        parts.insert(0, busy)
    return "\n\n".join(parts)


def busy_line(reply: dict, language: str = "en") -> str:
    """'' unless other processes took at least BUSY_SHARE of the host's processors while the calls were timed.

    >>> busy_line({"others_busy": 0.1}), busy_line({"others_busy": None}), busy_line({})
    ('', '', '')
    >>> busy_line({"others_busy": 0.62})[:60]
    '**A busy machine:** other processes kept up to **62 %** of t'
    """
    share = reply.get("others_busy")
    if share is None or share < BUSY_SHARE:
        return ""
    return messages.say("jit.busy", language, share=numbers.number(100 * share, language))


def faults_line(reply: dict, language: str = "en") -> str:
    """'' unless NumPy's or jit's calls took at least FRESH_PAGES page faults each at the largest size both were
    timed at; else both counts, and why a script of the reader's may see other times.

    >>> faults_line({"sizes": [10, 2000], "numpy_s": [1e-6, 7e-3], "jit_s": [1e-6, 1e-3],
    ...              "faults_per_call": {"numpy": [0.0, 626.0], "eager": [0.0, 0.0], "jit": [0.0, 0.0]}})[99:159]
    'At n = 2,000 each NumPy call here took **626** of them, each'
    """
    faults = reply.get("faults_per_call") or {}
    both = [i for i, (a, b) in enumerate(zip(faults.get("numpy", []), faults.get("jit", []), strict=False))
            if a is not None and b is not None and reply["numpy_s"][i] and reply["jit_s"][i]]
    if not both:
        return ""
    i = max(both, key=lambda k: reply["sizes"][k])
    numpy, jit = faults["numpy"][i], faults["jit"][i]
    if max(numpy, jit) < FRESH_PAGES:
        return ""
    return messages.say("jit.faults", language, n=numbers.number(reply["sizes"][i], language),
                        numpy=numbers.number(numpy, language), jit=numbers.number(jit, language))


def _ratios(baseline: list, jit: list) -> list:
    """baseline / jit per size (above 1: jit is faster), None where either was not measured."""
    return [b / j if b and j else None for b, j in zip(baseline, jit, strict=True)]
