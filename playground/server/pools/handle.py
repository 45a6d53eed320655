"""The server's handle on one worker: its process, its job socket, its log pipe, and what the kernel says of it."""

from __future__ import annotations

import fcntl
import os
import resource
import signal
import socket
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from playground.confinement import lockdown
from playground.ipc import procfs
from playground.ipc.limits import Limits
from playground.ipc.procfs import Sample

if TYPE_CHECKING:
    from playground.server.pools.template_link import Child

_F_SETPIPE_SZ = 1031


class LogPipe:
    """The worker's stdout and stderr: a pipe the server made, read without blocking, the last 64 KB kept.

    Nothing the worker can plant in its folder changes where the server reads from.
    """

    KEEP = 64 * 1024

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe2(os.O_CLOEXEC)
        os.set_blocking(self.read_fd, False)
        try:
            fcntl.fcntl(self.write_fd, _F_SETPIPE_SZ, 1 << 20)  # room for a warm-up's warnings
        except OSError:
            pass
        self._kept = bytearray()

    def drain(self, most: int = 1 << 20) -> None:
        """Read what is there, at most ``most`` bytes: a worker writing without pause cannot hold the server here."""
        while most > 0:
            try:
                chunk = os.read(self.read_fd, 1 << 16)
            except OSError:  # BlockingIOError: nothing more for now
                return
            if not chunk:
                return
            most -= len(chunk)
            self._kept += chunk
            del self._kept[:-self.KEEP]

    def text(self) -> str:
        self.drain()
        return self._kept.decode("utf-8", "replace")

    def close_write_end(self) -> None:
        if self.write_fd >= 0:
            os.close(self.write_fd)
            self.write_fd = -1

    def close(self) -> None:
        self.close_write_end()
        os.close(self.read_fd)


@dataclass
class WorkerHandle:
    process: Child  # its end and its signals: through a pidfd, or through its parent, the template
    channel: socket.socket
    log: LogPipe
    scratch: str
    cgroups: list[str]
    hello: dict = field(default_factory=dict)  # sent before any user code ran, so ours
    last: Sample | None = None
    exit: dict | None = None  # the kernel's wait status, from the template
    exit_known: bool = False

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def private_scratch(self) -> bool:
        return bool(self.hello.get("private_scratch"))

    def exited(self, wait_s: float = 0.0) -> bool:
        return self.process.ended(wait_s)

    def signal(self, signum: int) -> None:
        self.process.signal(signum)

    def ask_where(self) -> bool:
        """Ask the worker's faulthandler for its stack (SIGUSR1, into the log pipe); True: asked."""
        self.signal(signal.SIGUSR1)
        return True

    def kill(self) -> None:
        self.signal(signal.SIGKILL)

    def sample(self) -> Sample | None:
        """Resident memory, address space and threads; None once the process is gone."""
        reading = procfs.sample(self.pid)
        self.last = reading or self.last
        return reading

    def limits_problem(self, limits: Limits) -> str | None:
        """Why this worker does not run under the rlimits asked for, by its report and by the kernel's; else None."""
        wanted = lockdown.wanted_rlimits(limits)
        reported = self.hello.get("rlimits") or {}
        for name, value in wanted.items():
            if reported.get(name) != [value, value]:
                return f"it reports {name} = {reported.get(name)}, not {value}"
        try:
            with open(f"/proc/{self.pid}/limits") as f:
                table = f.read().splitlines()
        except OSError as exc:
            return f"its /proc/{self.pid}/limits cannot be read ({exc.strerror})"
        for name, (_, label) in lockdown.RLIMITS.items():
            row = next((line for line in table if line.startswith(label)), None)
            if row is None:
                return f"the kernel lists no {label!r}"
            soft, hard = (_rlimit(v) for v in row[len(label):].split()[:2])
            if (soft, hard) != (wanted[name], wanted[name]):
                return f"the kernel says {label} is {soft}/{hard}, not {wanted[name]}"
        return None

    def exit_report(self) -> dict | None:
        """How it ended, as the template reaped it (the kernel's wait status); None where no report came in 1 s."""
        if not self.exit_known:
            self.exit = self.process.exit_report(wait_s=1.0)
            self.exit_known = True
        return self.exit

    def destroy(self) -> None:
        """Kill it and wait (briefly) until it is gone and reaped; its scratch folder and cgroups are the pool's."""
        self.kill()
        self.exited(wait_s=2.0)
        self.exit_report()
        self.process.close()
        self.channel.close()
        self.log.close()


def _rlimit(text: str) -> int:
    return resource.RLIM_INFINITY if text == "unlimited" else int(text)
