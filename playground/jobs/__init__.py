"""The job registry: one row per kind of job the sandbox runs.

Each row says everything about one kind: its arguments with their checks and
defaults, the handler that runs it inside a worker (named, not imported: the
server never imports JAX), which pool runs it, whether it measures time (and
so gets the longer wall clock), and the schema its reply must fit. The API
builds and checks jobs from here (``build``), the worker dispatches from here
(playground/worker/handlers.py), and nothing else lists a job's arguments.

Adding a tab: one handler module, one row here, one UI module.

>>> build("derivatives", {"code": "def f(x): return x", "order": 2.0})["order"]
2
>>> build("derivatives", {"code": "def f(x): return x", "x_min": 1.0, "x_max": 0.0})["error"]["message"]
'`x_min` (1.0) must be below `x_max` (0.0).'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from playground import compiler_settings, replies
from playground import validation as check
from playground.errors import TITLES, cap_text, error_dict
from playground.schema import Schema

# The limits of what a job may ask for: each number is here and nowhere else.
MAX_CODE_CHARS = 20_000
MAX_ARGS_CHARS = 2_000
MAX_STATIC_ARGNUMS = 8
MAX_ORDER = 8
MAX_POINTS = 2_000
MAX_SIZES = 8
MAX_BATCH = 100_000
MAX_MATRIX = 10_000
MAX_REPEATS = 50
MAX_DEVICES = 64
MAX_MESH_AXES = 4
# Through the server on 2 cores, a fresh worker each: the default preset 4.0-4.7 s, the MLP preset 6.4-7.1 s
# (2.4 s of that is its arguments: jax.random compiling in a fresh process).
DEFAULT_BATCH_SIZES = (1, 10, 100)

_REQUIRED = object()


@dataclass(frozen=True)
class Argument:
    """One argument: its check (None when fine, else an invalid_input error dict) and what the worker gets."""

    name: str
    check: Callable[[str, Any], dict | None]
    default: Any = _REQUIRED
    convert: Callable[[Any], Any] = lambda value: value


@dataclass(frozen=True)
class JobKind:
    name: str
    handler: str  # "module:function", called in the worker as function(limits, **arguments)
    arguments: tuple[Argument, ...]
    reply: Schema
    # Which workers run it: "sandbox" (CPU), "accelerator" (the GPU or TPU where the host has one, else the
    # sandbox's), "parallel" (workers that see several devices), or a function of the built job naming one.
    pool: str | Callable[[dict], str] = "sandbox"
    timed: bool = False  # it measures time: the longer wall clock (Limits.measure_timeout_s)
    early: bool = False  # its handler takes ``early``: replies ahead of the final one (same schema), each newer
    # The result when the job failed after its early reply (the checks ran out of time, memory, ...): the early
    # reply is kept, saying what did not finish.
    after_early: Callable[[dict, dict], dict] | None = None
    together: Callable[[dict], dict | None] | None = None  # a check of the arguments together
    # The server's own work on a checked reply, before it is kept and sent: pictures, diffs, notes of ours
    # (the worker sends facts; what the server adds never passes through user code). "module:function", named
    # like the handler: a worker loads none of the server's code.
    finish: str | None = None


def _code(name: str, value: Any) -> dict | None:
    return check.code(value, MAX_CODE_CHARS)


def _text(name: str, value: Any) -> dict | None:
    return check.text(name, value, MAX_ARGS_CHARS)


def _whole(low: int, high: int) -> Callable[[str, Any], dict | None]:
    return lambda name, value: check.whole_number(name, value, low, high)


def _wholes(low: int, high: int, most: int) -> Callable[[str, Any], dict | None]:
    return lambda name, value: check.whole_numbers(name, value, low, high, most)


def _number(name: str, value: Any) -> dict | None:
    return check.number(name, value)


def _names(most: int) -> Callable[[str, Any], dict | None]:
    return lambda name, value: check.names(name, value, most)


def _wholes_list(values: list) -> list[int]:
    return [check.as_whole(v) for v in values]


def _sorted_unique(values: list | None) -> list[int]:
    return sorted(set(_wholes_list(values or [])))


def _inspect_pool(job: dict) -> str:
    return "accelerator" if job["on_accelerator"] else "sandbox"


def _checks_unfinished(early: dict, failure: dict) -> dict:
    error = failure["error"]
    note = (f"The checks after the stages did not finish ({TITLES[error['kind']].lower()}): {error['message']} "
            "The result and the three texts above are complete; the behavioural purity checks and the second call "
            "are not.")
    return {**early, "pending": [], "warnings": [*early["warnings"], cap_text(note, 2000)]}


def _setting(name: str, value: Any) -> dict | None:
    if value in ("", *compiler_settings.SETTINGS):
        return None
    return error_dict("invalid_input", f"`{name}` must be one of {', '.join(map(repr, compiler_settings.SETTINGS))} "
                                       f"(or empty, with a second function), got {str(value)[:80]!r}.")


def _optional_code(name: str, value: Any) -> dict | None:
    return check.text(name, value, MAX_CODE_CHARS)


def _one_version_b(arguments: dict) -> dict | None:
    if bool(arguments["second_code"].strip()) == bool(arguments["setting"]):
        return error_dict("invalid_input", "Compare needs version B: either `second_code` (a second function) or "
                                           "`setting` (e.g. 'fusion: off'), not both and not neither.")
    return None


def _interval(arguments: dict) -> dict | None:
    if not arguments["x_min"] < arguments["x_max"]:
        return error_dict("invalid_input",
                          f"`x_min` ({arguments['x_min']}) must be below `x_max` ({arguments['x_max']}).")
    return None


CODE = Argument("code", _code)
ARGS = Argument("args", _text)
STATIC_ARGNUMS = Argument("static_argnums", _wholes(0, 63, MAX_STATIC_ARGNUMS), None, _sorted_unique)
ON_ACCELERATOR = Argument("on_accelerator", check.flag, False)

REGISTRY: dict[str, JobKind] = {kind.name: kind for kind in (
    JobKind("inspect", "playground.worker.inspect:inspect_job", (
        CODE, ARGS, STATIC_ARGNUMS, Argument("second_args", _text, ""), ON_ACCELERATOR), replies.INSPECT,
        pool=_inspect_pool, early=True, after_early=_checks_unfinished),
    JobKind("passes", "playground.worker.passes:passes_job", (CODE, ARGS, STATIC_ARGNUMS, ON_ACCELERATOR),
            replies.PASSES, pool=_inspect_pool, finish="playground.server.compiler_replies:finish_passes"),
    JobKind("graph", "playground.worker.graph:graph_job", (CODE, ARGS, STATIC_ARGNUMS, ON_ACCELERATOR),
            replies.GRAPH, pool=_inspect_pool, finish="playground.server.compiler_replies:finish_graph"),
    JobKind("compare", "playground.worker.compare:compare_job", (
        CODE, ARGS, STATIC_ARGNUMS, Argument("second_code", _optional_code, ""), Argument("setting", _setting, ""),
        ON_ACCELERATOR), replies.COMPARE, pool=_inspect_pool, timed=True, together=_one_version_b,
        finish="playground.server.compiler_replies:finish_compare"),
    JobKind("derivatives", "playground.worker.derivatives:derivatives_job", (
        CODE, Argument("order", _whole(1, MAX_ORDER), 3, check.as_whole),
        Argument("x_min", _number, -3.0, float), Argument("x_max", _number, 3.0, float),
        Argument("points", _whole(2, MAX_POINTS), 200, check.as_whole)), replies.DERIVATIVES, together=_interval),
    JobKind("gradient", "playground.worker.derivatives:gradient_job", (CODE, Argument("point", _text)),
            replies.GRADIENT, timed=True),  # it times jacfwd against jacrev
    JobKind("vmap", "playground.worker.vmap:vmap_job", (
        CODE, ARGS, Argument("in_axes", _text, "0"), Argument("out_axes", _text, "0"),
        Argument("batch_sizes", _wholes(1, MAX_BATCH, MAX_SIZES), DEFAULT_BATCH_SIZES, _wholes_list)),
        replies.VMAP, pool="accelerator", timed=True, early=True),  # early: the sizes measured so far
    JobKind("jit_speed", "playground.worker.jit_speed:jit_speed_job", (
        CODE, Argument("sizes", _wholes(1, MAX_MATRIX, MAX_SIZES), convert=_sorted_unique),  # default: the API's
        Argument("repeats", _whole(1, MAX_REPEATS), 5, check.as_whole)), replies.JIT_SPEED, pool="accelerator",
        timed=True, early=True),  # early: the sizes measured so far
    JobKind("shard", "playground.worker.shard:shard_job", (
        CODE, ARGS, Argument("mesh_shape", _wholes(1, MAX_DEVICES, MAX_MESH_AXES), convert=_wholes_list),
        Argument("axis_names", _names(MAX_MESH_AXES)), Argument("in_specs", _text),
        Argument("out_specs", _text)), replies.SHARD, pool="parallel"),
    JobKind("parallel_demos", "playground.worker.parallel_demos:demos_job", (), replies.PARALLEL_DEMOS, pool="parallel",
            timed=True),
    JobKind("about", "playground.worker.about:about_job", (), replies.ABOUT),
)}


def named(reference: str) -> Callable:
    """The function a row names as "module:function" (its handler, or its finish), imported on first use."""
    module, _, function = reference.partition(":")
    return getattr(importlib.import_module(module), function)


def pool_of(kind: str, job: dict) -> str:
    """The pool that runs this built job: the row's, or what its function says for these arguments."""
    pool = REGISTRY[kind].pool
    return pool(job) if callable(pool) else pool


def kinds_on(pool: str) -> list[str]:
    """The kinds ``pool`` runs, those that choose it by an argument marked "(when asked)", for About."""
    return [kind.name if kind.pool == pool else f"{kind.name} (when asked)"
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
        if value is None and argument.default is not _REQUIRED:
            value = list(argument.default) if isinstance(argument.default, tuple) else argument.default
        problem = argument.check(argument.name, value)
        if problem:
            return problem
        if value is None and argument.default is _REQUIRED:
            return error_dict("invalid_input", f"The {kind} job needs `{argument.name}`.")
        job[argument.name] = argument.convert(value)
    problem = row.together(job) if row.together else None
    return problem or job
