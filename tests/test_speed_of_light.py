"""playground.worker.jobs.speed_of_light, in this process: the roofline of a function against the device's measured
ceilings, its memory over XLA's schedule (with and without its jax.checkpoint calls, for jax.grad), and the
kernels XLA ran. The device is an owner's session in this process, on the CPU (tests/owner_doubles.py): the job
exports its programs, and the owner compiles, dumps, times and traces them, as across the processes.

What the job says is checked against what this test works out on its own: XLA's memory_analysis and
cost_analysis of an independent compile, the ENTRY computation of its optimised HLO. No clock is asserted:
how close the roofline's rates come to a plain jax.jit loop's is benchmarks/speed_of_light.py's to print.
"""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import pytest

from playground.ipc.limits import Limits
from playground.jobs.speed_of_light import CEILINGS, SPEED_OF_LIGHT
from playground.owner import profile
from playground.replies import check
from playground.server import roofline
from playground.worker.jobs import speed_of_light as speed_of_light_job
from playground.worker.measurement import kernel_timeline
from tests.device_requests import ops, recording_device
from tests.owner_doubles import local_device

CUBIC = "def f(x):\n    return x + x*x + x*x*x\n"
CUBIC_ARGS = "jnp.ones((2000, 2000))"
MATMUL = "def f(a, b):\n    return a @ b\n"
MATMUL_ARGS = "jnp.ones((2048, 2048)), jnp.ones((2048, 2048))"
MLP = ("def f(x, w1, w2, w3):\n"
       "    h = jnp.tanh(x @ w1)\n"
       "    h = jnp.tanh(h @ w2)\n"
       "    return jnp.tanh(h @ w3)\n")
MLP_ARGS = "jnp.ones((512, 256)), jnp.ones((256, 512)) * 0.01, jnp.ones((512, 512)) * 0.01, jnp.ones((512, 128)) * 0.01"
MLP_LINES = {2, 3, 4}  # the lines of MLP that make values
SCAN = ("def f(ws, x):\n"
        "    def layer(h, w):\n"
        "        return jnp.tanh(jnp.sin(h @ w) * 2.0), None\n"
        "    x, _ = jax.lax.scan(jax.checkpoint(layer), x, ws)\n"
        "    return x\n")
SCAN_ARGS = "jnp.ones((8, 256, 256)) * 0.01, jnp.ones((1024, 256))"
LAYERS = ("{decorator}\n"
          "def layer(h, w):\n"
          "    return jnp.tanh(jnp.sin(h @ w) * 2.0)\n"
          "\n"
          "def f(ws, x):\n"
          "    for i in range(4):\n"
          "        x = layer(x, ws[i])\n"
          "    return x\n")
LAYERS_ARGS = "jnp.ones((4, 256, 256)) * 0.01, jnp.ones((1024, 256))"
KERNELS = "def f(x):\n    y = jnp.tanh(x @ x)\n    return y + x * x\n"
KERNELS_LINES = {"dot_general": 2, "tanh": 2, "add": 3, "mul": 3}  # each operation of KERNELS and its line


def _f(code: str):
    namespace = {"jax": jax, "jnp": jnp}
    exec(code, namespace)  # this test's own functions
    return namespace["f"]


def _args(text: str) -> tuple:
    return eval(f"({text},)", {"jax": jax, "jnp": jnp})  # this test's own arguments


def speed_of_light(code: str, args: str, gradient: bool, **options) -> dict:
    """The job, measuring on an owner's session in this process."""
    return speed_of_light_job.speed_of_light(code, args, local_device(), gradient=gradient, **options)


@pytest.fixture(scope="module")
def measured() -> dict:
    """This machine's ceilings in float32, as the device_ceilings job has the owner measure them."""
    return speed_of_light_job.ceilings_job(Limits(), "float32", 0, local_device(Limits().memory_mb))


@pytest.fixture(scope="module")
def mlp() -> dict:
    reply = speed_of_light(MLP, MLP_ARGS, gradient=True)
    assert reply["ok"] is True, reply
    return reply


