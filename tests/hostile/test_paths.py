"""The server trusts no path the job controls: its scratch folder is the job's to fill with traps.

The job owns its working directory (its scratch folder): it can replace the log
the server reads with a symlink or a FIFO, plant symlinks to folders outside, and
fill the folder with deep trees, huge directories, hard links and unreadable
entries. The server must read nothing through them, never block on them, remove
all of it without following a link, and stay within its limits.

Every test ends with ``hostile.check()`` (server and template alive, a normal job
right, no job folder left, no traceback or RecursionError in the server log), and
the TMPDIR the server was given must be empty once it has stopped.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import stat
import threading
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import FAKE_SECRET, ROOT
from tests.hostile import support
from tests.hostile.support import assert_error, short

WORKERS = 2
PARALLEL_WORKERS = 1  # the Parallel tab's pool (Settings.parallel_workers)
TIMEOUT_S = 6
CANARY = f"SECRET-CANARY-{uuid.uuid4().hex}"
# What the secret holds besides the canary: text the server would act on if it read the file as the job's log.
SECRET_TEXT = f'{CANARY}\nFile "<playground>", line 4242\nOut of memory\nFatal Python error: {CANARY}-fatal\n'


# The module's server, and the harness every test ends with (hostile.check()).
hostile, _begin = support.hostile_fixtures("paths", workers=WORKERS, parallel_workers=PARALLEL_WORKERS,
                                           timeout_s=TIMEOUT_S)


# -- what the jobs attack --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def outside(tmp_path_factory) -> Path:
    """A folder outside every scratch dir: a secret only its owner may read, and a canary file."""
    folder = tmp_path_factory.mktemp("outside")
    secret = folder / "secret.txt"
    secret.write_text(SECRET_TEXT)
    secret.chmod(0o600)
    (folder / "canary.txt").write_text("still here")
    return folder


def assert_no_secret(hostile, result) -> None:
    text = json.dumps(result)
    assert CANARY not in text, f"the reply holds the secret: {short(result)}"
    assert FAKE_SECRET not in text, f"the reply holds the server's environment: {short(result)}"
    log = hostile.new_log()
    assert CANARY not in log, "the server log holds the secret's contents"
    assert FAKE_SECRET not in log, "the server log holds the server's environment"


def replace_every_file_with(target_code: str, then: str) -> str:
    """User code: every file in its folder (the worker's log among them) becomes ``target_code``, then ``then``."""
    return (
        "import ctypes, os, time\n"
        "def trap(name):\n"
        "    try:\n"
        "        os.unlink(name)\n"
        "    except OSError:\n"
        "        pass\n"
        f"    {target_code}\n"
        "def f(x):\n"
        "    for name in set(os.listdir('.')) | {'worker.log'}:\n"
        "        trap(name)\n"
        f"    {then}\n"
        "    return x\n"
    )


CRASH = "ctypes.string_at(0)"
LOOP = "while True: time.sleep(0.01)"
LOOP_LINE = 11  # the line of LOOP in replace_every_file_with's code


def test_the_job_cannot_read_the_secret_itself(hostile, outside):
    """The premise: the secret is out of the job's reach, so reading it through the server would be a leak."""
    result = hostile.call(f"def f(x):\n    open({str(outside / 'secret.txt')!r}).read()\n    return x\n", "1.0",
                          api_name="/inspect")
    assert_error(result, {"forbidden"})
    assert_no_secret(hostile, result)
    hostile.check()


@pytest.mark.parametrize("then", [CRASH, LOOP], ids=["crash", "timeout"])
def test_log_symlinked_to_a_secret(hostile, outside, then):
    code = replace_every_file_with(f"os.symlink({str(outside / 'secret.txt')!r}, name)", then)
    result = hostile.call(code, "1.0", api_name="/inspect", timeout_s=TIMEOUT_S + support.HANG_S)
    if then == CRASH:
        error = assert_error(result, {"crashed"})  # not "memory": that would come from the secret's text
    else:
        error = assert_error(result, {"timeout"})
        assert error["line"] in (None, LOOP_LINE), f"a line from the secret: {short(result)}"
    assert "4242" not in json.dumps(error), short(result)
    assert_no_secret(hostile, result)
    hostile.check()


def test_log_symlinked_to_the_servers_environment(hostile):
    """/proc/<server>/environ: unreadable to the job, readable to the server (it is its own)."""
    target = f"/proc/{hostile.server.process.pid}/environ"
    result = hostile.call(replace_every_file_with(f"os.symlink({target!r}, name)", CRASH), "1.0", api_name="/inspect")
    assert_error(result, {"crashed"})
    assert_no_secret(hostile, result)
    hostile.check()


def release_fifos(tmpdir: Path) -> int:
    """Open every FIFO under TMPDIR for writing and close it: a reader blocked on it sees end of file."""
    released = 0
    for folder, _dirs, files in os.walk(tmpdir):
        for name in files:
            path = os.path.join(folder, name)
            try:
                if stat.S_ISFIFO(os.lstat(path).st_mode):
                    os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
                    released += 1
            except OSError:  # no reader (ENXIO), or gone
                pass
    return released


@pytest.mark.parametrize("then", [CRASH, LOOP], ids=["crash", "timeout"])
def test_log_replaced_by_a_fifo_blocks_no_one(hostile, then):
    """Two such jobs at once hold both of the server's slots if it blocks opening the FIFO; a third user waits.

    A server that blocks gives the two no answer (their workers crashed, or ran out of time, long before), and
    the third none either: each is waited for until it is HANG_S late."""
    code = replace_every_file_with("os.mkfifo(name)", then)
    hostile_jobs = [hostile.client.submit(code, "1.0", api_name="/inspect") for _ in range(2)]
    stop = threading.Event()
    try:
        for job in hostile_jobs:
            try:
                result = job.result(timeout=TIMEOUT_S + support.HANG_S)
            except concurrent.futures.TimeoutError:
                pytest.fail("a job whose log is a FIFO got no answer: the server blocks on the FIFO")
            assert_error(result, {"crashed"} if then == CRASH else {"timeout"})
        third = hostile.client.submit(support.DEFAULT_CODE, support.DEFAULT_ARGS, api_name="/inspect")
        try:
            normal = third.result(timeout=support.HANG_S)
        except concurrent.futures.TimeoutError:
            pytest.fail(f"a normal job waited more than {support.HANG_S:g} s behind two jobs whose log is a FIFO")
        assert normal["ok"] is True and normal["result"] == support.DEFAULT_RESULT, short(normal)
    finally:
        def keep_releasing():
            while not stop.is_set():
                release_fifos(hostile.tmpdir)
                time.sleep(0.2)

        releaser = threading.Thread(target=keep_releasing, daemon=True)
        releaser.start()
        for job in hostile_jobs:  # let the server finish them before the next test
            try:
                job.result(timeout=TIMEOUT_S + support.HANG_S)
            except BaseException:
                pass
        stop.set()
        releaser.join(5)
    hostile.check()


@pytest.mark.parametrize("then", ["pass", CRASH], ids=["ok", "crash"])
def test_symlinks_to_outside_are_not_followed_on_removal(hostile, outside, then):
    code = (
        "import ctypes, os\n"
        "def f(x):\n"
        f"    os.symlink({str(outside)!r}, 'dir-link')\n"
        f"    os.symlink({str(outside / 'canary.txt')!r}, 'file-link')\n"
        "    os.mkdir('sub')\n"
        f"    os.symlink({str(outside)!r}, 'sub/deeper-link')\n"
        "    os.symlink('.', 'loop')\n"
        f"    {then}\n"
        "    return x\n"
    )
    result = hostile.call(code, "1.0", api_name="/inspect")
    assert isinstance(result, dict) and (result.get("ok") is True if then == "pass" else result.get("ok") is False), \
        short(result)
    hostile.check()
    assert (outside / "canary.txt").read_text() == "still here"
    assert (outside / "secret.txt").read_text() == SECRET_TEXT


def test_a_tree_3000_folders_deep(hostile):
    code = (
        "import os\n"
        "def f(x):\n"
        "    fd = os.open('.', os.O_RDONLY)\n"
        "    for _ in range(3000):\n"
        "        os.mkdir('d', dir_fd=fd)\n"
        "        inner = os.open('d', os.O_RDONLY, dir_fd=fd)\n"
        "        os.close(fd)\n"
        "        fd = inner\n"
        "    open('leaf', 'w', opener=lambda name, flags: os.open(name, flags, dir_fd=fd)).close()\n"
        "    return x\n"
    )
    result = hostile.call(code, "1.0", api_name="/inspect")
    assert isinstance(result, dict) and isinstance(result.get("ok"), bool), short(result)
    if result["ok"] is False:
        assert_error(result)
    assert "RecursionError" not in hostile.new_log()
    hostile.check()


def test_a_folder_with_200000_entries(hostile):
    code = (
        "import os, time\n"
        "def f(x):\n"
        "    for i in range(200_000):\n"
        "        os.mkdir(f'd{i}')\n"
        "    while True:\n"
        "        time.sleep(0.1)\n"
    )
    started = time.monotonic()
    result = hostile.call(code, "1.0", api_name="/inspect", timeout_s=TIMEOUT_S + support.HANG_S)
    took = time.monotonic() - started
    assert_error(result, {"timeout", "disk"})
    support.assert_no_hang(took, TIMEOUT_S, "the answer")  # counting 200,000 entries does not stall the deadline
    hostile.check()


def attempt_code(modules: str, attempt: str, done: str, before: tuple[str, ...] = ()) -> str:
    """User code that makes one attempt (after ``before``): prints ``done`` if it worked, else ``refused <errno>``."""
    return "".join([f"import {modules}\n", "def f(x):\n", *(f"    {line}\n" for line in before),
                    "    try:\n", f"        {attempt}\n", f"        print({done!r})\n",
                    "    except OSError as exc:\n", "        print('refused', exc.errno)\n", "    return x\n"])


def assert_refused_in_job(result) -> None:
    """The job ran to its end, and what it attempted was refused."""
    assert result.get("ok") is True, short(result)
    assert result["stdout"].startswith("refused"), short(result["stdout"])


@pytest.mark.parametrize("source", ["secret", "app.py"])
def test_hard_links_to_files_outside(hostile, outside, source):
    """A hard link inside scratch would make an outside file writable by path; it must not be made."""
    path = outside / "secret.txt" if source == "secret" else ROOT / "app.py"
    links_before = path.stat().st_nlink
    result = hostile.call(attempt_code("os", f"os.link({str(path)!r}, 'hard')", "linked"), "1.0",
                          api_name="/inspect")
    assert_refused_in_job(result)
    assert path.stat().st_nlink == links_before
    assert_no_secret(hostile, result)
    hostile.check()


def test_unreadable_files_and_folders_are_removed(hostile):
    """Entries made without the permissions their owner needs to read them (no chmod: seccomp refuses it)."""
    code = (
        "import os\n"
        "def f(x):\n"
        "    os.write(os.open('locked', os.O_WRONLY | os.O_CREAT, 0), b'x')\n"
        "    os.mkdir('closed', 0o300)\n"
        "    os.mkdir('closed/inner', 0o300)\n"
        "    open('closed/inner/file', 'w').write('x')\n"
        "    os.mkdir('closed/inner/sealed', 0)\n"
        "    os.mkdir('empty-sealed', 0)\n"
        "    return x\n"
    )
    result = hostile.call(code, "1.0", api_name="/inspect")
    # Where the server walks the scratch folder (no private tmpfs: an unprivileged server), a walk that comes while
    # the folders are closed stops the job, since it cannot count what they hold; whether one comes before the job
    # ends is a matter of timing. Either way, everything is removed afterwards (check()).
    hidden = (result.get("error") or {}).get("kind") == "disk" and "keep the server from counting" in str(result)
    assert result.get("ok") is True or hidden, short(result)
    hostile.check()


def test_the_job_cannot_make_a_folder_immutable(hostile):
    """An immutable folder would defeat removal; setting the flag needs CAP_LINUX_IMMUTABLE, which workers lack."""
    code = attempt_code("fcntl, os, struct",
                        "fcntl.ioctl(fd, 0x40086602, struct.pack('l', 0x10))  # FS_IOC_SETFLAGS, FS_IMMUTABLE_FL",
                        "immutable", before=("os.mkdir('frozen')", "fd = os.open('frozen', os.O_RDONLY)"))
    assert_refused_in_job(hostile.call(code, "1.0", api_name="/inspect"))
    hostile.check()



@pytest.mark.parametrize("attack", ["chmod_scratch_root", "chmod_own_folder", "chmod_outside", "fchmod_outside",
                                    "chown_outside", "truncate_outside", "set_attribute_outside"])
def test_no_job_changes_a_files_mode_owner_or_attributes(hostile, outside, attack):
    """Landlock does not see these, and a worker owns by uid what the server made (no root: the server's uid) or
    what the host's root made (root without capabilities): one chmod of the folder above its own would lock the
    server out of every later job's folder; one of a system library, out of the host. Seccomp refuses them all."""
    support.skip_unless_in_force(hostile.client, "the calls are refused by the seccomp filter", layers=("seccomp",))
    canary = str(outside / "canary.txt")
    attempt = {
        "chmod_scratch_root": "os.chmod('..', 0)",
        "chmod_own_folder": "os.chmod('.', 0)",
        "chmod_outside": f"os.chmod({canary!r}, 0o777)",
        "fchmod_outside": f"os.fchmod(os.open({canary!r}, os.O_RDONLY), 0o777)",
        "chown_outside": f"os.chown({canary!r}, os.getuid(), os.getgid())",
        "truncate_outside": f"os.truncate({canary!r}, 0)",
        "set_attribute_outside": f"os.setxattr({canary!r}, 'user.playground', b'x')",
    }[attack]
    before = (outside / "canary.txt").stat()
    result = hostile.call(attempt_code("os", attempt, "changed"), "1.0", api_name="/inspect")
    assert_refused_in_job(result)
    after = (outside / "canary.txt").stat()
    assert (after.st_mode, after.st_size, after.st_uid) == (before.st_mode, before.st_size, before.st_uid)
    assert os.listxattr(outside / "canary.txt") == []
    hostile.check()
