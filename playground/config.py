"""Settings from environment variables, read once at start-up (app.py)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from playground.sandbox.limits import Limits


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 7860
    workers: int = 2  # jobs at once; as many warm workers are kept ready
    queue_size: int = 32  # requests waiting beyond that; more get "busy, try again"
    limits: Limits = field(default_factory=Limits)

    @classmethod
    def from_env(cls, env: dict[str, str]) -> "Settings":
        """PLAYGROUND_* variables; GRADIO_SERVER_NAME/PORT too, as Hugging Face Spaces set them."""
        workers = _int(env, "PLAYGROUND_WORKERS", max(1, min(8, os.cpu_count() or 1)))
        limits = Limits(
            timeout_s=_float(env, "PLAYGROUND_TIMEOUT_S", Limits.timeout_s),
            memory_mb=_int(env, "PLAYGROUND_MEMORY_MB", Limits.memory_mb),
            address_space_mb=_int(env, "PLAYGROUND_ADDRESS_SPACE_MB", Limits.address_space_mb),
        )
        return cls(
            host=env.get("PLAYGROUND_HOST") or env.get("GRADIO_SERVER_NAME") or cls.host,
            port=_int(env, "PLAYGROUND_PORT", _int(env, "GRADIO_SERVER_PORT", cls.port)),
            workers=workers,
            queue_size=_int(env, "PLAYGROUND_QUEUE_SIZE", max(cls.queue_size, 8 * workers)),
            limits=limits,
        )

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"PLAYGROUND_WORKERS must be at least 1, got {self.workers}")
        if self.queue_size < 1:
            raise ValueError(f"PLAYGROUND_QUEUE_SIZE must be at least 1, got {self.queue_size}")


def _int(env: dict[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw in (None, ""):
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, got {raw!r}") from None


def _float(env: dict[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw in (None, ""):
        return default
    try:
        return float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {raw!r}") from None
