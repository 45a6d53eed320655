"""The server never imports JAX: user code and JAX live in the sandbox workers only."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_server_side_modules_do_not_import_jax():
    probe = (
        "import sys\n"
        "import app, playground.api, playground.ui, playground.sharing, playground.sandbox\n"
        "heavy = sorted(m for m in ('jax', 'jaxlib', 'numpy', 'optax') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "jax" not in out.stdout.split(","), out.stdout
