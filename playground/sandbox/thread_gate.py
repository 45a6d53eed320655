"""Threads bounded by the kernel where there is no cgroup: each new thread waits for the template's yes.

Where the server may make cgroups, ``pids.max`` bounds a job's threads. Where
it may not (no root: a Hugging Face Space), a watchdog that counts them every
50 ms let a bomb of 4,000 threads reach about 800 before it was stopped. So
there the worker adds a seccomp rule that hands every ``clone`` of a thread to
a supervisor (seccomp's user notification, which needs no privilege) and sends
the listener to the template, its parent, which answers each one: go on
(``SECCOMP_USER_NOTIF_FLAG_CONTINUE``) while the worker has fewer threads than
its limit, else EAGAIN, which ``pthread_create`` reports as "resource
temporarily unavailable", as ``pids.max`` would. The worker keeps no copy of
the listener, so its own code cannot answer for itself. Each refusal is
counted and reported with the worker's end (a structured fact for the verdict).

A worker granted ``compiler_programs`` (device_grants.py) asks for its new
processes too: XLA starts ptxas and nvlink with ``posix_spawn``. The worker
itself may then have at most ``MAX_PROGRAMS`` such children at a time, a
child may make no process of its own, and the children's threads count with
the worker's against the same limit.

Threads that were let through but are not yet listed in ``/proc/<pid>/stat``
(the kernel finishes a ``clone`` after it is woken) count as running until a
reading shows them, or for at most ``IN_FLIGHT_S``: a burst of requests cannot
slip past the limit between two readings.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import time

from playground.sandbox import procfs

IN_FLIGHT_S = 1.0
MAX_PROGRAMS = 4  # XLA may compile several kernels at once (autotuning), each with one ptxas
_CONTINUE = 1  # SECCOMP_USER_NOTIF_FLAG_CONTINUE (Linux 5.5)
_CLONE_THREAD = 0x00010000


class _Data(ctypes.Structure):
    _fields_ = [("nr", ctypes.c_int), ("arch", ctypes.c_uint32), ("instruction_pointer", ctypes.c_uint64),
                ("args", ctypes.c_uint64 * 6)]


class _Notification(ctypes.Structure):  # struct seccomp_notif
    _fields_ = [("id", ctypes.c_uint64), ("pid", ctypes.c_uint32), ("flags", ctypes.c_uint32), ("data", _Data)]


class _Response(ctypes.Structure):  # struct seccomp_notif_resp
    _fields_ = [("id", ctypes.c_uint64), ("val", ctypes.c_int64), ("error", ctypes.c_int32),
                ("flags", ctypes.c_uint32)]


def _iowr(number: int, size: int) -> int:
    """The ioctl request _IOWR('!', number, size): the same on x86-64 and arm64."""
    return (3 << 30) | (size << 16) | (ord("!") << 8) | number


_RECEIVE = _iowr(0, ctypes.sizeof(_Notification))
_SEND = _iowr(1, ctypes.sizeof(_Response))


class ThreadGate:
    """The template's answer to one worker's requests for threads (``fileno`` is the listener, for select)."""

    def __init__(self, pid: int, listener: int, max_tasks: int) -> None:
        self.pid, self.max_tasks = pid, max_tasks
        self.refused = 0
        self._listener = listener
        self._in_flight: list[tuple[int, float]] = []  # (threads once it runs, when it was let through)

    def fileno(self) -> int:
        return self._listener

    def answer(self) -> None:
        """Take one request and answer it (a request whose thread has gone meanwhile is dropped)."""
        request = _Notification()
        try:
            fcntl.ioctl(self._listener, _RECEIVE, request)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.EINTR):  # the asking thread died or was interrupted first
                return
            raise
        threads = self._threads()
        response = _Response(id=request.id)
        if not request.data.args[0] & _CLONE_THREAD and not self._may_start_program(request.pid):
            response.error = -errno.EAGAIN
            self.refused += 1
        elif threads < self.max_tasks:
            response.flags = _CONTINUE
            self._in_flight.append((threads + 1, time.monotonic()))
        else:
            response.error = -errno.EAGAIN
            self.refused += 1
        while True:
            try:
                fcntl.ioctl(self._listener, _SEND, response)
                return
            except OSError as exc:
                if exc.errno == errno.ENOENT:  # the thread that asked is gone
                    return
                if exc.errno != errno.EINTR:  # EINTR: a signal to the template (SIGCHLD) came first: again
                    raise

    def close(self) -> None:
        os.close(self._listener)

    def _may_start_program(self, asking: int) -> bool:
        """A new process: only for the worker itself (not a child of it), and fewer than MAX_PROGRAMS at a time.

        Refused where the kernel lists no children (CONFIG_PROC_CHILDREN): they could then not be counted.
        """
        return (os.path.exists(f"/proc/{self.pid}/task/{asking}")
                and os.path.exists(f"/proc/{self.pid}/task/{self.pid}/children")
                and len(self._children()) < MAX_PROGRAMS)

    def _children(self) -> list[int]:
        children = []
        for task in _listing(f"/proc/{self.pid}/task"):
            try:
                with open(f"/proc/{self.pid}/task/{task}/children") as f:
                    children += [int(pid) for pid in f.read().split()]
            except (OSError, ValueError):
                continue
        return children

    def _threads(self) -> int:
        """The threads of the worker and its children now, counting those let through that are not listed yet."""
        listed = 0
        for pid in (self.pid, *self._children()):
            sample = procfs.sample(pid)
            listed += sample.threads if sample is not None else 0
        now = time.monotonic()
        self._in_flight = [(after, at) for after, at in self._in_flight if listed < after and now - at < IN_FLIGHT_S]
        return max(listed, max((after for after, _ in self._in_flight), default=0))


def _listing(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []
