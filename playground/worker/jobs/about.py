"""Runs inside a sandbox worker: what JAX sees there (each worker says it when it is warm; About asks one, once)."""

from __future__ import annotations

import platform

import jax

from playground.ipc.limits import Limits


def device_label() -> str:
    """The device jobs run on here, e.g. ``"cpu"`` or ``"gpu: NVIDIA H200"`` (the jit, vmap and Inspect replies)."""
    device = jax.devices()[0]
    return device.platform if device.device_kind == device.platform else f"{device.platform}: {device.device_kind}"


def backend() -> dict:
    """JAX's default backend here and its devices, as ``"platform:id kind"``: what a warm worker reports."""
    devices = [f"{d.platform}:{d.id} {d.device_kind}" for d in jax.devices()]
    return {"backend": jax.default_backend(), "devices": devices}


def about_job(limits: Limits) -> dict:
    """Python's version, JAX's backend and its devices."""
    return {"ok": True, "python": platform.python_version(), **backend()}
