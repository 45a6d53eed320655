"""The device owner as a job's worker reaches it: each method one request, through the server, answered in turn.

The worker runs the user's code on the CPU and never opens the device. What must run there it lowers with
``jax.export`` for the owner's platform (``export``), and asks the owner to load, compile, run, time and
compare it (playground/device_ops.py lists the ops; playground/owner/session.py serves them). Arrays stay on the
device between requests, named by ids; only what a job reports comes back (a timing, a few values, an
optimised HLO text).

The owner refuses what it cannot run: a program that fails its checks, a compile that fails, memory the device
does not have. That comes back as ``DeviceRefused``, whose ``kind`` is the job's error kind (``memory`` for
XLA's RESOURCE_EXHAUSTED) and whose words are XLA's or the owner's.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from playground import device_ops
from playground.errors import UserCodeError
from playground.measure.timing import Timing

_KINDS = {"RESOURCE_EXHAUSTED": "memory"}
_EXPORTS = {"gpu": "cuda"}  # jax.devices()' name for a platform -> jax.export's


class DeviceRefused(UserCodeError):
    """The owner could not do what was asked; ``kind`` is the job's error kind. A job that catches the user's
    errors reports it as one of theirs (their program was too large, or called out of the device)."""


@dataclass(frozen=True)
class Program:
    """A program the owner has loaded: its id there, and its inputs' and outputs' shapes and dtypes."""

    id: int
    inputs: tuple[tuple[tuple[int, ...], str], ...]
    outputs: tuple[tuple[tuple[int, ...], str], ...]

    def call(self, args: Sequence[int]) -> dict:
        """A call of this program on the owner's arrays ``args`` (device_ops.py's ``call``)."""
        return {"program": self.id, "args": list(args)}


class Device:
    def __init__(self, ask: Callable[[object], object] | None) -> None:
        self._ask = ask
        self._about: dict | None = None

    # -- what it is -------------------------------------------------------------------------------------------

    @property
    def about(self) -> dict:
        """``{"platform", "label", "kind", "devices", "memory_bytes"}``, asked once."""
        if self._about is None:
            self._about = self.request("about")
        return self._about

    @property
    def platform(self) -> str:
        return self.about["platform"]

    @property
    def label(self) -> str:
        """What the pages print: ``"cpu"``, ``"tpu: TPU v5 lite"``."""
        return self.about["label"]

    # -- programs ---------------------------------------------------------------------------------------------

    def export(self, function: Callable, *specs: object) -> Program:
        """``function`` (jitted here if it is not) lowered for the device with ``jax.export``, and loaded."""
        jitted = function if hasattr(function, "lower") else jax.jit(function)
        platform = _EXPORTS.get(self.platform, self.platform)
        try:
            exported = jax.export.export(jitted, platforms=(platform,))(*specs)
        except NotImplementedError as exc:  # jax.export's refusals of what cannot leave this process
            raise UserCodeError("invalid_input", _not_exportable(exc)) from None
        return self.load(exported.serialize())

    def load(self, serialized: bytes) -> Program:
        answer = self.request("load", program=base64.b64encode(serialized).decode())
        return Program(answer["program"], *(tuple((tuple(shape), dtype) for shape, dtype in answer[side])
                                            for side in ("inputs", "outputs")))

    def compile(self, program: Program | int, setting: str | None = None, dump: str | None = None,
                hlo: bool = True) -> dict:
        """``{"compile_s", "kept", "module", "hlo", "cost", "memory", "dump"}`` (owner/compiled.py, owner/dumps.py)
        of a loaded program (or its id)."""
        index = program.id if isinstance(program, Program) else program
        return self.request("compile", program=index, setting=setting, dump=dump, hlo=hlo)

    # -- arrays -----------------------------------------------------------------------------------------------

    def put(self, arrays: Sequence[object]) -> list[int]:
        """Host arrays onto the device; their ids there. Each request carries at most device_ops.MAX_PUT_BYTES; a
        larger array goes in parts (``upload``, ``append``), unless every element is one value (a fill)."""
        ids: list[int | None] = [None] * len(arrays)
        batch: list[tuple[int, dict]] = []
        carried = 0
        for i, array in enumerate(map(np.asarray, arrays)):
            if array.nbytes > device_ops.MAX_PUT_BYTES and not device_ops.is_uniform(array):
                ids[i] = self._upload(array)
                continue
            encoded = device_ops.encode_array(array)
            size = len(encoded.get("data", ""))
            if carried + size > device_ops.MAX_PUT_BYTES and batch:
                self._put_batch(batch, ids)
                batch, carried = [], 0
            batch.append((i, encoded))
            carried += size
        if batch:
            self._put_batch(batch, ids)
        return ids

    def _put_batch(self, batch: list[tuple[int, dict]], ids: list[int | None]) -> None:
        for (i, _), buffer in zip(batch, self.request("put", arrays=[e for _, e in batch])["buffers"], strict=True):
            ids[i] = buffer

    def _upload(self, array: np.ndarray) -> int:
        upload = self.request("upload", dtype=device_ops.dtype_name(array.dtype), shape=list(array.shape))["upload"]
        for part in device_ops.parts(array):
            answer = self.request("append", upload=upload, data=part)
        return answer["buffers"][0]

    def random(self, shape: tuple[int, ...], dtype: object, seed: int) -> int:
        """device_ops.uniform's array, made in the owner (the worker makes the same one for NumPy)."""
        wanted = {"shape": list(shape), "dtype": np.dtype(dtype).name, "seed": seed}
        return self.request("random", arrays=[wanted])["buffers"][0]

    def batch(self, example: Sequence[int], axes: Sequence[int | None], size: int) -> list[int]:
        return self.request("batch", example=list(example), axes=list(axes), size=size)["buffers"]

    def fetch(self, buffers: Sequence[int], take: Sequence[int] | None = None) -> list[np.ndarray]:
        answer = self.request("fetch", buffers=list(buffers), take=None if take is None else [int(i) for i in take])
        return [device_ops.decode_array(a, device_ops.MAX_FETCH_BYTES) for a in answer["arrays"]]

    def free(self, buffers: Sequence[int]) -> None:
        self.request("free", buffers=list(buffers))

    # -- running ----------------------------------------------------------------------------------------------

    def run(self, call: dict) -> tuple[list[int], int | None]:
        """Run ``call`` once, keeping its outputs on the device: their ids, and a loop's examples reached."""
        answer = self.request("call", call=call)
        return answer["buffers"], answer["done"]

    def compare(self, a: Sequence[int], b: Sequence[int], rtol: float | None = None, atol: float | None = None,
                rounding: float | None = None, first: tuple[Sequence[int | None], int] | None = None) -> dict:
        """measure/numerics.py's Comparison of two lists of arrays, as a dict: within ``rtol``/``atol``, or within
        the ``rounding`` a program's order of operations explains; ``first``: (axes, count), only the first
        ``count`` examples of each of ``a`` along its axis."""
        how = {"rounding": rounding} if rounding is not None else {"rtol": rtol, "atol": atol}
        if first is not None:
            how["first"] = {"axes": list(first[0]), "count": first[1]}
        return self.request("compare", a=list(a), b=list(b), **how)

    def time(self, call: dict, **options: float) -> Timing:
        """measure/timing.py's ``measure`` of ``call`` in the owner (``min_total_s``, ``min_runs``, ...)."""
        return Timing(**_timing(self.request("time", call=call, **options)))

    def time_each(self, calls: Sequence[dict], **options: float) -> list[Timing]:
        return [Timing(**_timing(t)) for t in self.request("time_each", calls=list(calls), **options)["timings"]]

    def time_together(self, calls: Sequence[dict], budget_s: float, limit_s: float) -> list[Timing]:
        """measure/timing.py's ``measure_together``: the calls timed in turn, for versions compared in one job."""
        answer = self.request("time_together", calls=list(calls), budget_s=budget_s, limit_s=limit_s)
        return [Timing(**_timing(t)) for t in answer["timings"]]

    def trace(self, call: dict, calls: int, module: str) -> dict:
        return self.request("trace", call=call, calls=calls, module=module)

    def ceilings(self, dtype: str, again: int = 0) -> dict:
        return self.request("ceilings", dtype=dtype, again=again)

    def request(self, op: str, **fields: object) -> dict:
        if self._ask is None:
            raise DeviceRefused("internal", "this job has no way to the device")
        answer = self._ask({"op": op, **fields})
        if not isinstance(answer, dict):
            raise DeviceRefused("internal", "the server's answer is not a dict")
        if "error" in answer:
            status = answer.get("status")
            kind = _KINDS.get(status, "internal" if answer.get("internal") else "invalid_input")
            prefix = "Out of device memory: " if kind == "memory" else "The device could not run this: "
            raise DeviceRefused(kind, prefix + str(answer["error"]))
        return answer


