"""Runs user code out of the server process, in single-use locked-down workers."""

from playground.sandbox.limits import Limits
from playground.sandbox.pool import WorkerPool

__all__ = ["Limits", "WorkerPool"]