@pytest.fixture(scope="module")
def scan() -> dict:
    reply = speed_of_light(SCAN, SCAN_ARGS, gradient=True)
    assert reply["ok"] is True, reply
    return reply


# -- the roofline: bound and achieved rate agree with an independent measurement -------------------------------


def _placed(code: str, args_text: str, measured: dict, rate: str, amount: str) -> tuple[dict, dict]:
    """The job's reply and its roofline, whose achieved ``rate`` is XLA's ``amount`` over the job's median time.

    How close that rate comes to an independent jax.jit loop's is a timing, never asserted in a test: on a quiet
    machine benchmarks/speed_of_light.py prints both side by side (within 11 % in every round here); in a
    whole-suite run on two cores, other tests' load moved one loop's rate from 1.6 to 12.7 GB/s within seconds."""
    reply = speed_of_light(code, args_text, gradient=False)
    assert reply["ok"] is True, reply
    placed = roofline.place(reply, measured, None)
    for program, run in zip(placed["programs"], (p["run"] for p in reply["programs"]), strict=True):
        assert program[rate] == program[amount] / run["median_s"] and program["seconds"] == run["median_s"]
    return reply, placed


def test_an_elementwise_function_is_memory_bound_at_its_bytes_over_its_time(measured):
    reply, placed = _placed(CUBIC, CUBIC_ARGS, measured, "achieved_bytes_s", "bytes")
    written, unfused = placed["programs"]
    assert [written["label"], unfused["label"]] == ["as written", "fusion off"]
    # Half a FLOP a byte: left of the ridge of a quiet machine's roofs; the bound is what the measured roofs say
    # (a test suite beside them moves the ridge).
    bound = "memory" if written["intensity"] < written["ridge"] else "compute"
    assert written["bound"] == bound and written["verdict"].startswith(f"{bound}-bound"), placed
    compiled = jax.jit(_f(CUBIC)).lower(*_args(CUBIC_ARGS)).compile()
    cost = compiled.cost_analysis()
    assert written["bytes"] == cost["bytes accessed"] == 2 * 2000 * 2000 * 4
    assert written["flops"] == cost["flops"] == 4 * 2000 * 2000
    # Fusion off: the same FLOPs, each intermediate written and read again: more bytes.
    assert unfused["flops"] == written["flops"]
    assert unfused["bytes"] > written["bytes"] and unfused["intensity"] < written["intensity"]  # left of it
    assert [p["kernels"] for p in reply["programs"]] == [1, 4]


def test_a_large_matmul_is_compute_bound_at_its_flops_over_its_time(measured):
    reply, placed = _placed(MATMUL, MATMUL_ARGS, measured, "achieved_flops_s", "flops")
    written = placed["programs"][0]
    assert written["bound"] == "compute", placed
    assert written["verdict"].startswith("compute-bound"), written["verdict"]
    assert written["flops"] == jax.jit(_f(MATMUL)).lower(*_args(MATMUL_ARGS)).compile().cost_analysis()["flops"]
    assert written["flops"] == pytest.approx(2 * 2048**3, rel=0.01)
    assert written["intensity"] > placed["ceilings"]["ridge"]


def test_the_ceilings_fit_their_schema_and_this_device(measured):
    assert check(CEILINGS, measured) is measured
    assert measured["dtype"] == "float32"
    assert measured["bandwidth_bytes_s"] > 0 and measured["peak_flops_s"] > 0
    reply = speed_of_light(CUBIC, "jnp.ones((100, 100))", gradient=False)
    assert reply["device"] == measured["device"]
    assert reply["dtype"] == "float32"
    placed = roofline.place(reply, measured, None)
    assert placed["ceilings"]["device"] == reply["device"]
    assert placed["ceilings"]["ridge"] == measured["peak_flops_s"] / measured["bandwidth_bytes_s"]


# -- the memory timeline ---------------------------------------------------------------------------------------


def _reserved(function, args: tuple) -> int:
    """What XLA reserves for a call, from an independent compile's memory_analysis."""
    stats = jax.jit(function).lower(*args).compile().memory_analysis()
    return (stats.argument_size_in_bytes + stats.output_size_in_bytes + stats.temp_size_in_bytes
            - stats.alias_size_in_bytes)


