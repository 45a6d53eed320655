"""XLA's dump options in the user's hands: the Compiler tab's jobs compile with a dump of every pass, and user code
may ask for dumps of its own.

/passes compiles the user's function with per-call debug options (``xla_dump_to`` a fresh folder in the job's
scratch folder, ``xla_dump_hlo_pass_re``) and reads the files back (playground/measure/xla_dump.py); /graph and /compare
compile it too. The user's code runs in all three, and may itself:

- compile with ``xla_dump_to`` pointing outside its scratch folder (absolute paths, ``../..``, ``/tmp/..``):
  ``jax.jit(g, compiler_options=...)``, ``lowered.compile({...})``, its own jitted ``f``, ``XLA_FLAGS``,
  ``jax_dump_ir_to``, ``jax_compilation_cache_dir``; nothing may appear outside the scratch folder;
- fill the scratch folder with dumps of every pass: the job ends with a clear "disk" error, or a reply that is
  still true (the passes really are the ones XLA ran);
- plant symlinks and FIFOs where the playground's own dump goes (folders named ``xla-dump-*``, files named like
  XLA's ``module_*.txt``), even while XLA writes: the job answers ok or with a clean error, within its time
  limit, and reads nothing outside.

Every test ends with the checks of the hostile suite (``hostile.check()``: server and template alive, a normal
job right, here a /passes that shows the fusion pass, no job folder left, no traceback in the server log), and a
look for files outside the scratch folder: in a pytest folder the attacks aim at, in the
repository, in the server's TMPDIR and in /tmp (names with this module's marker).
"""

from __future__ import annotations

import glob
import json
import os
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import FAKE_SECRET, ROOT
from tests.hostile import support
from tests.hostile.support import DEFAULT_CODE, assert_error, short

WORKERS = 2
PARALLEL_WORKERS = 1  # the Parallel tab's pool (Settings.parallel_workers)
TIMEOUT_S = 30  # a dump of every pass of a large program, a few times over, on a busy 2-core machine
# The clock of the one trap that only the clock can end (XLA blocks on a FIFO), on a server of its own: the /passes of
# the large program after it takes a few seconds on a loaded machine.
SHORT_CLOCK_S = 12
ENDED_BY_THE_CLOCK = "FIFOs named as XLA's own files"
MEASURE_TIMEOUT_S = 60  # /compare times what it runs: its jobs have this longer limit (the server's default)
SCRATCH_MB = 32  # small, so that dumps fill it in a few compiles
MARKER = uuid.uuid4().hex[:12]  # in every name an attack aims at, so that a leak is found by name
CANARY = f"SECRET-CANARY-{MARKER}"
BIG = "jnp.ones((1000, 1000))"  # the fusion demo's argument: XLA fuses the four elementwise operations
SMALL = "jnp.arange(4.0)"
ENDPOINTS = ("/passes", "/graph", "/compare")
_SKIP_DIRS = {".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache"}


def _harness(tmp_path_factory, privilege: str, name: str, timeout_s: int):
    return support.hostile_harness(tmp_path_factory, name, privilege, workers=WORKERS,
                                   parallel_workers=PARALLEL_WORKERS, timeout_s=timeout_s,
                                   PLAYGROUND_MEASURE_TIMEOUT_S=str(MEASURE_TIMEOUT_S),
                                   PLAYGROUND_SCRATCH_MB=str(SCRATCH_MB))


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, privilege):
    """The module's server (small time and scratch limits), and the harness every test ends with."""
    with _harness(tmp_path_factory, privilege, "xla-dumps", TIMEOUT_S) as harness:
        yield harness


@pytest.fixture(scope="module")
def short_clock(tmp_path_factory, privilege):
    """A server like the module's but with a SHORT_CLOCK_S clock, for the trap only the clock can end."""
    with _harness(tmp_path_factory, privilege, "xla-dumps-clock", SHORT_CLOCK_S) as harness:
        yield harness


