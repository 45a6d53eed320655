"""What an accelerator's driver is granted beyond its device files (device_owner/device_grants.py), and only there.

The search for the smallest working set is checked with stand-in drivers; the
grants themselves (as confinement/lockdown.py applies them, by name) in a locked-down
child process, as the device owner locks itself down: its seccomp answer for the
socket calls CUDA makes, checked against a real listening UNIX socket, the
Landlock rule that lets it name its threads, and the programs it may start
(a stand-in ``ptxas`` on its PATH, found as the owner finds it, any other
program, a fork), with and without the grants.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from playground.confinement import lockdown
from playground.ipc.limits import Limits
from playground.server.device_owner import device_grants

ROOT = Path(__file__).resolve().parent.parent
PROBE = lockdown.probe()
needs_layers = pytest.mark.skipif(not (PROBE["landlock"]["active"] and PROBE["seccomp"]["active"]),
                                  reason=f"needs Landlock and seccomp: {PROBE}")
CUDA = device_grants.candidates("cuda")


# -- the search ---------------------------------------------------------------------------------------------------


def _driver(needs: set[str]):
    """A stand-in driver that opens with ``needs`` granted, recording every set it was tried with."""
    tried = []

    def opens(grants: tuple[str, ...]) -> str | None:
        tried.append(grants)
        missing = needs - set(grants)
        return None if not missing else f"CUDA_ERROR_OPERATING_SYSTEM (missing {sorted(missing)})"

    return opens, tried


def test_the_cuda_candidates_are_the_reviewed_list():
    assert CUDA == ("thread_names", "own_sockets", "absent_daemons", "compiler_programs")
    assert device_grants.candidates("tpu") == () and device_grants.candidates("cpu") == ()


def test_a_driver_that_needs_nothing_is_tried_once():
    opens, tried = _driver(set())
    assert device_grants.smallest(CUDA, opens) == ()
    assert tried == [()]


@pytest.mark.parametrize("needs", [{"thread_names"}, {"thread_names", "own_sockets"}, set(CUDA)])
def test_the_smallest_set_is_found_within_len_plus_two_tries(needs):
    opens, tried = _driver(needs)
    assert set(device_grants.smallest(CUDA, opens)) == needs
    assert tried[:2] == [(), CUDA] and len(tried) <= len(CUDA) + 2


def test_a_driver_that_no_set_opens_is_reported_with_its_reason():
    opens, tried = _driver({"something the sandbox never grants"})
    with pytest.raises(device_grants.NoneOpens, match="CUDA_ERROR_OPERATING_SYSTEM .*also with every grant"):
        device_grants.smallest(CUDA, opens)
    assert tried == [(), CUDA]
    opens, tried = _driver({"x"})
    with pytest.raises(device_grants.NoneOpens, match="^CUDA_ERROR"):  # no candidates (a TPU): one try
        device_grants.smallest((), opens)
    assert tried == [()]


def test_the_reviewed_grants_are_exactly_those_the_lockdown_knows_how_to_apply():
    assert set(device_grants.GRANTS) == lockdown.GRANTS
    assert lockdown.NEED_PRIVATE_SCRATCH <= lockdown.GRANTS


def test_unknown_grants_and_programs_without_their_grant_are_refused_before_anything_is_applied():
    with pytest.raises(ValueError, match="unknown device grants"):
        lockdown.apply(Limits(), "/nonexistent", grants=["write_everywhere"])
    with pytest.raises(ValueError, match="only with the compiler_programs grant"):
        lockdown.apply(Limits(), "/nonexistent", grants=["thread_names"], programs=["/bin/sh"])


def test_the_grants_are_described_for_about():
    assert device_grants.describe(()) == "none: the device opens with every layer as it is"
    said = device_grants.describe(("thread_names", "absent_daemons"))
    assert said.startswith("landlock: write to the files beneath its own /proc/self/task")
    assert "seccomp: connect answers ENOENT" in said


# -- in a locked-down child: exactly these calls, only with the grants --------------------------------------------


CHILD = textwrap.dedent("""
    import errno, json, os, socket, sys, threading
    from playground.owner import cuda_programs
    from playground.confinement import lockdown
    from playground.ipc.limits import Limits

    scratch, listening, grants = sys.argv[1], sys.argv[2], sys.argv[3].split(",") if sys.argv[3] else []
    if sys.argv[5] == "no-landlock":  # as on a kernel without it
        def unavailable(*args, **kwargs):
            raise OSError("Landlock is not available on this kernel")
        lockdown.landlock.restrict_self = unavailable
    # As the owner does (owner/main.py): the programs found before the lockdown, where the grant is asked for.
    programs = cuda_programs.find(cuda_programs.folders(os.environ)) if "compiler_programs" in grants else []
    layers = lockdown.apply(Limits(), scratch, devices={"read_write": [], "read_only": []}, grants=grants,
                            programs=programs, private_scratch=sys.argv[4] == "private")
    results = {}

    def attempt(name, action):
        try:
            action()
            results[name] = "ok"
        except OSError as exc:
            results[name] = errno.errorcode.get(exc.errno, str(exc.errno))

    def connect():  # what the driver does to find a daemon: a real socket listens there
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(listening)
        finally:
            s.close()

    own = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)

    def bind_abstract():  # CUDA's own @cuda-uvmfd-<ns>-<pid>
        own.bind(b"\\0cuda-uvmfd-test-" + str(os.getpid()).encode())

    def listen():
        own.listen(1)

    def accept():
        own.setblocking(False)
        own.accept()

    def name_a_thread():  # glibc's pthread_setname_np for another thread: a write to its comm file
        started, done = threading.Event(), threading.Event()
        box = {}
        worker = threading.Thread(target=lambda: (box.update(tid=threading.get_native_id()), started.set(),
                                                  done.wait()))
        worker.start()
        started.wait()
        try:
            with open(f"/proc/self/task/{box['tid']}/comm", "w") as f:
                f.write("cuda-EvtHandlr")
            with open(f"/proc/self/task/{box['tid']}/comm") as f:
                assert f.read().strip() == "cuda-EvtHandlr"
        finally:
            done.set()
            worker.join()

    def raise_oom_score():  # /proc/self itself stays read-only
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("100")

    def start(program):  # as XLA starts ptxas and nvlink: posix_spawn, then wait for it
        pid = os.posix_spawn(program, [program, "--version"], {})
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0

    def fork():
        if os.fork() == 0:
            os._exit(0)
        os.wait()

    attempt("connect", connect)
    attempt("run_compiler", lambda: start(os.path.join(os.environ["PATH"].split(":")[0], "ptxas")))
    attempt("run_other_program", lambda: start("/bin/true"))
    attempt("fork", fork)
    attempt("bind_abstract", bind_abstract)
    attempt("listen", listen)
    attempt("accept", accept)
    attempt("name_a_thread", name_a_thread)
    attempt("oom_score_adj", raise_oom_score)
    print(json.dumps({"layers": layers, "results": results}))
