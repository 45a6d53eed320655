"""/race end to end, by gradio_client: a real server whose device owner has two simulated CPU devices, standing in
for the host's CPU and its accelerator (owner/training/race.py), and /about naming the two."""

from __future__ import annotations

import pytest

from tests.conftest import stop_server
from tests.mnist_folders import start_training_server

TWO_DEVICES = "--xla_force_host_platform_device_count=2"
RACE = {"epochs": 2, "layers": [784, 64, 10], "optimizer": "adam", "learning_rate": 0.003}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = start_training_server(tmp_path_factory, 2000, 500, XLA_FLAGS=TWO_DEVICES)
    yield srv
    stop_server(srv)


def test_about_names_the_two_sides_of_the_race(server):
    about = server.client().predict(api_name="/about")
    assert about["training"]["race"] == {"cpu": "CPU · cpu", "device": "CPU · cpu 1"}


def test_race_streams_both_sides_then_compares_them(server):
    job = server.client().submit(RACE, api_name="/race")
    job.result(timeout=300)
    updates = job.outputs()
    raced = [u for u in updates if isinstance(u.get("device"), dict)]
    assert raced and all(u["ok"] for u in updates)
    last = raced[-1]
    assert last["done"] and last["phase"] == "finished"
    assert {last["cpu"]["device"], last["device"]["device"]} == {"CPU · cpu", "CPU · cpu 1"}
    assert last["cpu"]["history"] and last["device"]["history"]
    comparison = last["comparison"]
    assert comparison["speedup"] > 0 and comparison["target_accuracy"] == 0.97
    assert comparison["message"].startswith("CPU · cpu 1 trained ") and "samples/s" in comparison["message"]
    # Two simulated CPU devices share this host's cores: which one trains faster is the machine's moment's, and the
    # sentence says the one that did.
    assert comparison["message_words"][0] == ("race.result" if comparison["speedup"] >= 1 else "race.result_slower")