@pytest.fixture(autouse=True)
def _begin(hostile):
    hostile.begin()


@pytest.fixture(scope="module")
def outside(tmp_path_factory) -> Path:
    """A folder outside every scratch folder: what the attacks aim their dumps at, with a secret and a canary."""
    folder = tmp_path_factory.mktemp("outside")
    secret = folder / "secret.txt"
    secret.write_text(CANARY + "\n")
    secret.chmod(0o600)
    (folder / "canary.txt").write_text("still here")
    return folder


def targets(outside: Path) -> dict[str, str]:
    """Where the attacks dump: folders outside the scratch folder, each named with the marker."""
    return {
        "a pytest tmp folder": str(outside / f"dump-{MARKER}"),
        "the repository root": str(ROOT / f"xla-dump-{MARKER}"),
        "../../x": f"../../x-{MARKER}",  # the scratch root beside the job folders
        "../../../x": f"../../../x-{MARKER}",  # the server's TMPDIR
        "/tmp/...": f"/tmp/xla-hostile-{MARKER}",
        "/tmp/../the repository": f"/tmp/../{ROOT.relative_to('/')}/xla-up-{MARKER}",
    }


# -- what each test checks -------------------------------------------------------------------------------------


def leaks(hostile, outside: Path) -> list[str]:
    """Files and folders the attacks may have made outside the scratch folder."""
    found = []
    for folder, dirs, files in os.walk(outside):
        found += [os.path.join(folder, name) for name in dirs + files
                  if not (Path(folder) == outside and name in ("secret.txt", "canary.txt"))]
    for root in (ROOT, hostile.tmpdir):
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
            found += [os.path.join(folder, name) for name in dirs + files if MARKER in name]
    found += glob.glob(f"/tmp/*{MARKER}*")
    return sorted(found)


def assert_contained(hostile, outside: Path, result) -> None:
    """Nothing outside, the secret unread and the canary untouched, the server well, /passes still right."""
    assert not leaks(hostile, outside), f"written outside the scratch folder: {leaks(hostile, outside)}"
    assert (outside / "canary.txt").read_text() == "still here"
    assert (outside / "secret.txt").read_text() == CANARY + "\n"
    text = json.dumps(result)
    assert CANARY not in text, f"the reply holds the secret: {short(result)}"
    assert FAKE_SECRET not in text
    assert CANARY not in hostile.new_log(), "the server log holds the secret"
    # The normal job of the check is a /passes, whose dumps an attack may have spoilt for the jobs after it.
    hostile.check(normal=lambda: assert_real_passes(support.again_if_lost(
        lambda: hostile.client.predict(DEFAULT_CODE, BIG, None, False, api_name="/passes"))))


def limit_of(endpoint: str) -> float:
    """The wall clock of one job on ``endpoint``."""
    return MEASURE_TIMEOUT_S if endpoint == "/compare" else TIMEOUT_S


def passes(hostile, code: str, args: str) -> dict:
    return hostile.call(code, args, None, False, api_name="/passes", timeout_s=TIMEOUT_S + support.HANG_S)


def call(hostile, endpoint: str, code: str, args: str = BIG) -> dict:
    """One job on ``endpoint``: /compare compares the code with itself under "fusion: off"."""
    extra = ("", "fusion: off") if endpoint == "/compare" else ()
    return hostile.call(code, args, *extra, None, False, api_name=endpoint,
                        timeout_s=limit_of(endpoint) + support.HANG_S)


def assert_outcome(result, expected: set[str]) -> None:
    """``result`` is ok (where "ok" is expected) or an error of one of the expected kinds, without a traceback."""
    assert isinstance(result, dict) and isinstance(result.get("ok"), bool), short(result)
    print("outcome:", "ok" if result["ok"] else result["error"].get("kind"))  # shown with -rP
    if result["ok"]:
        assert "ok" in expected, f"expected an error ({'/'.join(sorted(expected))}): {short(result)}"
    else:
        assert_error(result, expected - {"ok"}, no_traceback=True)


