"""Made-up source trees for the tests of the house's scanners (imports, settings, named files, sizes)."""

from __future__ import annotations

from pathlib import Path


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Each ``path: text`` of ``files`` written under ``root`` (folders made); returns ``root``."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root