def test_an_elementwise_functions_peak_is_all_xla_reserves():
    reply = speed_of_light(CUBIC, CUBIC_ARGS, gradient=False)
    assert reply["ok"] is True, reply
    memory = reply["memory"]
    stats = jax.jit(_f(CUBIC)).lower(*_args(CUBIC_ARGS)).compile().memory_analysis()
    assert memory["peak_bytes"] == (stats.argument_size_in_bytes + stats.output_size_in_bytes
                                    + stats.temp_size_in_bytes) == 2 * 2000 * 2000 * 4
    assert memory["explained"] == []
    assert reply["memory_unavailable"] is None


def _check_timeline(memory: dict, reserved: int) -> None:
    assert memory["peak_bytes"] + sum(piece["bytes"] for piece in memory["explained"]) == reserved, memory
    assert memory["peak_bytes"] < reserved  # this program has temporaries or late outputs: something to explain
    for piece in memory["explained"]:
        assert piece["bytes"] < 0 if piece["what"] == "constants" else piece["bytes"] > 0, piece
    at_peak = memory["at_peak"]
    assert at_peak
    sizes = [buffer["bytes"] for buffer in at_peak]
    assert sizes == sorted(sizes, reverse=True), at_peak
    assert sum(sizes) <= memory["peak_bytes"]
    made = [buffer for buffer in at_peak if buffer["kind"] in ("temporary", "output")]
    assert made, at_peak
    for buffer in made:  # what the user's code made carries its line
        assert buffer["line"] in MLP_LINES, buffer
    for buffer in at_peak:
        if buffer["kind"] == "argument":
            assert buffer["line"] is None, buffer
    # the series: its point of most bytes is the peak
    totals = [a + o + t for a, o, t in zip(memory["arguments"], memory["outputs"], memory["temporaries"], strict=True)]
    assert max(totals) == memory["peak_bytes"]
    assert len(memory["steps"]) == len(totals)


def test_a_programs_peak_and_what_it_leaves_unused_make_what_xla_reserves(mlp):
    _check_timeline(mlp["memory"], _reserved(_f(MLP), _args(MLP_ARGS)))


def test_the_gradients_peak_and_what_it_leaves_unused_make_what_xla_reserves(mlp):
    f = _f(MLP)
    gradient = mlp["gradient"]
    assert gradient["unavailable"] is None and gradient["checkpoint_calls"] == 0
    assert gradient["checkpointed"] is None  # no jax.checkpoint in the code: one program, shown once
    _check_timeline(gradient["plain"], _reserved(jax.grad(lambda *a: jnp.sum(f(*a))), _args(MLP_ARGS)))


# -- the gradient, with and without the code's jax.checkpoint calls --------------------------------------------


def test_checkpointing_a_scans_layers_lowers_the_gradients_peak_and_costs_flops(scan):
    gradient = scan["gradient"]
    assert gradient["unavailable"] is None
    assert gradient["checkpoint_calls"] >= 1
    plain, checkpointed = gradient["plain"], gradient["checkpointed"]
    assert checkpointed["peak_bytes"] < plain["peak_bytes"], (checkpointed["peak_bytes"], plain["peak_bytes"])
    assert checkpointed["flops"] > plain["flops"]  # the layers' forward pass again, in the backward one
    with_it, without = gradient["runs"]  # timed in turn, as the programs are: the same calls each
    assert with_it["runs"] == without["runs"] >= 3
    comparison = roofline.place(scan, None, None)["remat_comparison"]
    assert comparison["calls"] == with_it["runs"] and comparison["faster"] in (0, 1, None)


def test_a_function_without_checkpoint_has_only_the_plain_gradient():
    reply = speed_of_light(CUBIC, "jnp.ones((300, 300))", gradient=True)
    assert reply["ok"] is True, reply
    gradient = reply["gradient"]
    assert gradient["checkpoint_calls"] == 0 and gradient["checkpointed"] is None
    assert gradient["plain"] is not None and gradient["plain"]["peak_bytes"] > 0
    assert gradient["unavailable"] is None and gradient["runs"] is None  # nothing to compare: not timed


