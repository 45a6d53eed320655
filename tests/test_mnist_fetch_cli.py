"""``python -m playground.server.training.fetch_cli`` (``make data``): the datasets fetched where the settings say."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT
from tests.mnist_folders import offline_env, write_dataset


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("MNIST_DIR", "FASHION_MNIST_DIR", "PLAYGROUND_"))}
    return subprocess.run([sys.executable, "-m", "playground.server.training.fetch_cli", *args], cwd=ROOT,
                          env={**clean, **env}, capture_output=True, text=True, timeout=60)


def test_cli_reports_where_the_data_is(tmp_path):
    folder = write_dataset(tmp_path / "mine")
    done = run_cli("mnist", env={"MNIST_DIR": str(folder), "PLAYGROUND_CACHE": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"mnist: MNIST_DIR {folder}\n"


def test_cli_fails_with_the_message_and_exit_code_1(tmp_path):
    env = offline_env(tmp_path / "cache")
    done = run_cli("fashion_mnist", env=env)
    assert done.returncode == 1
    assert "fashion_mnist: Fashion-MNIST is not on this machine, and downloading it failed (offline?)." in done.stderr
    assert "make data" in done.stderr
    assert run_cli("cifar", env=env).returncode == 2