def fusion_pass(result: dict) -> dict | None:
    return next((p for p in result["passes"] if p["name"] == "fusion"), None)


def assert_real_passes(result: dict) -> None:
    """A /passes reply that shows what XLA did to x + x*x + x*x*x: its fusion pass fused the elementwise ops."""
    assert result.get("ok") is True, short(result)
    fusion = fusion_pass(result)
    assert fusion is not None, f"no fusion pass among {[p['name'] for p in result['passes']][:200]}"
    assert fusion["changed"] is True, f"the fusion pass reads as unchanged: {short(fusion)}"
    assert fusion["after"] is not None and "fusion(" in result["modules"][fusion["after"]], short(fusion)


# -- dumps aimed outside the scratch folder --------------------------------------------------------------------


def _options(where: str = "where") -> str:
    return f"{{'xla_dump_to': {where}, 'xla_dump_hlo_pass_re': '.+', 'xla_dump_hlo_as_text': True}}"


# Each compiles with a dump of every pass into every target in turn (WHERE, a list of paths).
ATTACKS = {
    "jax.jit(compiler_options) at module level": (
        "for where in WHERE:\n"
        f"    jax.jit(lambda v: v * 2, compiler_options={_options()})(jnp.ones(3))\n" + DEFAULT_CODE),
    "lower().compile(options) at module level": (
        "for where in WHERE:\n"
        f"    jax.jit(lambda v: v * 3).lower(jnp.ones(3)).compile({_options()})\n" + DEFAULT_CODE),
    "lower().compile(options) inside f": (
        "def f(x):\n"
        "    for where in WHERE:\n"
        f"        jax.jit(lambda v: v * 2).lower(jnp.ones(3)).compile({_options()})\n"
        "    return x + x*x + x*x*x\n"),
    # JAX refuses compiler_options on a jit nested in another: the user's own error.
    "jax.jit(compiler_options) called inside f": (
        "def f(x):\n"
        "    for where in WHERE:\n"
        f"        x = jax.jit(lambda v: v * 1, compiler_options={_options()})(x)\n"
        "    return x + x*x + x*x*x\n"),
    "XLA_FLAGS, then compile (and clear_backends)": (
        "import os\n"
        "import jax.extend\n"
        "for where in WHERE:\n"
        "    os.environ['XLA_FLAGS'] = f'--xla_dump_to={where} --xla_dump_hlo_pass_re=.+ --xla_dump_hlo_as_text'\n"
        "    jax.jit(lambda v: v * 4)(jnp.ones(3))\n"
        "    jax.extend.backend.clear_backends()\n"
        "    jax.jit(lambda v: v * 5)(jnp.ones(3))\n" + DEFAULT_CODE),
}


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_dumps_aimed_outside_write_nothing_there(hostile, outside, attack, endpoint):
    """XLA cannot make the folders (Landlock); it says so in its log and carries on: the job is ok."""
    code = f"WHERE = {list(targets(outside).values())!r}\n" + ATTACKS[attack]
    result = call(hostile, endpoint, code)
    assert_outcome(result, {"user_exception"} if "inside f" in attack and "jax.jit" in attack else {"ok"})
    if endpoint == "/passes" and result["ok"]:
        assert_real_passes(result)  # the user's options did not take the playground's dump over
    assert_contained(hostile, outside, result)


@pytest.mark.parametrize("target", list(targets(Path("/outside"))))
def test_the_users_own_jit_with_a_dump_outside(hostile, outside, target):
    """``f = jax.jit(g, compiler_options=...)`` is honoured: /graph compiles the user's jit with its options."""
    where = targets(outside)[target]
    code = f"def g(x):\n    return x + x*x + x*x*x\nf = jax.jit(g, compiler_options={_options(repr(where))})\n"
    assert_outcome(call(hostile, "/graph", code), {"ok"})
    assert_contained(hostile, outside, {})


