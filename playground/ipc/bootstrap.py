"""How the server starts its helper processes: a clean command line and an environment without secrets.

Used for the sandbox template, the local mode's workers and the device owner alike.
"""

from __future__ import annotations

import ctypes
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_PR_SET_DUMPABLE = 4
_PASSED_ENV = (
    "PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "JAX_PLATFORMS", "XLA_FLAGS",
    "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
)
_FIXED_ENV = {
    "PYTHONDONTWRITEBYTECODE": "1",
    "TF_CPP_MIN_LOG_LEVEL": "2",
    "XLA_PYTHON_CLIENT_PREALLOCATE": "false",
    # glibc reserves 64 MB of address space per malloc arena, up to eight arenas a core: on a host with many cores
    # a worker that has only imported JAX can hold more address space than its 4 GB RLIMIT_AS, and die at warm-up
    # (docs/development.md's measurements). XLA allocates its arrays with mmap, beside the arenas.
    "MALLOC_ARENA_MAX": "2",
    # glibc hands large freed blocks back to the kernel (munmap, or trimming the heap's top) by thresholds that adapt
    # to the process's history, and a worker's history (forked from the template, JAX's warm-up, the job's own
    # checks) left them where every timed call's 4 MB and 16 MB arrays were given back and faulted in again: 1,900
    # page faults a NumPy call at n = 1,000, ten times a plain script's time (docs/development.md). Fixed instead:
    # blocks up to 32 MB (glibc's largest threshold) come from the heap and stay there; workers live for one job,
    # and the device owner gives its free memory back between jobs (owner/serve.py).
    "MALLOC_MMAP_THRESHOLD_": str(32 << 20),
    "MALLOC_TRIM_THRESHOLD_": str(1 << 40),
}


def worker_environment(source: dict[str, str], extra: dict[str, str] | None = None) -> dict[str, str]:
    """Only harmless variables reach a worker: no tokens, no keys, no secrets."""
    env = {k: source[k] for k in _PASSED_ENV if k in source}
    env.update(_FIXED_ENV)
    env.update(extra or {})
    return env


def entry_command(module: str, *arguments: int | str) -> list[str]:
    """``python -I`` running ``module.main(*arguments)`` from this checkout (-I: no user site or env paths)."""
    call = ", ".join(map(repr, arguments))
    bootstrap = f"import sys; sys.path.insert(0, {_ROOT!r}); from {module} import main; main({call})"
    return [sys.executable, "-I", "-c", bootstrap]


def protect_server_process() -> None:
    """Non-dumpable: a same-uid process cannot ptrace us or read our /proc/<pid>/environ."""
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
