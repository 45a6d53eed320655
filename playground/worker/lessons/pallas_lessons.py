"""The lessons for a Pallas kernel's mistakes, as JAX's checks and its TPU interpret mode report them.

JAX checks a kernel's refs as it traces it (a slice past the block, a value of
another shape or dtype stored into a ref), and interpret mode checks each grid
point's blocks as it runs (``Out-of-bounds block index``, and ``Revisited
block`` for an output block written again after others: each raised in a
callback, which JAX passes on inside a runtime error). The job maps the grid
before it runs and does not run a kernel with either (pallas_grid.py); these two
lessons are for grids it cannot map ahead (index maps that read scalar-prefetched
values). A ref kept and read after its kernel is a leaked tracer, whose message
names the ``Ref`` type (tracer_errors.py hands it here)::

    >>> [lesson.key for lesson in LESSONS if lesson.matches(ValueError(
    ...     "Out of bound slice: start=4, size=8, stride=1, dim=8."))]
    ['pallas_slice']
"""

from __future__ import annotations

import re

from playground.messages import piece
from playground.worker.lessons.lesson_kit import Clue, taught

_DOCS = "https://docs.jax.dev/en/latest/pallas/"


def _fix_slice(clue: Clue) -> list:
    return [piece("lfix.pallas_slice", where=clue.where_piece())]


def _fix_write(clue: Clue) -> list:
    return [piece("lfix.pallas_write", where=clue.where_piece())]


def _fix_escaped(clue: Clue) -> list:
    return [piece("lfix.pallas_ref_escaped", where=clue.where_piece())]


def _fix_revisited(clue: Clue) -> list:
    return [piece("lfix.pallas_revisited", where=clue.where_piece())]


def _fix_outside(clue: Clue) -> list:
    return [piece("lfix.pallas_block_outside", where=clue.where_piece())]


LESSONS = (
    taught(("ValueError", "IndexError"), re.compile(r"Out of bound slice: start=(?P<start>\d+), size=(?P<size>\d+), "
                                                    r"stride=\d+, dim=(?P<dim>\d+)"),
           "pallas_slice", _fix_slice, _DOCS + "quickstart.html"),
    taught(("ValueError", "TypeError"), re.compile(r"Invalid (?:shape|dtype) for `swap`\. Ref (?:shape|dtype): "
                                                   r"(?P<ref>.+?)\. (?:Expected shape: .+?\. )?Value (?:shape|dtype): "
                                                   r"(?P<value>.+?)\.", re.DOTALL),
           "pallas_write", _fix_write, _DOCS + "grid_blockspec.html"),
    taught(("UnexpectedTracerError",), re.compile(r"Encountered an unexpected tracer\..*?type Ref", re.DOTALL),
           "pallas_ref_escaped", _fix_escaped, _DOCS + "quickstart.html"),
    taught(("JaxRuntimeError", "IndexError"), re.compile(r".*?Out-of-bounds block index (?P<block>\([\d, -]*\)) for "
                                                         r"\w+ \"(?P<ref>\w+)\" in iteration (?P<point>\([\d, ]*\))",
                                                         re.DOTALL),
           "pallas_block_outside", _fix_outside, _DOCS + "grid_blockspec.html"),
    taught(("JaxRuntimeError", "RuntimeError"), re.compile(r".*?Revisited block .*? of output (?P<output>\d+) in "
                                                           r"iteration (?P<again>\([\d, ]*\))\. The block was "
                                                           r"previously visited in iterations (?P<first>\([\d, ]*\))",
                                                           re.DOTALL),
           "pallas_revisited", _fix_revisited, _DOCS + "grid_blockspec.html"),
)
