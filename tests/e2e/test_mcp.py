"""The MCP endpoint end to end: a real server, the ``mcp`` package's client over streamable HTTP.

Every public API function is a tool (private UI events are not), each
described from its docstring: what it takes and what it returns. A tool's
answer is the endpoint's last update, the same dict ``gradio_client`` gets
(as text: Gradio's MCP server sends ``str()`` of it); a streaming endpoint
reports each update as an MCP progress notification on the way.
"""

from __future__ import annotations

import ast
import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from playground.server.answering.endpoints import public_endpoints
from tests.e2e.responses import ok

CALL_TIMEOUT_S = 90
TIMINGS = {"trace_s", "lower_s", "compile_s", "run_s"}  # measured anew, or kept from the first run: may differ
PUBLIC = {endpoint.name for endpoint in public_endpoints()}  # the declared ones: every other event is private
CUBE = "def f(x):\n    y = x * x\n    return jnp.sin(y) * x  # mcp\n"


def mcp_url(server) -> str:
    return server.url + "gradio_api/mcp/"


async def _session(server, work):
    async with streamable_http_client(mcp_url(server)) as (read, write, _), ClientSession(read, write) as session:
        await session.initialize()
        return await asyncio.wait_for(work(session), CALL_TIMEOUT_S)


def with_session(server, work):
    """``work(session)`` in a fresh MCP session on ``server``, bounded in time.

    In a thread of its own: in a whole test session, Playwright's sync API (the browser tests) keeps an event
    loop running in this thread, where asyncio.run refuses to start another.
    """
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, _session(server, work)).result()


def call(server, tool: str, arguments: dict) -> tuple[dict, list]:
    """A tool's answer, parsed back into the dict, and the progress notifications that came before it."""
    progress = []

    async def work(session):
        async def on_progress(step, total, message):
            progress.append((step, message))
        return await session.call_tool(tool, arguments, progress_callback=on_progress)

    result = with_session(server, work)
    assert not result.isError, result.content
    assert len(result.content) == 1 and result.content[0].type == "text", result.content
    return ast.literal_eval(result.content[0].text), progress


def same_answer(via_mcp: dict, via_client: dict, ignore: set[str] = frozenset()) -> None:
    assert set(via_mcp) == set(via_client)
    for key in set(via_client) - ignore - {"cache"}:  # where an answer came from is not what it says
        assert via_mcp[key] == via_client[key], key


@pytest.fixture(scope="module")
def tools(server) -> dict:
    async def work(session):
        return (await session.list_tools()).tools
    return {tool.name: tool for tool in with_session(server, work)}


def test_every_public_endpoint_is_a_tool_and_no_private_one(tools, client):
    endpoints = {name.lstrip("/") for name in client.view_api(print_info=False, return_format="dict")
                 ["named_endpoints"]}
    assert set(tools) == PUBLIC  # exactly the declared endpoints: a UI event that leaked would be one more
    assert set(tools) == endpoints  # exactly the API gradio_client sees, under the same names
    assert {"inspect", "vmap", "train", "about"} <= PUBLIC


def test_each_tool_says_what_it_takes_and_returns(tools):
    for name, tool in tools.items():
        assert len(tool.description) > 60 and "Returns: " in tool.description, name
        for parameter, schema in tool.inputSchema.get("properties", {}).items():
            assert len(schema.get("description", "")) > 10, (name, parameter)
    inspect = tools["inspect"].inputSchema
    assert inspect["required"] == ["code", "args"]
    assert set(inspect["properties"]) == {"code", "args", "static_argnums", "second_args", "on_accelerator"}
    assert tools["derivatives"].inputSchema["properties"]["order"]["default"] == 3


def test_inspect_answers_as_gradio_client_does_with_progress_on_the_way(server, client):
    via_mcp, progress = call(server, "inspect", {"code": CUBE, "args": "jnp.arange(3.0)"})
    via_client = client.predict(CUBE, "jnp.arange(3.0)", None, "", False, api_name="/inspect")
    same_answer(ok(via_mcp), ok(via_client), ignore=TIMINGS)
    assert via_mcp["done"] is True and via_mcp["function"] == "f"
    assert "sin" in via_mcp["jaxpr"] and via_mcp["result"].startswith("f32[3]")
    # One notification per streamed update (the early one with the stages, then the last), counting up.
    steps = [step for step, _ in progress]
    assert len(steps) >= 2 and steps == sorted(steps), progress


def test_derivatives_answer_as_gradio_client_does(server, client):
    code = "def f(x):\n    return x ** 3  # mcp\n"
    via_mcp, _ = call(server, "derivatives", {"code": code, "order": 2, "x_min": -1.0, "x_max": 1.0, "points": 5})
    via_client = client.predict(code, 2, -1.0, 1.0, 5, api_name="/derivatives")
    same_answer(ok(via_mcp), ok(via_client))
    assert [order["n"] for order in via_mcp["orders"]] == [0, 1, 2]
    assert via_mcp["orders"][2]["ys"] == pytest.approx([-6.0, -3.0, 0.0, 3.0, 6.0])


def test_an_error_is_the_same_error_dict_not_a_tool_failure(server, client):
    via_mcp, _ = call(server, "inspect", {"code": "def f(x):\n    return x +\n", "args": "1.0"})
    via_client = client.predict("def f(x):\n    return x +\n", "1.0", None, "", False, api_name="/inspect")
    assert via_mcp["ok"] is False and via_mcp["error"]["kind"] == "syntax"
    same_answer(via_mcp, via_client)