@pytest.mark.parametrize("endpoint", ["/passes", "/compare"])
def test_the_users_own_jit_with_a_dump_outside_on_passes_and_compare(hostile, outside, endpoint):
    """/passes adds its dump options to the user's (its own folder wins); /compare compiles A and B with them."""
    where = targets(outside)["the repository root"]
    code = f"def g(x):\n    return x + x*x + x*x*x\nf = jax.jit(g, compiler_options={_options(repr(where))})\n"
    result = call(hostile, endpoint, code)
    assert_outcome(result, {"ok"})
    if endpoint == "/passes":
        assert_real_passes(result)
    assert_contained(hostile, outside, result)


def test_the_users_own_jit_cannot_silence_the_pass_dump(hostile, outside):
    """An option of the user's jit that /passes does not set (xla_dump_hlo_module_re) must not leave a reply that
    says ok with no passes and no word why: either the passes, a notice, or a clean error."""
    code = ("def g(x):\n    return x + x*x + x*x*x\n"
            "f = jax.jit(g, compiler_options={'xla_dump_hlo_module_re': 'matches-no-module'})\n")
    result = passes(hostile, code, BIG)
    assert_outcome(result, {"ok", "invalid_input", "user_exception"})
    if result["ok"]:
        assert result["passes"] or result["notices"], (
            f"ok with {len(result['passes'])} passes and no notice: the dump was silenced: {short(result)}")
    assert_contained(hostile, outside, result)


@pytest.mark.parametrize("target", list(targets(Path("/outside"))))
def test_jax_dump_ir_to_outside_is_forbidden(hostile, outside, target):
    """JAX writes its IR dumps itself, from Python: Landlock refuses, and the kind says so."""
    where = targets(outside)[target]
    code = f"jax.config.update('jax_dump_ir_to', {where!r})\n" + DEFAULT_CODE
    assert_outcome(passes(hostile, code, SMALL), {"forbidden"})
    assert_contained(hostile, outside, {})


@pytest.mark.parametrize("endpoint", ["/graph", "/compare"])
def test_jax_dump_ir_to_outside_on_graph_and_compare(hostile, outside, endpoint):
    where = targets(outside)["a pytest tmp folder"]
    code = "def f(x):\n    return x + x*x + x*x*x\n" f"jax.config.update('jax_dump_ir_to', {where!r})\n"
    assert_outcome(call(hostile, endpoint, code), {"forbidden"})
    assert_contained(hostile, outside, {})


@pytest.mark.parametrize("endpoint", ["/passes", "/compare"])
def test_a_compilation_cache_outside(hostile, outside, endpoint):
    """The persistent compilation cache aimed outside: JAX warns that it cannot write, the job goes on."""
    where = targets(outside)["a pytest tmp folder"]
    code = (f"jax.config.update('jax_compilation_cache_dir', {where!r})\n"
            "jax.config.update('jax_persistent_cache_min_compile_time_secs', 0)\n"
            "jax.config.update('jax_persistent_cache_min_entry_size_bytes', 0)\n" + DEFAULT_CODE)
    result = call(hostile, endpoint, code)
    assert_outcome(result, {"ok", "forbidden"})
    assert_contained(hostile, outside, result)


@pytest.mark.parametrize("where", ["outside", "the repository", "/tmp"])
def test_a_job_that_moves_out_of_its_scratch_folder(hostile, outside, where):
    """os.chdir at module level: /passes makes its dump folder in the working directory, which is then outside."""
    folder = {"outside": str(outside), "the repository": str(ROOT), "/tmp": "/tmp"}[where]
    before = set(glob.glob(os.path.join(folder, "xla-dump-*")))
    result = passes(hostile, f"import os\nos.chdir({folder!r})\n" + DEFAULT_CODE, SMALL)
    assert_outcome(result, {"forbidden"})
    # A unit test elsewhere may make (and remove) a dump folder of its own in the repository: one that goes is not
    # the job's, which nobody would remove.
    deadline = time.monotonic() + support.SETTLE_S
    while (new := set(glob.glob(os.path.join(folder, "xla-dump-*"))) - before) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not new, f"dump folders made outside the scratch folder: {sorted(new)}"
    assert_contained(hostile, outside, result)