def exported_call(device: Device, function: Callable, arguments: tuple, static: Sequence[int] = ()) -> dict:
    """``function(*arguments)`` on the device: the function, of the arguments' array leaves (``static`` positions
    stay Python values, baked in), exported and loaded, and the leaves put there; the ``call`` to run it. Where a
    leaf is a ``jax.ShapeDtypeStruct`` there is nothing to put: the call names only the program, to compile."""
    dynamic = [i for i in range(len(arguments)) if i not in static]
    leaves, tree = jax.tree.flatten(tuple(arguments[i] for i in dynamic))
    wired, impls = wire_leaves(leaves)

    def of_leaves(*given):
        full = list(arguments)
        for i, value in zip(dynamic, jax.tree.unflatten(tree, given), strict=True):
            full[i] = value
        return function(*full)

    of_leaves.__name__ = getattr(function, "__name__", "f")

    program = device.export(keyed(of_leaves, impls), *map(spec_of, wired))
    if any(isinstance(leaf, jax.ShapeDtypeStruct) for leaf in wired):
        return {"program": program.id}
    return program.call(device.put(wired))


def spec_of(leaf: jax.Array) -> jax.ShapeDtypeStruct:
    """Its shape and dtype, weak where JAX made it so (a Python number: ``x * 2.0`` keeps x's dtype)."""
    return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, weak_type=getattr(leaf, "weak_type", False))


