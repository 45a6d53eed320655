"""The device owner as the server keeps it (server/device_owner/handle.py): a real owner process on this host's CPU,
its device open once; a request that never ends, memory past its limit, and a death each end it with their
reason, and a new one serves the next session; an owner that cannot open its device says JAX's reason."""

from __future__ import annotations

import base64
import os
import resource
import signal
import time

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from playground import device_ops
from playground.ipc import procfs
from playground.ipc.bootstrap import worker_environment
from playground.ipc.limits import Limits
from playground.server.device_owner.handle import DeviceOwner, DeviceUnavailable, OwnerSetup
from playground.server.device_owner.sessions import OwnerLost
from tests.conftest import SANDBOX

pytestmark = pytest.mark.slow  # real owner processes: make test-quick leaves it out
WAIT_S = 60.0


def _owner(tmp_path, platform: str = "cpu", memory_mb: int = 4096) -> DeviceOwner:
    scratch = tmp_path / "owner"
    scratch.mkdir()
    limits = Limits(cpu_s=resource.RLIM_INFINITY, address_space_mb=0, file_size_mb=1024, open_files=4096)
    return DeviceOwner(OwnerSetup(platform, SANDBOX, str(scratch), limits, memory_mb,
                                  worker_environment(dict(os.environ), {"JAX_PLATFORMS": platform})))


@pytest.fixture
def owner(tmp_path):
    made = _owner(tmp_path)
    made.start()
    yield made
    made.close()


def _program(function, *specs) -> str:
    return base64.b64encode(jax.export.export(jax.jit(function), platforms=("cpu",))(*specs).serialize()).decode()


def _next_owner(owner: DeviceOwner, restarts: int) -> None:
    deadline = time.monotonic() + WAIT_S
    while (owner.restarts <= restarts or not owner.alive()) and time.monotonic() < deadline:
        owner.wait_ready(0.2)
        time.sleep(0.05)
    assert owner.restarts > restarts and owner.alive(), owner.status()


def test_the_owner_opens_its_device_once_and_serves_sessions(owner):
    assert owner.hello["about"]["devices"] == ["cpu:0 cpu"] and owner.hello["backend"] == "cpu"
    assert owner.status()["pid"] not in (None, os.getpid()) and owner.status()["resident_mb"] > 0
    if SANDBOX == "full":
        assert set(owner.hello["layers"]) >= {"rlimits", "landlock", "seccomp"}
    session = owner.open_session()
    loaded = owner.ask(session, {"op": "load", "program": _program(lambda x: x + 1, jax.ShapeDtypeStruct(
        (3,), jnp.float32))}, WAIT_S)
    [x] = owner.ask(session, {"op": "put", "arrays": [device_ops.encode_array(np.arange(3.0, dtype=np.float32))]},
                    WAIT_S)["buffers"]
    out = owner.ask(session, {"op": "call", "call": {"program": loaded["program"], "args": [x]}}, WAIT_S)
    back = owner.ask(session, {"op": "fetch", "buffers": out["buffers"]}, WAIT_S)["arrays"][0]
    assert device_ops.decode_array(back).tolist() == [1.0, 2.0, 3.0]
    owner.close_session(session)


def test_a_request_that_never_ends_is_killed_with_its_owner_and_the_next_session_runs(owner):
    first_pid = owner.status()["pid"]
    session = owner.open_session()

    def endless(x):
        return jax.lax.while_loop(lambda c: c[0] > -1.0, lambda c: c + 1.0, x)

    loaded = owner.ask(session, {"op": "load", "program": _program(endless, jax.ShapeDtypeStruct((2,), jnp.float32))},
                       WAIT_S)
    [x] = owner.ask(session, {"op": "put", "arrays": [device_ops.encode_array(np.zeros(2, np.float32))]},
                    WAIT_S)["buffers"]
    with pytest.raises(OwnerLost) as lost:
        owner.ask(session, {"op": "call", "call": {"program": loaded["program"], "args": [x]}}, 2.0)
    assert lost.value.kind == "timeout" and lost.value.piece == ["device.timeout", {"seconds": "2"}]
    owner.close_session(session)  # a session of the owner that ended: nothing to close, no error
    _next_owner(owner, 0)
    assert owner.status()["pid"] != first_pid and owner.last_end == "killed (timeout)"
    again = owner.open_session()
    assert owner.ask(again, {"op": "about"}, WAIT_S)["platform"] == "cpu"


def test_memory_past_the_owners_limit_ends_it_and_says_how_much(tmp_path):
    owner = _owner(tmp_path, memory_mb=1024)
    owner.start()
    try:
        session = owner.open_session()
        fill = device_ops.encode_array(np.zeros((2, 1), np.float32))
        fill["shape"] = [400_000_000]  # 1.6 GB of one value, made in the owner
        with pytest.raises(OwnerLost) as lost:
            owner.ask(session, {"op": "put", "arrays": [fill]}, WAIT_S)  # killed while it fills them, or just after:
            _next_owner(owner, 0)
            owner.ask(session, {"op": "about"}, WAIT_S)  # then its session is gone with it
        assert lost.value.kind == "memory" and lost.value.piece[0] == "device.memory", lost.value.piece
        assert int(lost.value.piece[1]["held"].replace(",", "")) > 1024 and lost.value.piece[1]["limit"] == "1,024"
        _next_owner(owner, 0)
        assert owner.last_end == "killed (memory)"
        assert owner.ask(owner.open_session(), {"op": "about"}, WAIT_S)["label"] == "cpu"
    finally:
        owner.close()


def test_an_owner_that_dies_is_started_again_and_says_how_it_ended(owner):
    session = owner.open_session()
    os.kill(owner.status()["pid"], signal.SIGKILL)
    _next_owner(owner, 0)
    assert owner.last_end == "killed by SIGKILL"
    with pytest.raises(OwnerLost) as lost:
        owner.ask(session, {"op": "about"}, WAIT_S)
    assert lost.value.kind == "crashed"
    assert owner.ask(owner.open_session(), {"op": "about"}, WAIT_S)["label"] == "cpu"


def test_an_owner_that_cannot_open_its_device_says_jaxs_reason(tmp_path):
    owner = _owner(tmp_path, platform="tpu")  # this host's JAX has no TPU
    with pytest.raises(DeviceUnavailable, match="tpu"):
        owner.start()
    owner.close()
    assert not owner.alive()


def test_the_owners_scratch_folder_goes_with_it(tmp_path):
    owner = _owner(tmp_path)
    owner.start()
    assert os.path.isdir(owner.setup.scratch)
    owner.close()
    assert not os.path.exists(owner.setup.scratch)
    assert procfs.sample(owner.status()["pid"] or 0) is None


_UNPRIVILEGED_SERVER = """
import os, resource, sys
from playground.server.device_owner.handle import DeviceOwner, OwnerSetup
from playground.ipc.bootstrap import worker_environment
from playground.ipc.limits import Limits
limits = Limits(cpu_s=resource.RLIM_INFINITY, address_space_mb=0, file_size_mb=1024, open_files=4096)
owner = DeviceOwner(OwnerSetup("cpu", sys.argv[1], sys.argv[2], limits, 4096,
                               worker_environment(dict(os.environ), {"JAX_PLATFORMS": "cpu"})))
owner.start()
try:
    try:
        with open(f"/proc/{owner.status()['pid']}/smaps", "rb") as smaps:
            smaps.read()
        by_path = "readable"
    except PermissionError:
        by_path = "closed"
    print(owner.status()["resident_mb"], by_path)
finally:
    owner.close()
"""


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to drop to another uid")
def test_a_server_without_root_reads_the_undumpable_owners_memory_through_the_smaps_it_handed_over(tmp_path):
    """An undumpable process's /proc files belong to root: a server without root (a Space, a TPU host) cannot open
    them, and reads the owner's memory from the /proc/self/smaps the owner opened and sent it (owner/main.py)."""
    import subprocess
    import sys

    from tests.conftest import ROOT, drop_privileges

    folder = tmp_path / "server"
    folder.mkdir()
    (folder / "owner").mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = drop_privileges([sys.executable, "-c", _UNPRIVILEGED_SERVER, SANDBOX, str(folder / "owner")], env,
                              folder)
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, cwd=folder)
    assert done.returncode == 0, done.stderr[-3000:]
    resident, by_path = done.stdout.split()
    assert by_path == "closed" and float(resident) > 50  # an interpreter with JAX imported
