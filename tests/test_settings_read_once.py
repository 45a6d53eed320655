"""Every setting is read once, by the settings module (playground/server/config.py), and handed down as values.

Read from the source with ``ast`` (nothing here is imported):

* no module but the settings module reads one of the app's settings by its name (``PLAYGROUND_*``,
  ``MNIST_DIR``, ``FASHION_MNIST_DIR``, ``HF_*``, ``SPACE_*``, ``GRADIO_SERVER_*``): not from ``os.environ``
  or ``os.getenv``, nor from any mapping (``env[...]``, ``env.get(...)``, ``.pop``, ``.setdefault``, ``in``)
  handed down in its place; the benchmarks neither, for they build the app's objects as the app does;
* no module of the app touches the process's environment (``os.environ``, ``os.getenv``) but the settings module
  and the few that build or set an environment without reading a setting, each named in ENVIRONMENT_USERS with why;
* and even those hand ``os.environ`` (or a copy of it) to no call but the settings readers and the builders of a
  child's environment (RECEIVERS): never down to the pools, the device owner or the training service.

The scanner itself is tested on a made-up tree, where each rule is broken once.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.made_trees import write_tree

SETTINGS_MODULE = "playground/server/config.py"
SETTING = re.compile(r"PLAYGROUND_|(FASHION_)?MNIST_|HF_|SPACE_|GRADIO_SERVER_")
# The modules that touch the process's environment without reading a setting of the app, and why each does.
ENVIRONMENT_USERS = {
    "playground/server/launch.py": "hands the server's environment to Settings.from_env, and sets Gradio's own "
                                   "defaults (GRADIO_TEMP_DIR, its analytics) before Gradio is imported",
    "playground/server/training/fetch_cli.py": "make data: hands its environment to config.data_places, as the "
                                               "server's start hands it to Settings.from_env",
    "playground/server/pools/warm_pool.py": "builds the CPU workers' environment from the server's (the whitelist "
                                            "of bootstrap.worker_environment)",
    "playground/server/device_owner/accelerator.py": "builds the device owner's environment from the server's: the "
                                              "whitelist, the host's TPU_* and LIBTPU_INIT_ARGS, its choice of GPUs",
    "playground/ipc/child_life.py": "every child (a worker, the owner) points its own HOME and TMPDIR at its scratch "
                                    "folder",
    "playground/worker/life/warm_up.py": "names JAX_PLATFORMS, which the server set on the worker, when JAX opens "
                                         "no backend",
    "playground/owner/main.py": "the owner finds CUDA's programs where XLA looks for them (XLA_FLAGS, PATH), and "
                                "names JAX_PLATFORMS when JAX opens no backend",
}
# The calls os.environ may be handed to, and why.
RECEIVERS = {
    "Settings.from_env": "the settings reader",
    "data_places": "the settings reader's part for the datasets (make data)",
    "worker_environment": "a child's environment: a whitelist of the server's",
    "cuda_programs.folders": "where XLA looks for CUDA's programs, read as XLA reads it",
}
_ENVIRONMENT = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


@dataclass(frozen=True)
class Finding:
    path: str  # relative to the root
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.what}"


def python_files(root: Path, *names: str) -> list[Path]:
    """The Python files among ``names`` (files and folders under ``root``), those in the folders found below them."""
    found = []
    for name in names:
        path = root / name
        found += sorted(p for p in path.rglob("*.py") if "__pycache__" not in p.parts) if path.is_dir() else [path]
    return [path for path in found if path.suffix == ".py" and path.is_file()]


def _environment_names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The names that stand for the os module here, and those bound to its environment (``from os import environ``)."""
    modules, bound = {"os"}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {alias.asname or alias.name for alias in node.names if alias.name == "os"}
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            bound |= {alias.asname or alias.name for alias in node.names if alias.name in _ENVIRONMENT}
    return modules, bound


