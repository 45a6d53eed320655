"""playground.server.config.Settings and playground.ipc.limits.Limits."""

from __future__ import annotations

import dataclasses
import math
import os

import pytest

from playground.ipc.limits import Limits
from playground.server.config import Settings


def expected_workers() -> int:
    return max(1, min(8, os.cpu_count() or 1))


# -- defaults ---------------------------------------------------------------


def test_dataclass_defaults():
    s = Settings()
    assert (s.host, s.port, s.workers, s.queue_size) == ("127.0.0.1", 7860, 2, 32)
    assert s.limits == Limits()


def test_from_empty_env_defaults():
    s = Settings.from_env({})
    assert s.host == "127.0.0.1"
    assert s.port == 7860
    assert s.workers == expected_workers()
    assert s.queue_size == max(32, 8 * s.workers)
    assert s.limits == Limits()


def test_limits_defaults():
    limits = Limits()
    assert limits.timeout_s == 10.0
    assert limits.memory_mb == 2048
    assert limits.address_space_mb == 4096
    assert limits.cpu_s == 300
    assert limits.measure_timeout_s == 60.0
    assert limits.file_size_mb == 64
    assert limits.open_files == 256
    assert limits.output_chars == 200_000
    assert limits.message_bytes == 16 * 1024 * 1024


def test_empty_values_mean_default():
    env = {name: "" for name in (
        "PLAYGROUND_WORKERS", "PLAYGROUND_QUEUE_SIZE", "PLAYGROUND_TIMEOUT_S", "PLAYGROUND_MEMORY_MB",
        "PLAYGROUND_ADDRESS_SPACE_MB", "PLAYGROUND_HOST", "PLAYGROUND_PORT", "GRADIO_SERVER_NAME",
        "GRADIO_SERVER_PORT",
    )}
    assert Settings.from_env(env) == Settings.from_env({})


def test_settings_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Settings().port = 1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Limits().timeout_s = 1.0  # type: ignore[misc]


# -- overrides --------------------------------------------------------------


def test_env_overrides():
    s = Settings.from_env({
        "PLAYGROUND_WORKERS": "3",
        "PLAYGROUND_QUEUE_SIZE": "5",
        "PLAYGROUND_TIMEOUT_S": "2.5",
        "PLAYGROUND_MEMORY_MB": "512",
        "PLAYGROUND_ADDRESS_SPACE_MB": "8192",
        "PLAYGROUND_HOST": "0.0.0.0",
        "PLAYGROUND_PORT": "9000",
    })
    assert s.workers == 3
    assert s.queue_size == 5
    assert s.limits.timeout_s == 2.5
    assert s.limits.memory_mb == 512
    assert s.limits.address_space_mb == 8192
    assert s.host == "0.0.0.0"
    assert s.port == 9000
    # untouched limits keep their defaults
    assert s.limits.cpu_s == Limits.cpu_s


def test_mcp_server_is_on_unless_switched_off():
    assert Settings.from_env({}).mcp_server is True
    assert Settings.from_env({"PLAYGROUND_MCP": "0"}).mcp_server is False
    with pytest.raises(ValueError, match="PLAYGROUND_MCP"):
        Settings.from_env({"PLAYGROUND_MCP": "maybe"})


def test_queue_size_default_follows_workers():
    assert Settings.from_env({"PLAYGROUND_WORKERS": "2"}).queue_size == 32
    assert Settings.from_env({"PLAYGROUND_WORKERS": "6"}).queue_size == 48
    assert Settings.from_env({"PLAYGROUND_WORKERS": "6", "PLAYGROUND_QUEUE_SIZE": "7"}).queue_size == 7


def test_address_space_zero_turns_it_off():
    assert Settings.from_env({"PLAYGROUND_ADDRESS_SPACE_MB": "0"}).limits.address_space_mb == 0


def test_gradio_fallbacks_as_on_spaces():
    s = Settings.from_env({"GRADIO_SERVER_NAME": "0.0.0.0", "GRADIO_SERVER_PORT": "7861"})
    assert (s.host, s.port) == ("0.0.0.0", 7861)


