"""The server's end of the template process: start it, ask it for workers, hear how each one ended."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import threading
from dataclasses import dataclass

from playground.ipc.bootstrap import entry_command


class TemplateLink:
    """One running template process; ``spawn`` and ``signal`` are safe to call from several threads."""

    def __init__(self, env: dict[str, str], cwd: str, timeout_s: float, handlers: str) -> None:
        control, control_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        exits, exits_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = subprocess.Popen(
                entry_command("playground.worker.life.template", control_child.fileno(), exits_child.fileno(),
                              handlers),
                env=env, pass_fds=[control_child.fileno(), exits_child.fileno()], start_new_session=True,
                stdin=subprocess.DEVNULL, cwd=cwd,
            )
        finally:
            control_child.close()
            exits_child.close()
        self._control, self._exits = control, exits
        self._lock = threading.Lock()
        self._ended: dict[int, dict] = {}  # worker number -> its exit report
        self._ended_changed = threading.Condition()
        self._closed = False
        control.settimeout(timeout_s)
        try:
            hello = json.loads(control.recv(1 << 16) or b"{}")
        except (OSError, ValueError):
            hello = {}
        if not hello.get("ready"):
            self.close()
            raise RuntimeError("the sandbox template process failed to start")
        self.pid_namespaces = {"active": bool(hello.get("pid_namespaces")), "detail": str(hello.get("why", ""))}
        self.pidfds = {"active": bool(hello.get("pidfds")), "detail": str(hello.get("pidfds_why", ""))}
        self._reader = threading.Thread(target=self._read_exits, name="sandbox-exits", daemon=True)
        self._reader.start()

    def alive(self) -> bool:
        return not self._closed and self.process.poll() is None

    def spawn(self, request: dict, fds: list[int]) -> Child:
        """A new worker; the fds (its job socket, its log pipe) go along with the request."""
        with self._lock:
            socket.send_fds(self._control, [json.dumps(request).encode()], fds)
            data, pidfds, _flags, _addr = socket.recv_fds(self._control, 1 << 16, 1)
        for fd in pidfds:
            os.set_inheritable(fd, False)  # received without O_CLOEXEC: no program we start may hold it
        reply = json.loads(data or b"{}")
        if "pid" not in reply:
            for fd in pidfds:
                os.close(fd)
            raise RuntimeError(f"the template could not start a worker: {reply.get('error', 'no reply')}")
        return Child(self, int(reply["pid"]), int(reply["worker"]), pidfds[0] if pidfds else None)

    def signal(self, number: int, signum: int) -> None:
        """Have the template send ``signum`` to its worker ``number``; nothing once it has reaped that worker."""
        with self._lock:
            try:
                self._control.send(json.dumps({"signal": signum, "worker": number}).encode())
                self._control.recv(1 << 16)
            except OSError:  # the template is gone, and its workers with it (PR_SET_PDEATHSIG)
                pass

    def ended(self, number: int, wait_s: float) -> bool:
        """Whether worker ``number`` has ended, as the template's report (or its own end) says; waits up to wait_s."""
        with self._ended_changed:
            return self._ended_changed.wait_for(lambda: number in self._ended or self._closed, timeout=wait_s)

    def exit_report(self, number: int, wait_s: float) -> dict | None:
        """How worker ``number`` ended ({"code": "exited"|"killed"|"dumped", "status", ...}), once it is reaped."""
        self.ended(number, wait_s)
        with self._ended_changed:
            return self._ended.get(number)

    def forget(self, number: int) -> None:
        with self._ended_changed:
            self._ended.pop(number, None)

    def _read_exits(self) -> None:
        while True:
            try:
                data = self._exits.recv(4096)
            except OSError:
                data = b""
            with self._ended_changed:
                if not data:
                    self._closed = True
                    self._ended_changed.notify_all()
                    return
                try:
                    report = json.loads(data)
                    self._ended[int(report["worker"])] = report
                except (ValueError, KeyError, TypeError):
                    pass
                if len(self._ended) > 4096:  # reports nobody claimed (workers of a pool that is closing)
                    self._ended.pop(next(iter(self._ended)))
                self._ended_changed.notify_all()

    def close(self) -> None:
        """Kill the template (its workers die with it: PR_SET_PDEATHSIG) and wait for it."""
        with self._lock:
            self._control.close()
            self.process.kill()
            self.process.wait()
        self._exits.close()
        with self._ended_changed:
            self._closed = True
            self._ended_changed.notify_all()


@dataclass
class Child:
    """One worker of a template as the server holds it: how its end is learned and how a signal reaches it.

    Each way is safe from pid reuse. A pidfd (which the template, the worker's
    parent, opened before it could reap it) names this process and no other.
    Without one (no pidfds on this kernel), the template signals the worker
    only while it has not reaped it, when its pid cannot name another process,
    and its exit report, keyed by the worker's number, which is never used
    twice, says it has ended.
    """

    link: TemplateLink
    pid: int
    number: int
    pidfd: int | None

    def ended(self, wait_s: float = 0.0) -> bool:
        if self.pidfd is None:
            return self.link.ended(self.number, wait_s)
        return bool(select.select([self.pidfd], [], [], wait_s)[0])

    def signal(self, signum: int) -> None:
        if self.pidfd is None:
            self.link.signal(self.number, signum)
            return
        try:
            signal.pidfd_send_signal(self.pidfd, signum)
        except ProcessLookupError:
            pass

    def exit_report(self, wait_s: float) -> dict | None:
        return self.link.exit_report(self.number, wait_s)

    def close(self) -> None:
        self.link.forget(self.number)
        if self.pidfd is not None:
            os.close(self.pidfd)
