"""JAX's persistent compilation cache in the owner: the training's programs kept on disk, across runs and owners.

``configure(folder, max_mb)`` runs in the owner after its lockdown and before
it compiles anything (main.py): JAX then looks every compile up in
``folder`` (``jax_compilation_cache_dir``), keeps it at most ``max_mb``
(``jax_compilation_cache_max_size``: the least recently read entries are
deleted first, under a file lock, when a new entry would pass it), and
writes only what is compiled inside ``kept()``: the training runs' programs.

The programs a job sends are never written (``jax_persistent_cache_min_compile_time_secs``
is endless outside ``kept()``): the jit and Compiler tabs show how long XLA took
and what its passes did, and a program loaded from disk would answer with
neither; a visitor's programs would evict the training's from a bounded
folder; and one visitor could tell from a compile's time whether another had
compiled the same function before. Every compile is still looked up: a job's
program can only be found there if it is exactly one of the training's, and
then it is XLA's own output for it.

``compiles_here()`` counts the XLA compiles of the calling thread: JAX's
monitoring events say when it asked for a program (compiled, or loaded from
the cache) and when the cache had it; a run reports how many it compiled.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

import jax
from jax._src import config as jax_state  # the thread-local form of a setting: jax.config.update is process-wide

NEVER_S = 1e12  # a compile time no compile reaches: outside kept(), nothing is written
_MB = 1 << 20
_count = threading.local()
T = TypeVar("T")


def configure(folder: str, max_mb: int) -> dict:
    """Point JAX's cache at ``folder``, bounded to ``max_mb``, and say whether it is in use: ``{"active", "folder",
    "max_mb", "detail"}``. A folder that cannot be written leaves the cache off (the detail says why); the owner
    serves on without it."""
    jax.monitoring.register_event_duration_secs_listener(_asked)
    jax.monitoring.register_event_listener(_found)
    state = {"active": False, "folder": folder, "max_mb": max_mb}
    if not folder or max_mb <= 0:
        return {**state, "detail": "turned off (PLAYGROUND_COMPILE_CACHE_MB=0)"}
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):  # can this process write there? (Landlock, permissions, space)
            pass
    except OSError as exc:
        return {**state, "detail": f"cannot write to {folder}: {exc.strerror or exc}"}
    jax.config.update("jax_compilation_cache_dir", folder)
    jax.config.update("jax_compilation_cache_max_size", max_mb * _MB)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", NEVER_S)
    # XLA's own GPU caches (autotuning, kernels) would be written by every compile, a job's too, and unbounded.
    jax.config.update("jax_persistent_cache_enable_xla_caches", "none")
    return {**state, "active": True, "detail": f"{folder}, at most {max_mb:,} MB"}


@contextlib.contextmanager
def kept() -> Iterator[None]:
    """Compiles of this thread inside the block are written to the cache, however quick (where it is in use)."""
    with jax_state.persistent_cache_min_compile_time_secs(0):
        yield


def compiles_here() -> int:
    """XLA compiles this thread has made so far (loads from the cache not counted)."""
    return getattr(_count, "compiles", 0)


def kept_beside(task: Callable[[], T]) -> tuple[T, int]:
    """``task`` run inside ``kept()`` on the thread that calls this (a helper of a thread that is inside it), and
    the XLA compiles it made there, for that thread to ``count``."""
    with kept():
        before = compiles_here()
        return task(), compiles_here() - before


def count(compiles: int) -> None:
    """Count ``compiles`` made on helper threads (``kept_beside``) as this thread's."""
    _count.compiles = compiles_here() + compiles


def _asked(event: str, duration_s: float, **_: object) -> None:
    if event == "/jax/core/compile/backend_compile_duration":  # timed around a compile or a load from the cache
        _count.compiles = compiles_here() + 1


def _found(event: str, **_: object) -> None:
    if event == "/jax/compilation_cache/cache_hits":  # said before the load's time above
        _count.compiles = compiles_here() - 1