# -- dumps that fill the scratch folder ------------------------------------------------------------------------

# Five compiles of a program of 300 operations, each dumped after every pass (about 14 MB each) into the
# scratch folder itself: more than its 32 MB. Each has a name of its own, so that no file overwrites another.
FILL = (
    "def program(k):\n"
    "    def g(x):\n"
    "        for i in range(300):\n"
    "            x = jnp.sin(x) * (i + k)\n"
    "        return x\n"
    "    g.__name__ = f'big{k}'\n"
    "    return g\n"
    "for k in range(5):\n"
    "    jax.jit(program(k)).lower(jnp.ones(8)).compile("
    "{'xla_dump_to': 'mine', 'xla_dump_hlo_pass_re': '.+', 'xla_dump_hlo_as_text': True})\n"
    + DEFAULT_CODE
)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_dump_that_fills_the_scratch_folder(hostile, outside, endpoint):
    """A clear "disk" error, or a reply that is still true; the deadline holds; the server survives.

    XLA ignores a failed write of its dump (it logs and carries on), so after the user's dumps /passes' own dump
    may be files with nothing in them: a reply that lists every pass as "unchanged", with empty modules, would
    be false.
    """
    started = time.monotonic()
    result = call(hostile, endpoint, FILL)
    took = time.monotonic() - started
    assert_outcome(result, {"ok", "disk"})
    support.assert_no_hang(took, limit_of(endpoint), "the answer")
    if endpoint == "/passes" and result["ok"]:
        empty = [i for i, text in enumerate(result["modules"]) if not text.startswith("HloModule")]
        warned = any("dump" in note for note in result["notices"])
        assert warned or not empty, (
            f"modules {empty[:10]} of {len(result['modules'])} are not modules (the dump's files were empty: "
            f"the scratch folder was full), and no notice says so: {short(result)}")
        assert warned or fusion_pass(result) and fusion_pass(result)["changed"] is True, (
            f"the fusion pass reads as unchanged, with no notice that the dump failed: {short(result)}")
    assert_contained(hostile, outside, result)


# -- traps where the playground's dump goes ----------------------------------------------------------------------

# A thread of the user's, started at module level, that watches the working directory for /passes' dump folder
# (made by xla_dump.new_folder just before the compile) and does ACTION to it (``d``, its name) once.
WATCHER = (
    "import os, threading, time\n"
    "def watch():\n"
    f"    deadline = time.monotonic() + {TIMEOUT_S}\n"
    "    seen = set()\n"
    "    while time.monotonic() < deadline:\n"
    "        for d in os.listdir('.'):\n"
    "            if d.startswith('xla-dump-') and d not in seen:\n"
    "                seen.add(d)\n"
    "                try:\n"
    "                    ACTION\n"
    "                except OSError:\n"
    "                    pass\n"
    "        time.sleep(0.001)\n"
    "threading.Thread(target=watch, daemon=True).start()\n"
    + DEFAULT_CODE
)
# Names XLA itself writes first in a dump folder, for the module numbers a fresh worker's compile may take.
XLA_NAMES = "[f'module_{i:04d}.jit_f.{n}' for i in range(40) for n in ('debug_options', 'before_optimizations.txt', " \
            "'0000.async-collective.after_pipeline-start.before_async-collective-replacer.txt')]"
