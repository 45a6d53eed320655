"""The public API's endpoints, made from their declarations: one method per public job kind, and the list of
every public endpoint, which the UI registers (HTTP, gradio_client, MCP) and nothing else makes public.

A job's endpoint is its declaration (playground/jobs/): the method's signature comes from the job's arguments
(names, types, defaults, in order: gradio_client passes them by position), its docstring from the declaration's
words, and its body runs the job (``PlaygroundAPI.updates``). The server's own endpoints (About, training) are
methods of PlaygroundAPI, declared public here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from playground import jobs
from playground.jobs.arguments import BY_SERVER, REQUIRED


@dataclass(frozen=True)
class Endpoint:
    """A public endpoint: its name (its URL /name, its MCP tool, the API's method behind it), and how it queues.

    ``queue``: the line it waits in with the tabs' events that run the same jobs ("sandbox", "parallel",
    "device", "training"); or ``SKIPS`` the queue (a quick answer), ``UNLIMITED`` (queued, no limit of its own),
    ``DEFAULT`` (the server's default limit). ``session``: the method's last argument is the caller's session,
    which the server fills in (the caller does not pass it).
    """

    name: str
    queue: str
    session: bool = False


SKIPS, UNLIMITED, DEFAULT = "skips the queue", "unlimited", "default"
SERVER_ENDPOINTS = (Endpoint("train", "training", session=True), Endpoint("race", "training", session=True),
                    Endpoint("stop_training", SKIPS, session=True),
                    Endpoint("predict", UNLIMITED, session=True), Endpoint("datasets", SKIPS),
                    Endpoint("about", DEFAULT))


def queue_of(kind: jobs.JobKind) -> str:
    """A job's line: its pool's, where the pool is fixed; the sandbox's for a job that picks its pool per call."""
    return kind.pool if isinstance(kind.pool, str) else "sandbox"


def public_endpoints() -> list[Endpoint]:
    """Every public endpoint: the public job kinds, then the server's own."""
    return [*(Endpoint(kind.name, queue_of(kind)) for kind in jobs.REGISTRY.values() if kind.public),
            *SERVER_ENDPOINTS]


def _default(argument: jobs.Argument) -> object:
    if argument.default is REQUIRED:
        return inspect.Parameter.empty
    return None if argument.default is BY_SERVER or isinstance(argument.default, tuple) else argument.default


FRESH = "fresh"  # a timed job's last argument: measure again rather than answer with an identical job's kept result
FRESH_DOC = ("True: measure again, even where an identical job's result is kept (a result says when it was "
             "measured: `cache.measured_at`, `cache.age_s`); False: answer from the kept result if there is one.")


def job_method(kind: jobs.JobKind) -> Callable[..., Iterator[dict]]:
    """The API's method for ``kind``: its arguments as the declaration orders and types them, streaming the
    job's updates; a timed job's last argument, ``fresh``, is the server's (it is not part of the job)."""
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)] + [
        inspect.Parameter(a.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=_default(a), annotation=a.annotation)
        for a in kind.arguments]
    annotations = {a.name: a.annotation for a in kind.arguments}
    if kind.timed:
        parameters.append(inspect.Parameter(FRESH, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=False,
                                            annotation=bool))
        annotations[FRESH] = bool
    signature = inspect.Signature(parameters, return_annotation=Iterator[dict])

    def method(self, *args, **kwargs) -> Iterator[dict]:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        values = {name: value for name, value in bound.arguments.items() if name != "self"}
        fresh = bool(values.pop(FRESH, False))
        yield from self.updates(kind.name, fresh=fresh, **values)

    method.__name__ = method.__qualname__ = kind.name
    method.__doc__ = kind.docstring({FRESH: FRESH_DOC} if kind.timed else None)
    method.__signature__ = signature
    method.__annotations__ = {**annotations, "return": Iterator[dict]}
    return method