def wire_leaves(leaves: Sequence[object]) -> tuple[list[object], list[object]]:
    """Leaves as they travel to the device, as JAX arrays (a Python number or a NumPy array made one as jit would:
    float64 to float32 unless x64 is on), a typed PRNG key as its bits (``jax.random.key_data``, uint32), with its
    implementation (else None) so that ``keyed`` can make it a key again inside a program. A
    ``jax.ShapeDtypeStruct`` stays one (a key's, the shape of its bits)."""
    impls = [key_impl(leaf.dtype) if is_key(leaf) else None for leaf in leaves]
    return [_wired(leaf, impl is not None) for leaf, impl in zip(leaves, impls, strict=True)], impls


def _wired(leaf: object, key: bool) -> object:
    if isinstance(leaf, jax.ShapeDtypeStruct):
        return jax.eval_shape(jax.random.key_data, leaf) if key else leaf
    return jax.random.key_data(leaf) if key else jnp.asarray(leaf)


def keyed(function: Callable, impls: Sequence[object]) -> Callable:
    """``function`` of the leaves as ``wire_leaves`` sends them: key bits made keys again, key outputs sent back as
    bits (the owner's arrays are plain ones)."""
    def on_the_wire(*args):
        leaves = [jax.random.wrap_key_data(a, impl=impl) if impl else a for a, impl in zip(args, impls, strict=True)]
        return [jax.random.key_data(out) if is_key(out) else out for out in jax.tree.leaves(function(*leaves))]
    on_the_wire.__name__ = getattr(function, "__name__", "f")  # the program's name on the device, and its HLO's
    return on_the_wire


def is_key(leaf: object) -> bool:
    """A typed PRNG key (an array, a tracer, a shape), whose dtype is ``key<impl>``."""
    dtype = getattr(leaf, "dtype", None)
    return dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)


def key_impl(dtype: object) -> object:
    """The PRNG implementation of a key dtype, for ``jax.random.wrap_key_data`` where there is no key array to ask
    (``jax.random.key_impl`` takes one): the dtype's own, which JAX keeps as ``_impl``."""
    return dtype._impl


def _timing(found: dict) -> dict:
    return {**{key: found[key] for key in ("min_s", "median_s", "q1_s", "q3_s", "runs")},
            "faults_per_call": found.get("faults_per_call"), "others_busy": found.get("others_busy")}


def _not_exportable(exc: Exception) -> str:
    return (f"Your function cannot be sent to the device: {exc}. The device runs only pure XLA programs, so "
            "host callbacks (jax.debug.print, jax.pure_callback, io_callback) cannot run there; remove them here "
            "(the Inspect tab runs them on the CPU).")
