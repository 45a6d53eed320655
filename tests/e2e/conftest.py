"""The end-to-end suite runs in both sandbox modes: every server here is started in the test's ``sandbox_mode``."""

from __future__ import annotations

import pytest

from tests.conftest import SHARED_CLOCK_S, Server, start_server, stop_server


class ModeServers:
    """The suite's shared servers, one per sandbox mode (2 workers, default limits but SHARED_CLOCK_S), each
    started when a test of its mode first needs it and kept until the session ends.

    A session fixture with the mode as its parameter held one mode's server at a time: a test process whose
    modules went full, process, full stopped its server and started it again (measured: 13 starts in a run
    where 7 served)."""

    def __init__(self, tmp_path_factory) -> None:
        self._tmp_path_factory = tmp_path_factory
        self._servers: dict[str, Server] = {}
        self._clients: dict[str, object] = {}

    def server(self, mode: str) -> Server:
        if mode not in self._servers:
            self._servers[mode] = start_server(self._tmp_path_factory.mktemp(f"server-{mode}"),
                                               PLAYGROUND_WORKERS="2", PLAYGROUND_SANDBOX=mode,
                                               PLAYGROUND_TIMEOUT_S=SHARED_CLOCK_S)
        return self._servers[mode]

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
def client(mode_servers, sandbox_mode):
    """A gradio_client of that server, shared like it."""
    return mode_servers.client(sandbox_mode)
