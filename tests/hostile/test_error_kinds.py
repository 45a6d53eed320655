"""Errors say what happened: the kind comes from structured facts (exception types, errno, exit signals,
the watchdogs' own measurements), never from text that user code can print or put in a message.

Every test ends with ``hostile.check()`` (server and template alive, a normal job
right, no job folder left, no traceback in the server log), and the TMPDIR the
server was given must be empty once it has stopped.
"""

from __future__ import annotations

import re
import time

import pytest

from tests.hostile import support
from tests.hostile.support import short

WORKERS = 2
PARALLEL_WORKERS = 1  # the Parallel tab's pool (Settings.parallel_workers)
# Creating 12,000 files takes several seconds on a busy shared disk, filling the scratch folder or paging in the
# memory limit a few more: the clock must stay far behind every limit these tests reach (none meets it here).
TIMEOUT_S = 30
# The memory watchdog's job reaches this after ~200 MB of growth. On a loaded host the default 2 GB may not be
# paged in within 20 s, and the clock would stop the job first (kind timeout, not memory). A JAX job fits in it.
MEMORY_MB = 512


# The module's server, and the harness every test ends with (hostile.check()).
hostile, _begin = support.hostile_fixtures("kinds", workers=WORKERS, parallel_workers=PARALLEL_WORKERS,
                                           timeout_s=TIMEOUT_S, memory_mb=MEMORY_MB)


@pytest.fixture(scope="module")
def limits(hostile) -> dict:
    """The limits the server says it enforces (About), to hold its messages to them."""
    return hostile.call(api_name="/about")["limits"]


def names_mb(message: str, value: int) -> bool:
    """The message names ``value`` MB ("2048 MB" or "2,048 MB")."""
    return bool(re.search(rf"(?<![\d,.])({value}|{value:,}) ?MB\b", message))


def error_of(result, kind: str) -> dict:
    """An error reply of exactly ``kind``, its message free of tracebacks."""
    return support.assert_error(result, {kind}, no_traceback=True)


# -- what user code says is not what happened ---------------------------------------------------------------------


@pytest.mark.parametrize("raised", [
    'ValueError("Permission denied")',
    'RuntimeError("Operation not permitted: PermissionError")',
    'RuntimeError("RESOURCE_EXHAUSTED: Out of memory")',
    'RuntimeError("std::bad_alloc")',
    'RuntimeError("can\'t start new thread")',
    'OSError("No space left on device")',
    'OSError("Disk quota exceeded")',
])
def test_exception_text_does_not_decide_the_kind(hostile, raised):
    result = hostile.call(f"def f(x):\n    raise {raised}\n", "1.0", api_name="/inspect")
    error = error_of(result, "user_exception")
    assert error["line"] == 2, short(result)
    hostile.check()


def test_exception_text_in_the_arguments_does_not_decide_the_kind(hostile):
    """An error in the arguments expression is invalid input, whatever its message says."""
    result = hostile.call("def f(x):\n    return x\n", "(_ for _ in ()).throw(ValueError('Permission denied'))",
                          api_name="/inspect")
    error_of(result, "invalid_input")
    hostile.check()


def test_memory_error_is_memory(hostile):
    error_of(hostile.call("def f(x):\n    raise MemoryError()\n", "1.0", api_name="/inspect"), "memory")
    hostile.check()


def test_memory_watchdog_names_its_limit(hostile, limits):
    code = "def f(x):\n    keep = []\n    while True:\n        keep.append(b'x' * 2**26)\n"
    assert limits["memory_mb"] == MEMORY_MB, limits
    error = error_of(hostile.call(code, "1.0", api_name="/inspect"), "memory")
    assert names_mb(error["message"], MEMORY_MB), error
    hostile.check()


@pytest.mark.parametrize("code", [
    "def f(x):\n    open('/etc/passwd').read()\n    return x\n",
    "import socket\ndef f(x):\n    socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n    return x\n",
], ids=["open-etc-passwd", "inet-socket"])
def test_a_real_denial_is_forbidden(hostile, code):
    error_of(hostile.call(code, "1.0", api_name="/inspect"), "forbidden")
    hostile.check()


# -- disk: which limit was reached ------------------------------------------------------------------------------