def test_without_gradient_there_is_no_gradient():
    reply = speed_of_light(CUBIC, "jnp.ones((300, 300))", gradient=False)
    assert reply["ok"] is True and reply["gradient"] is None


@pytest.mark.parametrize(("decorator", "calls"), [
    ("@jax.checkpoint", 1),
    ("@jax.remat", 1),
    ("@functools.partial(jax.checkpoint, policy=jax.checkpoint_policies.nothing_saveable)", 1),
    ("@checkpoint", 1),
], ids=["jax.checkpoint", "jax.remat", "partial with a policy", "from jax import checkpoint"])
def test_every_form_of_checkpoint_is_counted_and_disabled(decorator, calls):
    code = "import functools\nfrom jax import checkpoint\n" + LAYERS.format(decorator=decorator)
    reply = speed_of_light(code, LAYERS_ARGS, gradient=True)
    assert reply["ok"] is True, reply
    gradient = reply["gradient"]
    assert gradient["unavailable"] is None
    assert gradient["checkpoint_calls"] == calls
    plain, checkpointed = gradient["plain"], gradient["checkpointed"]
    assert checkpointed["peak_bytes"] < plain["peak_bytes"], (checkpointed["peak_bytes"], plain["peak_bytes"])
    assert checkpointed["flops"] > plain["flops"]


def test_a_checkpoint_called_in_a_loop_counts_each_call():
    code = LAYERS.format(decorator="").replace("x = layer(", "x = jax.checkpoint(layer)(")
    gradient = speed_of_light(code, LAYERS_ARGS, gradient=True)["gradient"]
    assert gradient["checkpoint_calls"] == 4
    assert gradient["checkpointed"]["peak_bytes"] < gradient["plain"]["peak_bytes"]


def test_jax_checkpoint_is_itself_again_after_the_job():
    import jax.ad_checkpoint

    originals = (jax.checkpoint, jax.remat, getattr(jax.ad_checkpoint, "remat", None))
    speed_of_light(SCAN, "jnp.ones((2, 16, 16)), jnp.ones((4, 16))", gradient=True)
    assert (jax.checkpoint, jax.remat, getattr(jax.ad_checkpoint, "remat", None)) == originals
    # also when the gradient fails while the code runs under the swapped names
    failing = ("def f(n):\n    g = jax.checkpoint(lambda v: v * 2.0)\n    return g(jnp.arange(3.0)) * n\n")
    reply = speed_of_light(failing, "3", gradient=True)
    assert reply["ok"] is True and reply["gradient"]["unavailable"], reply
    assert (jax.checkpoint, jax.remat, getattr(jax.ad_checkpoint, "remat", None)) == originals
    assert jax.checkpoint(lambda v: v)(1.0) == 1.0


def test_a_function_of_an_integer_has_no_gradient_and_says_why():
    reply = speed_of_light("def f(n):\n    return jnp.arange(10.0) * n\n", "3", gradient=True)
    assert reply["ok"] is True, reply
    gradient = reply["gradient"]
    assert gradient["plain"] is None and gradient["checkpointed"] is None
    why = gradient["unavailable"]
    assert "jax.grad" in why and "int32" in why, why
    assert "Traceback" not in why
    assert len(reply["programs"]) == 2 and reply["memory"] is not None  # the rest of the reply is there
    assert check(SPEED_OF_LIGHT, reply) is reply


# -- the kernel timeline ---------------------------------------------------------------------------------------


_ENTRY_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+) = .+? ([a-z][a-z0-9\-]*)\(.*?op_name=\"([^\"]*)\"")
_NO_KERNEL = {"parameter", "constant", "bitcast", "tuple", "get-tuple-element"}


def _entry_kernels(hlo: str) -> dict[str, str]:
    """The kernels of the optimised HLO's ENTRY computation, each with the JAX operation its metadata names."""
    entry = hlo[hlo.index("\nENTRY"):].split("\n}", 1)[0]
    found = {}
    for line in entry.splitlines()[1:]:
        match = _ENTRY_INSTRUCTION.match(line)
        if match and match.group(2) not in _NO_KERNEL:
            found[match.group(1)] = match.group(3).rsplit("/", 1)[-1]
    return found


