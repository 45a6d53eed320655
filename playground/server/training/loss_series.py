"""Every training step's loss, kept in a bounded number of buckets: what the server keeps of a run, and what the
Train tab draws.

A run sends one loss per step (a run of hundreds of epochs: about 100,000);
``LossSeries(limit)`` keeps each step on its own until it holds ``limit``
buckets, then merges neighbours pairwise, so that each bucket stands for 2,
then 4, ... consecutive steps, and keeps their mean, lowest and highest loss.
Memory stays at most ``limit`` buckets whatever the run's length. ::

    >>> series = LossSeries(limit=4)
    >>> series.add(1, [4.0, 3.0, 2.0])
    >>> series.add(4, [1.0, 0.5])          # 5 steps: over the limit, so buckets of 2 steps
    >>> series.width, series.buckets().mean.tolist(), series.buckets().low.tolist()
    (2, [3.5, 1.5, 0.5], [3.0, 1.0, 0.5])

Plain NumPy: the Gradio server process imports it.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Buckets:
    """Non-empty buckets in step order: the first step of each, its number of steps, mean, lowest, highest loss."""

    first_step: np.ndarray
    steps: np.ndarray
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray

    @property
    def middle(self) -> np.ndarray:
        """Where a bucket is drawn: the middle of the steps it holds."""
        return self.first_step + (self.steps - 1) / 2


class LossSeries:
    """Per-step losses (step 1 is the first) in at most ``limit`` buckets of ``width`` consecutive steps each."""

    def __init__(self, limit: int) -> None:
        if limit < 2:
            raise ValueError(f"a loss series needs a limit of at least 2 buckets, got {limit}")
        self.limit = limit
        self.width = 1
        self.next_step = 1  # the step after the last one added: values for steps before it were had already
        self._sums = np.zeros(0)
        self._counts = np.zeros(0, np.int64)
        self._lows = np.zeros(0)
        self._highs = np.zeros(0)

    def __len__(self) -> int:
        """How many steps it has seen."""
        return int(self._counts.sum())

    def add(self, first_step: int, values: Sequence[float]) -> None:
        """The losses of steps ``first_step``, ``first_step + 1``, ...; steps it has already are skipped (an update
        repeated), so each step counts once."""
        values = np.asarray(values, np.float64).reshape(-1)
        skip = max(0, self.next_step - first_step)
        values, first_step = values[skip:], first_step + skip
        if not len(values):
            return
        last_step = first_step + len(values) - 1
        while (last_step - 1) // self.width + 1 > self.limit:
            self._halve()
        index = (np.arange(first_step, last_step + 1) - 1) // self.width
        grow = index[-1] + 1 - len(self._sums)
        if grow > 0:
            self._sums = np.concatenate([self._sums, np.zeros(grow)])
            self._counts = np.concatenate([self._counts, np.zeros(grow, np.int64)])
            self._lows = np.concatenate([self._lows, np.full(grow, np.inf)])
            self._highs = np.concatenate([self._highs, np.full(grow, -np.inf)])
        np.add.at(self._sums, index, values)
        np.add.at(self._counts, index, 1)
        np.minimum.at(self._lows, index, values)
        np.maximum.at(self._highs, index, values)
        self.next_step = last_step + 1

    def _halve(self) -> None:
        """Merge neighbouring buckets pairwise: each then holds twice the steps."""
        pad = len(self._sums) % 2
        pairs = [(self._sums, 0.0), (self._counts, 0), (self._lows, np.inf), (self._highs, -np.inf)]
        self._sums, self._counts, self._lows, self._highs = (
            np.concatenate([array, np.full(pad, fill, array.dtype)]).reshape(-1, 2) for array, fill in pairs)
        self._sums, self._counts = self._sums.sum(1), self._counts.sum(1)
        self._lows, self._highs = self._lows.min(1), self._highs.max(1)
        self.width *= 2

    def buckets(self, limit: int | None = None) -> Buckets:
        """The non-empty buckets, merged further (groups of consecutive ones) to at most ``limit`` where given."""
        group = max(1, math.ceil(len(self._sums) / limit)) if limit else 1
        pad = -len(self._sums) % group
        sums, counts, lows, highs = (np.concatenate([array, np.full(pad, fill, array.dtype)]).reshape(-1, group)
                                     for array, fill in ((self._sums, 0.0), (self._counts, 0),
                                                         (self._lows, np.inf), (self._highs, -np.inf)))
        counts = counts.sum(1)
        seen = counts > 0
        starts = (np.arange(len(counts)) * group * self.width + 1)[seen]
        return Buckets(starts, counts[seen], sums.sum(1)[seen] / counts[seen], lows.min(1)[seen],
                       highs.max(1)[seen])

    def write_csv(self, path: Path) -> None:
        """One row per bucket: ``first_step, steps, mean_loss, min_loss, max_loss`` (one step a row unless the run
        outgrew the limit)."""
        kept = self.buckets()
        with open(path, "w", newline="") as stream:
            writer = csv.writer(stream)
            writer.writerow(("first_step", "steps", "mean_loss", "min_loss", "max_loss"))
            for row in zip(kept.first_step.tolist(), kept.steps.tolist(), kept.mean.tolist(), kept.low.tolist(),
                           kept.high.tolist(), strict=True):
                writer.writerow(row)
