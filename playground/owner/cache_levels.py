"""The CPU's data caches as the system describes them, smallest first: a roof of the roofline for each.

Linux lists each cache of a CPU under ``/sys/devices/system/cpu/cpu0/cache/index*`` with its ``level``, ``type``
(Data, Instruction, Unified) and ``size`` ("48K"); the instruction caches hold no array, so they are left out.
Where the system says nothing (another OS, a container without sysfs), there are no levels but memory.

>>> import pathlib, tempfile
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> for index, (level, kind, size) in enumerate([(1, "Data", "48K"), (1, "Instruction", "32K"),
...                                              (2, "Unified", "2048K"), (3, "Unified", "32M")]):
...     folder = root / f"index{index}"
...     folder.mkdir()
...     for name, value in (("level", level), ("type", kind), ("size", size)):
...         _ = (folder / name).write_text(f"{value}\\n")
>>> cache_levels(root)
[{'name': 'L1', 'cache_bytes': 49152}, {'name': 'L2', 'cache_bytes': 2097152}, {'name': 'L3', 'cache_bytes': 33554432}]
"""

from __future__ import annotations

import re
from pathlib import Path

CACHE_FOLDER = Path("/sys/devices/system/cpu/cpu0/cache")
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
_SIZE = re.compile(r"(\d+)([KMGkmg]?)")


def cache_levels(folder: Path = CACHE_FOLDER) -> list[dict]:
    """Each level's data (or unified) cache, ``{"name": "L1", "cache_bytes": 49152}``, smallest first; a level
    listed twice (one cache per core) once."""
    found: dict[int, int] = {}
    for index in sorted(Path(folder).glob("index*")):
        try:
            kind = (index / "type").read_text().strip()
            level = int((index / "level").read_text())
            size = _bytes((index / "size").read_text().strip())
        except (OSError, ValueError):
            continue  # a cache the system describes only in part says nothing we can stream into
        if kind != "Instruction" and size:
            found[level] = max(size, found.get(level, 0))
    return [{"name": f"L{level}", "cache_bytes": size} for level, size in sorted(found.items())]


def _bytes(size: str) -> int:
    """ "48K" -> 49152: sysfs's sizes, in binary units; ValueError for anything else."""
    found = _SIZE.fullmatch(size)
    if found is None:
        raise ValueError(f"not a cache size: {size[:20]!r}")
    return int(found.group(1)) * _UNITS[found.group(2).upper()]
