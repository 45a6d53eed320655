"""The accelerator in the sandbox: which files its workers may open, which pools exist, and a real device if any.

The host's device files are found under a root folder, so fake ``/dev/nvidia*``
trees stand in for a GPU host here; Landlock's enforcement of the device rules
is checked in a locked-down subprocess with a stand-in device file; and where
this machine has a real GPU or TPU with its JAX plugin, a real worker opens it
(else that test is skipped, saying why).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from playground.sandbox import Limits, WorkerPool, accelerator, lockdown
from playground.sandbox.accelerator import NO_DEVICE, Accelerator, DevicePaths
from playground.server import worker_pools
from playground.server.config import Settings
from tests.conftest import HANDLERS

ROOT = Path(__file__).resolve().parent.parent
LANDLOCK = lockdown.probe()["landlock"]
HOST_DEVICE, HOST_WHY = accelerator.detect(dict(os.environ))


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
    """The rules a worker would get here name real files only (none at all on a host without the device)."""
    for platform in ("cuda", "tpu"):
        paths = accelerator.device_paths(platform)
        assert all(os.path.exists(p) for p in (*paths.read_write, *paths.read_only)), paths


# -- detection: device files and the JAX plugin, both ---------------------------------------------------------------


def test_gpu_files_without_the_plugin_are_not_used(gpu_host, monkeypatch):
    monkeypatch.setattr(accelerator, "installed_plugin", lambda platform: None)
    device, why = accelerator.detect({}, str(gpu_host))
    assert device is None
    assert "CUDA device files exist, but this venv has no JAX plugin" in why and "JAX_ACCELERATOR=cuda12" in why


def test_gpu_files_with_the_plugin_make_an_accelerator(gpu_host, monkeypatch):
    monkeypatch.setattr(accelerator, "installed_plugin", lambda platform: "jax-cuda13-plugin" if platform == "cuda"
                        else None)
    device, why = accelerator.detect({}, str(gpu_host))
    assert device.platform == "cuda" and device.count == 2
    assert device.paths == accelerator.device_paths("cuda", str(gpu_host))
    assert why == "CUDA (2 devices) through jax-cuda13-plugin"


@pytest.mark.parametrize(("files", "count"), [(("dev/accel0", "dev/accel1", "dev/accel2", "dev/accel3"), 4),
                                              (("dev/vfio/vfio", "dev/vfio/0", "dev/vfio/1"), 2)])
def test_tpu_chips_are_counted_by_their_device_files(tmp_path, monkeypatch, files, count):
    _touch(tmp_path, *files)
    monkeypatch.setattr(accelerator, "installed_plugin", lambda platform: "libtpu" if platform == "tpu" else None)
    device, why = accelerator.detect({}, str(tmp_path))
    assert device.platform == "tpu" and device.count == count and why.endswith("through libtpu")


@pytest.mark.parametrize("env", [{"PLAYGROUND_ACCELERATOR": "off"}, {"PLAYGROUND_ACCELERATOR": "0"},
                                 {"JAX_PLATFORMS": "cpu"}])
def test_the_accelerator_can_be_turned_off(gpu_host, monkeypatch, env):
    monkeypatch.setattr(accelerator, "installed_plugin", lambda platform: "jax-cuda13-plugin")
    device, why = accelerator.detect(env, str(gpu_host))
    assert device is None and ("PLAYGROUND_ACCELERATOR=off" in why or "JAX_PLATFORMS=cpu" in why)


def test_a_host_without_device_files_runs_everything_on_the_cpu(tmp_path):
    device, why = accelerator.detect({}, str(tmp_path))
    assert device is None and why == "no GPU or TPU device files on this host: every job runs on the CPU"


# -- the pools for a host ---------------------------------------------------------------------------------------------


@pytest.fixture
def close_pools():
    made = []
    yield made.append
    for pools in made:
        for pool in pools.all():
            pool.close()


def test_a_cpu_host_has_one_pool_for_the_sandbox_and_the_accelerator_jobs(monkeypatch, close_pools):
    monkeypatch.setattr(worker_pools, "detect", lambda env: (None, "no GPU or TPU device files on this host"))
    pools = worker_pools.build(Settings(), {})
    close_pools(pools)
    assert pools.accelerator is pools.sandbox and pools.device is None and len(pools.all()) == 2
    assert pools.sandbox.devices == NO_DEVICE and pools.parallel.devices == NO_DEVICE
    assert pools.sandbox._env["JAX_PLATFORMS"] == pools.parallel._env["JAX_PLATFORMS"] == "cpu"
    assert worker_pools.training_env(Settings(), pools, {"A": "1"}) == {"A": "1"}
    assert worker_pools.training_slots(Settings(), pools, {}) == 1


def _fake_gpu(count: int) -> Accelerator:
    return Accelerator("cuda", count, DevicePaths(("/dev/nvidia0", "/dev/nvidiactl"), ("/proc/driver/nvidia",)))


def test_a_gpu_host_keeps_the_cpu_jobs_off_the_device_and_bounds_its_memory(monkeypatch, close_pools):
    monkeypatch.setattr(worker_pools, "detect", lambda env: (_fake_gpu(1), "CUDA (1 device) through a plugin"))
    settings = Settings(accelerator_workers=2, device_memory_fraction=0.6)
    pools = worker_pools.build(settings, {})
    close_pools(pools)
    assert len(pools.all()) == 3
    assert pools.sandbox.devices == NO_DEVICE and pools.sandbox._env["JAX_PLATFORMS"] == "cpu"
    assert pools.accelerator.devices == _fake_gpu(1).paths
    assert pools.accelerator.platform == pools.accelerator._env["JAX_PLATFORMS"] == "cuda"  # pinned: never a quiet CPU
    assert pools.accelerator._env["CUDA_CACHE_DISABLE"] == "1"  # a cache would only fill each new worker's scratch
    assert pools.accelerator._env["XLA_PYTHON_CLIENT_MEM_FRACTION"] == "0.300"  # 0.6 shared by 2 workers
    assert pools.accelerator._env["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"
    assert pools.accelerator.limits.address_space_mb == 0  # CUDA reserves huge address ranges
    assert pools.sandbox.limits == settings.limits
    # One GPU: the Parallel tab keeps its simulated CPU devices.
    assert pools.parallel.devices == NO_DEVICE and pools.parallel._env["JAX_PLATFORMS"] == "cpu"
    assert pools.parallel._env["JAX_NUM_CPU_DEVICES"] == str(settings.cpu_devices)
    # Training gets what the workers leave, less room for each process's CUDA context.
    assert worker_pools.training_env(settings, pools, {})["XLA_PYTHON_CLIENT_MEM_FRACTION"] == "0.300"


def test_several_gpus_give_the_parallel_tab_real_devices_within_the_same_share(monkeypatch, close_pools):
    monkeypatch.setattr(worker_pools, "detect", lambda env: (_fake_gpu(4), "CUDA (4 devices)"))
    pools = worker_pools.build(Settings(accelerator_workers=1, parallel_workers=1), {})
    close_pools(pools)
    assert pools.parallel.devices == _fake_gpu(4).paths and pools.parallel._env["JAX_PLATFORMS"] == "cuda"
    for pool in (pools.accelerator, pools.parallel):
        assert pool._env["XLA_PYTHON_CLIENT_MEM_FRACTION"] == "0.250"  # the default 0.5, over two workers
    # One training slot per device, unless the variable says otherwise.
    assert worker_pools.training_slots(Settings(), pools, {}) == 4
    assert worker_pools.training_slots(Settings(training_jobs=2), pools, {"PLAYGROUND_TRAINING_JOBS": "2"}) == 2


@pytest.mark.parametrize(("variable", "value"), [("PLAYGROUND_DEVICE_MEMORY_FRACTION", "0.95"),
                                                 ("PLAYGROUND_DEVICE_MEMORY_FRACTION", "nan"),
                                                 ("PLAYGROUND_ACCELERATOR_WORKERS", "0")])
def test_accelerator_settings_are_checked(variable, value):
    with pytest.raises(ValueError, match=variable):
        Settings.from_env({variable: value})


# -- Landlock: a worker holding the device may open its files, no other worker may ----------------------------------


CHILD = textwrap.dedent("""
    import json, os, sys
    from playground.sandbox import lockdown
    from playground.sandbox.limits import Limits

    scratch, device_file, driver_dir, give = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "give"
    devices = {"read_write": [device_file], "read_only": [driver_dir]} if give else None
    layers = lockdown.apply(Limits(), scratch, devices)
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
def test_landlock_opens_the_device_files_only_for_a_worker_given_them(tmp_path):
    given = _locked_child(tmp_path, give=True)
    assert given["results"] == {"open_device": "allowed", "read_driver": "allowed", "write_driver": "denied"}
    assert "the accelerator's 1 device files read-write and its 1 driver paths read-only" in \
        given["landlock"]["detail"]
    kept = _locked_child(tmp_path, give=False)
    assert kept["results"] == {"open_device": "denied", "read_driver": "denied", "write_driver": "denied"}
    assert "device files" not in kept["landlock"]["detail"]


