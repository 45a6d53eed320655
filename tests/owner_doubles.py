"""The device owner's session run in this process, for tests of the jobs that measure on the device.

``local_device()`` is a worker's ``Device`` (playground/worker/jobs/device.py) whose requests go, through JSON as on
the wire, to a real ``Session`` (playground/owner/session.py) on this process's default device (the CPU in the
tests; the accelerator where a benchmark runs it): the jobs' code and the owner's ops meet as they do across the
processes, without starting any.
"""

from __future__ import annotations

import json
import tempfile

import jax

from playground.owner.ceilings import Ceilings
from playground.owner.compiled import CompiledCache
from playground.owner.device_about import about
from playground.owner.session import Session
from playground.worker.jobs.device import Device

_COMPILED = CompiledCache()


def local_device(memory_mb: int = 4096) -> Device:
    device = jax.devices()[0]
    session = Session(device, tempfile.mkdtemp(prefix="owner-double-"), _COMPILED,
                      Ceilings(lambda: about(device, memory_mb)["label"], memory_mb), memory_mb)

    def ask(request: object) -> object:
        return json.loads(json.dumps(session.handle(json.loads(json.dumps(request)))))

    return Device(ask)
