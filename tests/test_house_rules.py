"""The house rules on size: every module of app.py, playground/, benchmarks/ and tools/ is at most 300 lines (the
catalogues of words, playground/messages/*_texts.py, are data and exempt), and every function or method at most 60
lines, from its ``def`` to its last line. A module or function past its limit is split by meaning, not cut."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT
from tests.made_trees import write_tree

MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 60
FOLDERS = ("playground", "benchmarks", "tools")
CATALOGUES = Path("playground", "messages")  # its *_texts.py are words, not code


def python_files(root: Path) -> list[Path]:
    """Every .py file the rules hold for under ``root``, relative to it: app.py, then each folder's, in order."""
    found = [Path("app.py")] if (root / "app.py").is_file() else []
    for folder in FOLDERS:
        found += sorted(path.relative_to(root) for path in (root / folder).rglob("*.py"))
    return found


def is_catalogue(path: Path) -> bool:
    return path.parent == CATALOGUES and path.name.endswith("_texts.py")


def long_modules(root: Path, limit: int = MAX_MODULE_LINES) -> list[str]:
    """``"path: N lines"`` for each module over ``limit`` lines, the catalogues aside."""
    lengths = {path: len((root / path).read_text().splitlines()) for path in python_files(root)
               if not is_catalogue(path)}
    return [f"{path}: {lines} lines" for path, lines in lengths.items() if lines > limit]


def long_functions(root: Path, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """``"path:line name: N lines"`` for each function or method (nested ones too) over ``limit`` lines."""
    found = []
    for path in python_files(root):
        for node in ast.walk(ast.parse((root / path).read_text(), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    found.append(f"{path}:{node.lineno} {node.name}: {lines} lines")
    return found


def test_every_module_is_at_most_300_lines_but_the_catalogues():
    offenders = long_modules(ROOT)
    assert not offenders, f"modules over {MAX_MODULE_LINES} lines (split them by meaning):\n  " + "\n  ".join(offenders)


def test_every_function_is_at_most_60_lines():
    offenders = long_functions(ROOT)
    assert not offenders, (f"functions over {MAX_FUNCTION_LINES} lines (split them by meaning):\n  "
                           + "\n  ".join(offenders))


def test_the_scan_reads_the_whole_project():
    files = python_files(ROOT)
    assert Path("app.py") in files and Path("benchmarks/device_check.py") in files
    assert Path("tools/jax_accelerator.py") in files and Path("playground/server/ui/figures/plots.py") in files
    assert Path("playground/messages/ui_texts.py") in files and not any(path.parts[0] == "tests" for path in files)


def _module(lines: int) -> str:
    return "".join(f"X{i} = {i}\n" for i in range(lines))


def _function(name: str, lines: int, indent: str = "") -> str:
    """A function of ``lines`` lines, its def among them."""
    body = "".join(f"{indent}    x{i} = {i}\n" for i in range(lines - 2))
    return f"{indent}def {name}():\n{body}{indent}    return None\n"


def test_the_scan_names_each_module_over_300_lines_and_leaves_the_catalogues(tmp_path):
    write_tree(tmp_path, {
        "app.py": _module(301),
        "playground/full.py": _module(300),
        "playground/server/long.py": _module(320),
        "benchmarks/long.py": _module(301),
        "tools/long.py": _module(400),
        "playground/messages/words_texts.py": _module(900),
        "playground/messages/numbers.py": _module(301),  # in the catalogues' folder, yet code
        "playground/server/words_texts.py": _module(301),  # a catalogue's name, elsewhere: code
        "tests/long.py": _module(900),
    })
    assert long_modules(tmp_path) == [
        "app.py: 301 lines", "playground/messages/numbers.py: 301 lines", "playground/server/long.py: 320 lines",
        "playground/server/words_texts.py: 301 lines", "benchmarks/long.py: 301 lines", "tools/long.py: 400 lines"]


def test_the_scan_names_each_function_and_method_over_60_lines(tmp_path):
    write_tree(tmp_path, {
        "playground/jobs.py": "import os\n\n\n" + _function("fits", 60) + "\n\n" + _function("long", 61),
        "benchmarks/check.py": "class Check:\n" + _function("method", 75, "    "),
        "tools/nested.py": "async def outer():\n" + _function("inner", 62, "    ").replace("def", "async def"),
        "playground/messages/words_texts.py": _function("words", 61),  # catalogues or not
    })
    assert long_functions(tmp_path) == [
        "playground/jobs.py:66 long: 61 lines", "playground/messages/words_texts.py:1 words: 61 lines",
        "benchmarks/check.py:2 method: 75 lines", "tools/nested.py:1 outer: 63 lines",
        "tools/nested.py:2 inner: 62 lines"]
