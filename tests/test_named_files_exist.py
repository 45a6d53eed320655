"""Every file a comment, a docstring or a page names is one of ours: a move or a rename leaves no mention behind.

The names come from the comments (tokenize) and docstrings (ast) of the tracked Python files under playground/,
benchmarks/, tools/ and tests/ and of app.py, and from README.md and the pages under docs/: anything that looks
like a file name (``pools/watch.py``, ``deploy.md``, ``requirements.txt``) outside a web address. A name with a
folder in it must be a tracked path from the repository's root or from playground/, or the end of one
(``pools/watch.py`` is playground/server/pools/watch.py); a bare name must be some tracked file's name. The few
names that are other projects' files are in NOT_OURS, each with why.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.made_trees import write_tree

PYTHON_FOLDERS = ("playground/", "benchmarks/", "tools/", "tests/")
# A name starts with a letter, a digit, ``_`` or ``../`` where a word starts: the end of a pattern
# (``<name>_tab.py``, ``test_*.py``, ``"-buffer-assignment.txt"``) and an absolute path are no names of ours.
NAMED = re.compile(r"(?<![\w./*<>{}$-])(?:\.{1,2}/)*(?:\w[\w./-]*)?\w\.(?:py|md|txt|toml|yml|json|sh)\b")
WEB_ADDRESS = re.compile(r"\b[a-z][a-z+.-]*://\S+|\b(?:[\w-]+\.)+(?:com|org|io|dev|net)/\S*")
JAX_DOCS_PAGE = "a page of JAX's documentation, whose examples tests/e2e/docs_corpus.py runs"
# Named, and not files of this repository: each with why.
NOT_OURS = {
    "jax/_src/hardware_utils.py": "JAX's own, which finds a Cloud TPU as tools/jax_accelerator.py does",
    "gradio/i18n.py": "Gradio's own, which writes a translated string's marker",
    "gradio/queueing.py": "Gradio's own queue, whose statistics warn under pandas 3",
    **dict.fromkeys(("../shared/tools/gvisor_like.py", "gvisor_like.py"),
                    "the project's shared tool beside the checkout (../shared/tools), not in this repository"),
    **dict.fromkeys(("automatic-differentiation.md", "control-flow.md", "higher-order.md",
                     "jacobian-vector-products.md", "jit-compilation.md", "key-concepts.md", "pytrees.md",
                     "random-numbers.md", "sharded-computation.md", "stateful-computations.md"), JAX_DOCS_PAGE),
}


def python_texts(source: str) -> list[str]:
    """The comments and the docstrings (module, class, function) of a Python file's ``source``."""
    texts = [token.string for token in tokenize.generate_tokens(io.StringIO(source).readline)
             if token.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring:
                texts.append(docstring)
    return texts


def names_in(text: str) -> set[str]:
    """The file names ``text`` mentions, web addresses left out.

    >>> sorted(names_in("pools/watch.py says so (see https://example.org/a/b.py and github.com/x/y.md); app.py."))
    ['app.py', 'pools/watch.py']
    """
    return {match.group(0) for match in NAMED.finditer(WEB_ADDRESS.sub(" ", text))}


def is_ours(name: str, tracked: set[str]) -> bool:
    """Whether ``name`` is a tracked file: by path (from the root, from playground/, or a path's end), or by its
    own name where it has no folder. Leading ``./`` and ``../`` are dropped first (a page's link upwards)."""
    name = re.sub(r"^(?:\.\.?/)+", "", name)
    if "/" not in name:
        return any(path.rsplit("/", 1)[-1] == name for path in tracked)
    return name in tracked or f"playground/{name}" in tracked or any(path.endswith(f"/{name}") for path in tracked)


def read_files(tracked: set[str]) -> list[str]:
    """The tracked files whose mentions are checked: Python under the code's folders and app.py, the pages."""
    return sorted(path for path in tracked
                  if (path.endswith(".py") and (path.startswith(PYTHON_FOLDERS) or path == "app.py"))
                  or (path.endswith(".md") and (path.startswith("docs/") or path == "README.md")))


def mentions(root: Path, tracked: set[str]) -> dict[str, list[str]]:
    """Each name the checked files under ``root`` mention that is no tracked file, with the files that do."""
    found: dict[str, list[str]] = {}
    for path in read_files(tracked):
        text = (root / path).read_text()
        texts = python_texts(text) if path.endswith(".py") else [text]
        for name in sorted(set().union(*map(names_in, texts))):
            if not is_ours(name, tracked):
                found.setdefault(name, []).append(path)
    return found


def unknown_names(root: Path, tracked: set[str]) -> dict[str, list[str]]:
    """The names ``mentions`` finds, less those NOT_OURS explains."""
    return {name: paths for name, paths in mentions(root, tracked).items() if name not in NOT_OURS}


def tracked_files(root: Path) -> set[str]:
    """The repository's tracked files, from git; a test is skipped outside a git checkout."""
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"not a git checkout with git at hand: {exc}")
    return set(listed.splitlines())


def test_the_finder_finds_each_kind_of_stale_name(tmp_path):
    files = {
        "playground/server/pools/watch.py": '"""Called by pool.py (gone), watched as in pools/watch.py."""\n',
        "playground/server/pools/pool_interface.py": "x = 1  # see server/pools/watch.py and old/place.py\n",
        "tests/test_a.py": 'def test():\n    """Reads https://example.org/gone.py, then notes.md."""\n'
                           '    return "strings.py is no docstring"\n',
        "benchmarks/run.py": "# gradio/queueing.py, as NOT_OURS allows; <name>_tab.py, test_*.py,\n"
                             '# "-buffer-assignment.txt" are patterns; /tmp/made.json is no path of ours\n',
        "docs/page.md": "See [it](../README.md), `pools/gone.md` and `playground/server/pools/watch.py`.\n",
        "README.md": "Start with app.py, then docs/page.md and docs/missing.md.\n",
        "app.py": "",
        "notes/other.py": '"""Not read: outside the folders checked, so nowhere.py is not found."""\n',
    }
    write_tree(tmp_path, files)
    found = unknown_names(tmp_path, set(files))
    assert found == {"pool.py": ["playground/server/pools/watch.py"], "old/place.py": [
        "playground/server/pools/pool_interface.py"], "notes.md": ["tests/test_a.py"],
        "pools/gone.md": ["docs/page.md"], "docs/missing.md": ["README.md"]}


def test_every_file_named_in_the_code_and_the_docs_is_there():
    tracked = tracked_files(ROOT)
    assert {"app.py", "playground/server/pools/watch.py", "docs/development.md"} <= tracked
    found = unknown_names(ROOT, tracked)
    assert not found, "named, but no tracked file (point each at the file it means, or say in NOT_OURS why it " \
                      f"is not ours): {found}"


def test_each_name_not_ours_is_still_named_and_is_no_file_of_ours():
    tracked = tracked_files(ROOT)
    named = mentions(ROOT, tracked)
    assert set(NOT_OURS) <= set(named), f"named nowhere, so not needed: {sorted(set(NOT_OURS) - set(named))}"
