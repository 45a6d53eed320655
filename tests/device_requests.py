"""A device as tests/owner_doubles.py's ``local_device()`` makes it (a real owner ``Session`` in this process, on the
CPU, reached through JSON), that also records the requests a job sends it and works in a scratch folder the test
names: for tests of what travels, and how (arrays in one ``put``, in parts through ``upload`` and ``append``, or as
one ``fill`` value), and of what the owner leaves in its scratch folder.
"""

from __future__ import annotations

import json
import tempfile

import jax

from playground.owner.ceilings import Ceilings
from playground.owner.compiled import CompiledCache
from playground.owner.session import Session
from playground.worker.jobs.device import Device


def recording_device(memory_mb: int = 4096, scratch: str | None = None) -> tuple[Device, list[dict]]:
    """A ``Device`` whose requests go to a fresh owner session working in ``scratch`` (a new temporary folder by
    default), and the list they are appended to, each as the worker sent it."""
    session = Session(jax.devices()[0], scratch or tempfile.mkdtemp(prefix="owner-double-"), CompiledCache(),
                      Ceilings(lambda: "cpu", memory_mb), memory_mb)
    seen: list[dict] = []

    def ask(request: object) -> object:
        seen.append(request)
        return json.loads(json.dumps(session.handle(json.loads(json.dumps(request)))))

    return Device(ask), seen


def ops(requests: list[dict]) -> list[str]:
    """The ops of the requests, in order."""
    return [request["op"] for request in requests]