def test_playground_vars_win_over_gradio_ones():
    s = Settings.from_env({
        "GRADIO_SERVER_NAME": "0.0.0.0", "GRADIO_SERVER_PORT": "7861",
        "PLAYGROUND_HOST": "127.0.0.2", "PLAYGROUND_PORT": "7999",
    })
    assert (s.host, s.port) == ("127.0.0.2", 7999)


def test_empty_playground_host_falls_back_to_gradio():
    assert Settings.from_env({"PLAYGROUND_HOST": "", "GRADIO_SERVER_NAME": "10.0.0.1"}).host == "10.0.0.1"


def test_from_env_does_not_read_os_environ(monkeypatch):
    monkeypatch.setenv("PLAYGROUND_PORT", "1234")
    monkeypatch.setenv("PLAYGROUND_WORKERS", "not a number")
    assert Settings.from_env({}).port == 7860


# -- bad values -------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PLAYGROUND_WORKERS", "two"),
        ("PLAYGROUND_WORKERS", "1.5"),
        ("PLAYGROUND_QUEUE_SIZE", "many"),
        ("PLAYGROUND_TIMEOUT_S", "ten"),
        ("PLAYGROUND_MEMORY_MB", "2G"),
        ("PLAYGROUND_ADDRESS_SPACE_MB", "4GB"),
        ("PLAYGROUND_PORT", "http"),
        ("GRADIO_SERVER_PORT", "x7860"),
    ],
)
def test_unparsable_values_name_the_variable(name, value):
    with pytest.raises(ValueError) as info:
        Settings.from_env({name: value})
    assert name in str(info.value)
    assert repr(value) in str(info.value)


@pytest.mark.parametrize(("name", "value"), [("PLAYGROUND_WORKERS", "0"), ("PLAYGROUND_QUEUE_SIZE", "0"),
                                             ("PLAYGROUND_WORKERS", "-2")])
def test_out_of_range_counts_name_the_variable(name, value):
    with pytest.raises(ValueError) as info:
        Settings.from_env({name: value})
    assert name in str(info.value)


@pytest.mark.parametrize(
    ("name", "value", "field"),
    [
        ("PLAYGROUND_TIMEOUT_S", "0", "timeout_s"),
        ("PLAYGROUND_TIMEOUT_S", "-1", "timeout_s"),
        ("PLAYGROUND_MEMORY_MB", "100", "memory_mb"),
        ("PLAYGROUND_ADDRESS_SPACE_MB", "1024", "address_space_mb"),
    ],
)
def test_out_of_range_limits_raise(name, value, field):
    with pytest.raises(ValueError) as info:
        Settings.from_env({name: value})
    assert field in str(info.value)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_non_finite_timeout_is_refused(value):
    with pytest.raises(ValueError, match="PLAYGROUND_TIMEOUT_S"):
        Settings.from_env({"PLAYGROUND_TIMEOUT_S": value})


# -- Limits validation ------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"timeout_s": 0},
        {"timeout_s": -0.5},
        {"memory_mb": 255},
        {"memory_mb": 0},
        {"address_space_mb": 1024},
        {"address_space_mb": 2047},
    ],
)
def test_limits_refuse_bad_values(kwargs):
    with pytest.raises(ValueError):
        Limits(**kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [{"timeout_s": 0.01}, {"memory_mb": 256}, {"address_space_mb": 0}, {"address_space_mb": 2048}],
)
def test_limits_accept_edge_values(kwargs):
    limits = Limits(**kwargs)
    for key, value in kwargs.items():
        assert getattr(limits, key) == value


def test_limits_address_space_message_says_how_to_turn_it_off():
    with pytest.raises(ValueError, match="use 0 to turn it off"):
        Limits(address_space_mb=1000)


def test_limits_to_dict_round_trips():
    limits = Limits(timeout_s=3.0, memory_mb=300, address_space_mb=0)
    data = limits.to_dict()
    assert data["timeout_s"] == 3.0 and data["address_space_mb"] == 0
    assert set(data) == {f.name for f in dataclasses.fields(Limits)}
    assert Limits(**data) == limits
    assert all(isinstance(v, (int, float)) and not math.isnan(v) for v in data.values())


