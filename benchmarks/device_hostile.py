"""What benchmarks/device_check.py's ``--hostile`` sends the device owner: programs it must end, and programs it
must refuse, on the host's real device.

``LOOP`` (the jit tab's function, a loop that never ends) and ``HOG`` (the Speed of light tab's, more memory than
the device has): the job ends with its error, the owner starts again where it had to, and the next job runs.
``crafted(owner)``: artifacts a compromised worker could send (tests/crafted_programs.py), loaded in a session of
the owner's own: each is refused, and the owner says why.
"""

from __future__ import annotations

import base64

import jax

LOOP = "def fn(x):\n    return lax.while_loop(lambda c: c[0, 0] > -1.0, lambda c: c + 1.0, x)\n"
# 16 GiB of random numbers, sorted (a sort cannot be fused away: its input must be in memory): more than a TPU v5e
# chip's 15.7 GiB, and more than the owner's memory limit on a CPU.
HOG = ("def f(x):\n    big = jnp.sort(jax.random.normal(jax.random.key(0), (1 << 16, 1 << 16)))\n"
       "    return x + big[0, 0]\n")


def crafted(owner) -> dict[str, str]:
    """Each crafted artifact's fate in a session of ``owner``: its refusal (what the owner said), or that it ran."""
    jax.config.update("jax_platforms", "cpu")  # this process lowers and serialises; the device is the owner's
    from tests.crafted_programs import crafted as artifacts

    session = owner.open_session()
    try:
        platform = owner.setup.platform
        made = artifacts("cuda" if platform == "gpu" else platform)
        said = {}
        for name, serialized in made.items():
            answer = owner.ask(session, {"op": "load", "program": base64.b64encode(serialized).decode()}, 60.0)
            said[name] = f"refused: {answer['error'][:160]}" if "error" in answer else "LOADED (!)"
        return said
    finally:
        owner.close_session(session)
