"""The race's two devices in the owner: the host's CPU, and the device it races against.

The Train tab's race trains one configuration on both at once (two runs of runs.py, each on a thread of its own),
so that a claim such as "ten times faster on a TPU" is measured on this host, side by side. The owner opens JAX's
CPU backend beside the accelerator's (``JAX_PLATFORMS="tpu,cpu"``, server/device_owner/accelerator.py's ``owner_env``);
the accelerator stays the default device of every job.
"""

from __future__ import annotations

import jax

from playground.owner.training.placement import device_name


def devices() -> tuple[jax.Device, jax.Device] | None:
    """(the host's CPU, the device it races): the first of the default backend's devices that is not that CPU.

    None where there is none: a host without an accelerator would race its CPU against itself. Where the owner has
    several simulated CPU devices (the tests' stand-in for an accelerator), the second one races the first.
    """
    try:
        cpu = jax.devices("cpu")[0]
    except RuntimeError:  # JAX_PLATFORMS without "cpu": no CPU backend in this owner
        return None
    others = [device for device in jax.devices() if device != cpu]
    return (cpu, others[0]) if others else None


def about() -> dict | None:
    """The hello's ``race``: ``{"cpu", "device"}`` as the page names them, or None where there is no race."""
    pair = devices()
    if pair is None:
        return None
    cpu, other = pair
    named = device_name(other) if other.platform != "cpu" else f"{device_name(other)} {other.id}"
    return {"cpu": device_name(cpu), "device": named}
