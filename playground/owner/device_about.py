"""The device the jobs measure on, as the owner describes it: in its hello, and to a job's ``about`` op."""

from __future__ import annotations

import jax


def about(device: jax.Device, memory_mb: int) -> dict:
    """What the jobs measure on: ``label`` as the pages print it ("cpu", "tpu: TPU v5 lite"), and the bytes of memory
    they may use there (the device's own count; the owner's memory limit on a CPU, which has none)."""
    try:
        stats = device.memory_stats() or {}
    except Exception:  # a backend without memory statistics (the CPU's) says nothing
        stats = {}
    label = device.platform if device.device_kind == device.platform else f"{device.platform}: {device.device_kind}"
    return {"platform": device.platform, "label": label, "kind": device.device_kind,
            "devices": [f"{d.platform}:{d.id} {d.device_kind}" for d in jax.devices()],
            "memory_bytes": stats.get("bytes_limit") or memory_mb * 2**20}