def test_the_kernel_timeline_holds_the_kernels_xla_compiled():
    reply = speed_of_light(KERNELS, "jnp.ones((300, 300))", gradient=False)
    assert reply["ok"] is True, reply
    timeline = reply["kernels"]
    assert timeline["unavailable"] is None, timeline
    kernels = _entry_kernels(jax.jit(_f(KERNELS)).lower(jnp.ones((300, 300))).compile().as_text())
    assert len(kernels) >= 2, kernels
    events = timeline["events"]
    assert {event["name"] for event in events} == set(kernels)
    assert sorted(timeline["fusions"]) == sorted(kernels)
    assert timeline["calls"] >= 1 and timeline["left_out"] == 0
    assert {event["call"] for event in events} == set(range(timeline["calls"]))
    for call in range(timeline["calls"]):  # every call ran every kernel
        assert {event["name"] for event in events if event["call"] == call} == set(kernels), call
    assert all(event["duration_s"] > 0 for event in events), events
    starts = [event["start_s"] for event in events]
    assert starts[0] == 0 and starts == sorted(starts)
    for event in events:
        assert event["line"] == KERNELS_LINES[kernels[event["name"]]], (event, kernels)
        assert event["bytes"] > 0


# Functions whose every kernel XLA's own count covers: elementwise, dots (batched too), reductions, softmax.
COUNTED = {
    "elementwise": (CUBIC, "jnp.ones((300, 300))"),
    "dot and elementwise": (KERNELS, "jnp.ones((300, 300))"),
    "batched dot": ("def f(a, b):\n    return jnp.einsum('bij,bjk->bik', a, b)\n",
                    "jnp.ones((4, 32, 16)), jnp.ones((4, 16, 8))"),
    "reduction": ("def f(x):\n    return jnp.sum(x * x, axis=1)\n", "jnp.ones((300, 300))"),
    "softmax": ("def f(x):\n    return jax.nn.softmax(x, axis=-1)\n", "jnp.ones((64, 128))"),
    "comparison": ("def f(x):\n    return jnp.where(x > 0, x, -x) * 2\n", "jnp.ones((100,))"),
}


@pytest.mark.parametrize("name", COUNTED)
def test_each_kernels_flops_add_up_to_xlas_count_for_the_program(name, measured):
    code, args = COUNTED[name]
    reply = speed_of_light(code, args, gradient=False)
    assert reply["ok"] is True, reply
    xla = jax.jit(_f(code)).lower(*_args(args)).compile().cost_analysis()["flops"]
    events = reply["kernels"]["events"]
    per_kernel = {event["name"]: event["flops"] for event in events}
    assert None not in per_kernel.values(), per_kernel
    assert sum(per_kernel.values()) == xla, (per_kernel, xla)
    # Each counted kernel with FLOPs is a point on the roofline, timed from its own events.
    placed = roofline.place(reply, measured, None)
    points = {kernel["label"]: kernel for kernel in placed["kernels"]}
    assert set(points) == {name for name, flops in per_kernel.items() if flops}
    for name, point in points.items():
        durations = [e["duration_s"] for e in events if e["name"] == name]
        assert min(durations) <= point["seconds"] <= max(durations)
        assert point["intensity"] == per_kernel[name] / next(e["bytes"] for e in events if e["name"] == name)


def test_a_kernel_the_count_does_not_cover_has_no_flops_and_no_point(measured):
    # reduce-window (a cumulative sum) is not among the operations counted: no number rather than a guess.
    reply = speed_of_light("def f(x):\n    return jnp.cumsum(x * 2.0)\n", "jnp.ones((1000,))", gradient=False)
    assert reply["ok"] is True, reply
    uncounted = [e for e in reply["kernels"]["events"] if e["flops"] is None]
    assert uncounted, reply["kernels"]["events"]
    placed = roofline.place(reply, measured, None)
    assert not {e["name"] for e in uncounted} & {k["label"] for k in placed["kernels"]}


