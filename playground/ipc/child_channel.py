"""A helper process and the server's socket to it, on any OS.

POSIX: a socket pair, the child's end inherited (``fd:N``). Windows cannot
hand a socket to a child, so there the child connects back to a one-time
listener on 127.0.0.1 (``tcp:PORT``) and proves itself with a token it reads
from its stdin; any other connection that reaches the port first is dropped.
Used for the process mode's workers (process_pool.py) and the device owner
(server/device_owner/handle.py).
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time

from playground.ipc.bootstrap import entry_command

KINDS = ("inherit", "loopback")
DEFAULT = "loopback" if os.name == "nt" else "inherit"
TOKEN_BYTES = 32


def start(module: str, *arguments: int | str, env: dict[str, str], kind: str = DEFAULT, connect_s: float = 120.0,
          **popen) -> tuple[subprocess.Popen, socket.socket]:
    """Run ``module.main(channel, *arguments)`` in a new ``python -I`` (its own session or process group), and
    return the process and the server's end of the channel. ``popen`` goes to subprocess.Popen (stdin is ours)."""
    if kind not in KINDS:
        raise ValueError(f"channel kind must be one of {KINDS}, got {kind!r}")
    group = {"start_new_session": True} if os.name != "nt" else {
        "creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
    if kind == "inherit":
        server_end, child_end = socket.socketpair()
        try:
            process = subprocess.Popen(entry_command(module, f"fd:{child_end.fileno()}", *arguments), env=env,
                                       pass_fds=[child_end.fileno()], stdin=subprocess.DEVNULL, **group, **popen)
        except BaseException:
            server_end.close()
            raise
        finally:
            child_end.close()
        return process, server_end
    with socket.create_server(("127.0.0.1", 0)) as listener:
        token = secrets.token_bytes(TOKEN_BYTES)
        process = subprocess.Popen(entry_command(module, f"tcp:{listener.getsockname()[1]}", *arguments), env=env,
                                   stdin=subprocess.PIPE, **group, **popen)
        try:
            process.stdin.write(token)
            process.stdin.close()
            return process, accept(listener, token, connect_s)
        except BaseException:
            process.kill()
            process.wait()
            raise


def accept(listener: socket.socket, token: bytes, within_s: float) -> socket.socket:
    """The connection that brings ``token``; others are closed. TimeoutError when none does in time."""
    deadline = time.monotonic() + within_s
    while (remaining := deadline - time.monotonic()) > 0:
        listener.settimeout(remaining)
        try:
            connection, _ = listener.accept()
        except TimeoutError:
            break
        connection.settimeout(min(5.0, remaining))
        try:
            said = _read(connection, len(token))
        except OSError:
            said = b""
        if secrets.compare_digest(said, token):
            connection.settimeout(None)
            return connection
        connection.close()
    raise TimeoutError(f"the helper process did not connect back within {within_s:g} s")


def connect(channel: str) -> socket.socket:
    """The child's side: its socket to the server, from ``fd:N`` or ``tcp:PORT`` (then the token on stdin)."""
    kind, _, value = channel.partition(":")
    if kind == "fd":
        return socket.socket(fileno=int(value))
    if kind == "tcp":
        token = sys.stdin.buffer.read(TOKEN_BYTES)
        sock = socket.create_connection(("127.0.0.1", int(value)), timeout=30)
        sock.settimeout(None)
        sock.sendall(token)
        return sock
    raise ValueError(f"unknown channel {channel!r}")


def _read(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size and (chunk := connection.recv(size - len(data))):
        data += chunk
    return data
