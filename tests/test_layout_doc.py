"""docs/development.md's Layout names every folder and module of playground/, so a newcomer finds each one's room
there; a module added, moved or renamed without a line in it fails here."""

from __future__ import annotations

import re

from tests.conftest import ROOT

# Named there by pattern, not one by one: "<name>_tab.py", "<name>_views.py".
BY_PATTERN = re.compile(r".*_(tab|views)\.py")


def layout_block(text: str) -> str:
    """The code block of the Layout section that lists the folders and modules."""
    start = text.index("Each folder, and what each module does")
    return text[start:text.index("```", text.index("```", start) + 3)]


def unnamed(root, block: str) -> list[str]:
    """Modules and folders under ``root``/playground that ``block`` does not name."""
    named = set(re.findall(r"[\w<>]+\.py", block)) | set(re.findall(r"([\w]+)/", block))
    found = []
    for path in sorted((root / "playground").rglob("*")):
        if "__pycache__" in path.parts:
            continue
        if path.is_dir() and path.name not in named:
            found.append(f"{path.relative_to(root)}/")
        elif path.suffix == ".py" and path.name not in ("__init__.py", "__main__.py") \
                and path.name not in named and not BY_PATTERN.fullmatch(path.name):
            found.append(str(path.relative_to(root)))
    return found


def test_the_layout_names_every_folder_and_module():
    missing = unnamed(ROOT, layout_block((ROOT / "docs" / "development.md").read_text()))
    assert not missing, f"docs/development.md's Layout does not name: {', '.join(missing)}"


def test_a_module_the_layout_does_not_name_is_found(tmp_path):
    (tmp_path / "playground" / "server" / "pools").mkdir(parents=True)
    for name in ("server/api.py", "server/pools/watch.py", "server/ui_tab.py", "server/new_module.py"):
        (tmp_path / "playground" / name).write_text("")
    block = "Each folder, and what each module does:\n```\nserver/\n  api.py\n```\n"
    assert unnamed(tmp_path, block) == ["playground/server/new_module.py", "playground/server/pools/",
                                        "playground/server/pools/watch.py"]
