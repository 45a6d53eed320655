"""What one job may use. The parent enforces wall clock, RSS and output size; rlimits back them up."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 10.0  # wall clock per job, then SIGKILL
    measure_timeout_s: float = 60.0  # wall clock for jobs that time things (vmap, jit speed), then SIGKILL
    memory_mb: int = 2048  # resident memory watchdog, then SIGKILL
    address_space_mb: int = 4096  # RLIMIT_AS; 0 turns it off (CUDA reserves huge address ranges)
    cpu_s: int = 300  # RLIMIT_CPU, all threads together: a backstop behind the wall clock
    file_size_mb: int = 64  # RLIMIT_FSIZE, per file written in the scratch dir
    open_files: int = 256  # RLIMIT_NOFILE
    scratch_mb: int = 256  # disk used in the job's scratch folder, watched from the parent
    output_chars: int = 200_000  # per text field of a result; longer ones are cut with a notice
    message_bytes: int = 16 * 1024 * 1024  # whole result message from a worker

    def __post_init__(self) -> None:
        for name in ("timeout_s", "measure_timeout_s"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number of seconds, got {value}")
        if self.memory_mb < 256:
            raise ValueError(f"memory_mb must be at least 256, got {self.memory_mb}")
        if self.address_space_mb and self.address_space_mb < 2048:
            raise ValueError("address_space_mb below 2048 breaks XLA; use 0 to turn it off")

    def to_dict(self) -> dict:
        return asdict(self)