# A loop whose every iteration is two kernels (a dot, a tanh): more of them than a timeline keeps, or, run longer,
# more than are traced at all.
LOOP = "def f(x, w):\n    return jax.lax.fori_loop(0, {iterations}, lambda i, v: jnp.tanh(v @ w), x)\n"
LOOP_ARGS = "jnp.ones((16, 16)), jnp.eye(16) * 0.5"


def test_a_quick_loops_trace_is_one_call_that_keeps_its_first_events_and_counts_the_rest():
    reply = speed_of_light(LOOP.format(iterations=3_000), LOOP_ARGS, gradient=False)
    assert reply["ok"] is True, reply
    timeline = reply["kernels"]
    assert timeline["unavailable"] is None, timeline  # a call takes milliseconds: traced
    assert timeline["calls"] == 1
    assert len(timeline["events"]) == kernel_timeline.MAX_EVENTS and timeline["left_out"] > 0, timeline["left_out"]


def test_a_long_loop_is_not_traced_and_says_why():
    reply = speed_of_light(LOOP.format(iterations=200_000), LOOP_ARGS, gradient=False)
    assert reply["ok"] is True, reply
    assert reply["programs"][0]["run"]["median_s"] > kernel_timeline.LOOP_TRACE_S
    timeline = reply["kernels"]
    assert timeline["events"] == [] and "runs a loop" in timeline["unavailable"], timeline


def test_a_loop_is_one_kernel_and_the_reply_says_its_cost_is_one_pass(scan):
    assert [p["loops"] for p in scan["programs"]][0] >= 1
    assert any("counts a loop's body once" in note for note in scan["notes"]), scan["notes"]


@pytest.mark.parametrize(("code", "args"), [(CUBIC, "jnp.ones((300, 300))"),
                                             (SCAN, "jnp.ones((2, 64, 64)), jnp.ones((32, 64))")],
                         ids=["without checkpoint", "with checkpoint"])
def test_the_job_leaves_nothing_in_the_owners_scratch_folder(tmp_path, code, args):
    # XLA's dumps and the profiler's trace (up to 32 MB) are read and removed as the owner makes them: its scratch
    # folder serves every job for the owner's life, and its room is for the next compile's dump.
    device, requests = recording_device(scratch=str(tmp_path))
    reply = speed_of_light_job.speed_of_light(code, args, device, gradient=True)
    assert reply["ok"] is True, reply
    assert reply["memory"] is not None and reply["gradient"]["plain"] is not None
    assert reply["kernels"]["unavailable"] is None and reply["kernels"]["events"]
    assert {"compile", "trace"} <= set(ops(requests))  # the dumps and the trace were the owner's
    assert [r["dump"] for r in requests if r["op"] == "compile"] == ["buffers", None] + ["buffers"] * (
        1 + (code == SCAN))  # as written, fusion off; the gradient (and its checkpointed version)
    assert sorted(path.name for path in tmp_path.iterdir()) == []


# -- the reply's schema, and errors ----------------------------------------------------------------------------


def test_the_replies_fit_their_schema(mlp, scan):
    for reply in (mlp, scan, speed_of_light(CUBIC, "jnp.ones((300, 300))", gradient=False)):
        assert check(SPEED_OF_LIGHT, reply) is reply


def test_shape_dtype_structs_are_refused_with_a_clear_message():
    reply = speed_of_light(CUBIC, "jax.ShapeDtypeStruct((2000, 2000), jnp.float32)", gradient=True)
    assert reply["ok"] is False
    assert reply["error"]["kind"] == "invalid_input"
    assert "ShapeDtypeStruct" in reply["error"]["message"] and "arrays" in reply["error"]["message"]


