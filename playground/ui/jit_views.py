"""What the jit tab says about a measurement: only what the job checked and measured.

>>> reply = {"sizes": [10, 1000], "checked_sizes": [10, 1000], "numpy_checked_sizes": [10, 1000],
...          "numpy_unavailable": None, "numpy_s": [1e-6, 8e-3], "eager_s": [3e-5, 9e-3], "jit_s": [6e-6, 1e-3],
...          "jaxpr_ops": 5, "fused_kernels": 1}
>>> print(agreement_line(reply))
Eager JAX and jit agree at every size measured (n = 10, 1000); NumPy agrees at each too.
>>> print(why_markdown(reply))  # doctest: +ELLIPSIS
**Why jit is faster than eager JAX** (9× at n = 1000): the jaxpr has **5** operations; ...
<BLANKLINE>
**Where jit loses:** slower than NumPy at n = 10 (0.17×). At n = 10 a jitted call costs little ...
"""

from __future__ import annotations

from playground.ui import markdown as md
from playground.ui.timing_views import seconds

DISPATCH_BOUND = 3  # a call taking up to this many times jit's smallest-size time is mostly fixed cost


def _sizes(sizes: list[int]) -> str:
    return ", ".join(map(str, sizes))


def agreement_line(reply: dict) -> str:
    """Which engines were compared, at which sizes: never more than the job checked."""
    checked, sizes = reply["checked_sizes"], reply["sizes"]
    where = f"every size measured (n = {_sizes(checked)})" if checked == sizes else f"n = {_sizes(checked)}"
    line = f"Eager JAX and jit agree at {where}"
    numpy_checked = reply.get("numpy_checked_sizes", [])
    reason = reply.get("numpy_unavailable")
    if numpy_checked and numpy_checked == checked:
        return line + "; NumPy agrees at each too."
    if numpy_checked:
        return line + f"; NumPy agrees at n = {_sizes(numpy_checked)}, and was left out after: {md.text(reason or '')}"
    return line + f". No NumPy column: {md.text(reason or 'it was not compared')}"


def why_markdown(reply: dict) -> str:
    """Why jit wins where it wins, and says so where it loses (against NumPy or eager JAX), from the numbers."""
    sizes, jit = reply["sizes"], reply["jit_s"]
    parts = []
    versus_eager = _ratios(reply["eager_s"], jit)
    wins = [(n, r) for n, r in zip(sizes, versus_eager, strict=True) if r is not None and r > 1]
    if wins:
        n, ratio = wins[-1]
        parts.append(
            f"**Why jit is faster than eager JAX** ({ratio:.2g}× at n = {n}): the jaxpr has **{reply['jaxpr_ops']}** "
            "operations; eager JAX runs each as its own kernel, writing a whole array to memory every time. After "
            f"`jit`, XLA fuses them into **{reply['fused_kernels']}** kernel(s) that read the input once and write "
            "the output once.")
    losses = [("NumPy", n, r) for n, r in zip(sizes, _ratios(reply["numpy_s"], jit), strict=True)
              if r is not None and r < 1]
    losses += [("eager JAX", n, r) for n, r in zip(sizes, versus_eager, strict=True) if r is not None and r < 1]
    if losses:
        listed = "; ".join(f"slower than {who} at n = {n} ({r:.2g}×)" for who, n, r in losses)
        smallest = min(range(len(sizes)), key=lambda i: sizes[i])
        fixed = jit[smallest]  # jit's time where there is almost nothing to compute: its cost per call
        overhead = [n for _, n, _ in losses if jit[sizes.index(n)] <= DISPATCH_BOUND * fixed]
        compute = [n for _, n, _ in losses if n not in overhead]
        words = [f"**Where jit loses:** {listed}."]
        if overhead:
            words.append(
                f"At n = {_sizes(sorted(set(overhead)))} a jitted call costs little more than its fixed cost "
                f"(about {seconds(fixed)} per call here, measured at n = {sizes[smallest]}): JAX checks the "
                "arguments, finds the compiled program and dispatches it to the device, whatever the size. A "
                "kernel this small cannot amortise that; NumPy calls its loop directly.")
        if compute:
            words.append(
                f"At n = {_sizes(sorted(set(compute)))} the time is well above that fixed cost, so it is not "
                "dispatch: the compiled kernel itself ran slower than NumPy's loops at this size, on this device.")
        parts.append(" ".join(words))
    if not parts:
        parts.append("No size was measured for all engines, so there is nothing to compare.")
    return "\n\n".join(parts)


def _ratios(baseline: list, jit: list) -> list:
    """baseline / jit per size (above 1: jit is faster), None where either was not measured."""
    return [b / j if b and j else None for b, j in zip(baseline, jit, strict=True)]
