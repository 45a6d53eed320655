"""The public endpoints, registered with Gradio from their declarations; every other event made private.

Each declared endpoint (playground/server/answering/endpoints.py) becomes an HTTP endpoint, a ``gradio_client`` call
and an MCP tool of the same name, in its line's concurrency. Every event the tabs wire is private, whatever it was
given: an event handler cannot leak as an endpoint by a forgotten ``api_visibility``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import gradio as gr

from playground.server.answering.endpoints import DEFAULT, SKIPS, UNLIMITED, public_endpoints
from playground.server.ui.tabs import TabContext


def register(context: TabContext) -> None:
    """Each endpoint in its line's concurrency, as the tabs' own events that run the same jobs."""
    for endpoint in public_endpoints():
        method = getattr(context.api, endpoint.name)
        function = _with_session(method) if endpoint.session else method
        if endpoint.queue == SKIPS:
            gr.api(function, api_name=endpoint.name, queue=False)
        elif endpoint.queue == UNLIMITED:
            gr.api(function, api_name=endpoint.name, concurrency_limit=None)
        elif endpoint.queue == DEFAULT:
            gr.api(function, api_name=endpoint.name)
        else:
            gr.api(function, api_name=endpoint.name, **context.line(endpoint.queue))


def make_the_rest_private(demo: gr.Blocks) -> None:
    """Every event of ``demo`` that is not a declared endpoint: private (no URL, no MCP tool)."""
    public = {endpoint.name for endpoint in public_endpoints()}
    missing = public - {block_function.api_name for block_function in demo.fns.values()}
    if missing:
        raise RuntimeError(f"declared endpoints not registered under their names: {sorted(missing)}")
    for block_function in demo.fns.values():
        if block_function.api_name not in public:
            block_function.api_visibility = "private"


def _with_session(method: Callable) -> Callable:
    """``method`` with its last argument, ``session``, filled in from the caller's Gradio session."""
    signature = inspect.signature(method, eval_str=True)  # real types: Gradio resolves none of api.py's names
    parameters = [p for name, p in signature.parameters.items() if name != "session"]
    parameters.append(inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None,
                                        annotation=gr.Request))
    seen = signature.replace(parameters=parameters)

    def arguments(args: tuple, kwargs: dict) -> dict:
        # Gradio passes the request by position, where the signature it read puts it.
        bound = seen.bind(*args, **kwargs)
        request = bound.arguments.pop("request", None)
        return {**bound.arguments, "session": request.session_hash}

    if inspect.isgeneratorfunction(method):
        def endpoint(*args, **kwargs):
            yield from method(**arguments(args, kwargs))
    else:
        def endpoint(*args, **kwargs):
            return method(**arguments(args, kwargs))
    endpoint.__name__ = endpoint.__qualname__ = method.__name__
    endpoint.__doc__ = method.__doc__
    endpoint.__signature__ = seen
    endpoint.__annotations__ = {**{p.name: p.annotation for p in parameters}, "return": signature.return_annotation}
    return endpoint
