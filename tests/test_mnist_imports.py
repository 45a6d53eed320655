"""Which side of training imports what: the server's and the shared data modules import no JAX, and the server's
training modules (playground/server/training/) none of the device owner's side (the training loop in
playground/owner/training/, the owner's JAX modules, the MLP) nor of the workers': they train through the owner's
handle (playground/server/device_owner/handle.py), which is the server's end of it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

SHARED = tuple(f"playground.mnist.{name}" for name in ("catalogue", "download", "fetch", "idx", "load", "params_file",
                                                       "places", "preprocess"))
SERVER = tuple(f"playground.server.training.{name}" for name in ("fetch_cli", "inference", "results", "service",
                                                                 "slots"))


def imported_after(modules: tuple[str, ...], code: str = "") -> set[str]:
    """The modules a fresh interpreter holds after importing each of ``modules`` (and running ``code``)."""
    probe = "".join(f"import {name}\n" for name in modules) + code + \
        "import sys\nprint(' '.join(sys.modules))\n"
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(done.stdout.split())


@pytest.mark.parametrize("modules, code, absent", [
    # the server checks a request before anything else
    (("playground.mnist.config",), "", {"jax", "jaxlib", "optax", "numpy"}),
    (SHARED, "from pathlib import Path\nfrom playground.mnist.places import DataPlaces\n"
             "playground.mnist.fetch.availability(DataPlaces(Path('nowhere')))\n",
     {"jax", "jaxlib", "optax", "sklearn", "scipy"}),
    (SERVER, "", {"jax", "jaxlib", "optax", "sklearn", "scipy"}),
], ids=["config", "shared", "server"])
def test_no_jax_where_the_server_runs(modules, code, absent):
    assert imported_after(modules, code) & absent == set()


def test_the_server_side_imports_nothing_of_the_owner_side_but_its_handle():
    loaded = imported_after(SERVER)
    assert "playground.server.device_owner.handle" in loaded  # the service trains through it
    assert sorted(name for name in loaded if name.startswith("playground.owner")) == []
    assert sorted(name for name in loaded if name.startswith("playground.worker") or name == "playground.mlp") == []