@pytest.mark.parametrize("value", ["0", "-5", "99999"])
def test_port_out_of_range_is_refused(value):
    with pytest.raises(ValueError, match="between 1 and 65535"):
        Settings.from_env({"PLAYGROUND_PORT": value})


def test_bad_gradio_port_is_ignored_when_playground_port_is_set():
    assert Settings.from_env({"PLAYGROUND_PORT": "7999", "GRADIO_SERVER_PORT": "junk"}).port == 7999


def test_parallel_settings_from_env():
    s = Settings.from_env({"PLAYGROUND_PARALLEL_WORKERS": "2", "PLAYGROUND_CPU_DEVICES": "4"})
    assert (s.parallel_workers, s.cpu_devices) == (2, 4)
    assert (Settings().parallel_workers, Settings().cpu_devices) == (1, 8)


@pytest.mark.parametrize(("name", "value"), [("PLAYGROUND_PARALLEL_WORKERS", "0"), ("PLAYGROUND_CPU_DEVICES", "0"),
                                             ("PLAYGROUND_CPU_DEVICES", "65")])
def test_parallel_settings_out_of_range_name_the_variable(name, value):
    with pytest.raises(ValueError, match=name):
        Settings.from_env({name: value})


def test_training_settings_from_env():
    s = Settings.from_env({"PLAYGROUND_TRAINING_JOBS": "2", "PLAYGROUND_TRAINING_MAX_S": "60"})
    assert (s.training_jobs, s.training_max_s) == (2, 60.0)
    # Unset: one run per device of the accelerator the owner holds (worker_pools.training_slots), 1 on the CPU.
    assert (Settings().training_jobs, Settings().training_max_s) == (None, 900.0)


@pytest.mark.parametrize(("name", "value"), [("PLAYGROUND_TRAINING_JOBS", "0"), ("PLAYGROUND_TRAINING_JOBS", "17"),
                                             ("PLAYGROUND_TRAINING_MAX_S", "0"), ("PLAYGROUND_TRAINING_MAX_S", "x")])
def test_training_settings_out_of_range_name_the_variable(name, value):
    with pytest.raises(ValueError, match=name):
        Settings.from_env({name: value})


# -- the sandbox: full (Linux) or the local process mode ------------------------


def test_the_full_sandbox_is_the_default_on_linux_and_the_process_mode_elsewhere():
    from playground.server.config import default_sandbox

    assert [default_sandbox(p) for p in ("linux", "darwin", "win32")] == ["full", "process", "process"]
    assert Settings.from_env({}).sandbox == "full"  # this test runs on Linux
    assert Settings.from_env({"PLAYGROUND_SANDBOX": " Process "}).sandbox == "process"


def test_an_unknown_sandbox_is_refused_by_name():
    with pytest.raises(ValueError, match="PLAYGROUND_SANDBOX must be full or process"):
        Settings.from_env({"PLAYGROUND_SANDBOX": "docker"})


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.2", "[::1]"])
def test_the_process_mode_serves_this_machine(host):
    assert Settings.from_env({"PLAYGROUND_SANDBOX": "process", "PLAYGROUND_HOST": host}).host == host


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::", "example.org"])
def test_the_process_mode_refuses_a_public_address_unless_told_in_so_many_words(host):
    env = {"PLAYGROUND_SANDBOX": "process", "PLAYGROUND_HOST": host}
    with pytest.raises(ValueError, match="serves this machine only.*PLAYGROUND_ALLOW_PUBLIC=1"):
        Settings.from_env(env)
    assert Settings.from_env({**env, "PLAYGROUND_ALLOW_PUBLIC": "1"}).host == host
    assert Settings.from_env({"PLAYGROUND_HOST": host}).sandbox == "full"  # the full sandbox may serve anyone


def test_the_full_sandbox_is_refused_off_linux(monkeypatch):
    import playground.server.config as config

    monkeypatch.setattr(config.sys, "platform", "darwin")
    with pytest.raises(ValueError, match="full sandbox needs Linux.*Docker or WSL 2"):
        Settings(sandbox="full")
    assert Settings().sandbox == "process"
