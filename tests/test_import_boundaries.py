"""Which folder may import which, read from the source with ``ast`` (nothing here is imported).

The folders are the processes: playground/server/ runs in the web server (its page, ui/, too; its pools of workers
in pools/, its handle on the device owner in device_owner/), playground/worker/ inside the sandboxed workers,
playground/owner/ in the device owner; what lies beside them (ipc/ and confinement/, which all three share to start,
talk and lock down; errors, messages, schemas, the job registry, the data) is shared.

* No process's folder imports another's (the server never loads JAX or user code's helpers, a worker never the
  server's code, the owner neither), and the shared modules import none of them: a job's handler and finish are
  named in the registry as text, not imported.
* What runs jobs without knowing any (ipc/, confinement/, the server's pools/, the worker's life/) imports no job
  module: of playground only ipc, confinement, errors and messages, and its own folder (the pools also the device
  owner's handle and device_ops, the vocabulary of device requests).
* Gradio is the UI's business: only modules under playground/server/ui/ import it.
* playground/errors.py and playground/messages/, the vocabulary every layer shares, import the standard library
  only (and each other).
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.made_trees import write_tree

# The folders that run jobs without knowing any, and what each may import of playground (and what lies below each).
GENERIC = ("playground.ipc", "playground.confinement", "playground.errors", "playground.messages")
JOB_BLIND = {
    "ipc": GENERIC,
    "confinement": GENERIC,
    "server/pools": (*GENERIC, "playground.server.pools", "playground.server.device_owner", "playground.device_ops"),
    "worker/life": (*GENERIC, "playground.worker.life"),
}


@dataclass(frozen=True)
class Import:
    path: str  # relative to the root, e.g. playground/server/pools/pool.py
    line: int
    module: str  # absolute dotted name of the imported module

    def __str__(self) -> str:
        return f"{self.path}:{self.line} -> {self.module}"


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(root: Path, dotted: str) -> bool:
    base = root.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imports(root: Path, path: Path) -> list[Import]:
    """Every module ``path`` imports, anywhere in it (functions and ``if`` blocks too), as absolute names.

    ``from package import name`` counts as importing ``package.name`` when that is a module
    on disk; relative imports are resolved; so are ``importlib.import_module("...")`` and
    ``__import__("...")`` with a literal name.
    """
    relative = str(path.relative_to(root))
    tree = ast.parse(path.read_text(), relative)
    this = module_name(root, path)
    package = this if path.name == "__init__.py" else this.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(relative, node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append(Import(relative, node.lineno, sub if _is_module(root, sub) else base))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in ("import_module", "__import__"):
                found.append(Import(relative, node.lineno, node.args[0].value))
    return sorted(set(found), key=lambda i: (i.line, i.module))


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def job_imports(root: Path) -> list[Import]:
    """Imports under the job-blind folders of playground modules they must not know."""
    return [
        imp
        for folder, allowed in JOB_BLIND.items()
        for path in python_files(root / "playground" / folder)
        for imp in imports(root, path)
        if _within(imp.module, "playground") and imp.module != "playground"
        and not any(_within(imp.module, name) for name in allowed)
    ]


PROCESSES = ("server", "worker", "owner")
SIDES = {side: tuple(f"playground.{other}" for other in PROCESSES if other != side) for side in PROCESSES}
SHARED_MAY_NOT_IMPORT = tuple(f"playground.{side}" for side in PROCESSES)
ENTRY_POINT = "playground/__main__.py"  # ``python -m playground``: starts the server (server/launch.py)


def crossing_imports(root: Path) -> list[Import]:
    """Imports that cross from one process's folder into another's, or from a shared module into either."""
    found = []
    for path in python_files(root / "playground"):
        relative = path.relative_to(root / "playground")
        side = relative.parts[0] if len(relative.parts) > 1 and relative.parts[0] in SIDES else None
        if relative.as_posix() == ENTRY_POINT.removeprefix("playground/"):
            continue
        forbidden = SIDES[side] if side else SHARED_MAY_NOT_IMPORT
        found += [imp for imp in imports(root, path) if any(_within(imp.module, name) for name in forbidden)]
    return found


def gradio_imports(root: Path) -> list[Import]:
    return [imp for path in python_files(root / "playground") for imp in imports(root, path)
            if _within(imp.module, "gradio")]


def non_stdlib_imports(root: Path, path: Path) -> list[Import]:
    return [imp for imp in imports(root, path) if imp.module.partition(".")[0] not in sys.stdlib_module_names]


def _listing(found: list[Import]) -> str:
    return "".join(f"\n  {imp}" for imp in found)


# -- the rules, on this repository ------------------------------------------------


def test_the_job_blind_folders_import_no_job_module():
    offending = job_imports(ROOT)
    if offending:
        pytest.fail(
            f"{', '.join(f'playground/{folder}/' for folder in JOB_BLIND)} must not import job modules;"
            f" {len(offending)} import(s) break that:{_listing(offending)}", pytrace=False)


def test_no_import_crosses_between_the_processes_folders():
    offending = crossing_imports(ROOT)
    if offending:
        pytest.fail(f"none of server/, worker/ and owner/ may import another, and the shared modules none of "
                    f"them; {len(offending)} import(s) cross:{_listing(offending)}", pytrace=False)
    assert [imp for imp in imports(ROOT, ROOT / ENTRY_POINT) if _within(imp.module, "playground.server")], \
        "the entry point imports no server module: the scan cannot be finding imports"


def test_only_the_ui_imports_gradio():
    found = gradio_imports(ROOT)
    outside = [imp for imp in found if not imp.path.startswith("playground/server/ui/")]
    if outside:
        pytest.fail(f"only playground/server/ui/ may import gradio; {len(outside)} import(s) outside it:"
                    f"{_listing(outside)}", pytrace=False)
    assert found, "no module under playground/server/ui/ imports gradio: the scan cannot be finding imports"


SHARED_VOCABULARY = ("playground.errors", "playground.messages")


@pytest.mark.parametrize("path", [ROOT / "playground" / "errors.py",
                                  *sorted((ROOT / "playground" / "messages").glob("*.py"))],
                         ids=lambda path: path.relative_to(ROOT).as_posix())
def test_the_shared_vocabulary_imports_only_the_standard_library(path):
    assert imports(ROOT, path), f"{path.name} imports nothing: the scan cannot be finding imports"
    others = [imp for imp in non_stdlib_imports(ROOT, path)
              if not any(imp.module == name or imp.module.startswith(name + ".") for name in SHARED_VOCABULARY)]
    if others:
        pytest.fail(f"{path.relative_to(ROOT)} must import the standard library (and errors, messages) only; it also "
                    f"imports:{_listing(others)}", pytrace=False)


# -- the scanner itself, on a made-up tree: it sees every way of importing ---------


@pytest.fixture
def tree(tmp_path) -> Path:
    files = {
        "playground/__init__.py": "",
        "playground/errors.py": "import json\nfrom collections import abc\n",
        "playground/worker/__init__.py": "",
        "playground/worker/inspect.py": "",
        "playground/worker/derivatives.py": "",
        "playground/worker/vmap.py": "def later():\n    from playground.server import api\n    import json\n",
        "playground/owner/main.py": "from playground.server import api\n",
        "playground/server/__init__.py": "",
        "playground/server/api.py": "from playground.worker.inspect import inspect\nfrom playground import jobs\n",
        "playground/jobs.py": "from playground.errors import error_dict\n",
        "playground/ipc/__init__.py": "from playground.ipc.pool import Pool\n",
        "playground/ipc/pool.py": (
            "from __future__ import annotations\n"
            "import os\n"
            "from playground.errors import error_dict\n"
            "from playground import errors\n"
            "from . import limits\n"
            "import numpy\n"
        ),
        "playground/ipc/limits.py": "",
        "playground/ipc/bad.py": (
            "import playground.worker.inspect as st\n"  # line 1
            "from playground import errors, worker\n"  # line 2
            "from ..worker import inspect\n"  # line 3
            "def later():\n"
            "    from playground.worker.derivatives import grad\n"  # line 5
            "    import importlib\n"
            "    importlib.import_module('playground.worker.vmap')\n"  # line 7
            "    import gradio\n"  # line 8
        ),
        "playground/server/ui/__init__.py": "import gradio as gr\n",
    }
    return write_tree(tmp_path, files)


BAD = [
    "playground/ipc/bad.py:1 -> playground.worker.inspect",
    "playground/ipc/bad.py:2 -> playground.worker",
    "playground/ipc/bad.py:3 -> playground.worker.inspect",
    "playground/ipc/bad.py:5 -> playground.worker.derivatives",
    "playground/ipc/bad.py:7 -> playground.worker.vmap",
]


def test_scanner_finds_each_job_import_with_its_line(tree):
    assert [str(imp) for imp in job_imports(tree)] == BAD


def test_scanner_finds_each_import_across_the_processes_folders(tree):
    assert [str(imp) for imp in crossing_imports(tree)] == [
        *BAD,
        "playground/owner/main.py:1 -> playground.server.api",
        "playground/server/api.py:1 -> playground.worker.inspect",
        "playground/worker/vmap.py:2 -> playground.server.api",
    ]


def test_scanner_finds_gradio_outside_the_ui(tree):
    assert [str(imp) for imp in gradio_imports(tree)] == [
        "playground/ipc/bad.py:8 -> gradio",
        "playground/server/ui/__init__.py:1 -> gradio",
    ]


def test_scanner_tells_stdlib_from_the_rest(tree):
    assert non_stdlib_imports(tree, tree / "playground" / "errors.py") == []
    assert [str(imp) for imp in non_stdlib_imports(tree, tree / "playground" / "ipc" / "pool.py")] == [
        "playground/ipc/pool.py:3 -> playground.errors",
        "playground/ipc/pool.py:4 -> playground.errors",
        "playground/ipc/pool.py:5 -> playground.ipc.limits",
        "playground/ipc/pool.py:6 -> numpy",
    ]
