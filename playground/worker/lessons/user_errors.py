"""The user's failures in plain words: each exception's kind, decided from facts, its message and its line.

Runs inside a worker. The kind comes from the exception's type, its errno, XLA's
status code and where it was raised, never from the words of its message (a
user's own ``ValueError("Permission denied")`` is theirs, not the sandbox's).
An exception from the playground's own code that no user code led to is a bug
of ours: kind ``internal``, with its traceback for the server's log.

>>> error_result(ValueError("Permission denied"))["error"]["kind"]
'user_exception'
>>> error_result(PermissionError(1, "Operation not permitted"))["error"]["kind"]
'forbidden'
"""

from __future__ import annotations

import errno
import logging
import os
import re
import sys
import traceback

from playground import messages
from playground.errors import ARGS_FILENAME, USER_FILENAME, UserCodeError, error_dict

_TRACEBACK = "Traceback (most recent call last):"


def error_result(exc: BaseException) -> dict:
    if isinstance(exc, UserCodeError):
        return exc.to_result()
    kind = classify(exc)
    if kind == "user_exception" and our_bug(exc):
        result = error_dict("internal", describe(exc))
        result["error"]["traceback"] = "".join(traceback.format_exception(exc))[-20_000:]
        return result
    prefix = {
        "memory": lambda _: messages.piece("prefix.memory"),  # a worker's memory: the device's is the owner's
        "forbidden": _forbidden_prefix,
        "disk": _disk_full,
        "tasks": lambda _: messages.piece("prefix.tasks"),
    }.get(kind)
    if prefix is None:
        return error_dict(kind, describe(exc), user_line(exc))
    said = prefix(exc)  # the sandbox's words before the exception's, as a catalogue piece the server translates
    result = error_dict(kind, messages.render([said]) + describe(exc), user_line(exc))
    result["error"]["words"] = {"prefix": [said]}
    return result


def _forbidden_prefix(exc: BaseException) -> list:
    """What the sandbox blocks; a file refused where no job may write one (no Landlock: see lockdown.py), or one
    of the job's own folder where that folder keeps every file (a server without root: see lockdown.apply), said
    as such."""
    lockdown = sys.modules.get("playground.confinement.lockdown")  # loaded where the full sandbox locked us down
    name = getattr(exc, "filename", None)
    if isinstance(name, str) and lockdown is not None and lockdown.writes_no_files() and \
            getattr(exc, "errno", None) == errno.EPERM:  # seccomp's answer (a read the uid may not make: EACCES)
        return messages.piece("prefix.forbidden_no_writes")
    if isinstance(name, str) and lockdown is not None and lockdown.scratch_keeps_files() and \
            os.path.realpath(name).startswith(os.getcwd() + os.sep):
        return messages.piece("prefix.forbidden_kept")
    return messages.piece("prefix.forbidden")


_DISK_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
_JAX_STATUS_KINDS = {"RESOURCE_EXHAUSTED": "memory", "PERMISSION_DENIED": "forbidden"}
# XLA's CPU client reports a computation whose input failed to allocate (``jnp.sum`` of an array too big to make)
# as INTERNAL, the allocation's own status folded into the words: the status code is XLA's (a JaxRuntimeError made
# in Python has none), the words after it say that an allocation failed.
ALLOCATION_FAILED = re.compile(r"(?:INTERNAL: (?:Error dispatching computation: )+|RESOURCE_EXHAUSTED: )"
                               r"(?:RESOURCE_EXHAUSTED: )?Out of memory allocating (?P<bytes>\d+) bytes")


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
    status = getattr(exc, "error_code_string", None) if _is_jax_class(exc, "JaxRuntimeError") else None
    if status == "INTERNAL" and ALLOCATION_FAILED.match(str(exc)):
        return "memory"
    if status == "INTERNAL" and (inner := CallbackFailures.last()) is not None:
        return classify(inner)  # a pure_callback/io_callback raised: its own exception says what happened
    return _JAX_STATUS_KINDS.get(status, "user_exception")


