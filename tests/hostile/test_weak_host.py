"""A host that lends the sandbox little (gVisor: Cloud Run, GKE Sandbox, a TPU VM): no Landlock, no namespaces, no
pidfds. ``../shared/tools/gvisor_like.py`` starts the app so, and from every tab a job's code tries what a hostile
visitor would (tests/hostile/escapes.py): every kind of write into this checkout, the device owner's compilation
cache, the server's home, /tmp, /dev/shm and its own scratch folder; opening device nodes for writing; reading the
environment, memory and descriptors of the app's other processes, signalling and tracing them. Each is refused, the
job still answers, and nothing on disk changed.

As root (capabilities dropped, as the app drops them) and as a uid that owns the server's home and compilation
cache (as a Space and the TPU machine run the app). A fresh clone without ``../shared`` skips this, saying why.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.conftest import DROP_UID, ROOT, make_traversable
from tests.hostile import escapes, support
from tests.hostile.support import assert_error, short

GVISOR_LIKE = ROOT.parent / "shared" / "tools" / "gvisor_like.py"
# gvisor_like.py runs a Python script; start_server's wrapper is given "python app.py": the shim runs that.
WRAPPER = (sys.executable, str(GVISOR_LIKE), "-c", "import os, sys; os.execv(sys.argv[1], sys.argv[1:])")
WORKERS = 1
PARALLEL_WORKERS = 1
TIMEOUT_S = 60  # the attempts are many system calls, and the device line's first job waits for the owner

pytestmark = pytest.mark.skipif(not GVISOR_LIKE.exists(), reason=f"{GVISOR_LIKE} is not beside this checkout: "
                                "the simulated gVisor host cannot be started")

# Every tab's path for user code, by endpoint: the arguments after the code.
TABS = {
    "inspect": ("/inspect", ("1.0",)),
    "inspect on the device line": ("/inspect", ("1.0", None, "", True)),
    "compiler": ("/passes", ("1.0", None, False)),
    "derivatives": ("/derivatives", (1, -1.0, 1.0, 5)),
    "vmap": ("/vmap", ("jnp.ones(3)", "0", [1, 2], "0")),
    "jit": ("/jit_speed", ([4], 1)),
    "speed of light": ("/speed_of_light", ("jnp.ones(8)", False)),
    "parallel": ("/shard", ("jnp.arange(8.0)", [2], ["data"], "(('data',),)", "('data',)")),
    "pallas": ("/pallas", ("1.0",)),
}
# What an endpoint needs beside f before it calls f: the Pallas job, a reference.
CODE_AFTER = {"/pallas": "\n\ndef reference(x):\n    return x\n"}


@pytest.fixture(scope="module")
def home(tmp_path_factory, privilege) -> Path:
    """The server's home: a folder its uid owns."""
    folder = tmp_path_factory.mktemp("weak-host-home")
    if privilege == "unprivileged" and os.geteuid() == 0:
        os.chown(folder, DROP_UID, DROP_UID)
    return folder


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, privilege, home):
    """A server started as gvisor_like.py starts it. As root, the interpreter is reachable by other uids, as on a
    host where the app's jobs run as a uid of their own (lockdown.JOB_UID)."""
    if privilege == "root":
        make_traversable()
    with support.hostile_harness(tmp_path_factory, "weak-host", privilege, workers=WORKERS,
                                 parallel_workers=PARALLEL_WORKERS, timeout_s=TIMEOUT_S, wrapper=WRAPPER,
                                 HOME=str(home)) as harness:
        yield harness


@pytest.fixture(autouse=True)
def _begin(hostile):
    hostile.begin()


def server_uid(privilege: str) -> int:
    return DROP_UID if privilege == "unprivileged" and os.geteuid() == 0 else os.geteuid()


