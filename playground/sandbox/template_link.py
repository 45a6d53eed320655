"""The server's end of the template process: start it, ask it for workers, hear how each one ended."""

from __future__ import annotations

import json
import socket
import subprocess
import threading

from playground.sandbox.bootstrap import entry_command


class TemplateLink:
    """One running template process; ``spawn`` is safe to call from several threads."""

    def __init__(self, env: dict[str, str], cwd: str, timeout_s: float, handlers: str) -> None:
        control, control_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        exits, exits_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = subprocess.Popen(
                entry_command("playground.sandbox.template", control_child.fileno(), exits_child.fileno(), handlers),
                env=env, pass_fds=[control_child.fileno(), exits_child.fileno()], start_new_session=True,
                stdin=subprocess.DEVNULL, cwd=cwd,
            )
        finally:
            control_child.close()
            exits_child.close()
        self._control, self._exits = control, exits
        self._lock = threading.Lock()
        self._ended: dict[int, dict] = {}
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
        self._reader = threading.Thread(target=self._read_exits, name="sandbox-exits", daemon=True)
        self._reader.start()

    def alive(self) -> bool:
        return not self._closed and self.process.poll() is None

    def spawn(self, request: dict, fds: list[int]) -> int:
        """A new worker's pid; the fds (its job socket, its log pipe) go along with the request."""
        with self._lock:
            socket.send_fds(self._control, [json.dumps(request).encode()], fds)
            reply = json.loads(self._control.recv(1 << 16) or b"{}")
        if "pid" not in reply:
            raise RuntimeError(f"the template could not start a worker: {reply.get('error', 'no reply')}")
        return int(reply["pid"])

    def exit_report(self, pid: int, wait_s: float) -> dict | None:
        """How worker ``pid`` ended ({"code": "exited"|"killed"|"dumped", "status"}), once the template reaped it."""
        with self._ended_changed:
            self._ended_changed.wait_for(lambda: pid in self._ended or self._closed, timeout=wait_s)
            return self._ended.pop(pid, None)

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
                    self._ended[int(report["pid"])] = report
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
