"""The jobs a worker knows how to run; the server sends {"kind": ..., ...}."""

from __future__ import annotations

import platform

import jax
import jax.numpy as jnp

from playground import staging, usercode
from playground.sandbox.limits import Limits

DEFAULT_CODE = "def f(x):\n    return x + x*x + x*x*x\n"
DEFAULT_ARGS = "jnp.arange(4.0)"


def warm_up() -> None:
    """Start JAX's backend and compile once, so the user's job does not pay for it."""
    jax.jit(lambda x: x * 2 + 1)(jnp.arange(4.0)).block_until_ready()
    staging.inspect(DEFAULT_CODE, DEFAULT_ARGS, 1000)


def run(job: dict, limits: Limits) -> dict:
    kind = job.get("kind")
    if kind == "inspect":
        usercode.forbid_new_processes()
        return staging.inspect(
            str(job.get("code", "")), str(job.get("args", "")), limits.output_chars,
            static_argnums=tuple(int(i) for i in job.get("static_argnums") or ()),
            second_args=str(job.get("second_args") or ""),
            checks_budget_s=limits.timeout_s / 5,
        )
    if kind == "about":
        return about()
    return usercode.error_dict("invalid_input", f"unknown job kind {kind!r}")


def about() -> dict:
    devices = jax.devices()
    return {
        "ok": True,
        "python": platform.python_version(),
        "backend": jax.default_backend(),
        "devices": [f"{d.platform}:{d.id} {d.device_kind}" for d in devices],
    }
