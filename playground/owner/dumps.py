"""XLA's dumps of a compile in the owner: made into a fresh folder of the owner's scratch, read back, removed.

The Compiler tab's passes (every pass's module) and Speed of light's memory timeline (the buffer assignment and
live ranges) come from these. Read as every dump is read (measure/xla_dump.py: no link followed, plain files,
within caps), then the folder goes.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator

from playground.measure import xla_dump

MAX_PASS_FILES = 1_000  # the passes of a compile: about 150 on the CPU, several hundred on a GPU
MAX_PASS_BYTES = 64 << 20  # the pass files read
MAX_SENT_CHARS = 10_000_000  # their distinct texts sent back (a reply travels in a 16 MB message)
MAX_BUFFER_BYTES = 6 << 20  # one buffer-assignment or live-range text
BUFFER_FILES = ("-buffer-assignment.txt", "-live-range.txt")


@contextlib.contextmanager
def folder(scratch: str) -> Iterator[str]:
    made = xla_dump.new_folder(scratch)
    try:
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)


PATTERNS = {"passes": xla_dump.EVERY_PASS, "key_passes": xla_dump.KEY_PASSES, "buffers": ""}


def options(folder: str, dump: str) -> dict:
    """XLA's options for ``dump``: every pass ("passes"), the passes a learner meets first ("key_passes"), or the
    final module's files alone ("buffers")."""
    return xla_dump.options(folder, PATTERNS[dump])


def read(folder: str, dump: str, module: str) -> dict:
    """What the compile dumped: of the passes, ``{"texts", "snapshots": [[order, pipeline, after, text]],
    "bytes_read", "stopped"}`` (each distinct module text once; ``stopped`` as xla_dump.Dump's, "bytes" too where
    the texts would not fit a reply); of the buffers, ``{"texts", "problem"}`` (the buffer assignment and the live
    ranges, or why they are missing)."""
    if dump != "buffers":
        found = xla_dump.read(folder, MAX_PASS_FILES, MAX_PASS_BYTES)
        texts: list[str] = []
        index: dict[str, int] = {}
        snapshots, sent, stopped = [], 0, found.stopped
        for snapshot in found.snapshots:
            if snapshot.text not in index:
                if sent + len(snapshot.text) > MAX_SENT_CHARS:
                    stopped = "bytes"
                    break
                index[snapshot.text] = len(texts)
                texts.append(snapshot.text)
                sent += len(snapshot.text)
            snapshots.append([snapshot.order, snapshot.pipeline, snapshot.after, index[snapshot.text]])
        return {"texts": texts, "snapshots": snapshots, "bytes_read": found.bytes_read, "stopped": stopped}
    texts = []
    for ending in BUFFER_FILES:
        text, problem = xla_dump.read_ending(folder, module, ending, MAX_BUFFER_BYTES)
        if text is None:
            return {"texts": None, "problem": problem}
        texts.append(text)
    return {"texts": texts, "problem": None}
