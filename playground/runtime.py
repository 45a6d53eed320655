"""Runs inside a sandbox worker: what JAX sees there (the About tab asks one worker, once)."""

from __future__ import annotations

import platform

import jax

from playground.sandbox.limits import Limits


def device_label() -> str:
    """The device jobs run on here, e.g. ``"cpu"`` or ``"gpu: NVIDIA H200"`` (the jit, vmap and Inspect replies)."""
    device = jax.devices()[0]
    return device.platform if device.device_kind == device.platform else f"{device.platform}: {device.device_kind}"


def about_job(limits: Limits) -> dict:
    """Python's version, JAX's backend and its devices, as ``"platform:id kind"``."""
    return {"ok": True, "python": platform.python_version(), "backend": jax.default_backend(),
            "devices": [f"{d.platform}:{d.id} {d.device_kind}" for d in jax.devices()]}
