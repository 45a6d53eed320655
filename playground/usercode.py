"""Turn the user's source into a function, and the user's failures into plain words.

Runs inside a sandboxed worker. Nothing here is a security boundary (the OS
layers are); the checks exist to give friendly, precise messages.
"""

from __future__ import annotations

import builtins
import errno
import io
import linecache
import logging
import os
import re
import resource
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from playground.errors import ARGS_FILENAME, USER_FILENAME, UserCodeError, error_dict, truncation_notice
from playground.user_ast import parse, pick_function_name

_PROCESS_EVENTS = {
    "os.system", "os.exec", "os.posix_spawn", "os.fork", "os.forkpty", "os.spawn",
    "subprocess.Popen", "pty.spawn",
}
_TRACEBACK = "Traceback (most recent call last):"


@dataclass(frozen=True)
class UserProgram:
    name: str
    function: Callable
    namespace: dict


def base_namespace() -> dict:
    """What user code and the args expression see without importing anything."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    return {"__name__": "__playground__", "__builtins__": builtins, "jax": jax, "jnp": jnp, "np": np, "lax": lax}


def load(source: str) -> UserProgram:
    """Run the user's module code and return the function to inspect.

    That function is the one named ``f``, else the last top-level ``def``.
    """
    tree = parse(source)
    name = pick_function_name(tree)
    linecache.cache[USER_FILENAME] = (len(source), None, source.splitlines(True), USER_FILENAME)
    namespace = base_namespace()
    exec(compile(tree, USER_FILENAME, "exec"), namespace)  # noqa: S102 - sandboxed by design
    function = namespace.get(name)
    if not callable(function):
        raise UserCodeError("invalid_input", f"`{name}` is not a function after running your code.")
    return UserProgram(name=name, function=function, namespace=namespace)


def evaluate_args(expression: str, namespace: dict) -> tuple:
    """Evaluate the arguments expression; a tuple gives several positional arguments."""
    try:
        code = compile(expression.strip() or "()", ARGS_FILENAME, "eval")
    except SyntaxError as exc:
        raise UserCodeError("invalid_input", f"The arguments are not a Python expression: {exc.msg}.") from None
    try:
        value = eval(code, namespace)  # noqa: S307 - sandboxed by design
    except Exception as exc:
        kind = classify(exc)
        if kind == "user_exception":
            raise UserCodeError("invalid_input", f"Could not evaluate the arguments: {_describe(exc)}") from None
        raise
    return value if isinstance(value, tuple) else (value,)


def error_result(exc: BaseException) -> dict:
    if isinstance(exc, UserCodeError):
        return exc.to_result()
    kind = classify(exc)
    if kind == "user_exception" and _our_bug(exc):
        result = error_dict("internal", _describe(exc))
        result["error"]["traceback"] = "".join(traceback.format_exception(exc))[-20_000:]
        return result
    prefix = {
        "memory": "Out of memory: the sandbox gives each job a fixed amount of memory. ",
        "forbidden": "Blocked by the sandbox (no processes, network, or files outside the job's scratch folder). ",
        "disk": _disk_full(exc) if kind == "disk" else "",
        "tasks": "Could not start another thread: the sandbox limits the threads of each job. ",
    }.get(kind, "")
    return error_dict(kind, prefix + _describe(exc), user_line(exc))


_DISK_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
_JAX_STATUS_KINDS = {"RESOURCE_EXHAUSTED": "memory", "PERMISSION_DENIED": "forbidden"}


def classify(exc: BaseException) -> str:
    """The error kind, from the exception's type, errno, XLA status code and frames: never from its words.

    (A user's own ``ValueError("Permission denied")`` is their exception, not the sandbox's.)
    """
    if isinstance(exc, MemoryError) or (isinstance(exc, OSError) and exc.errno == errno.ENOMEM):
        return "memory"
    if isinstance(exc, OSError) and exc.errno in _DISK_ERRNOS:
        return "disk"
    if isinstance(exc, OSError) and exc.errno in (errno.EPERM, errno.EACCES):
        return "forbidden"
    if isinstance(exc, RuntimeError) and _raised_within(exc, "threading.py", "start"):
        return "tasks"
    status = getattr(exc, "error_code_string", None) if _is_jax_runtime_error(exc) else None
    if status == "INTERNAL" and (inner := CallbackFailures.last()) is not None:
        return classify(inner)  # a pure_callback/io_callback raised: its own exception says what happened
    return _JAX_STATUS_KINDS.get(status, "user_exception")


def _our_bug(exc: BaseException) -> bool:
    """Raised by the playground's own code, with no frame of the user's anywhere in its chain.

    An exception a library (JAX, NumPy) raises at the user's input is theirs to
    read; one from our own modules that no user code led to is a bug of ours.
    """
    frames = []
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        frames += traceback.extract_tb(exc.__traceback__)
        exc = exc.__cause__ or exc.__context__
    if not frames or any(f.filename in (USER_FILENAME, ARGS_FILENAME) for f in frames):
        return False
    return os.path.abspath(frames[-1].filename).startswith(_PACKAGE + os.sep)


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _is_jax_runtime_error(exc: BaseException) -> bool:
    return any(cls.__name__ == "JaxRuntimeError" and cls.__module__.startswith("jax") for cls in type(exc).__mro__)


def _raised_within(exc: BaseException, filename: str, function: str) -> bool:
    """Whether ``function`` of a file named ``filename`` raised it, itself or below it (but not in user code)."""
    frames = traceback.extract_tb(exc.__traceback__)
    for i in range(len(frames) - 1, -1, -1):
        if frames[i].filename == USER_FILENAME:
            return False
        if os.path.basename(frames[i].filename) == filename and frames[i].name == function:
            return True
    return False


def _disk_full(exc: BaseException) -> str:
    """The limit that was hit, with its real value from the kernel (the scratch folder is a tmpfs of that size)."""
    if getattr(exc, "errno", None) == errno.EFBIG:
        size = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
        return f"File too large: each file the job writes may hold at most {size / 2**20:,.0f} MB. "
    try:
        fs = os.statvfs(".")
    except OSError:
        return "Out of disk space. "
    if fs.f_ffree == 0:  # the kernel's count of files left, not the error's words
        return f"Out of disk space: the job's scratch folder holds at most {max(fs.f_files - 1, 0):,} files and " \
               "folders, and all of them are in use. "
    return f"Out of disk space: the job's scratch folder holds at most {fs.f_blocks * fs.f_frsize / 2**20:,.0f} MB. "


class CallbackFailures(logging.Handler):
    """Keeps the exception a JAX callback raised: XLA reports it only as an INTERNAL error with its text.

    JAX logs the callback's own exception (``logger.exception``) before XLA wraps it;
    this handler, on that logger, keeps the exception object itself.
    """

    _LOGGER = "jax._src.callback"

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.failures: list[BaseException] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[1] is not None:
            self.failures.append(record.exc_info[1])
            del self.failures[:-1]

    @classmethod
    def install(cls) -> None:
        logger = logging.getLogger(cls._LOGGER)
        if not any(isinstance(h, cls) for h in logger.handlers):
            logger.addHandler(cls())

    @classmethod
    def last(cls) -> BaseException | None:
        for handler in logging.getLogger(cls._LOGGER).handlers:
            if isinstance(handler, cls) and handler.failures:
                return handler.failures[-1]
        return None


def user_line(exc: BaseException) -> int | None:
    """The line of the user's code closest to where the exception was raised."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        lines = [fr.lineno for fr in traceback.extract_tb(exc.__traceback__) if fr.filename == USER_FILENAME]
        if lines:
            return lines[-1]
        embedded = re.findall(rf'File "{re.escape(USER_FILENAME)}", line (\d+)', str(exc))
        if embedded:
            return int(embedded[-1])
        exc = exc.__cause__ or exc.__context__
    return None


