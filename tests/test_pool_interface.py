"""JobPool (playground/server/pools/pool_interface.py): the real pools and every test's stand-in pool have its members.

Each pool here, real or a double, is checked the same way: an instance of the
runtime-checkable Protocol; each data member there, of its type; each method
there and taking the Protocol's calls (the same parameters, in the same places,
with the same defaults; more only with a default). A double that drifts from
the real pools' interface fails here, not by quietly testing another one.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import typing

import pytest

from playground.ipc.limits import Limits
from playground.server.pools import JobPool
from tests.conftest import HANDLERS
from tests.pool_doubles import ScriptedPool

DATA = typing.get_type_hints(JobPool)  # name -> type
METHODS = sorted(name for name, value in vars(JobPool).items() if callable(value) and not name.startswith("_"))

# Every stand-in pool the tests use, by where it is: (module, class, arguments to make one).
DOUBLES = {
    "conftest.OnePool": ("tests.conftest", "OnePool", ({"ok": True},)),
    "test_api.RecordingPool": ("tests.test_api", "RecordingPool", ()),
    "test_job_runner.FakePool": ("tests.test_job_runner", "FakePool", ({"ok": True},)),
    "test_ui.FakePool": ("tests.test_ui", "FakePool", ()),
    "test_parallel_tab.InProcessPool": ("tests.test_parallel_tab", "InProcessPool", ()),
    "pool_doubles.ScriptedPool": ("tests.pool_doubles", "ScriptedPool", ()),
}
REAL = {
    "WorkerPool": pytest.param("WorkerPool", marks=pytest.mark.skipif(
        not sys.platform.startswith("linux"), reason="the full sandbox's pool is Linux only")),
    "ProcessPool": "ProcessPool",
}
P = inspect.Parameter
_POSITIONAL = (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)


def signature_problems(name: str, wanted: inspect.Signature, got: inspect.Signature) -> list[str]:
    """Why a method with signature ``got`` (bound: no self) cannot take every call that ``wanted`` (bound) allows."""
    problems = []
    positional = [p.name for p in got.parameters.values() if p.kind in _POSITIONAL]
    for index, want in enumerate(wanted.parameters.values()):
        have = got.parameters.get(want.name)
        if have is None:
            problems.append(f"{name}() has no parameter {want.name!r}")
            continue
        if want.kind in _POSITIONAL and (have.kind not in _POSITIONAL or positional.index(have.name) != index):
            problems.append(f"{name}() does not take {want.name!r} as positional argument {index + 1}")
        if want.kind is P.POSITIONAL_OR_KEYWORD and have.kind is P.POSITIONAL_ONLY:
            problems.append(f"{name}() does not take {want.name!r} by name")
        if want.default is not P.empty and have.default is P.empty:
            problems.append(f"{name}() has no default for {want.name!r} (the Protocol's: {want.default!r})")
        elif want.default is not P.empty and have.default != want.default:
            problems.append(f"{name}() gives {want.name!r} the default {have.default!r}, not {want.default!r}")
    for have in got.parameters.values():
        if have.name not in wanted.parameters and have.kind not in (P.VAR_POSITIONAL, P.VAR_KEYWORD) \
                and have.default is P.empty:
            problems.append(f"{name}() needs {have.name!r}, which the server never passes")
    return problems


def interface_problems(pool: object) -> list[str]:
    """What ``pool`` lacks of JobPool, or has differently: nothing for a pool the server can use."""
    problems = [] if isinstance(pool, JobPool) else [f"{type(pool).__name__} is not a JobPool"]
    for name, kind in DATA.items():
        if not hasattr(pool, name):
            problems.append(f"no {name}")
        elif not isinstance(getattr(pool, name), typing.get_origin(kind) or kind):
            problems.append(f"{name} is a {type(getattr(pool, name)).__name__}, not {kind}")
    for name in METHODS:
        method = getattr(pool, name, None)
        if not callable(method):
            problems.append(f"no method {name}()")
            continue
        if getattr(type(pool), name, None) is getattr(JobPool, name):
            problems.append(f"{name}() is the Protocol's own stub, not the pool's")
        wanted = inspect.signature(getattr(JobPool, name))
        wanted = wanted.replace(parameters=list(wanted.parameters.values())[1:])  # less self
        problems += signature_problems(name, wanted, inspect.signature(method))
    return problems


def make_double(where: str) -> object:
    module, name, arguments = DOUBLES[where]
    return getattr(importlib.import_module(module), name)(*arguments)


@pytest.fixture
def real_pool(request):
    """A real pool, made and closed without ever starting a worker."""
    import playground.server.pools

    pool = getattr(playground.server.pools, request.param)(1, Limits(), HANDLERS)
    yield pool
    pool.close()


def test_the_protocol_has_the_members_the_server_uses():
    assert set(DATA) == {"size", "layers"}  # a CPU pool's platform is no member: the server never reads it
    assert set(METHODS) == {"start", "run", "close", "status", "mechanisms"}


@pytest.mark.parametrize("real_pool", REAL.values(), ids=REAL.keys(), indirect=True)
def test_the_real_pools_implement_it(real_pool):
    assert interface_problems(real_pool) == []
    assert real_pool.status()["size"] == real_pool.size
    assert isinstance(real_pool.mechanisms(), dict)


@pytest.mark.parametrize("real_pool", REAL.values(), ids=REAL.keys(), indirect=True)
def test_the_real_pools_run_every_worker_on_the_cpu_and_refuse_one_that_opened_anything_else(real_pool):
    """The device is the device owner's: no worker runs on one unnoticed. JAX_PLATFORMS is pinned to the CPU, and what
    a warm worker says its JAX opened is checked before it is given a job."""
    from playground.server.pools.warm_pool import WarmUpFailed, WorkerRefused

    asked = type(real_pool)(1, Limits(), HANDLERS, extra_env={"JAX_PLATFORMS": "cuda"})
    try:
        assert real_pool._env["JAX_PLATFORMS"] == asked._env["JAX_PLATFORMS"] == "cpu"  # whatever it is given
    finally:
        asked.close()
    cpu = {"ready": True, "backend": {"backend": "cpu", "devices": ["cpu:0 cpu"]}}
    assert real_pool._checked_hello(cpu) is cpu
    for other in ("gpu", "tpu"):
        with pytest.raises(WorkerRefused, match=f"its JAX opened '{other}', not 'cpu'"):
            real_pool._checked_hello({**cpu, "backend": {"backend": other, "devices": []}})
    with pytest.raises(WarmUpFailed, match="RuntimeError: no backend"):
        real_pool._checked_hello({"ready": False, "warm_up_failed": "RuntimeError: no backend"})
    assert real_pool.status()["platform"] == "cpu"


def test_the_device_line_implements_it(tmp_path):
    """The device owner's line (server/device_owner/device_pool.py): one job at a time, over CPU workers of its own;
    made here without starting its workers or its owner."""
    from playground.server.device_owner.device_pool import DevicePool
    from playground.server.device_owner.handle import DeviceOwner, OwnerSetup
    from playground.server.pools import ProcessPool

    line = DevicePool(ProcessPool(1, Limits(), HANDLERS), DeviceOwner(OwnerSetup("cpu", "process", str(tmp_path),
                                                                                  Limits(), 1024)))
    assert interface_problems(line) == []
    assert line.size == 1 and line.platform == "cpu" and line.status()["owner"]["alive"] is False
    line.close()


@pytest.mark.parametrize("where", DOUBLES)
def test_each_test_double_implements_it(where):
    pool = make_double(where)
    assert interface_problems(pool) == []
    assert JobPool not in type(pool).__mro__  # a JobPool by its members, not by inheritance (the Protocol's stubs)
    pool.start()
    assert pool.status()["size"] == pool.size and isinstance(pool.mechanisms(), dict)
    pool.close()


def test_a_double_that_drifts_from_the_pools_fails():
    class NoEarlyReplies(ScriptedPool):
        def run(self, job: dict, timeout_s: float | None = None) -> dict:
            return {"ok": True}

    class TimeoutFirst(ScriptedPool):
        def run(self, timeout_s: float | None, job: dict, on_early=None) -> dict:
            return {"ok": True}

    class NeedsMore(ScriptedPool):
        def start(self, ready_timeout_s: float) -> None:
            pass

    class NoMechanisms:
        size, layers = 1, {}

        def start(self): ...

        def run(self, job, timeout_s=None, on_early=None, on_ask=None): ...

        def close(self): ...

        def status(self): ...

    assert interface_problems(NoEarlyReplies()) == ["run() has no parameter 'on_early'",
                                                    "run() has no parameter 'on_ask'"]
    assert "run() does not take 'job' as positional argument 1" in interface_problems(TimeoutFirst())
    assert "run() has no default for 'timeout_s' (the Protocol's: None)" in interface_problems(TimeoutFirst())
    assert interface_problems(NeedsMore()) == ["start() needs 'ready_timeout_s', which the server never passes"]
    assert interface_problems(NoMechanisms()) == ["NoMechanisms is not a JobPool", "no method mechanisms()"]
    no_layers = ScriptedPool()
    del no_layers.layers
    assert interface_problems(no_layers) == ["ScriptedPool is not a JobPool", "no layers"]
