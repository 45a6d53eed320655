"""A worker's warm-up, and the first words of its hello: ready with the backend it opened, or not, and why.

Shared by both kinds of worker (forked.py, forked in the full sandbox; spawned.py, spawned in the local
mode). Every worker is pinned to the CPU (``JAX_PLATFORMS=cpu``; the device is the device owner's,
playground/owner/): one whose JAX cannot open it fails its warm-up with JAX's own reason, and is discarded.
"""

from __future__ import annotations

import os
import traceback
from types import ModuleType

MAX_REASON_CHARS = 2000


def warmed_up(handlers: ModuleType) -> dict:
    """``{"ready": True, "backend": {...}}`` after ``handlers.warm_up()``, or ``{"ready": False, "warm_up_failed"}``."""
    try:
        return {"ready": True, "backend": handlers.warm_up()}
    except Exception as exc:  # the worker is discarded; its log keeps the traceback
        traceback.print_exc()
        # JAX names a platform it could not open; one it has no plugin for at all fails without a word.
        said = str(exc) or f"JAX opened no backend for JAX_PLATFORMS={os.environ.get('JAX_PLATFORMS', '')!r}"
        return {"ready": False, "warm_up_failed": shortened(f"{type(exc).__name__}: {said}")}


def shortened(reason: str, limit: int = MAX_REASON_CHARS) -> str:
    """``reason`` within ``limit`` characters: its head (what failed) and its tail (the last details), cut between.

    XLA's reasons can run to pages (every path it searched); the first lines say what went wrong.

    >>> shortened("x" * 10 + "y" * 10, 12)
    'xxxx … yyyyy'
    """
    if len(reason) <= limit:
        return reason
    head = limit // 3
    return f"{reason[:head]} … {reason[-(limit - head - 3):]}"