# Names xla_dump.read takes for pass files, for two modules (the one with the most pass files is read).
PASS_NAMES = "[f'module_{m:04d}.jit_f.{i:04d}.trap.after_p{i}.txt' for m in (0, 9) for i in range(60)]"


def watcher(action: str) -> str:
    return WATCHER.replace("ACTION", action)


def trap_cases(outside: Path) -> dict[str, tuple[str, set[str]]]:
    """name -> (user code, the outcomes allowed)."""
    secret, canary = str(outside / "secret.txt"), str(outside / "canary.txt")
    return {
        "planted in the working directory before the job": (
            "import os\n"
            "if not os.path.lexists('module_0000.jit_f.0000.p.after_pipeline-start.txt'):  # /compare loads twice\n"
            "    for i in range(20):\n"
            "        os.mkfifo(f'xla-dump-fifo{i:04d}')\n"
            f"        os.symlink({str(outside)!r}, f'xla-dump-link{{i:04d}}')\n"
            "    os.mkfifo('module_0000.jit_f.0000.p.after_pipeline-start.txt')\n"
            f"    os.symlink({secret!r}, 'module_0000.jit_f.0001.p.after_q.txt')\n" + DEFAULT_CODE, {"ok"}),
        "FIFOs named like pass files in the dump folder": (
            watcher(f"[os.mkfifo(os.path.join(d, name)) for name in {PASS_NAMES}]"), {"ok"}),
        "symlinks to the secret named like pass files in the dump folder": (
            watcher(f"[os.symlink({secret!r}, os.path.join(d, name)) for name in {PASS_NAMES}]"), {"ok"}),
        ENDED_BY_THE_CLOCK: (  # XLA blocks opening one for writing: the job runs out of time
            watcher(f"[os.mkfifo(os.path.join(d, name)) for name in {XLA_NAMES}]"), {"ok", "timeout"}),
        "symlinks to the canary named as XLA's own files": (
            watcher(f"[os.symlink({canary!r}, os.path.join(d, name)) for name in {XLA_NAMES}]"),
            {"ok", "user_exception"}),
        "the dump folder moved away": (watcher("os.rename(d, d + '-moved')"), {"ok", "user_exception"}),
        # The playground's own read of its dump meets what the job left there: a clean error or ok, never a bug of
        # the playground's (kind "internal", a traceback in the server log).
        "the dump folder swapped for a symlink to outside": (
            watcher(f"os.rename(d, d + '-moved'); os.symlink({str(outside)!r}, d)"),
            {"ok", "user_exception", "forbidden"}),
        "the dump folder swapped for a FIFO": (
            watcher("os.rename(d, d + '-moved'); os.mkfifo(d)"), {"ok", "user_exception", "forbidden"}),
        "the dump folder swapped for a symlink to the secret": (
            watcher(f"os.rename(d, d + '-moved'); os.symlink({secret!r}, d)"), {"ok", "user_exception", "forbidden"}),
    }


@pytest.mark.parametrize("case", list(trap_cases(Path("/outside"))))
def test_traps_where_the_dump_goes(request, hostile, outside, case):
    code, expected = trap_cases(outside)[case]
    if case == ENDED_BY_THE_CLOCK:
        hostile = request.getfixturevalue("short_clock")
        hostile.begin()
    started = time.monotonic()
    result = passes(hostile, code, SMALL)
    took = time.monotonic() - started
    assert_outcome(result, expected)
    support.assert_no_hang(took, TIMEOUT_S, "the answer")
    assert_contained(hostile, outside, result)


@pytest.mark.parametrize("endpoint", ["/graph", "/compare"])
def test_traps_planted_before_graph_and_compare(hostile, outside, endpoint):
    """The other compiler jobs make no dump; the same traps leave them ok."""
    code, _ = trap_cases(outside)["planted in the working directory before the job"]
    assert_outcome(call(hostile, endpoint, code, SMALL), {"ok"})
    assert_contained(hostile, outside, {})