def test_too_many_files_names_the_file_count_limit(hostile, limits):
    code = ("import os, time\ndef f(x):\n    for i in range(12_000):\n"
            "        os.close(os.open(f'e{i}', os.O_CREAT | os.O_WRONLY))\n    time.sleep(60)\n    return x\n")
    error = error_of(hostile.call(code, "1.0", api_name="/inspect"), "disk")
    message = error["message"]
    assert not names_mb(message, limits["scratch_mb"]), f"a space limit for a count of files: {message}"
    numbers = [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", message)]
    assert re.search(r"\b(files|entries|inodes)\b", message) and any(1_000 <= n <= 12_000 for n in numbers), (
        f"no file-count limit named: {message}")
    hostile.check()


def test_one_huge_file_names_the_per_file_limit(hostile, limits):
    code = "def f(x):\n    with open('big', 'wb') as out:\n        for _ in range(300):\n" \
           "            out.write(b'x' * 2**20)\n    return x\n"
    error = error_of(hostile.call(code, "1.0", api_name="/inspect"), "disk")
    assert names_mb(error["message"], limits["file_size_mb"]), f"not the limit that was reached: {error}"
    hostile.check()


def test_a_full_scratch_folder_names_the_space_limit(hostile, limits):
    per_file = limits["file_size_mb"] - 4
    files = limits["scratch_mb"] // per_file + 2
    code = (f"import time\ndef f(x):\n    for i in range({files}):\n        with open(f'part{{i}}', 'wb') as out:\n"
            f"            for _ in range({per_file}):\n                out.write(b'x' * 2**20)\n"
            "    time.sleep(60)\n    return x\n")
    error = error_of(hostile.call(code, "1.0", api_name="/inspect"), "disk")
    assert names_mb(error["message"], limits["scratch_mb"]), error
    hostile.check()


# -- crashes: the exit status says what happened, stderr does not ------------------------------------------------


def test_scary_text_on_stderr_then_a_normal_return_is_ok(hostile):
    code = ("import os\ndef f(x):\n"
            "    os.write(2, b'Fatal Python error: Segmentation fault\\nstd::bad_alloc\\nOut of memory\\n')\n"
            "    return x\n")
    result = hostile.call(code, "1.0", api_name="/inspect")
    assert result.get("ok") is True, short(result)
    hostile.check()


def test_memory_words_on_stderr_then_a_crash_is_crashed(hostile):
    code = ("import ctypes, os\ndef f(x):\n"
            "    os.write(2, b'Out of memory\\nstd::bad_alloc\\nRESOURCE_EXHAUSTED\\nCannot allocate memory\\n')\n"
            "    ctypes.string_at(0)\n    return x\n")
    error_of(hostile.call(code, "1.0", api_name="/inspect"), "crashed")
    hostile.check()


# abort() raises SIGABRT; a worker that is process 1 of its own PID namespace ignores its own SIGABRT, and glibc's
# abort() then ends it with SIGSEGV. Either is what happened, and the message must say which.
@pytest.mark.parametrize("crash,signals", [("ctypes.string_at(0)", {"SIGSEGV": 11}),
                                           ("os.abort()", {"SIGABRT": 6, "SIGSEGV": 11})], ids=["segv", "abort"])
def test_a_crash_names_its_signal_and_claims_nothing_it_did_not_check(hostile, crash, signals):
    code = f"import ctypes, os\ndef f(x):\n    {crash}\n    return x\n"
    error = error_of(hostile.call(code, "1.0", api_name="/inspect"), "crashed")
    named = "|".join(rf"{name}|signal {number}\b" for name, number in signals.items())
    assert re.search(named, error["message"]), f"no signal named ({' or '.join(signals)}): {error}"
    assert "nothing else was affected" not in error["message"].lower(), error
    hostile.check()


# The clock of the one test that meets it, on a server of its own where nothing else runs: far below the module's
# other limits, and long enough for the normal job of the check after it on a loaded machine (well under 2 s).
SHORT_CLOCK_S = 8


@pytest.fixture(scope="module")
def short_clock(tmp_path_factory, privilege):
    with support.hostile_harness(tmp_path_factory, "kinds-clock", privilege, workers=WORKERS,
                                 parallel_workers=PARALLEL_WORKERS, timeout_s=SHORT_CLOCK_S) as harness:
        yield harness


def test_a_timeout_names_its_limit(short_clock):
    assert short_clock.call(api_name="/about")["limits"]["timeout_s"] == SHORT_CLOCK_S
    short_clock.begin()
    started = time.monotonic()
    # The loop sleeps: the wall clock stops it as it would a busy one, without burning a core until then.
    endless = "def f(x):\n    import time\n    while True:\n        time.sleep(0.01)\n"
    error = error_of(short_clock.call(endless, "1.0", api_name="/inspect"), "timeout")
    took = time.monotonic() - started
    assert re.search(rf"\b{SHORT_CLOCK_S:g}(\.0)? ?(s|seconds)\b", error["message"]), error
    assert took >= SHORT_CLOCK_S - 0.5, f"stopped after {took:.1f} s, before its {SHORT_CLOCK_S} s"  # load adds time
    support.assert_no_hang(took, SHORT_CLOCK_S)
    assert error["line"] in (None, 3, 4), error
    short_clock.check()


# -- /predict: pixels out of range ------------------------------------------------------------------------------


@pytest.mark.parametrize("pixels", [
    [[1e308] * 28 for _ in range(28)],
    [[-1e308] * 28 for _ in range(28)],
    [[1e300] * 28 for _ in range(28)],
    [[1e308 if (r + c) % 2 else -1e308 for c in range(28)] for r in range(28)],
], ids=["1e308", "-1e308", "1e300", "mixed"])
def test_predict_names_the_pixel_range(hostile, pixels):
    """Checked before anything else: not the "no trained model" notice, not an index error from the crop."""
    error = error_of(hostile.call(pixels, api_name="/predict"), "invalid_input")
    message = error["message"]
    assert "255" in message, f"no pixel range named: {message}"
    assert "trained" not in message.lower() and "out of bounds" not in message, message
    hostile.check()
