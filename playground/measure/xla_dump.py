"""XLA's dump of every pass, for one compile, in the job's scratch folder. Runs inside a worker.

XLA writes the module after each pass when a compile's debug options ask
(``xla_dump_to``, ``xla_dump_hlo_pass_re``); passed per call to
``lowered.compile(compiler_options)``, they apply to that compile alone, not to
the process (``XLA_FLAGS``). With the pattern ``.*`` XLA writes a pass's
module only when the pass says it changed it; any other pattern, ``.+``
included, writes it after every pass it matches. So every pass that ran leaves
a file, and "unchanged" is known, not guessed: the module reads the same
after the pass as before it.

The folder is made fresh below the worker's working directory (its scratch
folder) and read back with the care the sandbox asks of anything there:
no symbolic links followed, regular files only, never blocking, a cap on the
files and bytes read.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass

EVERY_PASS = ".+"  # not ".*": that one writes only the passes that report a change
# The passes a learner meets first, for programs too large to dump after every pass.
KEY_PASSES = "fusion|cse|algsimp|constant.folding|layout.assignment|copy.insertion|dce|simplification"
# One pass's file: module_0004.jit_f.0012.<pipeline>.after_<pass>[.before_<next pass>].txt
MAX_ENTRIES = 100_000  # names listed in a dump folder, at most (a compile writes a few hundred)
_PASS_FILE = re.compile(r"^module_(\d+)\.(.+?)\.(\d{4,})\.(.+?)\.after_(.+?)(?:\.before_(.+))?\.txt$")
TO_OUTPUT = "-"  # as the folder: XLA writes each file to standard output, between these lines
_STREAMED_FILE = re.compile(r"^\*\*\* Begin ([^\n]+?) \*\*\*\n(.*?)\n\*\*\* End \1 \*\*\*$", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Snapshot:
    """The module as XLA wrote it after one pass (``after`` is "pipeline-start" for a pipeline's first file)."""

    order: int
    pipeline: str
    after: str
    text: str


@dataclass(frozen=True)
class Dump:
    snapshots: list[Snapshot]  # the passes in the order they ran, from the first, without a gap
    bytes_read: int
    # Why the snapshots stop before the last pass: "files" (more than the cap), "bytes" (the next one would pass
    # the cap), "unreadable" (the next one is not a plain file), "gap" (a number missing in XLA's count of its
    # files), "entries" (a folder too full to list), "incomplete" (see ``whole_modules``); else None.
    stopped: str | None

    @property
    def capped(self) -> bool:
        return self.stopped is not None


def options(folder: str, pattern: str = EVERY_PASS) -> dict:
    """The per-compile debug options that dump each pass matching ``pattern`` into ``folder`` as text."""
    # Every other dump option set too: a user's own jit may pass its options (merged with these, ours win), and
    # one of them could otherwise filter every module or pipeline out, or add other formats.
    return {"xla_dump_to": folder, "xla_dump_hlo_pass_re": pattern, "xla_dump_hlo_module_re": ".+",
            "xla_dump_hlo_pipeline_re": ".+", "xla_dump_max_hlo_modules": -1, "xla_dump_hlo_as_text": True,
            "xla_dump_hlo_as_proto": False, "xla_dump_hlo_as_dot": False, "xla_dump_hlo_as_html": False,
            "xla_dump_hlo_as_url": False, "xla_dump_fusion_visualization": False}


def new_folder(below: str) -> str:
    """A fresh folder for one dump, below ``below`` (in a worker: its scratch folder), readable by us alone."""
    return tempfile.mkdtemp(prefix="xla-dump-", dir=below)


def identity(folder: str) -> tuple[int, int] | None:
    """Which folder is at ``folder`` (device and inode, not following a link); None once nothing is there.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as below:
    ...     folder = new_folder(below)
    ...     made = identity(folder)
    ...     os.rename(folder, folder + "-moved"); os.mkdir(folder)
    ...     made is not None, identity(folder) == made
    (True, False)
    """
    try:
        found = os.lstat(folder)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def read(folder: str, max_files: int, max_bytes: int) -> Dump:
    """The pass files XLA wrote into ``folder``, in the order the passes ran, from the first, within the caps.

    The names are listed first (at most ``MAX_ENTRIES`` of them), sorted by the
    sequence number XLA gives each pass, and read in that order until a cap is
    reached, a file cannot be read or a number is missing: the snapshots never
    skip a pass, so that each one's "before" is the pass before it. Anything that is not a plain
    file (a link, a FIFO, a folder) is not opened; a file is opened without
    following links and without blocking. Of several modules (a compile makes
    one; hostile code may add files), the one with the most pass files is kept.
    """
    directory = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        listed, plain = [], set()
        stopped = None
        with os.scandir(directory) as entries:
            for count, entry in enumerate(entries):
                if count >= MAX_ENTRIES:
                    stopped = "entries"
                    break
                listed.append(entry.name)
                if entry.is_file(follow_symlinks=False):  # what is no plain file when listed is never opened
                    plain.add(entry.name)

        def load(name: str, most: int) -> tuple[bytes | None, str | None]:
            return read_plain_file(directory, name, most) if name in plain else (None, "unreadable")

        return _in_pass_order(listed, load, max_files, max_bytes, stopped)
    finally:
        os.close(directory)


def captured(compile_: Callable[[], object], max_files: int, max_bytes: int) -> Dump:
    """The passes a compile dumps to standard output (``options(TO_OUTPUT)``), read as ``read`` reads a folder:
    for a process that may write no file (lockdown.writes_no_files). While ``compile_()`` runs, file descriptor 1
    is a pipe that a thread of ours empties into memory (the job's own, which its memory limit counts), keeping at
    most ``max_bytes`` and the headers; the process's own output goes on afterwards."""
    kept, whole = bytearray(), [True]
    most = max_bytes + max_files * 512  # each file's "*** Begin/End ***" lines besides its text

    def drain(fd: int) -> None:
        while chunk := os.read(fd, 1 << 16):
            if len(kept) + len(chunk) <= most:
                kept.extend(chunk)
            else:
                whole[0] = False  # XLA must not block on a full pipe: the rest is read and dropped

    sys.stdout.flush()
    reading, writing = os.pipe()
    saved = os.dup(1)
    reader = threading.Thread(target=drain, args=(reading,), name="xla-dump-reader", daemon=True)
    reader.start()
    try:
        os.dup2(writing, 1)
        os.close(writing)
        compile_()
    finally:
        os.dup2(saved, 1)  # the pipe's last writer gone: the reader sees its end
        os.close(saved)
        reader.join()
        os.close(reading)
    # Named as in a folder, where XLA makes the names safe for a filesystem (SanitizeFileName).
    texts = {re.sub(r"[/\\\[\] ]", "_", name): text
             for name, text in _STREAMED_FILE.findall(kept.decode("utf-8", "replace"))}

    def load(name: str, most: int) -> tuple[bytes | None, str | None]:
        text = texts[name].encode()
        return (text, None) if len(text) <= most else (None, "bytes")

    return _in_pass_order(list(texts), load, max_files, max_bytes, None if whole[0] else "bytes")


def _in_pass_order(names: list[str], load, max_files: int, max_bytes: int, stopped: str | None) -> Dump:
    """The pass files among ``names`` (``load(name, most)``: its bytes, or None and why), as ``read`` says."""
    found = []
    for name in names:
        match = _PASS_FILE.match(name)
        if match is not None:
            found.append((int(match.group(1)), int(match.group(3)), name, match))
    modules: dict[int, int] = {}
    for module, *_ in found:
        modules[module] = modules.get(module, 0) + 1
    chosen = max(modules, key=lambda m: (modules[m], -m), default=None)
    found = sorted((f for f in found if f[0] == chosen), key=lambda f: (f[1], f[2]))
    snapshots: list[Snapshot] = []
    read_bytes = 0
    for _, order, name, match in found:
        if len(snapshots) >= max_files:
            stopped = "files"
            break
        if snapshots and order != snapshots[-1].order + 1:  # XLA numbers a module's files 0, 1, 2, ...
            stopped = stopped or "gap"  # a name not listed (a full folder), or one that is not XLA's
            break
        text, problem = load(name, max_bytes - read_bytes)
        if text is None:
            stopped = problem
            break
        read_bytes += len(text)
        snapshots.append(Snapshot(order, match.group(4), match.group(5), text.decode("utf-8", "replace")))
    return Dump(snapshots, read_bytes, stopped)


def read_ending(folder: str, module: str, ending: str, max_bytes: int) -> tuple[str | None, str | None]:
    """(the text of the file in ``folder`` of the HLO module ``module`` whose name ends with ``ending``, None),
    e.g. XLA's buffer assignment ("-buffer-assignment.txt") of the program a compile dumps (a GPU compile may dump
    other modules beside it); else (None, why): none, several, or one that is no plain file or larger than
    ``max_bytes``."""
    directory = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        with os.scandir(directory) as entries:
            names = [entry.name for _, entry in zip(range(MAX_ENTRIES), entries, strict=False)
                     if entry.name.endswith(ending) and f".{module}." in entry.name
                     and entry.is_file(follow_symlinks=False)]
        if len(names) != 1:
            return None, f"XLA wrote {len(names)} files named *{ending}, not one"
        text, problem = read_plain_file(directory, names[0], max_bytes)
        if text is None:
            return None, {"bytes": f"XLA's *{ending} is larger than {max_bytes / 1e6:,.0f} MB"}.get(
                problem, f"XLA's *{ending} could not be read")
        return text.decode("utf-8", "replace"), None
    finally:
        os.close(directory)


def read_plain_file(directory: int, name: str, most: int) -> tuple[bytes | None, str | None]:
    """(the file's bytes, None) if it is a regular file of at most ``most`` bytes; else (None, "bytes") when it is
    larger, (None, "unreadable") when it is no plain file or cannot be opened."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=directory)
    except OSError:
        return None, "unreadable"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, "unreadable"
        if info.st_size > most:
            return None, "bytes"
        chunks, size = [], 0
        while size <= most and (chunk := os.read(fd, most + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
        return (b"".join(chunks), None) if size <= most else (None, "bytes")
    finally:
        os.close(fd)


def whole_modules(dump: Dump) -> Dump:
    """The dump up to its first file that is not a whole HLO module (XLA goes on when a write fails, as in a full
    scratch folder: an empty file, or one cut short), which stops it as "incomplete"."""
    for i, snapshot in enumerate(dump.snapshots):
        text = snapshot.text.rstrip()
        if not (text.startswith("HloModule") and text.endswith("}")):
            return Dump(dump.snapshots[:i], dump.bytes_read, "incomplete")
    return dump