""")


NOTHING_GRANTED = {"connect": "EPERM", "bind_abstract": "EPERM", "listen": "EPERM", "accept": "EPERM",
                   "name_a_thread": "EACCES", "oom_score_adj": "EACCES",
                   "run_compiler": "EPERM", "run_other_program": "EPERM", "fork": "EPERM"}  # no new process at all


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    """A real UNIX socket that listens, as a daemon's would: no connection may reach it from a locked-down process."""
    path = str(tmp_path_factory.mktemp("daemon") / "control")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(8)
    listener.setblocking(False)
    yield path, listener
    listener.close()


def _locked_child(tmp_path: Path, daemon_path: str, grants: tuple[str, ...], private_scratch: bool = True,
                  landlock: bool = True) -> dict:
    """The child's layers and results; ``private_scratch``: as in the full sandbox with namespaces (a tmpfs)."""
    scratch = tmp_path / "-".join(grants or ("none",))
    scratch.mkdir()
    compilers = tmp_path / "cuda-bin"  # a stand-in ptxas where XLA would look for one: first on the PATH
    compilers.mkdir(exist_ok=True)
    shutil.copy("/bin/true", compilers / "ptxas")
    done = subprocess.run([sys.executable, "-c", CHILD, str(scratch), daemon_path, ",".join(grants),
                           "private" if private_scratch else "kept", "landlock" if landlock else "no-landlock"],
                          cwd=ROOT,
                          env={**os.environ, "PATH": f"{compilers}:{os.environ['PATH']}"},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _nobody_connected(listener: socket.socket) -> bool:
    try:
        listener.accept()[0].close()
    except BlockingIOError:
        return True
    return False


@needs_layers
def test_a_process_without_grants_is_refused_every_call_cuda_makes(tmp_path, daemon):
    path, listener = daemon
    child = _locked_child(tmp_path, path, ())
    assert child["results"] == NOTHING_GRANTED
    assert "/proc/self/task" not in child["layers"]["landlock"]["detail"]
    assert "for the device" not in child["layers"]["seccomp"]["detail"]
    assert _nobody_connected(listener)


@needs_layers
def test_the_cuda_grants_allow_exactly_what_the_driver_does(tmp_path, daemon):
    path, listener = daemon
    child = _locked_child(tmp_path, path, CUDA)
    assert child["results"] == {
        "connect": "ENOENT",  # as where no daemon runs; the real daemon socket is never reached
        "bind_abstract": "ok", "listen": "ok",  # the driver's own socket
        "accept": "EPERM",  # so nothing that connects to it is ever served
        "name_a_thread": "ok",  # its threads' names
        "oom_score_adj": "EACCES",  # nothing else of /proc
        "run_compiler": "ok",  # ptxas, found where XLA looks
        "run_other_program": "EACCES",  # started the way ptxas is, but Landlock lets no other file be executed
        "fork": "EPERM",  # a process only the way posix_spawn makes one
    }
    assert "cuda-bin/ptxas executable" in child["layers"]["landlock"]["detail"]
    assert "/dev/null writable" in child["layers"]["landlock"]["detail"]
    assert "/proc/self/task writable" in child["layers"]["landlock"]["detail"]
    assert child["layers"]["seccomp"]["detail"].endswith(
        "for the device: bind and listen allowed, connect answers ENOENT, execve and posix_spawn's clone allowed")
    assert _nobody_connected(listener)


@needs_layers
@pytest.mark.parametrize("grant", CUDA)
def test_each_grant_changes_only_its_own_calls(tmp_path, daemon, grant):
    path, _ = daemon
    results = _locked_child(tmp_path, path, (grant,))["results"]
    changed = {name for name, outcome in results.items()
               if outcome != NOTHING_GRANTED[name]}
    assert changed == {"thread_names": {"name_a_thread"}, "own_sockets": {"bind_abstract", "listen"},
                       "absent_daemons": {"connect"},
                       "compiler_programs": {"run_compiler", "run_other_program"}}[grant], results


@needs_layers
def test_without_a_private_scratch_folder_no_program_may_start(tmp_path, daemon):
    """XLA deletes ptxas's files, which a scratch folder that keeps its files refuses: the grant is withheld."""
    path, _ = daemon
    child = _locked_child(tmp_path, path, CUDA, private_scratch=False)
    assert {name: child["results"][name] for name in ("run_compiler", "run_other_program", "fork")} == {
        "run_compiler": "EPERM", "run_other_program": "EPERM", "fork": "EPERM"}
    assert "executable" not in child["layers"]["landlock"]["detail"]
    assert "execve" not in child["layers"]["seccomp"]["detail"]
    assert child["results"]["name_a_thread"] == "ok"  # the other grants stand


@needs_layers
def test_without_landlock_no_program_may_start(tmp_path, daemon):
    """seccomp's part of compiler_programs lets programs run; only Landlock says which: without it, none may."""
    path, _ = daemon
    child = _locked_child(tmp_path, path, CUDA, landlock=False)
    assert child["layers"]["landlock"]["active"] is False
    assert child["results"]["run_compiler"] == child["results"]["run_other_program"] == "EPERM"
    assert "execve" not in child["layers"]["seccomp"]["detail"]
