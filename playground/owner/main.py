"""The device owner's process: lock down, open the device once, then serve every job's device work, one at a time.

Started by the server (server/device_owner/process.py) as ``main(channel)``; its first message is the set-up
(``OwnerSetup`` of process.py, as a dict). In order:

1. die with the server (``PR_SET_PDEATHSIG``), be undumpable (its environment holds the ``TPU_*`` variables),
   settle into its scratch folder as every child does (ipc/child_life.py), and hand the server its own
   /proc/self/smaps, open (``send_memory_reader``): the server's watchdog reads it there, where an undumpable
   process's /proc files are closed to a server without root;
2. lock down as a sandbox worker does, with every layer the host has (confinement/lockdown.py: rlimits,
   capabilities, Landlock with the device's files and the owner's own folders, seccomp), while still one
   thread: what the driver needs beyond its files is granted by name (device_grants.py: the server found the
   smallest set that opens the device), with ptxas and nvlink found here for ``compiler_programs``
   (cuda_programs.py);
3. point JAX's compilation cache at the folder the server named (compile_cache.py: before anything compiles;
   a folder it cannot write leaves the cache off, said in the hello), open the device (``JAX_PLATFORMS`` is
   pinned: failing to open it is an error with JAX's reason, never a quiet CPU) and compile once;
4. say hello (ready, the device, the layers, the cache) and serve; the training's default configuration is
   compiled meanwhile, on a thread of its own (training/runs.py).

Messages from the server (ipc/protocol.py framing), each with an ``id`` its answer repeats:
``{"open": session}``, ``{"session": s, "request": {...}}`` (device_ops.py's ops), ``{"close": session}``.
No message makes it run code it was sent: programs pass programs.py's checks and are compiled by XLA.
"""

from __future__ import annotations

import os
import socket
import traceback
from typing import NoReturn

from playground.confinement.rlimits import set_rlimits
from playground.ipc import child_channel, child_life, protocol
from playground.ipc.limits import Limits
from playground.owner import cuda_programs


def main(channel: str) -> NoReturn:
    child_life.live(lambda: _serve(channel))


def _serve(channel: str) -> None:
    sock = child_channel.connect(channel)
    setup = protocol.receive(sock, 1 << 20)
    child_life.die_with_parent(undumpable=True)
    child_life.settle_in(setup["scratch"])
    send_memory_reader(sock)
    layers = _lock_down(setup)
    hello = _open_device(setup, layers)
    protocol.send(sock, hello)
    if hello["ready"]:
        from playground.owner.serve import Owner  # imports JAX: after the lockdown, as its first use

        Owner(sock, setup, hello["compile_cache"]).serve()


def send_memory_reader(sock: socket.socket) -> None:
    """One byte, with /proc/self/smaps open attached where the channel can carry it (a UNIX socket on Linux):
    opened by the process itself, it stays readable after PR_SET_DUMPABLE 0 and the lockdown."""
    smaps = "/proc/self/smaps"
    if sock.family != getattr(socket, "AF_UNIX", None) or not os.path.exists(smaps):
        sock.sendall(b"-")
        return
    fd = os.open(smaps, os.O_RDONLY)
    try:
        socket.send_fds(sock, [b"m"], [fd])
    finally:
        os.close(fd)


def _lock_down(setup: dict) -> dict:
    """Every layer the host allows (the full sandbox), or the rlimits alone (the local process mode)."""
    limits = Limits(**setup["limits"])
    if setup["sandbox"] != "full":
        return {"rlimits": set_rlimits(limits)}  # the local process mode's, as its workers get
    from playground.confinement import (
        lockdown,  # Linux's, as the full sandbox is: it needs resource, which Windows lacks
    )

    grants = setup["grants"]
    programs = cuda_programs.find(cuda_programs.folders(os.environ)) if "compiler_programs" in grants else []
    # The scratch folder is the owner's own (no job writes there, nothing walks it): private. It runs no job's code,
    # so where Landlock is missing it keeps writing its own folders (the programs it runs are checked: programs.py).
    return lockdown.apply(limits, setup["scratch"], devices=setup["devices"], grants=grants, programs=programs,
                          private_scratch=True, readable=setup["readable"], writable=setup["writable"],
                          runs_jobs=False)


def _open_device(setup: dict, layers: dict) -> dict:
    """Open the device and compile once; the hello says what opened, or why nothing did (JAX's words)."""
    try:
        import jax
        import jax.numpy as jnp

        from playground.owner import compile_cache
        from playground.owner.device_about import about
        from playground.owner.training import race

        cache = compile_cache.configure(setup["compile_cache"], setup["compile_cache_mb"])
        jax.jit(lambda x: x * 2 + 1)(jnp.arange(4.0)).block_until_ready()
        device = jax.devices()[0]
        return {"ready": True, "backend": jax.default_backend(), "about": about(device, setup["memory_mb"]),
                "race": race.about(), "layers": layers, "compile_cache": cache, "pid": os.getpid()}
    except Exception as exc:
        traceback.print_exc()
        said = str(exc) or f"JAX opened no backend for JAX_PLATFORMS={os.environ.get('JAX_PLATFORMS', '')!r}"
        return {"ready": False, "reason": f"{type(exc).__name__}: {said}"[:4000], "layers": layers}
