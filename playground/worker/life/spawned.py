"""One spawned worker's life in the local process mode: connect, settle in, limit, warm up, run one job, exit.

The process mode is for one's own laptop, where the OS has no fork-from-template,
Landlock or seccomp (macOS, Windows; on Linux when asked): each worker is a fresh
interpreter started by the server (process_pool.py), so user code never runs in
the server's process, and one job's leftovers never reach the next. What bounds
it: the rlimits this OS has (CPU time, file size, open files; address space on
Linux), the server's watchdogs (wall clock, memory, threads, scratch folder,
reply size), and an audit hook that refuses new processes. Not a boundary
against hostile code: the job runs as the user, with the user's files.

Started as ``python -I -c "... main(channel, handlers)"`` (bootstrap.entry_command);
``channel`` says how to reach the server (child_channel.py).
"""

from __future__ import annotations

import importlib
import os
from typing import NoReturn

from playground.confinement.rlimits import set_rlimits
from playground.ipc import child_channel, child_life, protocol
from playground.ipc.limits import Limits
from playground.worker.life.warm_up import warmed_up


def main(channel: str, handlers_module: str) -> NoReturn:
    """Serve one job with ``handlers_module`` (``preload``, ``warm_up``, ``run``); the process then ends."""
    child_life.live(lambda: _serve(channel, handlers_module))


def _serve(channel: str, handlers_module: str) -> int:
    sock = child_channel.connect(channel)
    request = protocol.receive(sock, 1 << 20)
    limits = Limits(**request["limits"])
    child_life.settle_in(request["scratch"])
    os.dup2(2, 1)  # stdout into stderr, which the server reads (and caps)
    layers = {"rlimits": set_rlimits(limits)}
    handlers = importlib.import_module(handlers_module)
    handlers.preload()
    hello = {**warmed_up(handlers), "layers": layers, "pid": os.getpid()}
    protocol.send(sock, hello)
    if not hello["ready"]:  # the warm-up's traceback is on stderr already
        return 1
    job = protocol.receive(sock, limits.message_bytes)
    protocol.send(sock, handlers.run(job, limits, lambda reply: protocol.send(sock, {"early": reply}),
                                     protocol.asker(sock, limits.message_bytes)))
    return 0
