"""The server's only two ways into a job's scratch folder: measure it, and remove it.

The folder is the job's: anything in it may be a symlink to a secret, a FIFO, a
tree thousands of levels deep, or a million entries. So nothing here opens a
path: every step goes through a directory descriptor (``dir_fd``) with
``O_NOFOLLOW | O_NONBLOCK``, never follows a symlink, keeps a bounded number of
descriptors open, and stops at a time budget (the walk goes on from there at
its next step). Both run only where the scratch
folder is a plain folder on the host; a job's private tmpfs (namespaces.py)
needs neither. Windows (the local process mode, where the job runs as the user
anyway) has no descriptor-relative calls: there both go by path, never
following links.
"""

from __future__ import annotations

import errno
import itertools
import os
import shutil
import stat
import time
from dataclasses import dataclass

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) \
    | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
BY_DESCRIPTOR = os.name != "nt" and {os.open, os.unlink, os.rmdir, os.rename, os.stat} <= os.supports_dir_fd \
    and os.scandir in os.supports_fd
_renamed = itertools.count()
_KEPT_OUT = (errno.EACCES, errno.EPERM)  # a folder the job made without its owner's permissions


@dataclass(frozen=True)
class Usage:
    bytes: int
    entries: int  # files, folders, links, ... below the root
    too_deep: bool  # a folder deeper than the walk goes
    complete: bool  # False: the pass goes on at the next step (the counts so far are a lower bound)
    hidden: bool = False  # a folder the walk may not look into (the job made it so): uncountable


class Walk:
    """The scratch folder measured a little at a time: bytes on disk and entries below ``root``.

    Each ``step`` goes on where the last one stopped, for at most its budget, so
    a folder too big for one look (12,000 files take longer to list than one
    tick may) is still counted whole over several; when a pass ends the next
    step starts a new one. Depth-first with one descriptor per level, so at
    most ``max_depth + 1`` are open; ``close`` releases them.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     for i in range(3):
    ...         open(f"{folder}/f{i}", "w").close()
    ...     walk = Walk(folder, max_entries=100, max_depth=8)
    ...     print(walk.step(budget_s=5))
    ...     walk.close()
    Usage(bytes=0, entries=3, too_deep=False, complete=True, hidden=False)
    """

    def __init__(self, root: str, max_entries: int, max_depth: int) -> None:
        self.root, self.max_entries, self.max_depth = root, max_entries, max_depth
        self._stack: list[tuple[int | str, object]] = []  # (folder: its descriptor, or its path; its listing)
        self._bytes = self._entries = 0

    def step(self, budget_s: float) -> Usage:
        """Walk on for at most ``budget_s``; this pass's counts so far (lower bounds until ``complete``).

        A pass stops early, complete, past ``max_entries`` or a folder deeper than ``max_depth``.
        """
        deadline = time.monotonic() + budget_s
        if not self._stack:
            self._bytes = self._entries = 0
            try:
                top = os.open(self.root, _DIR_FLAGS) if BY_DESCRIPTOR else self.root
                self._stack.append((top, os.scandir(top)))
            except OSError as exc:
                return Usage(0, 0, False, True, hidden=exc.errno in _KEPT_OUT)
        while self._stack:
            folder, listing = self._stack[-1]
            entry = next(listing, None)
            if entry is None:
                self._leave()
                continue
            self._entries += 1
            if self._entries > self.max_entries:
                return self._finished(too_deep=False)
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            self._bytes += info.st_blocks * 512 if hasattr(info, "st_blocks") else info.st_size
            if stat.S_ISDIR(info.st_mode) and not getattr(entry, "is_junction", lambda: False)():
                if len(self._stack) > self.max_depth:
                    return self._finished(too_deep=True)
                try:
                    child = os.open(entry.name, _DIR_FLAGS, dir_fd=folder) if BY_DESCRIPTOR else entry.path
                    self._stack.append((child, os.scandir(child)))
                except OSError as exc:
                    if exc.errno in _KEPT_OUT:
                        return self._finished(too_deep=False, hidden=True)
                    continue
            if time.monotonic() > deadline:
                return Usage(self._bytes, self._entries, False, False)
        return self._finished(too_deep=False)

    def close(self) -> None:
        while self._stack:
            self._leave()

    def _leave(self) -> None:
        folder, listing = self._stack.pop()
        listing.close()
        if BY_DESCRIPTOR:
            os.close(folder)

    def _finished(self, too_deep: bool, hidden: bool = False) -> Usage:
        usage = Usage(self._bytes, self._entries, too_deep, True, hidden)
        self.close()
        return usage


