"""A real device owner for the training tests, on this host's CPU, and a job's session on it that holds the device.

``running_owner(env, runs)`` starts one as the server does (starting.owner_setup: the full sandbox where the
host has one), reading the datasets that the settings ``env`` names (config.data_places) and writing the runs'
weights under ``runs``. ``HeldDevice`` is
a job's session that has taken the device (playground/owner/turns.py: its first op that uses it, once every
running training run has paused) and works on it for as long as a test asks, timed by the owner itself.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import time
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

from playground.mnist.config import TrainConfig, TrainOrder
from playground.server.config import Settings, data_places
from playground.server.device_owner import starting
from playground.server.device_owner.handle import DeviceOwner
from playground.server.device_owner.sessions import OwnerLost
from playground.server.device_owner.training_stream import TrainingStream

# The ceiling of one request of a session (a compile, a second of timing), far beyond it on a loaded machine.
REQUEST_S = 120.0
_folders = itertools.count(1)
_over: weakref.WeakSet[TrainingStream] = weakref.WeakSet()  # the streams whose last message ("done", "error") was read


@contextmanager
def running_owner(env: Mapping[str, str], runs: Path, sandbox: str | None = None,
                  compile_cache: Path | None = None, compile_cache_mb: int | None = None,
                  environment: Mapping[str, str] | None = None) -> Iterator[DeviceOwner]:
    """A started owner (closed after); ``runs`` is made first: the owner's Landlock rules name it. Its compilation
    cache is the test run's (PLAYGROUND_COMPILE_CACHE, tests/conftest.py), or ``compile_cache`` bounded to
    ``compile_cache_mb``. ``environment``: variables added to the server's environment while the owner's is made
    from it (e.g. XLA_FLAGS)."""
    runs.mkdir(parents=True, exist_ok=True)
    settings = dataclasses.replace(Settings(), sandbox=sandbox or Settings().sandbox, data=data_places(env),
                                   compile_cache=str(compile_cache or os.environ["PLAYGROUND_COMPILE_CACHE"]))
    if compile_cache_mb is not None:
        settings = dataclasses.replace(settings, compile_cache_mb=compile_cache_mb)
    with mock.patch.dict(os.environ, environment or {}):
        owner = DeviceOwner(starting.owner_setup(settings, None, str(runs)))
    owner.start()
    try:
        yield owner
    finally:
        owner.close()


def runs_folder(owner: DeviceOwner) -> Path:
    """The folder the owner may write the runs' weights into."""
    return Path(owner.setup.writable[0])


def train(owner: DeviceOwner, config: TrainConfig) -> TrainingStream:
    """A run started on the owner directly, as TrainingService starts one (slot 0, a folder of its own), on the
    datasets its settings name (``running_owner``'s ``env``)."""
    folder = runs_folder(owner) / f"direct-{next(_folders)}"
    folder.mkdir()
    return owner.train(TrainOrder(config, str(folder)))


def until(stream: TrainingStream, phase: str, timeout_s: float) -> list[dict]:
    """The run's messages up to the first of ``phase`` (or its end), each waited for up to ``timeout_s``."""
    seen = []
    while not seen or (seen[-1].get("phase") != phase and seen[-1]["kind"] == "update"):
        message = _read(stream, timeout_s)
        assert message is not None, f"no message in {timeout_s} s after {seen[-1:]}"
        seen.append(message)
    return seen


def ended(stream: TrainingStream, timeout_s: float = 300.0) -> None:
    """The run stopped (where it still runs) and its end waited for, then its stream closed: a test that failed
    half-way leaves no run training on the owner the next test uses."""
    try:
        if stream not in _over:
            stream.stop()
        deadline = time.monotonic() + timeout_s
        while stream not in _over and time.monotonic() < deadline:
            _read(stream, 1.0)
    except OwnerLost:
        pass  # it ended with its owner
    finally:
        stream.close()


def sent(stream: TrainingStream) -> list[dict]:
    """The run's messages that are here now, without waiting."""
    here = []
    while (message := _read(stream, 0)) is not None:
        here.append(message)
    return here


def _read(stream: TrainingStream, timeout_s: float) -> dict | None:
    message = stream.receive(timeout_s)
    if message is not None and message["kind"] != "update":
        _over.add(stream)
    return message


class HeldDevice:
    """A job's session on ``owner``: ``take`` takes the device, ``work(seconds)`` times a matmul on it for at least
    that long, ``close`` ends the session and gives the device back."""

    def __init__(self, owner: DeviceOwner) -> None:
        from playground.worker.jobs.device import Device

        self._owner = owner
        self.session = owner.open_session()
        self.device = Device(lambda request: owner.ask(self.session, request, REQUEST_S))
        self._program = None

    def take(self) -> None:
        """Returns once the session has the device: every training run on the owner has paused at a chunk's edge.
        Every message a run sent before it paused is in its stream by then: the owner answered after them, on the
        same socket, and the server's end hands each message on in the order it came."""
        self._x = self.device.random((512, 512), "float32", 0)

    def work(self, seconds: float) -> dict:
        """The device busy with this session's own work for at least ``seconds`` (the owner's clock): its timing."""
        import jax
        import jax.numpy as jnp

        if self._program is None:
            self._program = self.device.export(lambda a: jnp.tanh(a @ a), jax.ShapeDtypeStruct((512, 512),
                                                                                          jnp.float32))
        timing = self.device.time(self._program.call([self._x]), min_total_s=seconds, min_runs=3, max_runs=1001,
                                  max_total_s=seconds + REQUEST_S)
        return dataclasses.asdict(timing)

    def close(self) -> None:
        self._owner.close_session(self.session)

    def __enter__(self) -> HeldDevice:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
