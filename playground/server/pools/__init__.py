"""Runs user code out of the server process, in single-use workers.

Two kinds of pool, one interface, ``JobPool`` (pool_interface.py: size,
layers, start, run, close, status, mechanisms: what the server asks
of a pool): ``WorkerPool`` (pool.py), locked-down workers forked from a
template, Linux only; and ``ProcessPool`` (process_pool.py), freshly spawned
interpreters with the limits any OS offers, for one's own laptop (macOS,
Windows). Imported on first use, so that a host without Linux's modules can
import the other.
"""

from __future__ import annotations

from playground.server.pools.pool_interface import JobPool

__all__ = ["JobPool", "ProcessPool", "WorkerPool"]


def __getattr__(name: str):
    if name == "WorkerPool":
        from playground.server.pools.pool import WorkerPool

        return WorkerPool
    if name == "ProcessPool":
        from playground.server.pools.process_pool import ProcessPool

        return ProcessPool
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
