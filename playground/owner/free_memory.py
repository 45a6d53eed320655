"""The owner's freed memory handed back to the kernel between jobs (glibc's ``malloc_trim``).

Every process of the app keeps the blocks it frees, up to 32 MB each, in its heap (ipc/bootstrap.py): a timed
call then reuses its memory instead of faulting fresh pages in on every call. A worker lives for one job; the
owner lives for many, so once no job's session is open it gives back what is free, and one job's peak does not
stay in the resident memory its watchdog counts.
"""

from __future__ import annotations

import ctypes


def give_back() -> bool:
    """Return the heap's free memory to the kernel; False where the C library has no ``malloc_trim`` (not glibc)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):  # Windows has no CDLL(None); macOS and musl no malloc_trim
        return False
    trim.argtypes = (ctypes.c_size_t,)
    trim(0)
    return True
