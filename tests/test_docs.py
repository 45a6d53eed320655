"""The documentation: every setting the code reads is on the Configuration page, every public endpoint on the API
page, README stays a front door, and every relative link of README and docs/ leads to a file (the pages read on any
Git host without building; ``make docs`` builds the site with ``mkdocs build --strict``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from playground.server.answering.endpoints import public_endpoints
from playground.server.config import Settings
from tests.conftest import ROOT

DOCS = ROOT / "docs"
SETTING = re.compile(r"PLAYGROUND_[A-Z0-9_]+|[A-Z_]*MNIST_DIR|GRADIO_SERVER_[A-Z]+")
# Read from an environment, yet no setting: what the device owner searches as the tools it runs would.
NOT_SETTINGS = {
    "PATH": "searched for CUDA's ptxas and nvlink, where XLA looks for them",
    "XLA_FLAGS": "searched for --xla_gpu_cuda_data_dir, where XLA looks for ptxas and nvlink first",
}


def _environment_like(node: ast.AST) -> bool:
    return "env" in ast.unparse(node).lower()


def read_names(tree: ast.AST) -> set[str]:
    """Names read from an environment: env.get / .pop, os.getenv, env["NAME"] and "NAME" in env."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            if isinstance(func, ast.Attribute) and (func.attr == "getenv" or (
                    func.attr in ("get", "pop") and _environment_like(func.value))):
                names.add(node.args[0].value)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) \
                and isinstance(node.slice, ast.Constant) and _environment_like(node.value):
            names.add(node.slice.value)
        elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) \
                and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops) \
                and any(_environment_like(side) for side in node.comparators):
            names.add(node.left.value)
    return {name for name in names if isinstance(name, str) and re.fullmatch(r"[A-Z][A-Z0-9_]+", name)}


def settings_in(tree: ast.AST) -> set[str]:
    """Every setting named anywhere, as text or as the start of an f-string (PLAYGROUND_MIRRORS_<NAME>)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SETTING.fullmatch(node.value):
            names.add(node.value)
        elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant) \
                and SETTING.fullmatch(str(node.values[0].value)):
            names.add(node.values[0].value)
    return names


def environment_variables(root: Path) -> set[str]:
    found = set()
    for path in sorted((root / "playground").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        found |= read_names(tree) | settings_in(tree)
    return found - set(NOT_SETTINGS)


def test_every_environment_variable_the_code_reads_is_on_the_configuration_page():
    found = environment_variables(ROOT)
    assert {"PLAYGROUND_WORKERS", "PLAYGROUND_TIMEOUT_S", "MNIST_DIR", "JAX_PLATFORMS", "PLAYGROUND_MIRRORS_"} <= found
    page = (DOCS / "configuration.md").read_text()
    missing = sorted(name for name in found if f"`{name}" not in page)
    assert not missing, f"read by the code, not on docs/configuration.md: {missing}"


def test_the_scan_finds_each_way_of_reading_a_variable():
    tree = ast.parse("import os\nos.environ.get('A_ONE')\nos.getenv('A_TWO')\nenv['A_THREE']\n"
                     "if 'A_FOUR' in self._env: pass\nenv.setdefault('NOT_READ', '1')\nconfig.get('NOT_ENV')\n"
                     "f'PLAYGROUND_MIRRORS_{name}'\n")
    assert read_names(tree) == {"A_ONE", "A_TWO", "A_THREE", "A_FOUR"}
    assert settings_in(tree) == {"PLAYGROUND_MIRRORS_"}


def test_every_public_endpoint_is_on_the_api_page():
    page = (DOCS / "api.md").read_text()
    missing = [e.name for e in public_endpoints() if f'"/{e.name}"' not in page and f"`/{e.name}`" not in page]
    assert not missing, f"public endpoints that docs/api.md does not show: {missing}"


def test_readme_is_a_front_door():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 150


def _port_with(name: str, value: str) -> int | None:
    """The port the server takes with ``name`` set to ``value``; None where that is no value ``name`` takes."""
    try:
        return Settings.from_env({name: value}).port
    except ValueError:
        return None


def test_readme_says_how_to_serve_on_another_port_and_where_every_setting_is():
    """The setting is the one server/config.py reads the port from (found by trying each it names, not written here)."""
    readme = (ROOT / "README.md").read_text()
    names = settings_in(ast.parse((ROOT / "playground" / "server" / "config.py").read_text()))
    port = [name for name in sorted(names) if name.startswith("PLAYGROUND_") and _port_with(name, "8123") == 8123]
    assert len(port) == 1, port
    assert re.search(rf"{port[0]}=(\d+) make run` serves on\s+\1\b", readme), readme
    assert "(docs/configuration.md)" in readme


MARKDOWN_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)|<img [^>]*src=\"([^\"]+)\"")


def relative_links(page: Path) -> list[str]:
    """The files a page's links and pictures point to, relative to it (web links and anchors left out)."""
    targets = [a or b for a, b in MARKDOWN_LINK.findall(page.read_text())]
    return [t.split("#")[0] for t in targets if not re.match(r"[a-z]+:|#", t)]


def test_the_link_scan_finds_links_and_pictures():
    assert {"docs/deploy.md", "assets/inspect.png"} <= set(relative_links(ROOT / "README.md"))
    assert "../assets/phone_inspect.png" in relative_links(DOCS / "deploy.md")  # an <img>, as on a phone's row
    assert "../api.md" in relative_links(DOCS / "tabs" / "inspect.md")


PICTURE = re.compile(r"\.(png|jpe?g|gif|svg|webp)$")


def test_every_picture_the_pages_show_lies_in_assets():
    """One folder of pictures, beside README: make docs adds it to the site (tools/mkdocs_assets.py), and
    make screenshots refreshes it."""
    shown = [(page, t) for page in [ROOT / "README.md", *DOCS.rglob("*.md")] for t in relative_links(page)
             if PICTURE.search(t)]
    elsewhere = [f"{page.relative_to(ROOT)}: {t}" for page, t in shown
                 if (page.parent / t).resolve().parent != (ROOT / "assets").resolve()]
    assert len(shown) > 20 and not elsewhere, elsewhere


@pytest.mark.parametrize("page", [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))],
                         ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_relative_link_leads_to_a_file(page):
    local = relative_links(page)
    broken = [t for t in local if not (page.parent / t).exists()]
    assert not broken, f"{page.relative_to(ROOT)} links to files that are not there: {broken}"