def _describe(exc: BaseException) -> str:
    """``Type: message``, with any traceback embedded in the message cut to its last line.

    (JAX's callback errors carry the callback's traceback, which names our files.)
    """
    text = str(exc).strip()
    if _TRACEBACK in text:
        head, _, tail = text.partition(_TRACEBACK)
        final = [line for line in tail.splitlines() if line.strip() and not line.startswith(" ")]
        text = f"{head.strip()} {final[-1].strip() if final else ''}".strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def forbid_new_processes() -> None:
    """Turn process creation into a clear PermissionError.

    The seccomp filter already makes these calls fail; this audit hook only
    says so in words (os.system would otherwise just return -1).
    """

    def hook(event: str, _args: Any) -> None:
        if event in _PROCESS_EVENTS:
            raise PermissionError(errno.EPERM, f"{event} is not allowed: the sandbox cannot start processes")

    sys.addaudithook(hook)


class CappedText(io.TextIOBase):
    """A text sink that keeps the first ``limit`` characters and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit, self.dropped = limit, 0
        self._parts: list[str] = []
        self._kept = 0

    def write(self, text: str) -> int:
        room = self.limit - self._kept
        if room > 0:
            self._parts.append(text[:room])
            self._kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def getvalue(self) -> str:
        text = "".join(self._parts)
        return text + truncation_notice(self.dropped) if self.dropped else text