def test_no_device_path_is_readable_by_default():
    """A CPU worker's rules name no GPU or TPU file: those come only with the accelerator pool's ``devices``."""
    for path in lockdown.readable_paths():
        assert not path.startswith(("/dev/nvidia", "/proc/driver", "/dev/accel", "/dev/vfio")), path


# -- a real device, where this host has one ---------------------------------------------------------------------


@pytest.mark.skipif(HOST_DEVICE is None, reason=f"no accelerator to open here: {HOST_WHY}")
@pytest.mark.slow  # a real worker pool
def test_a_worker_given_the_device_opens_it_inside_the_sandbox():
    pool = WorkerPool(1, Limits(address_space_mb=0, timeout_s=60.0), HANDLERS, devices=HOST_DEVICE.paths,
                      platform=HOST_DEVICE.platform, extra_env={"XLA_PYTHON_CLIENT_MEM_FRACTION": "0.2",
                                                                **accelerator.worker_env(HOST_DEVICE.platform)})
    pool.start()
    try:
        print("grants found:", pool.grants, pool.grant_trials)
        about = pool.run({"kind": "about"})
        assert about["ok"] and about["backend"] != "cpu", about
        assert pool.status()["backend"] == about["backend"]
        job = {"kind": "inspect", "code": "def f(x):\n    return jnp.sin(x) * x + 3\n", "args": "jnp.ones(8)",
               "static_argnums": [], "second_args": "", "on_accelerator": True}
        inspected = pool.run(job)
        assert inspected["ok"] and not inspected["device"].startswith("cpu"), inspected
        assert pool.layers["landlock"]["active"] == LANDLOCK["active"]
    finally:
        pool.close()


