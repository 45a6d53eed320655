"""The public API: one plain function per endpoint, JSON-able arguments in, a dict out.

Every tab of the UI calls these, and so can ``gradio_client``, scripts and tests.
Failures are dicts too: ``{"ok": False, "error": {"kind", "message", "line"}}``.
"""

from __future__ import annotations

import importlib.metadata
import platform
import threading

from playground.config import Settings
from playground.sandbox import WorkerPool
from playground.usercode import error_dict

MAX_CODE_CHARS = 20_000
MAX_ARGS_CHARS = 2_000
MAX_STATIC_ARGNUMS = 8
_PACKAGES = ("jax", "jaxlib", "gradio", "optax", "numpy")


class PlaygroundAPI:
    def __init__(self, pool: WorkerPool, settings: Settings) -> None:
        self._pool = pool
        self._settings = settings
        self._runtime: dict | None = None
        self._runtime_lock = threading.Lock()

    def inspect(self, code: str, args: str, static_argnums: list[int] | None = None, second_args: str = "") -> dict:
        """Trace, lower and compile the function in ``code`` (named ``f``, else the last ``def``) on ``args``.

        ``args`` is a Python expression with ``jax``, ``jnp``, ``np`` and ``lax`` in
        scope; a tuple gives several positional arguments. ``static_argnums`` is
        passed to ``jax.jit``. With ``second_args``, the jitted function is called
        again on them, and ``retrace`` says whether JAX traced again, and why.

        Returns ``{"ok": True, "function", "result", "jaxpr", "stablehlo", "hlo",
        "trace_s", "lower_s", "compile_s", "run_s", "cost", "memory", "pytree",
        "line_map", "static_argnums", "retrace", "purity", "stdout", "warnings"}``
        or an error dict.
        """
        problem = (
            _check_text("code", code, MAX_CODE_CHARS) or _check_text("args", args, MAX_ARGS_CHARS)
            or _check_text("second_args", second_args, MAX_ARGS_CHARS) or _check_argnums(static_argnums)
        )
        if problem:
            return problem
        if not code.strip():
            return error_dict("invalid_input", "There is no code: define a function, e.g. `def f(x): return x * 2`.")
        return self._pool.run({
            "kind": "inspect", "code": code, "args": args,
            "static_argnums": sorted(set(static_argnums or ())), "second_args": second_args,
        })

    def about(self) -> dict:
        """Versions, backend and devices, the sandbox layers in force, and the limits."""
        runtime = self._runtime_info()
        limits = self._settings.limits
        return {
            "ok": runtime.get("ok", False),
            "versions": {"python": platform.python_version(), **{p: _version(p) for p in _PACKAGES}},
            "backend": runtime.get("backend"),
            "devices": runtime.get("devices", []),
            "sandbox": {
                "layers": {
                    "process": {"active": True, "detail": "one fresh worker process per job, then discarded; "
                                "whitelisted environment; server not dumpable"},
                    **self._pool.layers,
                    "watchdogs": {"active": True, "detail": f"wall clock {limits.timeout_s:g} s, resident memory "
                                  f"{limits.memory_mb} MB, scratch folder {limits.scratch_mb} MB, "
                                  f"output {limits.output_chars:,} characters per field"},
                },
                "pool": self._pool.status(),
            },
            "limits": limits.to_dict(),
            "queue": {"concurrency": self._settings.workers, "max_waiting": self._settings.queue_size},
        }

    def _runtime_info(self) -> dict:
        """Backend and devices, asked of a worker once (the server never starts JAX itself)."""
        with self._runtime_lock:
            if self._runtime is None or not self._runtime.get("ok"):
                self._runtime = self._pool.run({"kind": "about"})
            return self._runtime


def _check_text(name: str, value: object, limit: int) -> dict | None:
    if not isinstance(value, str):
        return error_dict("invalid_input", f"`{name}` must be text, got {type(value).__name__}.")
    if len(value) > limit:
        return error_dict("invalid_input", f"`{name}` is {len(value):,} characters long; the limit is {limit:,}.")
    return None


def _check_argnums(static_argnums: object) -> dict | None:
    if static_argnums is None:
        return None
    if not isinstance(static_argnums, list) or not all(type(i) is int for i in static_argnums):
        return error_dict("invalid_input", "`static_argnums` must be a list of whole numbers, e.g. [1].")
    if len(static_argnums) > MAX_STATIC_ARGNUMS or any(not 0 <= i < 64 for i in static_argnums):
        return error_dict("invalid_input", "`static_argnums` holds argument positions: at most "
                          f"{MAX_STATIC_ARGNUMS} numbers, each from 0 to 63.")
    return None


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None
