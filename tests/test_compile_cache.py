"""The device owner's compilation cache: a configuration run before compiles nothing, in the same owner and after a
restart; the default configuration is compiled when the owner starts; the folder is bounded, made where it can be,
said to be off where it cannot, git-ignored, and removed by ``make clean``.

Each owner here is a real process on this host's CPU (training_owner.running_owner) with a cache folder of the
test's own; the runs report how many XLA compiles they made (``xla_compiles``: JAX's monitoring events, counted in
the owner), so no test reads a clock.
"""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from playground.mnist.config import TrainConfig
from playground.owner.training.compiled_configs import FOLDER
from playground.server.config import DEFAULT_COMPILE_CACHE, Settings
from tests import training_owner
from tests.mnist_folders import make_mnist_dir

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
TINY = TrainConfig(layers=(784, 16, 10), epochs=1, batch_size=100)
WAIT_S = 300.0


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("mnist")
    return {"MNIST_DIR": str(make_mnist_dir(folder / "mnist", 600, 200)), "PLAYGROUND_CACHE": str(folder / "cache")}


def run(owner, config: TrainConfig, env: dict[str, str]) -> tuple[dict, dict]:
    """A whole run: its "compiling" update and its last message."""
    stream = training_owner.train(owner, config)
    try:
        seen = training_owner.until(stream, "never", WAIT_S)
    finally:
        training_owner.ended(stream)
    assert seen[-1]["kind"] == "done", seen[-1]
    return next(m for m in seen if m.get("phase") == "compiling"), seen[-1]


@pytest.mark.parametrize("sandbox", ["full", "process"])
def test_a_configuration_run_before_compiles_nothing_even_in_a_new_owner(env, tmp_path, sandbox):
    cache = tmp_path / "xla"
    with training_owner.running_owner(env, tmp_path / "runs", sandbox, compile_cache=cache) as owner:
        assert owner.hello["compile_cache"]["active"], owner.hello["compile_cache"]
        compiling, done = run(owner, TINY, env)
        assert compiling["compile_cache"] == "new" and done["xla_compiles"] > 0
        compiling, done = run(owner, TINY, env)
        assert compiling["compile_cache"] == "kept" and done["xla_compiles"] == 0
        # The Train tab's defaults were compiled when the owner started (on this dataset): its first run loads them.
        compiling, done = run(owner, TrainConfig(epochs=1), env)
        assert compiling["compile_cache"] == "kept" and done["xla_compiles"] == 0
    assert list((cache / FOLDER).iterdir()) and list(cache.glob("*-cache"))
    with training_owner.running_owner(env, tmp_path / "runs", sandbox, compile_cache=cache) as owner:  # a restart
        compiling, done = run(owner, dataclasses.replace(TINY, seed=7, epochs=2), env)
        assert compiling["compile_cache"] == "kept" and done["xla_compiles"] == 0


def test_the_folder_stays_within_its_bound(env, tmp_path):
    cache = tmp_path / "xla"
    with training_owner.running_owner(env, tmp_path / "runs", compile_cache=cache, compile_cache_mb=1) as owner:
        assert owner.hello["compile_cache"]["max_mb"] == 1
        for width in (16, 24, 32):
            run(owner, TrainConfig(layers=(784, width, 10), epochs=1, batch_size=100), env)
    entries = list(cache.glob("*-cache"))
    assert entries and sum(entry.stat().st_size for entry in entries) <= 1 << 20


def test_a_folder_that_cannot_be_made_leaves_the_cache_off_and_says_why(env, tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    with training_owner.running_owner(env, tmp_path / "runs", compile_cache=tmp_path / "a-file" / "xla") as owner:
        said = owner.hello["compile_cache"]
        assert not said["active"] and "cannot write" in said["detail"]
        compiling, done = run(owner, TINY, env)
        assert compiling["compile_cache"] is None and done["xla_compiles"] > 0


def test_the_default_folder_is_in_the_checkout_ignored_by_git_and_removed_by_make_clean():
    assert Settings().compile_cache == DEFAULT_COMPILE_CACHE == str(ROOT / ".cache" / "xla")
    assert subprocess.run(["git", "check-ignore", "-q", ".cache/xla/some-entry-cache"], cwd=ROOT).returncode == 0
    for env, folder in (({}, ".cache/xla"), ({"PLAYGROUND_COMPILE_CACHE": "/tmp/elsewhere"}, "/tmp/elsewhere")):
        dry = subprocess.run(["make", "-n", "clean"], cwd=ROOT, capture_output=True, text=True, check=True,
                             env={"PATH": "/usr/bin:/bin", **env})
        assert folder in dry.stdout.split(), dry.stdout


def test_the_settings_read_the_folder_and_its_bound():
    settings = Settings.from_env({"PLAYGROUND_COMPILE_CACHE": "~/xla", "PLAYGROUND_COMPILE_CACHE_MB": "0"})
    assert settings.compile_cache == str(Path("~/xla").expanduser()) and settings.compile_cache_mb == 0
    with pytest.raises(ValueError, match="PLAYGROUND_COMPILE_CACHE_MB"):
        Settings.from_env({"PLAYGROUND_COMPILE_CACHE_MB": "-1"})
