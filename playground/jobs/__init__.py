"""The job registry: every kind of job the sandbox runs, each declared once, in this package's modules.

A declaration (a ``JobKind``, in the module of its tab: inspect.py, compiler.py, ...) holds everything about one
kind: its arguments with their checks, defaults, limits and sentences (arguments.py), the handler that runs it
inside a worker (named, not imported: the server never imports JAX), which pool runs it, whether it measures time
(and so gets the longer wall clock), the schema its reply must fit, what the server adds to the reply (named too:
a worker never loads the server's code), and its endpoint: the words of its docstring, and whether it is public.
The API's methods and the HTTP and MCP endpoints (playground/server/answering/endpoints.py) and the share links' fields
(playground/server/links/fields.py) are made from these; the worker dispatches from here
(playground/worker/jobs/handlers.py).

Adding a job: its handler module in playground/worker/, its declaration in a module of this package.

>>> build("derivatives", {"code": "def f(x): return x", "order": 2.0})["order"]
2
>>> build("derivatives", {"code": "def f(x): return x", "x_min": 1.0, "x_max": 0.0})["error"]["message"]
'`x_min` (1) must be below `x_max` (0).'
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass

from playground.errors import error_dict
from playground.jobs.arguments import BY_SERVER, REQUIRED, Argument
from playground.schema import Schema

STREAMED = ("the last streamed update (``done`` True; earlier ones say where the job stands), {result}\n"
            'or an error dict {{"ok": False, "error": {{"kind", "message", "line"}}}}')


@dataclass(frozen=True)
class JobKind:
    name: str
    handler: str  # "module:function", called in the worker as function(limits, **arguments)
    arguments: tuple[Argument, ...]  # in the endpoint's order: gradio_client passes them by position
    reply: Schema
    doc: str  # the endpoint's docstring, less its Args and Returns (made from ``arguments`` and ``returns``)
    returns: str = "the dict above"
    public: bool = True  # an HTTP and MCP endpoint of the same name (False: the server's own use only)
    # Which line it waits in: "sandbox" (the CPU workers), "device" (the device owner's, one job at a time: the
    # job's worker asks the owner to run what it lowered; ``device`` must be set), "parallel" (workers that see
    # several devices), or a function of the built job naming one.
    pool: str | Callable[[dict], str] = "sandbox"
    device: bool = False  # its handler takes ``device`` (worker/jobs/device.py): the device owner, through the server
    timed: bool = False  # it measures time: the longer wall clock (Limits.measure_timeout_s)
    early: bool = False  # its handler takes ``early``: replies ahead of the final one (same schema), each newer
    # The result when the job failed after its early reply (the checks ran out of time, memory, ...): the early
    # reply is kept, saying what did not finish.
    after_early: Callable[[dict, dict], dict] | None = None
    together: Callable[[dict], dict | None] | None = None  # a check of the arguments together
    # The server's own work on a checked reply, before it is sent: pictures, diffs, notes of ours, the roofline
    # (the worker sends facts; what the server adds never passes through user code). "module:function", named
    # like the handler (a worker loads none of the server's code), called by the job runner as function(reply,
    # server) with its Finishing (playground/server/answering/finishing.py: the runner's jobs, what finishes keep):
    # it yields what to show while it works, and last the finished reply.
    finish: str | None = None
    # False: the finish depends on the reply alone. It is done once per job, in the job's own thread while the job
    # holds its place in line (a few at a time), and kept with the result; so it shows nothing meanwhile (no
    # caller's stream is its own) and runs no job (it holds a place that job may wait for). True: it depends on
    # what the server holds at the time (the device's ceilings). It is done for each answer, one from the result
    # cache too, in the caller's stream, and what it adds is never kept.
    finish_each_answer: bool = False

    def docstring(self, server_arguments: dict[str, str] | None = None) -> str:
        """The endpoint's docstring: ``doc``, then its arguments (and the endpoint's own, ``server_arguments``: name
        to words) and what it returns, in the form Gradio reads for the API page and the MCP tools' descriptions."""
        lines = [self.doc.strip(), ""]
        if self.arguments or server_arguments:
            lines += ["Args:", *(f"    {a.name}: {a.doc}" for a in self.arguments),
                      *(f"    {name}: {words}" for name, words in (server_arguments or {}).items()), ""]
        else:
            lines += ["Takes no arguments.", ""]
        lines += ["Returns:", *("    " + line for line in STREAMED.format(result=self.returns).splitlines())]
        return "\n".join(lines)


def _declarations() -> dict[str, JobKind]:
    """Every ``KINDS`` of this package's modules, in the order of their ``POSITION`` (their tab's place)."""
    found = pkgutil.iter_modules(__spec__.submodule_search_locations)
    modules = [importlib.import_module(f"{__name__}.{info.name}") for info in found]
    declared = [module for module in modules if hasattr(module, "KINDS")]
    return {kind.name: kind for module in sorted(declared, key=lambda m: m.POSITION) for kind in module.KINDS}


REGISTRY: dict[str, JobKind] = _declarations()


def named(reference: str) -> Callable:
    """The function a row names as "module:function" (its handler, or its finish), imported on first use."""
    module, _, function = reference.partition(":")
    return getattr(importlib.import_module(module), function)


def pool_of(kind: str, job: dict) -> str:
    """The pool that runs this built job: the row's, or what its function says for these arguments."""
    pool = REGISTRY[kind].pool
    return pool(job) if callable(pool) else pool


WHEN_ASKED = " (when asked)"  # kinds_on's mark of a kind that runs in a pool when its arguments ask


def kinds_on(pool: str) -> list[str]:
    """The kinds ``pool`` runs, those that choose it by an argument marked WHEN_ASKED, for About."""
    return [kind.name if kind.pool == pool else f"{kind.name}{WHEN_ASKED}"
            for kind in REGISTRY.values() if kind.pool == pool or callable(kind.pool)]


def build(kind: str, values: dict) -> dict:
    """The job for ``kind`` from the caller's ``values`` (missing ones take their defaults), or an error dict.

    Every argument is checked here, in the server, before any worker is used;
    the worker runs what it is given without checking again.
    """
    row = REGISTRY[kind]
    unknown = sorted(set(values) - {a.name for a in row.arguments})
    if unknown:
        return error_dict("invalid_input", f"The {kind} job has no argument {', '.join(map(repr, unknown))}.")
    job: dict = {"kind": kind}
    for argument in row.arguments:
        value = values.get(argument.name)
        if value is None and argument.default not in (REQUIRED, BY_SERVER):
            value = list(argument.default) if isinstance(argument.default, tuple) else argument.default
        problem = argument.check(argument.name, value)
        if problem:
            return problem
        if value is None and argument.default in (REQUIRED, BY_SERVER):
            return error_dict("invalid_input", f"The {kind} job needs `{argument.name}`.")
        job[argument.name] = argument.convert(value)
    problem = row.together(job) if row.together else None
    return problem or job
