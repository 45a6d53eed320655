"""playground/owner/cache_levels.py and the levels' stream sizes (playground/owner/ceilings.py): the caches read
from a fake sysfs folder, each level streamed at a size that lives in it."""

from __future__ import annotations

from pathlib import Path

from playground.owner.cache_levels import cache_levels
from playground.owner.ceilings import stream_sizes


def sysfs(root: Path, caches: list[tuple[int, str, str]]) -> Path:
    """A cache folder as Linux writes it: index0, index1, ... each with its level, type and size."""
    for index, (level, kind, size) in enumerate(caches):
        folder = root / f"index{index}"
        folder.mkdir()
        for name, value in (("level", level), ("type", kind), ("size", size)):
            (folder / name).write_text(f"{value}\n")
    return root


def test_the_data_caches_are_read_smallest_first_without_the_instruction_cache(tmp_path):
    folder = sysfs(tmp_path, [(2, "Unified", "2048K"), (1, "Data", "48K"), (1, "Instruction", "64K"),
                              (3, "Unified", "491520K")])
    assert cache_levels(folder) == [{"name": "L1", "cache_bytes": 48 << 10}, {"name": "L2", "cache_bytes": 2 << 20},
                                    {"name": "L3", "cache_bytes": 480 << 20}]


def test_a_system_that_says_nothing_or_half_has_no_cache_levels(tmp_path):
    assert cache_levels(tmp_path / "absent") == []
    folder = sysfs(tmp_path, [(1, "Data", "32K"), (2, "Unified", "lots")])
    (folder / "index0" / "size").unlink()
    assert cache_levels(folder) == []


def test_each_level_is_streamed_in_it_past_the_level_below_and_memory_past_the_caches():
    caches = [{"name": "L1", "cache_bytes": 48 << 10}, {"name": "L2", "cache_bytes": 2 << 20},
              {"name": "L3", "cache_bytes": 480 << 20}]
    sizes = stream_sizes("cpu", 4096, caches)
    assert [level["name"] for level, _ in sizes] == ["L1", "L2", "L3", "memory"]
    below = 0
    for level, size in sizes[:-1]:
        assert below < size <= level["cache_bytes"] // 2
        below = level["cache_bytes"]
    memory = sizes[-1][1]
    assert memory == 960 << 20 and memory > caches[-1]["cache_bytes"]
    # Within a quarter of the owner's memory: the owner holds the one array it streams.
    assert stream_sizes("cpu", 2048, caches)[-1][1] == 512 << 20
    assert stream_sizes("cpu", 2048, []) == [({"name": "memory", "cache_bytes": None}, 64 << 20)]
