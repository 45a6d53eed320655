"""One job's work on the device: the programs it loaded, the arrays it placed, and the ops on them.

The server opens a session for a job whose worker asks for the device, relays each request (playground/
device_ops.py lists the ops and their answers), and closes it when the job ends, which frees everything the
session holds. A request names programs and arrays by the ids this session gave them. Whatever a request asks,
the owner runs only programs that passed programs.py and its own code; a request that does not fit (an unknown
id, a call of the wrong arity, too much data) gets ``{"error": why}``, as does a program the compiler or the
device refuses, with XLA's words.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass

import jax
import numpy as np

from playground import device_ops
from playground.measure import numerics, timing
from playground.owner import batches, calls, device_about, dumps, profile, programs
from playground.owner.compiled import CompiledCache
from playground.owner.request_checks import Problem, compiler_setting, timing_options, whole

MAX_PROGRAMS = 20_000
MAX_BUFFERS = 100_000


@dataclass
class _Upload:
    """An array arriving in parts (device_ops.py's ``upload`` and ``append``)."""

    data: np.ndarray  # its bytes
    dtype: np.dtype
    shape: list[int]
    filled: int = 0


class Session:
    def __init__(self, device: jax.Device, scratch: str, compiled: CompiledCache,
                 ceilings: Callable[[str], dict], memory_mb: int) -> None:
        """``memory_mb``: the owner's memory limit, which is the device's memory where it has no statistics of its
        own (a CPU)."""
        self._device = device
        self._memory_mb = memory_mb
        self._platform = device.platform
        self._devices = len(jax.devices())
        self._scratch = scratch
        self._compiled = compiled
        self._measured_ceilings = ceilings
        self._programs: list[tuple[str, object]] = []  # (sha256 of the artifact, the checked program)
        self._buffers: dict[int, jax.Array] = {}
        self._uploads: list[_Upload | None] = []
        self._next_buffer = 0

    def handle(self, request: dict) -> dict:
        """The answer to one request (a dict; ``{"error": why}`` when it cannot be served)."""
        problem = device_ops.problem(request)
        if problem:
            return {"error": problem}
        try:
            # 64-bit on: a program exported with float64 (the Compiler's "x64: on") keeps its types; the ops' own
            # arrays all have explicit dtypes.
            with jax.default_device(self._device), jax.enable_x64(True):
                return getattr(self, f"_{request['op']}")(request)
        except (Problem, programs.Refused, calls.CallError, device_ops.BadArray) as exc:
            return {"error": str(exc)}
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            return {"error": f"the request does not fit its op ({type(exc).__name__}: {str(exc)[:300]})"}
        except jax.errors.JaxRuntimeError as exc:  # XLA's refusal (out of memory, a failed compile): its words
            return {"error": str(exc)[:4000], "status": getattr(exc, "error_code_string", None) or "UNKNOWN"}

    def close(self) -> None:
        self._buffers.clear()
        self._programs.clear()
        self._uploads.clear()

    # -- the ops ------------------------------------------------------------------------------------------------

    def _about(self, request: dict) -> dict:
        return device_about.about(self._device, self._memory_mb)

    def _load(self, request: dict) -> dict:
        if len(self._programs) >= MAX_PROGRAMS:
            raise Problem(f"a job may load at most {MAX_PROGRAMS:,} programs")
        try:
            serialized = base64.b64decode(request["program"], validate=True)
        except (binascii.Error, ValueError, TypeError):
            raise Problem("a program travels as base64") from None
        program = programs.checked(serialized, self._platform, self._devices)
        self._programs.append((hashlib.sha256(serialized).hexdigest(), program))
        return {"program": len(self._programs) - 1, "inputs": [_spec(a) for a in program.in_avals],
                "outputs": [_spec(a) for a in program.out_avals]}

    def _compile(self, request: dict) -> dict:
        index = whole(request["program"], len(self._programs), "program")
        setting = compiler_setting(request.get("setting"))
        digest, program = self._programs[index]
        dump = request.get("dump")
        if dump is None:
            entry = self._compiled.get(digest, setting, program)
            return {**entry.report(request.get("hlo", True)), "dump": None}
        with dumps.folder(self._scratch) as folder:
            entry = self._compiled.compile_fresh(program, setting, dumps.options(folder, dump))
            self._compiled.keep(digest, setting, entry)  # the dump changes no code: later calls use this compile
            return {**entry.report(request.get("hlo", True)), "dump": dumps.read(folder, dump, entry.module)}

    def _put(self, request: dict) -> dict:
        decoded, carried = [], 0
        for value in request["arrays"]:
            array = device_ops.decode_array(value, device_ops.MAX_PUT_BYTES - carried)
            carried += 0 if "fill" in value else array.nbytes  # a fill carries one element, whatever it makes
            decoded.append(array)
        return {"buffers": [self._keep(jax.device_put(array)) for array in decoded]}

    def _upload(self, request: dict) -> dict:
        dtype, shape = device_ops.checked_spec(request["dtype"], request["shape"])
        size = math.prod(shape) * dtype.itemsize
        if size > device_ops.MAX_ARRAY_BYTES:
            raise Problem(f"an array of {size:,} bytes is more than the device takes ({device_ops.MAX_ARRAY_BYTES:,})")
        self._uploads.append(_Upload(np.empty(size, np.uint8), dtype, shape))
        return {"upload": len(self._uploads) - 1}

    def _append(self, request: dict) -> dict:
        index = whole(request["upload"], len(self._uploads), "upload")
        upload = self._uploads[index]
        if upload is None:
            raise Problem("that upload is complete")
        raw = device_ops.part_bytes(request["data"])
        if upload.filled + len(raw) > upload.data.size:
            raise Problem(f"the upload holds {upload.data.size:,} bytes; this part would pass that")
        upload.data[upload.filled:upload.filled + len(raw)] = np.frombuffer(raw, np.uint8)
        upload.filled += len(raw)
        if upload.filled < upload.data.size:
            return {"filled": upload.filled}
        self._uploads[index] = None
        return {"buffers": [self._keep(jax.device_put(upload.data.view(upload.dtype).reshape(upload.shape)))]}

    def _random(self, request: dict) -> dict:
        made = []
        for wanted in request["arrays"]:
            shape, dtype = tuple(wanted["shape"]), np.dtype(wanted["dtype"])
            if not np.issubdtype(dtype, np.floating) or len(shape) > device_ops.MAX_DIMS:
                raise Problem("random arrays are floats of a few dimensions")
            seed = whole(wanted["seed"], 1 << 32, "seed")
            made.append(self._keep(jax.device_put(device_ops.uniform(shape, dtype, seed))))
        return {"buffers": made}

    def _batch(self, request: dict) -> dict:
        example = [np.asarray(self._buffer(i)) for i in request["example"]]
        size = whole(request["size"], device_ops.MAX_LOOP + 1, "size")
        return {"buffers": [self._keep(leaf) for leaf in batches.batch(example, request["axes"], max(size, 1))]}

    def _call(self, request: dict) -> dict:
        outputs, done = self._run(request["call"])
        jax.block_until_ready(outputs)
        return {"buffers": [self._keep(out) for out in outputs], "outputs": [_spec(out) for out in outputs],
                "done": done}

    def _fetch(self, request: dict) -> dict:
        wanted = [self._buffer(i) for i in request["buffers"]]
        take = request.get("take")
        if take is not None:
            if len(wanted) != 1 or not isinstance(take, list) or len(take) > device_ops.MAX_TAKE:
                raise Problem(f"take picks at most {device_ops.MAX_TAKE:,} positions of one array")
            flat = np.asarray(wanted[0]).reshape(-1)
            return {"arrays": [device_ops.encode_array(flat[np.asarray(take, dtype=np.int64)])]}
        size = sum(array.nbytes for array in wanted)
        if size > device_ops.MAX_FETCH_BYTES:
            raise Problem(f"{size:,} bytes are more than a fetch returns ({device_ops.MAX_FETCH_BYTES:,})")
        return {"arrays": [device_ops.encode_array(np.asarray(array)) for array in wanted]}

    def _compare(self, request: dict) -> dict:
        a = [np.asarray(self._buffer(i)) for i in request["a"]]
        b = [np.asarray(self._buffer(i)) for i in request["b"]]
        first = request.get("first")
        if first is not None:  # the first ``count`` examples of each of ``a``, along its axis (a loop stopped early)
            count = whole(first["count"], device_ops.MAX_LOOP + 1, "count")
            a = [x if axis is None else np.take(x, np.arange(count), axis=axis)
                 for x, axis in zip(a, first["axes"], strict=True)]
        if "rounding" in request:
            found = numerics.compare_within_rounding(a, b, float(request["rounding"]))
        else:
            found = numerics.compare(a, b, float(request["rtol"]), float(request["atol"]))
        return {"equal": found.equal, "largest": found.largest, "where": found.where, "reason": found.reason,
                "differing": found.differing, "elements": found.elements, "tolerance": found.tolerance,
                "scale": found.scale}

    def _time(self, request: dict) -> dict:
        call = self._callable(request["call"])
        found = timing.measure(call, **timing_options(request))
        return {**found.to_dict(), "faults_per_call": found.faults_per_call, "others_busy": found.others_busy}

    def _time_each(self, request: dict) -> dict:
        runs = [self._callable(c) for c in request["calls"]]
        options = timing_options(request)
        return {"timings": [timing.measure(run, **options).to_dict() for run in runs]}

    def _time_together(self, request: dict) -> dict:
        runs = [self._callable(c) for c in request["calls"]]
        found = timing.measure_together(runs, min(float(request["budget_s"]), 30.0), float(request["limit_s"]))
        return {"timings": [t.to_dict() for t in found]}

    def _trace(self, request: dict) -> dict:
        call = self._callable(request["call"])
        count = whole(request["calls"], 11, "calls")
        return profile.trace(call, max(count, 1), str(request["module"])[:300], self._scratch)

    def _ceilings(self, request: dict) -> dict:
        return self._measured_ceilings(str(request["dtype"]), whole(request.get("again", 0), 100, "again"))

    def _free(self, request: dict) -> dict:
        for i in request["buffers"]:
            self._buffers.pop(i, None)
        return {}

    # -- what the ops share ---------------------------------------------------------------------------------------

    def _run(self, call: dict) -> tuple[list[jax.Array], int | None]:
        if "loop" in call:
            loop = call["loop"]
            count = whole(loop["count"], device_ops.MAX_LOOP + 1, "count")
            return calls.run_loop(self._executable(loop["program"]), [self._buffer(i) for i in loop["batch"]],
                                  loop["in_axes"], loop["out_axes"], max(count, 1), float(loop["limit_s"]))
        return self._callable(call)(), None

    def _callable(self, call: dict) -> Callable[[], list[jax.Array]]:
        """A call ready to run again and again (the buffers and executables looked up once, outside any clock)."""
        if "program" in call:
            executable = self._executable(call["program"], call.get("setting"))
            args = [self._buffer(i) for i in call["args"]]
            return lambda: calls.run_program(executable, args)
        if "plan" in call:
            plan = call["plan"]
            if len(plan["steps"]) > device_ops.MAX_PLAN_STEPS:
                raise Problem(f"a plan has at most {device_ops.MAX_PLAN_STEPS:,} steps")
            used = sorted({int(step[0]) for step in plan["steps"]})
            executables = {index: self._executable(index) for index in used}
            steps = [(int(program), [int(s) for s in reads]) for program, reads in plan["steps"]]
            inputs = [self._buffer(i) for i in plan["inputs"]]
            return lambda: calls.run_plan(executables, steps, inputs, plan["result"])
        if "loop" in call:
            return lambda: self._run(call)[0]
        raise Problem("a call is a program, a plan or a loop")

    def _executable(self, index: object, setting: object = None) -> Callable:
        """Program ``index`` compiled (under ``setting``, a name of compiler_settings.py with XLA options)."""
        setting = compiler_setting(setting)
        digest, program = self._programs[whole(index, len(self._programs), "program")]
        return self._compiled.get(digest, setting, program).executable

    def _buffer(self, index: object) -> jax.Array:
        try:
            return self._buffers[index]
        except (KeyError, TypeError):
            raise Problem(f"there is no array {str(index)[:20]} in this job") from None

    def _keep(self, array: jax.Array) -> int:
        if len(self._buffers) >= MAX_BUFFERS:
            raise Problem(f"a job may hold at most {MAX_BUFFERS:,} arrays on the device")
        self._next_buffer += 1
        self._buffers[self._next_buffer] = array
        return self._next_buffer


def _spec(value) -> list:
    return device_ops.spec(tuple(value.shape), value.dtype)
