"""How much memory the jit benchmark needs for an n x n float32 input, and which default sizes fit a server.

Stdlib only: the server picks the jit tab's default sizes from its memory limit,
and the worker (playground/worker/jobs/jit_speed.py) uses the same rule on each size.

>>> default_sizes(2048)  # the default limit: 10,000 x 10,000 needs about 3 GB
[10, 100, 1000, 2000, 4000]
>>> default_sizes(8192)
[10, 100, 1000, 2000, 4000, 10000]
>>> default_sizes(512)  # a small sandbox still gets a size past the CPU's caches
[10, 100, 1000, 2000]
"""

from __future__ import annotations

# The classic benchmark's sizes, up to its 10^4 x 10^4 headline. Fusion's gain is memory traffic saved, which shows
# once the arrays outgrow the CPU's caches: 2,000 x 2,000 (16 MB an array) does on any laptop and fits a 512 MB
# sandbox, so a server too small for 4,000 still shows it (jit's lead over NumPy grows from 1,000 up; below
# 1,000 jit loses to its dispatch, which the tab explains; benchmarks/jit_speed.py prints each size's speed-up).
CANDIDATE_SIZES = (10, 100, 1000, 2000, 4000, 10000)
ARRAYS_FLOOR = 8  # the benchmark holds at least this many n x n arrays at once (input, outputs, temporaries)
HEADROOM = 0.8  # a size is kept while the worker stays under this share of its memory limit
WORKER_RESIDENT_MB = 256  # a worker with JAX loaded, before any array, and some room
BYTES_PER_ELEMENT = 4  # float32


def floor_mb(n: int) -> float:
    """The least the benchmark needs for size n, in MB, on top of the worker itself."""
    return ARRAYS_FLOOR * n * n * BYTES_PER_ELEMENT / 2**20


def default_sizes(memory_mb: int) -> list[int]:
    """The candidate sizes a worker with ``memory_mb`` can run: a default the server always skips is no default."""
    return [n for n in CANDIDATE_SIZES if WORKER_RESIDENT_MB + floor_mb(n) <= HEADROOM * memory_mb] or [10]
