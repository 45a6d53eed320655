"""Threads bounded by the kernel where there is no cgroup: each new thread waits for the template's yes.

Where the server may make cgroups, ``pids.max`` bounds a job's threads. Where
it may not (no root: a Hugging Face Space), a watchdog that counts them every
50 ms lets a fast thread bomb far past the limit before it stops it
(docs/development.md's measurements). So there the worker adds a seccomp rule
that hands every ``clone`` of a thread to a supervisor (seccomp's user
notification, which needs no privilege) and sends the listener to the template,
its parent, which answers each one: go on
(``SECCOMP_USER_NOTIF_FLAG_CONTINUE``) while the worker has fewer threads than
its limit, else EAGAIN, which ``pthread_create`` reports as "resource
temporarily unavailable", as ``pids.max`` would. The worker keeps no copy of
the listener, so its own code cannot answer for itself. Each refusal is counted
and reported with the worker's end (a structured fact for the verdict). A
worker has no children to count: its own filter (seccomp_filter.py) denies
every new process, and the gate's asks only about threads.

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

from playground.ipc import procfs

IN_FLIGHT_S = 1.0
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
        if request.data.args[0] & _CLONE_THREAD and threads < self.max_tasks:  # a new process is never let through
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

    def _threads(self) -> int:
        """The worker's threads now, counting those let through that are not listed yet."""
        sample = procfs.sample(self.pid)
        listed = sample.threads if sample is not None else 0
        now = time.monotonic()
        self._in_flight = [(after, at) for after, at in self._in_flight if listed < after and now - at < IN_FLIGHT_S]
        return max(listed, max((after for after, _ in self._in_flight), default=0))