class _Module:
    """One parsed file, and what in it is the process's environment."""

    def __init__(self, root: Path, path: Path) -> None:
        self.path = path.relative_to(root).as_posix()
        self.tree = ast.parse(path.read_text(), self.path)
        self._modules, self._bound = _environment_names(self.tree)

    def is_environment(self, node: ast.AST) -> bool:
        """``os.environ``, ``os.getenv`` (however os is imported) or a name imported from os for one of them."""
        if isinstance(node, ast.Attribute):
            return node.attr in _ENVIRONMENT and isinstance(node.value, ast.Name) and node.value.id in self._modules
        return isinstance(node, ast.Name) and node.id in self._bound

    def carries_environment(self, node: ast.AST) -> bool:
        """The environment itself, or a copy of it: ``dict(os.environ)``, ``{**os.environ, ...}``, ``.copy()``."""
        if self.is_environment(node):
            return True
        if isinstance(node, ast.Call):
            return _copied(node) is not None and self.carries_environment(_copied(node))
        if isinstance(node, ast.Dict):
            return any(key is None and self.carries_environment(value)
                       for key, value in zip(node.keys, node.values, strict=True))
        return False


def _copied(call: ast.Call) -> ast.AST | None:
    """What ``call`` copies (``dict(x)``, ``x.copy()``), or None for any other call."""
    if isinstance(call.func, ast.Name) and call.func.id == "dict" and len(call.args) == 1:
        return call.args[0]
    if isinstance(call.func, ast.Attribute) and call.func.attr == "copy" and not call.args:
        return call.func.value
    return None


def _setting_name(node: ast.AST | None) -> str | None:
    """The setting a literal key names (an f-string by its literal start), or None."""
    if isinstance(node, ast.JoinedStr) and node.values:
        node = node.values[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and SETTING.match(node.value):
        return node.value
    return None


def _read_key(node: ast.AST) -> ast.AST | None:
    """The key ``node`` reads from a mapping or the environment, if it reads one."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        return node.slice
    if isinstance(node, ast.Call) and node.args:
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name in ("get", "pop", "setdefault", "getenv"):
            return node.args[0]
    if isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)):
        return node.left
    return None


def setting_reads(root: Path) -> list[Finding]:
    """Every read of a setting by its name outside the settings module, in the app and the benchmarks."""
    found = []
    for path in python_files(root, "playground", "app.py", "benchmarks"):
        module = _Module(root, path)
        if module.path == SETTINGS_MODULE:
            continue
        for node in ast.walk(module.tree):
            name = _setting_name(_read_key(node))
            if name is not None:
                found.append(Finding(module.path, node.lineno, f"reads {name}"))
    return sorted(found, key=lambda f: (f.path, f.line))


def environment_uses(root: Path) -> list[Finding]:
    """Every touch of the process's environment in the app, wherever it is."""
    found = []
    for path in python_files(root, "playground", "app.py"):
        module = _Module(root, path)
        found += [Finding(module.path, node.lineno, f"uses {ast.unparse(node)}") for node in ast.walk(module.tree)
                  if module.is_environment(node)]
    return sorted(set(found), key=lambda f: (f.path, f.line))


def environment_handed_on(root: Path) -> list[Finding]:
    """Every call in the app that is handed the process's environment (or a copy), with its callee."""
    found = []
    for path in python_files(root, "playground", "app.py"):
        module = _Module(root, path)
        for node in ast.walk(module.tree):
            if not isinstance(node, ast.Call) or _copied(node) is not None:  # a copy is checked where it goes
                continue
            values = [*node.args, *(keyword.value for keyword in node.keywords)]
            if any(module.carries_environment(value) for value in values):
                found.append(Finding(module.path, node.lineno, f"hands the environment to {ast.unparse(node.func)}"))
    return sorted(found, key=lambda f: (f.path, f.line))


def _listing(found: list[Finding]) -> str:
    return "".join(f"\n  {each}" for each in found)


# -- the rules, on this repository ------------------------------------------------


def test_no_module_but_the_settings_module_reads_a_setting_by_name():
    found = setting_reads(ROOT)
    if found:
        pytest.fail(f"only {SETTINGS_MODULE} reads the app's settings (into Settings, handed down as values); "
                    f"{len(found)} read(s) elsewhere:{_listing(found)}", pytrace=False)


def test_only_the_named_modules_touch_the_environment_and_each_still_does():
    used = environment_uses(ROOT)
    others = [each for each in used if each.path not in ENVIRONMENT_USERS and each.path != SETTINGS_MODULE]
    if others:
        pytest.fail(f"only the settings module and {', '.join(ENVIRONMENT_USERS)} may touch os.environ (each for "
                    f"a reason named in this test); {len(others)} use(s) elsewhere:{_listing(others)}",
                    pytrace=False)
    stale = set(ENVIRONMENT_USERS) - {each.path for each in used}
    assert not stale, f"{', '.join(sorted(stale))} no longer touch(es) the environment: drop it from ENVIRONMENT_USERS"


def test_the_environment_is_handed_to_the_settings_readers_and_the_builders_alone():
    handed = environment_handed_on(ROOT)
    wrong = [each for each in handed if each.what.removeprefix("hands the environment to ") not in RECEIVERS]
    if wrong:
        pytest.fail(f"os.environ goes to the settings readers and the builders of a child's environment only "
                    f"({', '.join(RECEIVERS)}); {len(wrong)} call(s) hand it elsewhere:{_listing(wrong)}",
                    pytrace=False)
    assert "playground/server/launch.py" in {each.path for each in handed}, \
        "launch.py hands the environment to Settings.from_env: the scan cannot be finding calls"


# -- the scanner itself, on a made-up tree: it sees every way of breaking each rule ----------------------------------


@pytest.fixture
def tree(tmp_path) -> Path:
    files = {
        SETTINGS_MODULE: "import os\ndef read(env):\n    return env.get('PLAYGROUND_PORT'), os.environ['MNIST_DIR']\n",
        "playground/server/launch.py": (
            "import os\n"
            "from playground.server.config import Settings\n"
            "settings = Settings.from_env(dict(os.environ))\n"  # line 3: allowed
            "pools = start(settings, {**os.environ, 'X': '1'})\n"  # line 4: handed on as settings
            "os.environ.setdefault('GRADIO_TEMP_DIR', '/tmp')\n"  # line 5: a use, no setting read
        ),
        "playground/mnist/fetch.py": (
            "import os as system\n"
            "def cache(env, name):\n"
            "    folder = env.get('PLAYGROUND_CACHE')\n"  # line 3
            "    mirrors = env[f'PLAYGROUND_MIRRORS_{name}']\n"  # line 4
            "    if 'MNIST_DIR' in env:\n"  # line 5
            "        return system.getenv('HF_TOKEN')\n"  # line 6: a read and a use
            "    labels = {'MNIST_DIR': 'from MNIST_DIR'}\n"  # a text, not a read
            "    env['PLAYGROUND_CACHE'] = folder\n"  # a write, not a read
            "    return labels.get(name), mirrors\n"
        ),
        "playground/owner/serve.py": (
            "from os import environ as E\n"
            "def serve(owner):\n"
            "    owner.start(E.copy())\n"  # line 3: a use, handed on
        ),
        "playground/worker/life/forked.py": "import os\nos.environ['HOME'] = '/scratch'\n",
        "app.py": "import os\nPORT = os.environ.get('GRADIO_SERVER_PORT')\n",
        "benchmarks/check.py": "import os\nfolder = os.environ.get('MNIST_DIR') or '/data'\nenv = {**os.environ}\n",
    }
    return write_tree(tmp_path, files)


def test_scanner_finds_each_read_of_a_setting_by_name(tree):
    assert [str(each) for each in setting_reads(tree)] == [
        "app.py:2 reads GRADIO_SERVER_PORT",
        "benchmarks/check.py:2 reads MNIST_DIR",
        "playground/mnist/fetch.py:3 reads PLAYGROUND_CACHE",
        "playground/mnist/fetch.py:4 reads PLAYGROUND_MIRRORS_",
        "playground/mnist/fetch.py:5 reads MNIST_DIR",
        "playground/mnist/fetch.py:6 reads HF_TOKEN",
    ]


def test_scanner_finds_each_use_of_the_environment(tree):
    assert [str(each) for each in environment_uses(tree)] == [
        "app.py:2 uses os.environ",
        "playground/mnist/fetch.py:6 uses system.getenv",
        "playground/owner/serve.py:3 uses E",
        "playground/server/config.py:3 uses os.environ",
        "playground/server/launch.py:3 uses os.environ",
        "playground/server/launch.py:4 uses os.environ",
        "playground/server/launch.py:5 uses os.environ",
        "playground/worker/life/forked.py:2 uses os.environ",
    ]


def test_scanner_finds_each_call_handed_the_environment(tree):
    assert [str(each) for each in environment_handed_on(tree)] == [
        "playground/owner/serve.py:3 hands the environment to owner.start",
        "playground/server/launch.py:3 hands the environment to Settings.from_env",
        "playground/server/launch.py:4 hands the environment to start",
    ]
