"""Runs inside a sandbox worker: the job registry's handlers, looked up and run; our own bugs reported as such.

The template process imports this module (and so every handler module and JAX)
once, before it forks any worker (``preload``); each worker warms up with
``warm_up`` and runs its one job with ``run``. The server checked the job's
arguments against the registry (playground/jobs/) before sending it, so this
module does not check them again.

An exception that escapes a handler is a bug in the playground, not in the
user's code: it comes back as kind ``internal`` with its traceback, which the
server logs under an id it shows the user (server/pools/reply.py).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable

from playground import jobs, messages
from playground.errors import error_dict
from playground.ipc.limits import Limits
from playground.worker.functions import usercode
from playground.worker.jobs.device import Device, DeviceRefused
from playground.worker.lessons import user_errors

_MAX_TRACEBACK_CHARS = 20_000


def _handler(kind: str) -> Callable:
    return jobs.named(jobs.REGISTRY[kind].handler)


def preload() -> None:
    """Import every handler's module (and with them JAX), so that forked workers import nothing.

    Also what JAX would import and set up on its first lowering (the MLIR
    dialects, about 50 ms): that needs no backend and starts no thread, so it
    is done once here instead of in every worker.
    """
    for kind in jobs.REGISTRY:
        _handler(kind)
    try:
        from jax._src.interpreters import mlir

        mlir.make_ir_context()
    except Exception:  # a JAX that moved or changed it (an internal): each worker sets it up on its first lowering
        return


def warm_up() -> dict:
    """Start JAX's backend and compile once, so that the user's job does not pay for either; say what it opened.

    The first compile in a process sets XLA and LLVM up (about 60 ms more than
    any later one), and the first eager op sets up eager dispatch: every job
    needs both. Nothing more is warmed: the kernels a job compiles depend on
    its shapes and dtypes, so compiling an example's would speed up only that
    example (measured: a whole Inspect job as warm-up made each worker about
    150 ms dearer to start, and the next distinct job under 10 ms faster to
    its first result).

    Returns the backend and devices (runtime.backend): the server checks that a worker
    pinned to a platform (JAX_PLATFORMS) really opened it. A platform that cannot be
    opened raises here, with JAX's reason.
    """
    import jax
    import jax.numpy as jnp

    from playground.worker.jobs import about as runtime

    jax.jit(lambda x: x * 2 + 1)(jnp.arange(4.0)).block_until_ready()
    return runtime.backend()


def run(job: dict, limits: Limits, early: Callable[[dict], None] | None = None,
        ask: Callable[[object], object] | None = None) -> dict:
    """The job's result; whatever its handler raises is reported as ``internal``, with the traceback.

    ``early`` sends a first reply ahead of the final one, for kinds whose handler can give one (the registry's
    ``early`` rows); ``ask`` reaches the device owner through the server, for kinds that measure on the device
    (the registry's ``device`` rows: their handler gets a ``device``, worker/jobs/device.py).
    """
    usercode.forbid_new_processes()
    user_errors.CallbackFailures.install()
    user_errors.keep_library_frames()
    arguments = {key: value for key, value in job.items() if key != "kind"}
    try:
        row = jobs.REGISTRY[job["kind"]]
        if row.early and early is not None:
            arguments["early"] = lambda reply: early(_with_limits(reply, limits))
        if row.device:
            arguments["device"] = Device(ask)
        return _with_limits(_handler(job["kind"])(limits, **arguments), limits)
    except DeviceRefused as exc:  # the owner refused what the worker sent: said, as any refusal of the user's
        return exc.to_result()
    except (SystemExit, KeyboardInterrupt, GeneratorExit) as exc:  # not Exceptions: the handlers' nets miss them
        return user_errors.error_result(exc)  # the user's ``sys.exit()`` is theirs, a frame of ours ours
    except Exception:
        return internal(traceback.format_exc())


def internal(text: str) -> dict:
    """Our own bug, for the server's log (the user sees only an id): the traceback travels with it."""
    result = error_dict("internal", "An exception escaped the playground's own code.")
    result["error"]["traceback"] = text[-_MAX_TRACEBACK_CHARS:]
    return result


def _with_limits(result: dict, limits: Limits) -> dict:
    """A limit hit inside the job is named with its value (the handlers do not know the limits)."""
    error = result.get("error") if not result.get("ok") else None
    kind = error.get("kind") if error else None
    if kind == "tasks":
        error["message"] += f" (The limit is {limits.max_tasks:,} threads per job.)"
    elif kind == "memory" and not error["message"].startswith("Out of device memory"):
        reserve = f" and reserve {limits.address_space_mb:,} MB of address space" if limits.address_space_mb else ""
        error["message"] += f" (A job may hold {limits.memory_mb:,} MB of memory{reserve}.)"
        if "explanation" in error:  # the memory lesson's size, and beside it the limit it went past
            said = messages.piece("lesson.memory.limit", mb=str(limits.memory_mb))  # no separator: read in any language
            error["explanation"] += messages.render([said])
            error.get("words", {}).get("explanation", []).append(said)
    return result