def places(hostile, home: Path, uid: int) -> escapes.Places:
    """The folders the job aims at, each with a canary file of the server's uid (its own scratch folder:
    test_a_job_that_writes_a_file_is_told_what_this_host_allows)."""
    sandbox = support.about(hostile.client)["sandbox"]
    cache = Path((sandbox["device_owner"]["compile_cache"] or {})["folder"])
    folders = {"the checkout": ROOT, "the compilation cache": cache, "the home": home, "/tmp": Path("/tmp"),
               "/dev/shm": Path("/dev/shm")}
    return escapes.Places(folders, uid=uid, extra={"playground/__init__.py": ROOT / "playground" / "__init__.py"})


def test_about_and_the_log_say_what_holds_in_place_of_each_missing_layer(hostile, privilege):
    sandbox = support.reported_sandbox(hostile.client)
    layers, files = sandbox["layers"], sandbox["mechanisms"]["files"]
    assert layers["landlock"]["active"] is False and layers["namespaces"]["active"] is False, layers
    assert layers["seccomp"]["active"] is True, layers
    assert "every file write refused" in layers["seccomp"]["detail"], layers["seccomp"]
    assert files["active"] is False, files  # reads are not confined as Landlock would: said, not implied
    assert "seccomp refuses every file write" in files["detail"], files
    if server_uid(privilege) == 0:
        assert layers["own_uid"]["active"] is True, layers
    else:
        assert "own_uid" not in layers, layers
        assert f"every file the server's user (uid {server_uid(privilege)}) may read" in files["detail"], files
    assert "read their command lines" in sandbox["mechanisms"]["processes"]["detail"]
    log = hostile.log_text()
    assert "sandbox: files is not fully bounded here: no Landlock" in log, log[-3000:]


@pytest.mark.parametrize("tab", list(TABS))
def test_no_write_device_or_other_process_from_any_tab(hostile, home, privilege, tab):
    endpoint, args = TABS[tab]
    aimed = places(hostile, home, server_uid(privilege))
    try:
        code = escapes.attempts_code(aimed.aimed(), escapes.app_processes(hostile.server.process.pid), aimed.tag)
        code += CODE_AFTER.get(endpoint, "")
        result = hostile.call(code, *args, api_name=endpoint, timeout_s=TIMEOUT_S + support.HANG_S)
        text = json.dumps(result)
        assert escapes.ESCAPED not in text, short(result)
        assert aimed.changed() == {}, f"changed on disk by the job: {aimed.changed()}"
        if endpoint == "/inspect":
            assert result.get("ok") is True, short(result)  # the job still gets its answer
            said = escapes.outcomes(result["stdout"])
            assert {name for name, outcome in said.items() if not outcome.startswith(("refused", "absent"))} == set()
            assert said["create in /tmp"] == "refused EPERM", said  # seccomp's answer, before any permission
        if endpoint == "/pallas":  # f was traced (its attempts made), and found to call no kernel
            assert "pl.pallas_call" in result["error"]["message"], short(result)
    finally:
        aimed.remove()
    hostile.check()


def test_a_job_that_writes_a_file_is_told_what_this_host_allows(hostile):
    result = hostile.call("def f(x):\n    open('notes.txt', 'w').write('x')\n    return x\n", "1.0",
                          api_name="/inspect")
    error = assert_error(result, {"forbidden"})
    assert "no job may write, make, delete or rename any file here" in error["message"], error
    assert error["line"] == 2, error
    hostile.check()


def test_the_compiler_tab_shows_the_passes_without_writing_a_file(hostile):
    """XLA dumps each pass to the worker's memory (a pipe) where it may write no file."""
    result = hostile.call("def f(x):\n    return x + x*x\n", "jnp.arange(4.0)", None, False, api_name="/passes",
                          timeout_s=TIMEOUT_S + support.HANG_S)
    assert result.get("ok") is True, short(result)
    names = [record["name"] for record in result["passes"]]
    assert "fusion" in names and len(names) > 50, names
    hostile.check()