# -- a device that cannot be opened inside the sandbox: said, never taken for the accelerator ----------------------


def _unopenable_tpu(tmp_path: Path) -> Accelerator:
    """A TPU as the server would see one (a device file, the plugin): JAX here has no libtpu, so none opens."""
    (tmp_path / "accel0").touch()
    return Accelerator("tpu", 1, DevicePaths((str(tmp_path / "accel0"),), ()))


@pytest.mark.slow  # a real worker pool
@pytest.mark.parametrize("sandbox", ["full", "process"])
def test_a_device_that_cannot_be_opened_leaves_its_jobs_on_the_cpu_and_says_why(tmp_path, monkeypatch, sandbox):
    from playground.server.api import PlaygroundAPI, final
    from playground.server.ui import about_tab, jit_tab

    if sandbox == "full" and not sys.platform.startswith("linux"):
        pytest.skip("the full sandbox is Linux's")
    tpu = _unopenable_tpu(tmp_path)
    monkeypatch.setattr(worker_pools, "detect", lambda env: (tpu, "TPU (1 device) through libtpu"))
    settings = Settings(sandbox=sandbox, workers=1, parallel_workers=1)
    started = []
    pools = worker_pools.start(settings, {}, started=started.append)
    try:
        assert pools.device is None and pools.accelerator is pools.sandbox
        assert [pool.platform for pool in started] == ["cpu", "cpu"]  # the failed pool was closed, not kept
        api = PlaygroundAPI.from_pools(pools, settings)
        about = api.about()
        unavailable = about["accelerator"]["unavailable"]
        assert unavailable.startswith("the TPU could not be opened inside the sandbox: RuntimeError: Unable to "
                                      "initialize backend 'tpu'"), unavailable  # JAX's own reason
        assert about["accelerator"]["device"] is None and about["accelerator"]["jobs"] == []
        assert about["accelerator"]["why"] == f"{unavailable}; every job runs on the CPU"
        assert about["sandbox"]["accelerator_pool"] is None
        assert about["sandbox"]["pool"]["backend"] == "cpu" and about["backend"] == "cpu"
        assert "the TPU could not be opened inside the sandbox" in about_tab.to_markdown(about)
        # The jit tab's job ran on the CPU pool, and its page says so; a CPU job of Inspect's does not.
        reply = final(api.jit_speed("def f(x):\n    return x * 2\n", [8], 1))
        assert reply["ok"] and reply["device"] == "cpu", reply
        assert reply["device_fallback"] == f"**Measured on the CPU**, not the accelerator: {unavailable}."
        assert "Auf der CPU gemessen" in jit_tab.render(reply, "de")[0]
        inspected = final(api.inspect("def f(x):\n    return x + 1\n", "1.0"))
        assert inspected["ok"] and "device_fallback" not in inspected
    finally:
        for pool in pools.all():
            pool.close()


