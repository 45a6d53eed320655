"""A real race: the training service and a device owner of two simulated CPU devices, standing in for a host's CPU and
its accelerator (owner/training/race.py takes the second device for "the accelerator" where there is no other).

On an owner of one device there is no race: the service refuses it, saying why, and About says there is none.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from playground.mnist.config import TrainConfig
from playground.server.api import PlaygroundAPI, final
from playground.server.config import Settings, data_places
from playground.server.training.service import TrainingService
from tests.mnist_folders import make_mnist_dir
from tests.pool_doubles import ScriptedPool
from tests.training_owner import running_owner, runs_folder

pytestmark = pytest.mark.slow  # real device owners: make test-quick leaves them out

SMALL = {"layers": [784, 32, 10], "optimizer": "adam", "learning_rate": 0.003, "batch_size": 64, "seed": 1, "epochs": 2}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    mnist = make_mnist_dir(tmp_path_factory.mktemp("mnist"), 2048, 256, real=False)
    return {"MNIST_DIR": str(mnist), "PLAYGROUND_CACHE": str(tmp_path_factory.mktemp("cache"))}


@contextlib.contextmanager
def service_of(env: dict, folder, devices: int):
    with running_owner(env, folder / "runs",
                       environment={"XLA_FLAGS": f"--xla_force_host_platform_device_count={devices}"}) as owner:
        training = TrainingService(owner, data_places(env), str(runs_folder(owner)), slots=devices)
        try:
            yield training
        finally:
            training.close()


def test_two_devices_race_the_same_run_and_the_result_compares_them(env, tmp_path):
    with service_of(env, tmp_path, devices=2) as training:
        assert training.race_sides() == {"cpu": "CPU · cpu", "device": "CPU · cpu 1"}
        updates = list(training.race(TrainConfig.from_dict(SMALL), "rosa"))
        raced = [u for u in updates if isinstance(u.get("device"), dict)]
        last = raced[-1]
        assert last["done"] and last["phase"] == "finished"
        assert last["cpu"]["device"] == "CPU · cpu" and last["device"]["device"] == "CPU · cpu 1"
        for name in ("cpu", "device"):
            assert last[name]["phase"] == "finished" and last[name]["step"] == 2 * (2048 // 64)
            assert last[name]["history"] and all(loss > 0 for _, loss in last[name]["history"])
        comparison = last["comparison"]
        assert comparison["cpu"]["samples_per_s"] > 0 and comparison["device"]["samples_per_s"] > 0
        assert comparison["speedup"] == pytest.approx(comparison["device"]["samples_per_s"]
                                                      / comparison["cpu"]["samples_per_s"])
        assert comparison["message"].startswith("CPU · cpu 1 trained ")
        assert training.status() == {"slots": 2, "running": 0, "waiting": 0}
        # The device's model is the session's; the CPU side's weights and CSVs are not kept, its folder gone.
        assert os.path.isfile(last["device"]["params_file"]) and "params_file" not in last["cpu"]
        kept = Path(last["device"]["params_file"]).parent
        assert [run.name for run in kept.parent.glob("run-*")] == [kept.name]


def test_stop_ends_both_sides(env, tmp_path):
    with service_of(env, tmp_path, devices=2) as training:
        # Far more epochs than either side runs before both train at once: the CPU side runs 100 of these in about
        # 4 s on 2 cores, before the device side has compiled.
        updates = training.race(TrainConfig.from_dict({**SMALL, "epochs": 500}), "sam")
        for update in updates:
            if isinstance(update.get("device"), dict) and update["device"].get("phase") == "training" \
                    and update["cpu"].get("phase") == "training":
                break
        assert training.stop("sam")
        last = list(updates)[-1]
        assert last["done"] and last["cpu"]["stopped"] and last["device"]["stopped"]
        assert training.status()["running"] == 0


def test_one_device_has_no_race_and_the_api_says_why(env, tmp_path):
    with service_of(env, tmp_path, devices=1) as training:
        assert training.race_sides() is None
        api = PlaygroundAPI(ScriptedPool(), Settings(), training=training)
        answer = final(api.race(SMALL, "tim"))
        assert answer["ok"] is False and answer["error"]["kind"] == "invalid_input"
        assert "no accelerator" in answer["error"]["message"]
