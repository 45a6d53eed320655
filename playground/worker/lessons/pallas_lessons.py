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
from collections.abc import Callable

from playground.messages import piece
from playground.worker.lessons.lesson_kit import Clue, taught

_DOCS = "https://docs.jax.dev/en/latest/pallas/"


def _at_line(key: str) -> Callable[[Clue], list]:
    """The fix of lesson ``key``: its catalogue sentence, about the user's line that failed."""
    return lambda clue: [piece(key, where=clue.where_piece())]


LESSONS = (
    taught(("ValueError", "IndexError"), re.compile(r"Out of bound slice: start=(?P<start>\d+), size=(?P<size>\d+), "
                                                    r"stride=\d+, dim=(?P<dim>\d+)"),
           "pallas_slice", _at_line("lfix.pallas_slice"), _DOCS + "quickstart.html"),
    taught(("ValueError", "TypeError"), re.compile(r"Invalid (?:shape|dtype) for `swap`\. Ref (?:shape|dtype): "
                                                   r"(?P<ref>.+?)\. (?:Expected shape: .+?\. )?Value (?:shape|dtype): "
                                                   r"(?P<value>.+?)\.", re.DOTALL),
           "pallas_write", _at_line("lfix.pallas_write"), _DOCS + "grid_blockspec.html"),
    taught(("UnexpectedTracerError",), re.compile(r"Encountered an unexpected tracer\..*?type Ref", re.DOTALL),
           "pallas_ref_escaped", _at_line("lfix.pallas_ref_escaped"), _DOCS + "quickstart.html"),
    taught(("JaxRuntimeError", "IndexError"), re.compile(r".*?Out-of-bounds block index (?P<block>\([\d, -]*\)) for "
                                                         r"\w+ \"(?P<ref>\w+)\" in iteration (?P<point>\([\d, ]*\))",
                                                         re.DOTALL),
           "pallas_block_outside", _at_line("lfix.pallas_block_outside"), _DOCS + "grid_blockspec.html"),
    taught(("JaxRuntimeError", "RuntimeError"), re.compile(r".*?Revisited block .*? of output (?P<output>\d+) in "
                                                           r"iteration (?P<again>\([\d, ]*\))\. The block was "
                                                           r"previously visited in iterations (?P<first>\([\d, ]*\))",
                                                           re.DOTALL),
           "pallas_revisited", _at_line("lfix.pallas_revisited"), _DOCS + "grid_blockspec.html"),
)