@pytest.mark.slow  # a real worker pool
@pytest.mark.parametrize("namespaces", [True, False])
def test_without_namespaces_a_gpu_that_cannot_compile_says_why(tmp_path, namespaces):
    """No private scratch folder: the grant to start ptxas is withheld, and the reason says so (JAX's follows)."""
    from playground.sandbox.device_grants import NEED_PRIVATE_SCRATCH, candidates
    from playground.sandbox.warm_pool import DeviceUnavailable

    if namespaces and os.geteuid() != 0:
        pytest.skip("namespaces (a private scratch folder) need root")
    (tmp_path / "nvidia0").touch()
    pool = WorkerPool(1, Limits(address_space_mb=0), HANDLERS, devices=DevicePaths((str(tmp_path / "nvidia0"),), ()),
                      platform="cuda", namespaces=namespaces)
    with pytest.raises(DeviceUnavailable) as failed:
        pool.start()
    said = str(failed.value)
    assert "JAX opened no backend for JAX_PLATFORMS='cuda'" in said  # the warm-up's reason (no CUDA plugin here)
    assert (NEED_PRIVATE_SCRATCH["compiler_programs"] in said) is not namespaces, said
    assert [trial["grants"] for trial in pool.grant_trials] == [[], list(candidates("cuda"))]


@pytest.mark.slow  # a real worker pool
def test_a_worker_gone_before_the_pool_holds_it_still_says_why(tmp_path, monkeypatch):
    """A worker whose warm-up fails can end, and be reaped by the template, before the pool has its handle (a full
    run met it when the pool opened the pidfd itself: ProcessLookupError out of pool.start). Its reason still
    reaches the caller."""
    from playground.sandbox.template_link import TemplateLink
    from playground.sandbox.warm_pool import DeviceUnavailable

    real_spawn = TemplateLink.spawn

    def once_reaped(link, request, fds):
        child = real_spawn(link, request, fds)
        deadline = time.monotonic() + 60
        while os.path.exists(f"/proc/{child.pid}") and time.monotonic() < deadline:
            time.sleep(0.05)
        return child

    monkeypatch.setattr(TemplateLink, "spawn", once_reaped)
    (tmp_path / "nvidia0").touch()
    pool = WorkerPool(1, Limits(address_space_mb=0), HANDLERS, devices=DevicePaths((str(tmp_path / "nvidia0"),), ()),
                      platform="cuda", namespaces=False)
    with pytest.raises(DeviceUnavailable, match="JAX opened no backend for JAX_PLATFORMS='cuda'"):
        pool.start()
    assert [trial["opened"] for trial in pool.grant_trials] == [False, False]


def test_a_worker_whose_jax_opened_another_backend_is_refused():
    from playground.sandbox.warm_pool import WarmUpFailed, WorkerRefused

    pool = WorkerPool(1, Limits(), HANDLERS, platform="cuda")
    try:
        hello = {"ready": True, "backend": {"backend": "cpu", "devices": ["cpu:0 cpu"]}}
        with pytest.raises(WorkerRefused, match="its JAX opened 'cpu', not 'gpu'"):
            pool._checked_hello(hello)
        with pytest.raises(WarmUpFailed, match="CUDA_ERROR_OPERATING_SYSTEM"):
            pool._checked_hello({"ready": False, "warm_up_failed": "RuntimeError: CUDA_ERROR_OPERATING_SYSTEM"})
        assert pool._checked_hello({**hello, "backend": {"backend": "gpu", "devices": []}})["ready"]
    finally:
        pool.close()


# -- running out of device memory ----------------------------------------------------------------------------------


def _exhausted():
    """A real XLA RESOURCE_EXHAUSTED: more memory than this process may map (its address space is capped here)."""
    import jax.numpy as jnp

    try:
        jnp.zeros((1 << 40,), jnp.float32).block_until_ready()
    except Exception as exc:  # noqa: BLE001 - the test wants whatever JAX raises
        return exc
    pytest.skip("a 4 TB array was allocated: no RESOURCE_EXHAUSTED to test with")


def test_device_memory_errors_name_the_jobs_share(monkeypatch):
    from playground.worker import user_errors

    exc = _exhausted()
    assert user_errors.classify(exc) == "memory", exc
    monkeypatch.setenv("XLA_PYTHON_CLIENT_MEM_FRACTION", "0.25")
    monkeypatch.setattr(user_errors, "_accelerator_backend", lambda: True)
    message = user_errors.error_result(exc)["error"]["message"]
    assert message.startswith("Out of device memory: each job here may use 25% of the accelerator's memory")
    monkeypatch.setattr(user_errors, "_accelerator_backend", lambda: False)
    assert user_errors.error_result(exc)["error"]["message"].startswith("Out of memory: the sandbox gives each job")
