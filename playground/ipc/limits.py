"""What one job may use. The parent enforces wall clock, RSS and output size; rlimits back them up."""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, field


def _default_tasks() -> int:
    """Room for XLA's thread pools (about two threads per core) and the user's own threads."""
    return max(512, 4 * (os.cpu_count() or 1))


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 10.0  # wall clock per job, then SIGKILL
    measure_timeout_s: float = 60.0  # wall clock for jobs that time things (vmap, jit speed), then SIGKILL
    memory_mb: int = 2048  # resident memory watchdog, then SIGKILL
    address_space_mb: int = 4096  # RLIMIT_AS; 0 turns it off (CUDA reserves huge address ranges)
    cpu_s: int = 300  # RLIMIT_CPU, all threads together: a backstop behind the wall clock
    file_size_mb: int = 64  # RLIMIT_FSIZE, per file written in the scratch dir
    open_files: int = 256  # RLIMIT_NOFILE
    scratch_mb: int = 256  # disk used in the job's scratch folder (a tmpfs of this size where namespaces work)
    scratch_files: int = 10_000  # files and folders in the scratch folder
    scratch_depth: int = 64  # folders nested in it (the server's walk goes no deeper where it must walk)
    max_tasks: int = field(default_factory=_default_tasks)  # threads of one worker (cgroup pids.max, else watched)
    output_chars: int = 200_000  # per text field of a result; longer ones are cut with a notice
    message_bytes: int = 16 * 1024 * 1024  # whole result message from a worker

    def __post_init__(self) -> None:
        for name in ("timeout_s", "measure_timeout_s"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number of seconds, got {value}")
        if self.memory_mb < 256:
            raise ValueError(f"memory_mb must be at least 256, got {self.memory_mb}")
        for name in ("scratch_mb", "scratch_files", "scratch_depth", "max_tasks", "open_files", "file_size_mb"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.address_space_mb and self.address_space_mb < 2048:
            raise ValueError("address_space_mb below 2048 breaks XLA; use 0 to turn it off")

    def cpu_description(self) -> str:
        """RLIMIT_CPU in words: RLIM_INFINITY (-1 on Linux, 2**63 - 1 on macOS: the device owner's) is unlimited.

        >>> Limits().cpu_description(), Limits(cpu_s=-1).cpu_description()
        ('300 s', 'unlimited')
        """
        return f"{self.cpu_s} s" if 0 <= self.cpu_s < 2**62 else "unlimited"

    def to_dict(self) -> dict:
        return asdict(self)