def keep_library_frames() -> None:
    """Keep JAX's own frames in the tracebacks of this process: ``our_bug`` reads where an exception was raised.

    JAX cuts its frames out of a traceback by default, at the boundary of its API. An error JAX
    raises at the user's program where no frame of the user's is left on the stack (``jax.grad``
    of a function with an array output, or ``jax.vmap`` with in_axes that do not fit, made at
    module level and called by the job) would then end in the job's frame that called JAX, and
    read as a bug of ours.
    """
    import jax

    jax.config.update("jax_traceback_filtering", "off")


def our_bug(exc: BaseException) -> bool:
    """Raised by the playground's own code, with no frame of the user's anywhere in its chain.

    An exception a library (JAX, NumPy) raises at the user's input is theirs to
    read; one from our own modules that no user code led to is a bug of ours.
    Where it was raised is the innermost frame of the exceptions raised: JAX's
    record of the stack where a traced operation was made is a cause it adds, and
    names where the job traced the function, not where anything failed.
    """
    frames, raised = [], []
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        frames += traceback.extract_tb(exc.__traceback__)
        if not _is_jax_class(exc, "JaxStackTraceBeforeTransformation"):
            raised += traceback.extract_tb(exc.__traceback__)
        exc = exc.__cause__ or exc.__context__
    if not raised or any(f.filename in (USER_FILENAME, ARGS_FILENAME) for f in frames):
        return False
    return os.path.abspath(raised[-1].filename).startswith(_PACKAGE + os.sep)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # playground/


def _is_jax_class(exc: BaseException, name: str) -> bool:
    return any(cls.__name__ == name and cls.__module__.startswith("jax") for cls in type(exc).__mro__)


def _raised_within(exc: BaseException, filename: str, function: str) -> bool:
    """Whether ``function`` of a file named ``filename`` raised it, itself or below it (but not in user code)."""
    frames = traceback.extract_tb(exc.__traceback__)
    for i in range(len(frames) - 1, -1, -1):
        if frames[i].filename == USER_FILENAME:
            return False
        if os.path.basename(frames[i].filename) == filename and frames[i].name == function:
            return True
    return False


def _disk_full(exc: BaseException) -> list:
    """The limit that was hit, with its real value from the kernel (the scratch folder is a tmpfs of that size)."""
    if getattr(exc, "errno", None) == errno.EFBIG:
        import resource  # EFBIG comes from RLIMIT_FSIZE, so only where there are rlimits

        size = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
        return messages.piece("prefix.file_too_large", mb=f"{size / 2**20:,.0f}")
    try:
        fs = os.statvfs(".")
    except (OSError, AttributeError):  # AttributeError: Windows has no statvfs
        return messages.piece("prefix.disk")
    if fs.f_ffree == 0:  # the kernel's count of files left, not the error's words
        return messages.piece("prefix.disk_files", files=f"{max(fs.f_files - 1, 0):,}")
    return messages.piece("prefix.disk_size", mb=f"{fs.f_blocks * fs.f_frsize / 2**20:,.0f}")


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


def user_line(exc: BaseException, filename: str = USER_FILENAME) -> int | None:
    """The line of the user's code (compiled as ``filename``) closest to where the exception was raised, following
    its causes."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        lines = [fr.lineno for fr in traceback.extract_tb(exc.__traceback__) if fr.filename == filename]
        if lines:
            return lines[-1]
        embedded = re.findall(rf'File "{re.escape(filename)}", line (\d+)', str(exc))
        if embedded:
            return int(embedded[-1])
        exc = exc.__cause__ or exc.__context__
    return None


def describe(exc: BaseException) -> str:
    """``Type: message``, with any traceback embedded in the message cut to its last line.

    (JAX's callback errors carry the callback's traceback, which names our files.)
    """
    text = str(exc).strip()
    if _TRACEBACK in text:
        head, _, tail = text.partition(_TRACEBACK)
        final = [line for line in tail.splitlines() if line.strip() and not line.startswith(" ")]
        text = f"{head.strip()} {final[-1].strip() if final else ''}".strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
