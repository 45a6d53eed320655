"""The server never imports JAX, and a worker never the server's code: each process loads its own folder.

A fresh interpreter imports what the server process imports (every module that
app.py and playground/server/launch.py import, at module level and the ones main() makes later) and
reports, for each JAX package, whether it got loaded and through which chain of
imports.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

# JAX and the packages that exist only to run it. numpy is not among them: Gradio and the
# server's plots import it, and it carries no accelerator runtime.
JAX_PACKAGES = ("jax", "jaxlib", "optax")


def app_imports() -> list[str]:
    """Every module app.py and the start it runs (playground/server/launch.py) import, at module level or inside a
    function (main() imports the UI late)."""
    names = set()
    for path in ("app.py", "playground/server/launch.py"):
        names |= _imports_of(path)
    return sorted(names)


def _imports_of(path: str) -> set[str]:
    tree = ast.parse((ROOT / path).read_text(), path)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level and node.module != "__future__":
            names.add(node.module)
    return names


PROBE = """
import importlib, json, sys, traceback

watched = set(sys.argv[1].split(","))
chains = {}

class Watch:
    # Records who imports a watched package first, then lets the normal import go on.
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in watched and top not in chains:
            frames = [f"{f.filename}:{f.lineno}" for f in traceback.extract_stack()[:-1]  # less this hook
                      if "importlib" not in f.filename and "<frozen" not in f.filename]
            chains[top] = [f for f in frames if "site-packages" not in f] or frames
        return None

sys.meta_path.insert(0, Watch())
import app
for name in sys.argv[2].split(","):
    importlib.import_module(name)
print(json.dumps({
    "loaded": {top: sorted(m for m in sys.modules if m.partition(".")[0] == top) for top in sorted(watched)},
    "chains": chains,
    "modules": sorted(sys.modules),
}))
"""


@pytest.fixture(scope="module")
def server_side() -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(JAX_PACKAGES), ",".join(app_imports())],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout)


def test_probe_imports_what_the_server_imports(server_side):
    """The check below means something only if the probe really loaded the server's modules."""
    expected = ["app", *app_imports(), "playground.server.ui"]
    missing = [name for name in expected if name not in server_side["modules"]]
    if missing:
        pytest.fail(f"the probe did not import {missing}", pytrace=False)


@pytest.mark.parametrize("package", JAX_PACKAGES)
def test_server_side_modules_do_not_import(server_side, package):
    loaded = server_side["loaded"][package]
    if loaded:
        chain = "\n  ".join(server_side["chains"].get(package, ["(not recorded)"]))
        pytest.fail(f"the server process imports {package} ({len(loaded)} modules: {', '.join(loaded[:5])}, ...);"
                    f" the first import, outermost first (<string> is the probe):\n  {chain}", pytrace=False)


def test_a_worker_loads_none_of_the_servers_code():
    """What a sandbox worker's template loads before it forks (every handler, and JAX) and what the device owner
    loads (its serving, sessions and training): no module of playground/server/ or playground/server/ui/, and no
    Gradio."""
    probe = ("import sys\nfrom playground.worker.jobs import handlers\nhandlers.preload()\n"
             "import playground.owner.main, playground.owner.serve\nprint(' '.join(sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-4000:]
    loaded = done.stdout.split()
    assert "playground.worker.jobs.inspect" in loaded and "jax" in loaded, "the probe did not load the handlers"
    assert "playground.owner.training.runs" in loaded, "the probe did not load the owner's training"
    server_side = [name for name in loaded if name.partition(".")[0] == "gradio"
                   or name.startswith(("playground.server", "playground.server.ui"))]
    assert not server_side, f"a worker loads the server's code: {server_side}"