def test_a_host_callback_cannot_be_sent_to_the_device_and_says_why():
    printing = "def f(x):\n    jax.debug.print('x {}', x)\n    return x * 2\n"
    calling_back = "def f(x):\n    return jax.pure_callback(lambda v: v * 2, jax.ShapeDtypeStruct((3,), x.dtype), x)\n"
    for code in (printing, calling_back):
        reply = speed_of_light(code, "jnp.ones(3)", gradient=False)
        assert reply["ok"] is False and reply["error"]["kind"] == "invalid_input", reply
        assert "cannot be sent to the device" in reply["error"]["message"], reply
        assert "the Inspect tab runs them on the CPU" in reply["error"]["message"]


def test_the_owner_times_the_versions_in_turn_and_traces_the_one_as_written():
    device, requests = recording_device()
    reply = speed_of_light_job.speed_of_light(CUBIC, "jnp.ones((300, 300))", device, gradient=False)
    assert reply["ok"] is True, reply
    [timed] = [r for r in requests if r["op"] == "time_together"]
    assert "time_each" not in ops(requests)  # in turn: a machine busy for a while slows both alike
    assert reply["programs"][0]["run"]["runs"] == reply["programs"][1]["run"]["runs"]  # the same number of calls
    written, unfused = timed["calls"]
    assert unfused == {**written, "setting": "fusion: off"}  # one program, compiled twice
    [traced] = [r for r in requests if r["op"] == "trace"]
    assert traced["call"] == written and traced["calls"] == reply["kernels"]["calls"]
    assert [p["run"]["runs"] >= 3 for p in reply["programs"]] == [True, True]


def test_a_syntax_error_is_an_error_reply_at_its_line():
    reply = speed_of_light("def f(x):\n    return x * (2\n", "jnp.ones(3)", gradient=True)
    assert reply["ok"] is False
    assert reply["error"]["kind"] == "syntax" and reply["error"]["line"] == 2
    assert "SyntaxError" in reply["error"]["message"] and "Traceback" not in reply["error"]["message"]


def test_an_exception_in_the_function_is_an_error_reply():
    reply = speed_of_light("def f(x):\n    raise ValueError('no')\n", "jnp.ones(3)", gradient=True)
    assert reply["ok"] is False
    assert reply["error"]["kind"] == "user_exception" and reply["error"]["line"] == 2, reply



def test_a_trace_file_past_its_cap_or_behind_a_link_is_not_read(tmp_path):
    # The owner reads the profiler's trace (owner/profile.py): a file it did not make there is not followed.
    run = tmp_path / "plugins" / "profile" / "run"
    run.mkdir(parents=True)
    (run / "host.xplane.pb").write_bytes(b"\0" * (profile.MAX_TRACE_BYTES + 1))
    data, why = profile._read_trace(str(tmp_path))
    assert data is None and why.startswith("the trace is too large to read (34 MB, the limit is 34 MB)"), why
    (run / "host.xplane.pb").unlink()
    secret = tmp_path / "secret"
    secret.write_bytes(b"SECRET")
    (run / "host.xplane.pb").symlink_to(secret)
    data, why = profile._read_trace(str(tmp_path))
    assert data is None and "not a plain file" in why, why
    (run / "host.xplane.pb").unlink()
    (run / "host.xplane.pb").write_bytes(b"trace")
    assert profile._read_trace(str(tmp_path)) == (b"trace", None)


def test_a_program_the_device_cannot_compile_for_want_of_memory_is_the_users_memory_error():
    """A TPU's compiler refuses a program whose buffers exceed the chip's memory (RESOURCE_EXHAUSTED before
    anything runs): the owner's refusal comes back as the job's memory error, in the user's words, not as our bug."""
    device = local_device()
    ask = device._ask

    def compile_refused(request):
        if request["op"] == "compile":
            return {"error": "RESOURCE_EXHAUSTED: Ran out of memory on HBM, the total memory required for HLO "
                             "temporaries (32.00G) exceeds available HBM (15.75G).", "status": "RESOURCE_EXHAUSTED"}
        return ask(request)

    device._ask = compile_refused
    out = speed_of_light_job.speed_of_light("def f(x):\n    return x * 2\n", "jnp.ones(3)", device)
    assert out["ok"] is False and out["error"]["kind"] == "memory", out
    assert out["error"]["message"].startswith("Out of device memory: RESOURCE_EXHAUSTED: Ran out of memory on HBM")
