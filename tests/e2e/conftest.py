"""The end-to-end suite runs in both sandbox modes: every server here is started in the test's ``sandbox_mode``."""

from __future__ import annotations

import pytest

from tests.conftest import start_server, stop_server


@pytest.fixture(scope="session")
def server(tmp_path_factory, sandbox_mode):
    """One real server per sandbox mode for the suite (2 workers, default limits)."""
    srv = start_server(tmp_path_factory.mktemp(f"server-{sandbox_mode}"), PLAYGROUND_WORKERS="2",
                       PLAYGROUND_SANDBOX=sandbox_mode)
    yield srv
    stop_server(srv)


@pytest.fixture(scope="session")
def client(server):
    return server.client()
