"""The end-to-end suite runs in both sandbox modes: every server here is started in the test's ``sandbox_mode``."""

from __future__ import annotations

import pytest

from tests.conftest import SHARED_CLOCK_S, Server, start_server, stop_server

# The wall clocks of the strict servers, which meet what only a clock stops (an endless loop): short, since the clock
# is the limit tested; long enough for the normal job after it on a loaded machine (the Parallel tab's
# eight-device jobs need more than 4 s). Whatever another limit stops (a refusal of the sandbox, memory) meets the
# shared server's minute instead, which cannot stop it first however loaded the machine.
STRICT_CLOCK_S, STRICT_MEASURE_CLOCK_S = 12, 16


class ModeServers:
    """The suite's shared servers per sandbox mode, each started when a test of its mode first needs it and kept
    until the session ends: the shared one (2 workers, default limits but SHARED_CLOCK_S) and the strict one (the
    same with STRICT_CLOCK_S and STRICT_MEASURE_CLOCK_S).

    Not a session fixture with the mode as its parameter, which holds one mode's server at a time: a test process
    whose modules go full, process, full would stop its server and start it again (docs/development.md's
    measurements)."""

    def __init__(self, tmp_path_factory) -> None:
        self._tmp_path_factory = tmp_path_factory
        self._servers: dict[tuple[str, bool], Server] = {}
        self._clients: dict[str, object] = {}

    def server(self, mode: str, strict: bool = False) -> Server:
        if (mode, strict) not in self._servers:
            clocks = ({"PLAYGROUND_TIMEOUT_S": str(STRICT_CLOCK_S),
                       "PLAYGROUND_MEASURE_TIMEOUT_S": str(STRICT_MEASURE_CLOCK_S)} if strict else
                      {"PLAYGROUND_TIMEOUT_S": SHARED_CLOCK_S})
            name = f"{'strict' if strict else 'server'}-{mode}"
            self._servers[mode, strict] = start_server(self._tmp_path_factory.mktemp(name), PLAYGROUND_WORKERS="2",
                                                       PLAYGROUND_SANDBOX=mode, **clocks)
        return self._servers[mode, strict]

    def client(self, mode: str):
        if mode not in self._clients:
            self._clients[mode] = self.server(mode).client()
        return self._clients[mode]

    def close(self) -> None:
        for server in self._servers.values():
            stop_server(server)


@pytest.fixture(scope="session")
def mode_servers(tmp_path_factory):
    servers = ModeServers(tmp_path_factory)
    yield servers
    servers.close()


@pytest.fixture(scope="module")
def server(mode_servers, sandbox_mode) -> Server:
    """The suite's server in this test's sandbox mode."""
    return mode_servers.server(sandbox_mode)


@pytest.fixture(scope="module")
def strict_server(mode_servers, sandbox_mode) -> Server:
    """The suite's strict server in this test's sandbox mode (STRICT_CLOCK_S)."""
    return mode_servers.server(sandbox_mode, strict=True)


@pytest.fixture(scope="module")
def client(mode_servers, sandbox_mode):
    """A gradio_client of that server, shared like it."""
    return mode_servers.client(sandbox_mode)
