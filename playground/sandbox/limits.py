"""What one job may use. The parent enforces wall clock, RSS and output size; rlimits back them up."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 10.0  # wall clock per job, then SIGKILL
    memory_mb: int = 2048  # resident memory watchdog, then SIGKILL
    address_space_mb: int = 4096  # RLIMIT_AS; 0 turns it off (CUDA reserves huge address ranges)
    cpu_s: int = 60  # RLIMIT_CPU, all threads together
    file_size_mb: int = 64  # RLIMIT_FSIZE, per file written in the scratch dir
    open_files: int = 256  # RLIMIT_NOFILE
    scratch_mb: int = 256  # disk used in the job's scratch folder, watched from the parent
    output_chars: int = 200_000  # per text field of a result; longer ones are cut with a notice
    message_bytes: int = 16 * 1024 * 1024  # whole result message from a worker

    def __post_init__(self) -> None:
        if not (math.isfinite(self.timeout_s) and self.timeout_s > 0):
            raise ValueError(f"timeout_s must be a positive number of seconds, got {self.timeout_s}")
        if self.memory_mb < 256:
            raise ValueError(f"memory_mb must be at least 256, got {self.memory_mb}")
        if self.address_space_mb and self.address_space_mb < 2048:
            raise ValueError("address_space_mb below 2048 breaks XLA; use 0 to turn it off")

    def to_dict(self) -> dict:
        return asdict(self)