def remove(root: str, budget_s: float) -> bool:
    """Delete ``root`` and all below it without following links; False if the budget ran out first.

    Deep trees are flattened instead of descended: a sub-folder's own non-empty
    sub-folders are renamed up into ``root`` (rename by descriptor never follows anything),
    so two descriptors are open at any time and no recursion is needed. Call it
    only when no process can write there any more (the worker is dead). A round
    that removes and moves nothing ends it at once (False): this process may not
    remove anything there (a job under a Landlock that keeps its files), and
    trying again until the budget ends would only burn it.
    """
    deadline = time.monotonic() + budget_s
    if not BY_DESCRIPTOR:
        shutil.rmtree(root, ignore_errors=True)  # does not follow links (nor junctions, on Windows)
        return not os.path.lexists(root)
    try:
        top = os.open(root, _DIR_FLAGS)
    except FileNotFoundError:
        return True
    except PermissionError:  # a job without seccomp (the process mode) took its folder's permissions away
        try:
            os.chmod(root, 0o700)
            top = os.open(root, _DIR_FLAGS)
        except OSError:
            return _unlink_or_rmdir(root)
    except OSError:
        return _unlink_or_rmdir(root)
    try:
        while time.monotonic() < deadline:
            with os.scandir(top) as listing:
                names = [entry.name for entry in itertools.islice(listing, 4096)]
            if not names:
                break
            progressed = False
            for name in names:
                progressed |= _remove_entry(top, name)
                if time.monotonic() >= deadline:
                    break
            if not progressed:
                return False
        else:
            return False
    finally:
        os.close(top)
    return _unlink_or_rmdir(root)


def _remove_entry(top: int, name: str) -> bool:
    """Remove ``name`` in ``top``, or take a step towards it; False where nothing changed."""
    try:
        os.unlink(name, dir_fd=top)  # files, symlinks, FIFOs, sockets: never opened
        return True
    except FileNotFoundError:
        return True
    except OSError as exc:
        if exc.errno not in (errno.EISDIR, errno.EPERM):
            return False
    try:
        os.rmdir(name, dir_fd=top)
        return True
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.EACCES, errno.EPERM):
            return False
    try:  # a folder the job made unreadable: it is a real folder (unlink said so), and nothing can swap it now
        os.chmod(name, 0o700, dir_fd=top)
        folder = os.open(name, _DIR_FLAGS, dir_fd=top)
    except OSError:
        return False
    progressed = False
    try:
        with os.scandir(folder) as listing:
            for entry in itertools.islice(listing, 4096):
                try:
                    if entry.is_dir(follow_symlinks=False):  # the listing's own type: no link is followed
                        os.rmdir(entry.name, dir_fd=folder)  # an empty folder goes where it is, in one call
                    else:
                        os.unlink(entry.name, dir_fd=folder)
                    progressed = True
                except OSError as exc:
                    if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                        continue
                    try:  # a folder moved to another parent needs its own write permission (root needs none)
                        os.chmod(entry.name, 0o700, dir_fd=folder)
                        os.rename(entry.name, f".removing-{next(_renamed)}", src_dir_fd=folder, dst_dir_fd=top)
                        progressed = True
                    except OSError:
                        continue
    finally:
        os.close(folder)
    try:
        os.rmdir(name, dir_fd=top)
        return True
    except OSError:
        return progressed  # more entries remain: the next round takes them


def _unlink_or_rmdir(path: str) -> bool:
    for action in (os.rmdir, os.unlink):
        try:
            action(path)
            return True
        except FileNotFoundError:
            return True
        except OSError:
            continue
    return False
