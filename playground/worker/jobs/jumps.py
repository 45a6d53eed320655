"""Where f jumps between grid points: found from f and f′ on the grid, then pinned down by bisection. Runs inside a
worker.

Autodiff gives the slope of the piece x lies on, and a finite difference at a
grid point looks only h ≈ 6e-6 to either side: a jump between two grid points
escapes both. The grid does show it, as a change of f that its slope does not
explain. Between neighbours a and b, a smooth f changes by the trapezoid
(b − a)·(f′(a) + f′(b))/2, up to (b − a)³·|f‴|/12; the rest is the interval's
residual. A residual beyond rounding makes the interval a suspect: a jump, or
only a steep stretch (tanh(50x) on a coarse grid), a kink, a vertical tangent
(cbrt at 0). Bisection tells them apart: it keeps the half with the larger
residual, until the interval is about 1e-12 of x wide. Across a continuous f
the change then shrinks with the interval; across a jump it stays as it was,
however narrow the interval:

>>> xs = np.linspace(-3.0, 3.0, 200)  # 0 lies between two grid points
>>> step = lambda x: np.where(x < 0, 0.0, 1.0) + x
>>> found = find(xs, step(xs), np.ones_like(xs), lambda x: (step(x), np.ones_like(x)), np.float64)
>>> [(round(j.x, 9), round(j.size, 9), j.point) for j in found]
[(0.0, 1.0, False)]
>>> steep = lambda x: np.tanh(50 * x)
>>> find(xs, steep(xs), 50 / np.cosh(50 * xs) ** 2, lambda x: (steep(x), 50 / np.cosh(50 * x) ** 2), np.float64)
[]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

# Bisection stops at an interval this share of max(1, |x|) wide: a jump is then a step, not a slope.
RESOLUTION = 1e-12
# A residual is beyond rounding above this many roundings (ε of f's dtype) of the largest |f| on the grid.
ROUNDINGS = 1e4
MAX_STEPS = 64
MAX_ROUNDS = 8  # of bisection, each finding the next jump between the same two grid points
SETTLE_STEPS = 10  # a jump's change across the interval is the same 2¹⁰ times wider; a continuous f's is not

# (points) -> (f, f′) there, as float64 arrays of the same length.
Evaluate = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Jump:
    """f jumps by ``size`` at ``x`` (f(x+) − f(x−)); ``point``: only f(x) itself is off (a removable break), by
    ``size``; ``between``: the grid points around it where no bisection told a jump from a steep stretch (``size``
    is then the interval's residual), None where one did."""

    x: float
    size: float
    point: bool = False
    between: tuple[float, float] | None = None


def residuals(a: np.ndarray, b: np.ndarray, fa: np.ndarray, fb: np.ndarray, sa: np.ndarray,
              sb: np.ndarray) -> np.ndarray:
    """What the slopes at both ends leave unexplained of f's change from a to b (the trapezoid rule's miss)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return (fb - fa) - (b - a) * (sa + sb) / 2


def threshold(fs: np.ndarray, dtype: np.dtype) -> float:
    """The smallest residual that rounding does not explain, for f's values ``fs`` in ``dtype``."""
    finite = np.abs(fs[np.isfinite(fs)])
    scale = float(finite.max()) if finite.size else 0.0
    return ROUNDINGS * float(np.finfo(dtype).eps) * max(scale, float(np.finfo(np.float64).tiny))


def suspects(xs: np.ndarray, fs: np.ndarray, slopes: np.ndarray, limit: float) -> np.ndarray:
    """The indices i of the intervals [xs[i], xs[i + 1]] whose residual is beyond ``limit``, in increasing x.

    An interval with a value that is not finite at either end is left to the checks that count such points.
    """
    r = residuals(xs[:-1], xs[1:], fs[:-1], fs[1:], slopes[:-1], slopes[1:])
    finite = np.isfinite(fs[:-1]) & np.isfinite(fs[1:]) & np.isfinite(slopes[:-1]) & np.isfinite(slopes[1:])
    return np.flatnonzero(finite & (np.abs(np.where(finite, r, 0.0)) > limit))


def bisect(evaluate: Evaluate, a: np.ndarray, b: np.ndarray, fa: np.ndarray, fb: np.ndarray, sa: np.ndarray,
           sb: np.ndarray) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """Each interval [a, b] narrowed to about RESOLUTION·max(1, |x|), keeping the half with the larger residual
    (one that is not finite counts as the largest); all intervals at once, one ``evaluate`` call a step.

    Returns the narrowed (a, b, fa, fb, sa, sb), and f's change across each interval SETTLE_STEPS halvings before
    the end (a jump's change stays as it was; a kink's, a steep stretch's, a vertical tangent's shrinks)."""
    width = float(np.max(b - a))
    finest = RESOLUTION * max(1.0, float(np.max(np.abs(np.concatenate([a, b])))))
    steps = min(MAX_STEPS, max(0, math.ceil(math.log2(width / finest)))) if width > finest else 0
    earlier = fb - fa
    for done in range(steps):
        if done == steps - SETTLE_STEPS:
            earlier = fb - fa
        m = (a + b) / 2
        fm, sm = evaluate(m)
        left = _size(residuals(a, m, fa, fm, sa, sm))
        right = _size(residuals(m, b, fm, fb, sm, sb))
        go_left = left >= right
        a, fa, sa = np.where(go_left, a, m), np.where(go_left, fa, fm), np.where(go_left, sa, sm)
        b, fb, sb = np.where(go_left, m, b), np.where(go_left, fm, fb), np.where(go_left, sm, sb)
    return (a, b, fa, fb, sa, sb), earlier


def find(xs: np.ndarray, fs: np.ndarray, slopes: np.ndarray, evaluate: Evaluate | None, dtype: np.dtype) -> list[Jump]:
    """Every jump of f on the grid ``xs`` (f = ``fs``, f′ = ``slopes`` there), in increasing x.

    ``evaluate`` gives f and f′ anywhere, for bisection; None: no bisection, and a suspect whose residual is a good
    part of its change is reported between its grid points, as a jump or a steep stretch (the grid cannot tell).
    Two jumps at one x make one, their sizes added: where they cancel, only f(x) is off (``point``).
    """
    limit = threshold(fs, dtype)
    found = suspects(xs, fs, slopes, limit)
    if not found.size:
        return []
    a, b = xs[found], xs[found + 1]
    if evaluate is None:
        r = residuals(a, b, fs[found], fs[found + 1], slopes[found], slopes[found + 1])
        keep = np.abs(r) > np.abs(fs[found + 1] - fs[found]) / 4  # a good part of the change, not a grid's miss
        return [Jump(float((lo + hi) / 2), float(size), between=(float(lo), float(hi)))
                for size, lo, hi in zip(r[keep], a[keep], b[keep], strict=True)]
    steps: list[tuple[float, float, float]] = []
    searched = (a, b, fs[found], fs[found + 1], slopes[found], slopes[found + 1])
    for _ in range(MAX_ROUNDS):
        narrowed, earlier = bisect(evaluate, *searched)
        with np.errstate(invalid="ignore", over="ignore"):
            change = narrowed[3] - narrowed[2]
            kept = np.abs(change) > np.maximum(limit, np.abs(earlier) / 2)  # the change did not shrink with x's
        step = ~np.isfinite(change) | kept
        left = residuals(*narrowed)
        size = np.where(np.isfinite(left), left, change)  # the step itself, without what the slopes explain
        lo, hi = narrowed[0][step], narrowed[1][step]
        steps += [(float((x0 + x1) / 2), float(jump), max(float(x1 - x0), float(np.spacing(x1))))
                  for x0, x1, jump in zip(lo, hi, size[step], strict=True)]
        searched = _beside(searched, narrowed, step, limit)
        if not searched[0].size:
            break
    return _merged(sorted(steps), limit)


def _beside(searched: tuple[np.ndarray, ...], narrowed: tuple[np.ndarray, ...], step: np.ndarray,
            limit: float) -> tuple[np.ndarray, ...]:
    """The stretches on either side of each step found, that still hold a residual beyond ``limit``: a second jump
    between the same two grid points (jnp.round on a coarse grid)."""
    a, b, fa, fb, sa, sb = (values[step] for values in searched)
    a1, b1, fa1, fb1, sa1, sb1 = (values[step] for values in narrowed)
    pieces = (np.concatenate(pair) for pair in ((a, b1), (a1, b), (fa, fb1), (fa1, fb), (sa, sb1), (sa1, sb)))
    pa, pb, pfa, pfb, psa, psb = pieces
    r = residuals(pa, pb, pfa, pfb, psa, psb)
    keep = (pb > pa) & np.isfinite(r) & (np.abs(np.where(np.isfinite(r), r, 0.0)) > limit)
    return pa[keep], pb[keep], pfa[keep], pfb[keep], psa[keep], psb[keep]


def _merged(steps: list[tuple[float, float, float]], limit: float) -> list[Jump]:
    """Steps (x, size, width) in increasing x, those at one x (a grid point between two of them) as one jump."""
    jumps: list[Jump] = []
    group: list[tuple[float, float, float]] = []
    for step in steps + [(math.inf, 0.0, 0.0)]:
        if group and step[0] - group[-1][0] > 2 * max(group[-1][2], step[2]):
            total = sum(size for _, size, _ in group)
            x = _rounded(sum(at for at, _, _ in group) / len(group), max(width for _, _, width in group))
            removable = len(group) > 1 and math.isfinite(total) and abs(total) <= limit
            jumps.append(Jump(x, group[0][1] if removable else total, point=removable))
            group = []
        group.append(step)
    return jumps


def _rounded(x: float, width: float) -> float:
    """x to the decimals that the interval's ``width`` leaves it (not 5e-13 for a jump at 0)."""
    return round(x, max(0, -math.floor(math.log10(width)) - 1)) + 0.0  # + 0.0: no −0


def _size(residual: np.ndarray) -> np.ndarray:
    return np.where(np.isfinite(residual), np.abs(residual), np.inf)
