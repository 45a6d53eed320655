"""The accelerator and its one owner: which files it may open, how the owner is set up, and a real device if any.

The host's device files are found under a root folder, so fake ``/dev/nvidia*``
trees stand in for a GPU host here; the owner's set-up (starting.owner_setup)
is checked without starting it, and the search for its driver's grants with
stand-in owners; Landlock's enforcement of the device rules is checked in a
locked-down subprocess with a stand-in device file; a TPU that cannot be opened
(a device file, but no libtpu) starts the app on a CPU owner; and where this
machine has a real GPU or TPU with its JAX plugin, a real owner opens it (else
that test is skipped, saying why).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import pytest

from playground import messages
from playground.confinement import lockdown
from playground.ipc import bootstrap
from playground.ipc.limits import Limits
from playground.mnist.places import DataPlaces
from playground.server import worker_pools
from playground.server.config import Settings
from playground.server.device_owner import accelerator, device_grants, starting
from playground.server.device_owner.accelerator import NO_DEVICE, Accelerator, DevicePaths
from playground.server.device_owner.handle import DeviceUnavailable
from tests.conftest import HANDLERS, LINUX
from tests.pool_doubles import ScriptedPool

ROOT = Path(__file__).resolve().parent.parent
LANDLOCK = lockdown.probe()["landlock"]
HOST_DEVICE, HOST_WHY = accelerator.detect(Settings.from_env(os.environ).accelerator)
CUDA = device_grants.candidates("cuda")


def _touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith("/"):
            path.mkdir(exist_ok=True)
        else:
            path.touch()


@pytest.fixture
def gpu_host(tmp_path) -> Path:
    """A root folder laid out like a host with two NVIDIA GPUs (and files CUDA does not need)."""
    _touch(tmp_path, "dev/nvidiactl", "dev/nvidia0", "dev/nvidia1", "dev/nvidia-uvm", "dev/nvidia-uvm-tools",
           "dev/nvidia-modeset", "dev/nvidia-caps/nvidia-cap1", "dev/null", "dev/sda",
           "proc/driver/nvidia/", "sys/module/nvidia/", "sys/bus/pci/devices/", "sys/devices/virtual/")
    # Two GPUs and a disk controller on the PCI bus, listed in /sys/bus/pci/devices as links, as sysfs does.
    for address, vendor in (("0000:17:00.0", "0x10de"), ("0000:65:00.0", "0x10de"), ("0000:00:17.0", "0x8086")):
        folder = tmp_path / "sys/devices/pci0000:00" / address
        folder.mkdir(parents=True)
        (folder / "vendor").write_text(vendor + "\n")
        (tmp_path / "sys/bus/pci/devices" / address).symlink_to(folder)
    return tmp_path


# -- the paths: exactly what the device needs, and only what exists ----------------------------------------------


def test_gpu_paths_are_the_nvidia_device_files_and_driver_paths(gpu_host):
    paths = accelerator.device_paths("cuda", str(gpu_host))
    assert [os.path.relpath(p, gpu_host) for p in paths.read_write] == [
        "dev/nvidia-caps/nvidia-cap1", "dev/nvidia-uvm", "dev/nvidia-uvm-tools", "dev/nvidia0", "dev/nvidia1",
        "dev/nvidiactl"]
    assert [os.path.relpath(p, gpu_host) for p in paths.read_only] == [
        "proc/driver/nvidia", "sys/bus/pci/devices", "sys/devices/pci0000:00/0000:17:00.0",
        "sys/devices/pci0000:00/0000:65:00.0", "sys/module/nvidia"]  # the GPUs' own folders, not the disk's


def test_paths_that_do_not_exist_are_left_out(tmp_path):
    _touch(tmp_path, "dev/nvidiactl", "dev/nvidia0")
    paths = accelerator.device_paths("cuda", str(tmp_path))
    assert paths.read_write == (str(tmp_path / "dev/nvidia0"), str(tmp_path / "dev/nvidiactl"))
    assert paths.read_only == ()
    assert accelerator.device_paths("cuda", str(tmp_path / "empty")) == NO_DEVICE
    assert accelerator.device_paths("cpu", str(tmp_path)) == NO_DEVICE


def test_tpu_paths(tmp_path):
    _touch(tmp_path, "dev/accel0", "dev/accel1", "dev/vfio/", "sys/class/accel/")
    paths = accelerator.device_paths("tpu", str(tmp_path))
    assert [os.path.relpath(p, tmp_path) for p in paths.read_write] == ["dev/accel0", "dev/accel1", "dev/vfio"]
    assert [os.path.relpath(p, tmp_path) for p in paths.read_only] == ["sys/class/accel"]


def test_this_hosts_paths_all_exist():
    """The rules the owner would get here name real files only (none at all on a host without the device)."""
    for platform in ("cuda", "tpu"):
        paths = accelerator.device_paths(platform)
        assert all(os.path.exists(p) for p in (*paths.read_write, *paths.read_only)), paths


# -- detection: device files and the JAX plugin, both ---------------------------------------------------------------


def test_gpu_files_without_the_plugin_are_not_used(gpu_host, monkeypatch):
    monkeypatch.setattr(accelerator, "installed_plugin", lambda platform: None)
    device, why = accelerator.detect(True, str(gpu_host))
    assert device is None
    assert "CUDA device files exist, but this venv has no JAX plugin" in why and "JAX_ACCELERATOR=cuda12" in why


def test_gpu_files_with_the_plugin_make_an_accelerator(gpu_host, monkeypatch):
    monkeypatch.setattr(accelerator, "installed_plugin", lambda platform: "jax-cuda13-plugin" if platform == "cuda"
                        else None)
    device, why = accelerator.detect(True, str(gpu_host))
    assert device.platform == "cuda" and device.count == 2
    assert device.paths == accelerator.device_paths("cuda", str(gpu_host))
    assert why == "CUDA (2 devices) through jax-cuda13-plugin"


@pytest.mark.parametrize(("files", "count"), [(("dev/accel0", "dev/accel1", "dev/accel2", "dev/accel3"), 4),
                                              (("dev/vfio/vfio", "dev/vfio/0", "dev/vfio/1"), 2)])
def test_tpu_chips_are_counted_by_their_device_files(tmp_path, monkeypatch, files, count):
    _touch(tmp_path, *files)
    monkeypatch.setattr(accelerator, "installed_plugin", lambda platform: "libtpu" if platform == "tpu" else None)
    device, why = accelerator.detect(True, str(tmp_path))
    assert device.platform == "tpu" and device.count == count and why.endswith("through libtpu")


@pytest.mark.parametrize("env", [{"PLAYGROUND_ACCELERATOR": "off"}, {"PLAYGROUND_ACCELERATOR": "0"},
                                 {"JAX_PLATFORMS": "cpu"}, {"JAX_PLATFORMS": " CPU ", "PLAYGROUND_ACCELERATOR": "1"}])
def test_the_accelerator_can_be_turned_off(gpu_host, monkeypatch, env):
    monkeypatch.setattr(accelerator, "installed_plugin", lambda platform: "jax-cuda13-plugin")
    assert accelerator.detect(Settings.from_env({}).accelerator, str(gpu_host))[0] is not None
    device, why = accelerator.detect(Settings.from_env(env).accelerator, str(gpu_host))
    assert device is None and "PLAYGROUND_ACCELERATOR=off or JAX_PLATFORMS=cpu" in why
    with pytest.raises(ValueError, match="PLAYGROUND_ACCELERATOR must be 1 or 0"):
        Settings.from_env({"PLAYGROUND_ACCELERATOR": "cuda"})


def test_a_host_without_device_files_runs_everything_on_the_cpu(tmp_path):
    device, why = accelerator.detect(True, str(tmp_path))
    assert device is None and why == "no GPU or TPU device files on this host: every job runs on the CPU"


# -- the owner's set-up: its device, its files, its environment (nothing is started) ---------------------------------


def _fake_gpu(count: int) -> Accelerator:
    return Accelerator("cuda", count, DevicePaths(("/dev/nvidia0", "/dev/nvidiactl"), ("/proc/driver/nvidia",)))


def _fake_tpu() -> Accelerator:
    return Accelerator("tpu", 1, DevicePaths(("/dev/vfio/0", "/dev/vfio/vfio"), ("/sys/class/accel",)))


SECRETS = {"HF_TOKEN": "hf_secret", "AWS_SECRET_ACCESS_KEY": "aws_secret"}
TPU_VARIABLES = {"TPU_ACCELERATOR_TYPE": "v5litepod-1", "TPU_WORKER_ID": "0", "TPU_WORKER_HOSTNAMES": "localhost",
                 "TPU_CHIPS_PER_HOST_BOUNDS": "1,1,1", "LIBTPU_INIT_ARGS": "--xla_tpu_enable_log_recorder=false"}


@pytest.fixture
def setup_of(tmp_path):
    """``owner_setup`` as the server calls it (the datasets' cache under tmp_path); each set-up's scratch removed."""
    made = []

    def make(env: dict[str, str], device: Accelerator | None, grants: tuple[str, ...] = ()):
        settings = dataclasses.replace(Settings(), data=DataPlaces(tmp_path / "cache"))
        with mock.patch.dict(os.environ, env):  # the owner's environment is made from the server's
            for name in [name for name in os.environ if name.startswith("TPU_") and name not in env]:
                del os.environ[name]  # this host's own, if any
            setup = starting.owner_setup(settings, device, str(tmp_path / "runs"), grants)
        made.append(setup)
        return setup

    yield make
    for setup in made:
        shutil.rmtree(setup.scratch, ignore_errors=True)


def test_a_cpu_hosts_owner_holds_the_cpu_and_no_device_file(setup_of, tmp_path):
    setup = setup_of(SECRETS, None)
    assert setup.platform == "cpu" and setup.devices == NO_DEVICE and setup.grants == ()
    assert setup.env["JAX_PLATFORMS"] == "cpu"
    assert not set(SECRETS) & set(setup.env)
    # The runs' weights and the compilation cache (made now, so that Landlock can name it) are all it may write.
    assert setup.writable == (str(tmp_path / "runs"), setup.compile_cache) and os.path.isdir(setup.scratch)
    assert os.path.isdir(setup.compile_cache) and setup.compile_cache_mb > 0
    assert "env" not in setup.message()  # its environment is the process's, never a message
    # It reads the datasets where the server's settings put them, and is told where that is.
    assert setup.readable == (str(tmp_path / "cache"),) and setup.message()["data"]["cache"] == str(tmp_path / "cache")


def test_a_gpu_hosts_owner_holds_its_files_and_the_hosts_choice_of_gpus(setup_of):
    setup = setup_of({"CUDA_VISIBLE_DEVICES": "1", **SECRETS}, _fake_gpu(1), ("thread_names", "own_sockets"))
    assert setup.platform == "cuda" and setup.devices == _fake_gpu(1).paths
    assert setup.env["JAX_PLATFORMS"] == "cuda,cpu"  # pinned, every one listed opens or fails: never a quiet CPU
    assert setup.env["CUDA_VISIBLE_DEVICES"] == "1"
    assert setup.grants == ("thread_names", "own_sockets") and setup.message()["grants"] == setup.grants
    assert setup.limits.address_space_mb == 0  # CUDA reserves huge address ranges
    assert not set(SECRETS) & set(setup.env)


@pytest.mark.parametrize("premapped", [None, "1073741824"])
def test_the_tpu_variables_reach_the_owner_and_nothing_else(setup_of, monkeypatch, premapped):
    host = {**TPU_VARIABLES, **SECRETS, **({"TPU_PREMAPPED_BUFFER_SIZE": premapped} if premapped else {})}
    env = setup_of(host, _fake_tpu()).env
    assert env["JAX_PLATFORMS"] == "tpu,cpu"  # the CPU beside it, for the Train tab's race
    assert {name: env.get(name) for name in TPU_VARIABLES} == TPU_VARIABLES  # every TPU_* and LIBTPU_INIT_ARGS
    assert env["TPU_PREMAPPED_BUFFER_SIZE"] == (premapped or "268435456")  # 256 MiB unless the host says
    assert env["TPU_SKIP_MDS_QUERY"] == "1" and env["TPU_LOG_DIR"] == "disabled"
    assert not set(SECRETS) & set(env)
    # The CPU workers: the sandbox's whitelist, and each pool's environment, made from the server's own.
    for name, value in host.items():
        monkeypatch.setenv(name, value)
    from playground.server.pools import ProcessPool

    pools = [ProcessPool(1, Limits(), HANDLERS)]
    if LINUX:
        from playground.server.pools import WorkerPool

        pools.append(WorkerPool(1, Limits(), HANDLERS))
    try:
        for worker_env in (bootstrap.worker_environment(host), *(pool._env for pool in pools)):
            assert not [name for name in worker_env if name.startswith("TPU_") or name == "LIBTPU_INIT_ARGS"]
            assert not set(SECRETS) & set(worker_env)
        assert [pool._env["JAX_PLATFORMS"] for pool in pools] == ["cpu"] * len(pools)
    finally:
        for pool in pools:
            pool.close()


def test_training_runs_at_once_are_one_per_accelerator_device_unless_set():
    def slots(device: Accelerator | None, env: dict | None = None) -> int:
        return worker_pools.training_slots(Settings.from_env(env or {}), device)

    assert slots(None) == 1 and slots(None, {"PLAYGROUND_TRAINING_JOBS": "3"}) == 3  # a CPU: the setting's
    assert slots(_fake_gpu(4)) == 4 and slots(_fake_gpu(40)) == 16
    assert slots(_fake_gpu(4), {"PLAYGROUND_TRAINING_JOBS": "2"}) == 2
    assert slots(_fake_gpu(4), {"PLAYGROUND_TRAINING_JOBS": "1"}) == 1


def test_the_accelerator_pools_settings_are_gone_and_the_owners_memory_is_checked():
    assert not {field.name for field in dataclasses.fields(Settings)} & {"accelerator_workers",
                                                                         "device_memory_fraction"}
    retired = {"PLAYGROUND_ACCELERATOR_WORKERS": "3", "PLAYGROUND_DEVICE_MEMORY_FRACTION": "0.9"}
    assert Settings.from_env(retired) == Settings.from_env({})
    for mb in (1024, 1 << 20):
        assert Settings.from_env({"PLAYGROUND_OWNER_MEMORY_MB": str(mb)}).owner_memory_mb == mb
    for mb in ("1023", "1048577", "0"):
        with pytest.raises(ValueError, match="PLAYGROUND_OWNER_MEMORY_MB must be from 1024 to 1048576"):
            Settings.from_env({"PLAYGROUND_OWNER_MEMORY_MB": mb})
    with pytest.raises(ValueError, match="PLAYGROUND_OWNER_MEMORY_MB must be a whole number"):
        Settings.from_env({"PLAYGROUND_OWNER_MEMORY_MB": "6 GB"})


# -- the search for the driver's grants: one owner started per set, never two at once -------------------------------


@pytest.fixture
def driver(monkeypatch, tmp_path):
    """Stand-in owners (for DeviceOwner) whose device opens with ``driver.needs`` granted (None: with nothing), on
    the CPU always. Records the grants of each start; a second owner started while one is open fails the test."""
    state = SimpleNamespace(needs=set(), started=[], open=[], runs=str(tmp_path / "runs"),
                            settings=dataclasses.replace(Settings(), data=DataPlaces(tmp_path / "cache")))

    class Owner:
        hello = {"about": {"label": "cuda: NVIDIA H200", "devices": ["cuda:0 NVIDIA H200"]}, "layers": {}}

        def __init__(self, setup):
            self.setup = setup
            self.grant_trials = []

        def start(self) -> None:
            assert not state.open, "a second owner started while one held the device"
            if self.setup.platform != "cpu":
                state.started.append(self.setup.grants)
                if state.needs is None or state.needs - set(self.setup.grants):
                    raise DeviceUnavailable(f"CUDA_ERROR_OPERATING_SYSTEM (granted {list(self.setup.grants)})")
            state.open.append(self)

        def close(self) -> None:
            if self in state.open:
                state.open.remove(self)
            shutil.rmtree(self.setup.scratch, ignore_errors=True)

        def status(self) -> dict:
            return {"alive": True, "pid": 42, "restarts": 0, "last_end": None, "resident_mb": 100.0}

    monkeypatch.setattr(starting, "DeviceOwner", Owner)
    yield state
    for owner in list(state.open):
        owner.close()


def test_the_owner_gets_the_smallest_set_that_opens_its_gpu(driver):
    driver.needs = {"thread_names"}
    owner = starting._accelerator_owner(driver.settings, _fake_gpu(1), driver.runs)
    assert owner.setup.grants == ("thread_names",) and driver.open == [owner]
    assert driver.started[:2] == [(), CUDA] and len(driver.started) == len(CUDA) + 2
    assert [trial["opened"] for trial in owner.grant_trials] == [False, True, False, True, True, True]
    assert owner.grant_trials[0]["reason"] == "CUDA_ERROR_OPERATING_SYSTEM (granted [])"
    said = starting.owner_grants(owner)
    assert said == {"grants": device_grants.describe(("thread_names",)), "grants_tried": owner.grant_trials}


def test_where_the_last_set_tried_fails_the_chosen_one_is_started_again(driver):
    driver.needs = set(CUDA)
    owner = starting._accelerator_owner(driver.settings, _fake_gpu(1), driver.runs)
    assert owner.setup.grants == CUDA and driver.open == [owner]
    assert driver.started == [(), CUDA, *[tuple(n for n in CUDA if n != left) for left in CUDA], CUDA]
    assert len(owner.grant_trials) == len(CUDA) + 2  # the sets tried; starting the chosen one again is not one


def test_a_tpu_is_tried_once_and_a_failure_leaves_a_cpu_owner_that_says_why(driver):
    driver.needs = None
    tpu = _fake_tpu()
    owner, unavailable = starting.started_owner(driver.settings, tpu, driver.runs)
    assert driver.started == [()]  # no candidates: one start
    assert owner.setup.platform == "cpu" and driver.open == [owner]
    assert messages.render([unavailable]) == ("the TPU could not be opened inside the sandbox: "
                                              "CUDA_ERROR_OPERATING_SYSTEM (granted [])")
    assert starting.owner_grants(owner) == {"grants": device_grants.describe(()), "grants_tried": []}


def test_about_shows_what_the_driver_was_granted(driver):
    from playground.server.api import PlaygroundAPI
    from playground.server.ui import about_tab

    driver.needs = {"thread_names", "absent_daemons"}
    line = ScriptedPool({"ok": True})
    line.owner = starting._accelerator_owner(driver.settings, _fake_gpu(1), driver.runs)
    runtime = {"ok": True, "python": "3.11.7", "backend": "cpu", "devices": ["TFRT_CPU_0"]}
    api = PlaygroundAPI(ScriptedPool(runtime), Settings(), device_pool=line, accelerator="CUDA (1 device)",
                        accelerator_why="CUDA (1 device) through jax-cuda13-plugin")
    owner = api.about()["sandbox"]["device_owner"]
    assert owner["grants"] == device_grants.describe(("thread_names", "absent_daemons"))
    assert [trial["grants"] for trial in owner["grants_tried"]][:2] == [[], list(CUDA)]
    text = about_tab.to_markdown(api.about())
    assert ("**What its driver needed beyond its device files** (found at start-up, for the owner only): landlock: "
            "write to the files beneath its own /proc/self/task") in text


# -- Landlock: the owner may open its device's files; a process given none may not ----------------------------------


CHILD = textwrap.dedent("""
    import json, os, sys
    from playground.confinement import lockdown
    from playground.ipc.limits import Limits

    scratch, device_file, driver_dir, give = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "give"
    devices = {"read_write": [device_file], "read_only": [driver_dir]} if give else None
    layers = lockdown.apply(Limits(), scratch, devices=devices)
    results = {}

    def attempt(name, action):
        try:
            action()
            results[name] = "allowed"
        except PermissionError:
            results[name] = "denied"

    def open_device():
        with open(device_file, "r+b") as f:
            f.write(b"x")

    def read_driver():
        with open(os.path.join(driver_dir, "version")) as f:
            f.read()

    def write_driver():
        with open(os.path.join(driver_dir, "version"), "w") as f:
            f.write("x")

    attempt("open_device", open_device)
    attempt("read_driver", read_driver)
    attempt("write_driver", write_driver)
    print(json.dumps({"landlock": layers["landlock"], "results": results}))
""")


def _locked_child(tmp_path: Path, give: bool) -> dict:
    scratch, device_file, driver_dir = tmp_path / "scratch", tmp_path / "nvidia0", tmp_path / "driver"
    scratch.mkdir(exist_ok=True)
    device_file.touch()
    driver_dir.mkdir(exist_ok=True)
    (driver_dir / "version").write_text("NVRM version: 580.65.06")
    done = subprocess.run([sys.executable, "-c", CHILD, str(scratch), str(device_file), str(driver_dir),
                           "give" if give else "keep"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not LANDLOCK["active"], reason=f"Landlock unavailable: {LANDLOCK['detail']}")
def test_landlock_opens_the_device_files_only_for_a_process_given_them(tmp_path):
    given = _locked_child(tmp_path, give=True)
    assert given["results"] == {"open_device": "allowed", "read_driver": "allowed", "write_driver": "denied"}
    assert "the accelerator's 1 device files read-write and its 1 driver paths read-only" in \
        given["landlock"]["detail"]
    kept = _locked_child(tmp_path, give=False)
    assert kept["results"] == {"open_device": "denied", "read_driver": "denied", "write_driver": "denied"}
    assert "device files" not in kept["landlock"]["detail"]


def test_no_device_path_is_readable_by_default():
    """A CPU worker's rules name no GPU or TPU file: those come only with the owner's ``devices``."""
    for path in lockdown.readable_paths():
        assert not path.startswith(("/dev/nvidia", "/proc/driver", "/dev/accel", "/dev/vfio")), path


# -- a real device, where this host has one ---------------------------------------------------------------------


@pytest.mark.skipif(HOST_DEVICE is None, reason=f"no accelerator to open here: {HOST_WHY}")
@pytest.mark.slow  # a real device owner
def test_the_owner_opens_the_hosts_device_inside_the_sandbox(tmp_path):
    (tmp_path / "runs").mkdir()
    owner = starting._accelerator_owner(Settings(), dict(os.environ), HOST_DEVICE, str(tmp_path / "runs"))
    try:
        print("grants found:", owner.setup.grants, owner.grant_trials)
        assert owner.hello["backend"] != "cpu", owner.hello
        assert owner.hello["layers"]["landlock"]["active"] == LANDLOCK["active"]
    finally:
        owner.close()


# -- a device that cannot be opened: said, never taken for the accelerator ----------------------------------------


def _unopenable_tpu(tmp_path: Path) -> Accelerator:
    """A TPU as the server would see one (a device file, the plugin): JAX here has no libtpu, so none opens."""
    (tmp_path / "accel0").touch()
    return Accelerator("tpu", 1, DevicePaths((str(tmp_path / "accel0"),), ()))


@pytest.mark.slow  # a real device owner and real worker pools
@pytest.mark.parametrize("sandbox", ["full", "process"])
def test_a_device_that_cannot_be_opened_leaves_its_jobs_on_the_cpu_and_says_why(tmp_path, monkeypatch, sandbox):
    from playground.server.api import PlaygroundAPI, final
    from playground.server.ui import about_tab, jit_tab

    if sandbox == "full" and not LINUX:
        pytest.skip("the full sandbox is Linux's")
    tpu = _unopenable_tpu(tmp_path)
    monkeypatch.setattr(worker_pools, "detect", lambda wanted: (tpu, "TPU (1 device) through libtpu"))
    settings = Settings(sandbox=sandbox, workers=1, parallel_workers=1, data=DataPlaces(tmp_path / "cache"))
    (tmp_path / "runs").mkdir()
    started = []
    try:
        pools = worker_pools.start(settings, str(tmp_path / "runs"), started=started.append)
        assert started[0] is pools.owner and pools.owner.setup.platform == "cpu"  # the TPU's owner was ended
        assert pools.accelerator is None and pools.unavailable is not None
        api = PlaygroundAPI.from_pools(pools, settings)
        about = api.about()
        unavailable = about["accelerator"]["unavailable"]
        assert unavailable.startswith("the TPU could not be opened inside the sandbox: RuntimeError: Unable to "
                                      "initialize backend 'tpu'"), unavailable  # JAX's own reason
        assert about["accelerator"]["device"] is None
        assert about["accelerator"]["why"] == f"{unavailable}; the jobs that measure run on the CPU"
        assert about["sandbox"]["device_owner"]["platform"] == "cpu"
        assert about["sandbox"]["pool"]["backend"] == "cpu" and about["backend"] == "cpu"
        assert "the TPU could not be opened inside the sandbox" in about_tab.to_markdown(about)
        # The jit tab's job was measured on the CPU owner, and its page says so; a CPU job of Inspect's does not.
        reply = final(api.jit_speed("def f(x):\n    return x * 2\n", [8], 1))
        assert reply["ok"] and reply["device"].startswith("cpu"), reply
        assert reply["device_fallback"] == f"**Measured on the CPU**, not the accelerator: {unavailable}."
        assert "Auf der CPU gemessen" in jit_tab.render(reply, "de")[0]
        inspected = final(api.inspect("def f(x):\n    return x + 1\n", "1.0"))
        assert inspected["ok"] and "device_fallback" not in inspected
    finally:
        for each in reversed(started):
            each.close()
