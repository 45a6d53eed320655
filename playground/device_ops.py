"""What a job's worker may ask of the device owner, and how arrays travel: the one description both sides read.

A job that measures on the device (jit, vmap, Speed of light, the Compiler's and Inspect's "on the accelerator")
runs the user's code in a sandboxed CPU worker, which lowers what must run on the device with ``jax.export`` and
asks the owner, through the server, to load, compile, run and time it (playground/owner/session.py runs the ops,
playground/worker/jobs/device.py asks them). Each request is ``{"op": name, ...}``; the server relays it only when
``problem(request)`` finds nothing wrong with its form, and the owner checks everything again.

The ops (ids are small integers the owner hands out within one job's session):

- ``about``: the device: ``{"platform", "label", "kind", "devices", "memory_bytes"}``.
- ``load {program: base64}``: a serialised ``jax.export`` artifact, checked (owner/programs.py);
  ``{"program": id, "inputs": [spec], "outputs": [spec]}``.
- ``compile {program, setting, dump, hlo}``: compiled (under a setting of compiler_settings.py, by name;
  ``dump``: None, "passes", "key_passes" or "buffers": owner/dumps.py); ``{"compile_s", "kept", "module", "hlo",
  "cost", "memory", "dump"}``.
- ``put {arrays: [array]}``: arrays onto the device; ``{"buffers": [id]}``. An array larger than one request
  carries goes in parts: ``upload {dtype, shape}`` (``{"upload": id}``), then ``append {upload, data}`` until its
  bytes are all there (the last answers ``{"buffers": [id]}``).
- ``random {arrays: [{shape, dtype, seed}]}``: uniform arrays in [-1, 1) made on the host with NumPy from the
  seed (the worker can make the same ones); ``{"buffers": [id]}``.
- ``batch {example: [id], axes: [axis or None], size}``: a batch of ``size`` variants of one example (the vmap
  tab's rule, owner/batches.py); ``{"buffers": [id]}``.
- ``call {call}``: run once, keep the outputs; ``{"buffers": [id], "outputs": [spec], "done": examples}``.
- ``fetch {buffers, take}``: arrays back (``take``: flat positions of one array only); ``{"arrays": [array]}``.
- ``compare {a, b, rtol, atol}`` or ``{a, b, rounding}``: two lists of buffers, leaf by leaf (measure/numerics.py).
- ``time {call, min_total_s, min_runs, max_runs, max_total_s, warmup}``: measure/timing.py's Timing.
- ``time_each {calls, ...}``: each call timed on its own, one after the other.
- ``time_together {calls, budget_s, limit_s}``: the calls timed in turn (A, B, A, B, ...).
- ``trace {call, calls, module}``: the events of ``module``'s instructions in a ``jax.profiler`` trace.
- ``ceilings {dtype}``: the device's measured bandwidth and matmul FLOP/s (owner/ceilings.py).
- ``free {buffers}``.

A ``call`` is ``{"program": id, "args": [buffer id]}``; ``{"plan": {"inputs": [id], "steps": [[program, [slot]]],
"result": [slot]}}``, programs run one after another as eager JAX dispatches a jaxpr's equations (slots: the
inputs, then each step's outputs in order); or ``{"loop": {"program", "batch": [id], "in_axes", "out_axes",
"count", "limit_s"}}``, the per-example program called on each example of a batch in a Python loop, the outputs
stacked (``done``: the examples it reached before ``limit_s``).

An array is ``{"dtype", "shape", "data": base64 of its bytes in C order}``, or, when every element is the same
(``jnp.ones``, ``jnp.zeros``: most examples' inputs), ``{"dtype", "shape", "fill": base64 of one element}``; a spec
``[shape, dtype]``.
NumPy and the standard library only: the server reads this module too.
"""

from __future__ import annotations

import base64
import binascii
import math

import numpy as np

OPS = ("about", "load", "compile", "put", "upload", "append", "random", "batch", "call", "fetch", "compare", "time",
       "time_each", "time_together", "trace", "ceilings", "free")
DUMPS = (None, "passes", "key_passes", "buffers")
MAX_PUT_BYTES = 10 << 20  # arrays one request may carry (base64 makes them a third larger, in a 16 MB message)
MAX_ARRAY_BYTES = 4 << 30  # one array sent to the device, in parts or as a fill
MAX_FETCH_BYTES = 10 << 20
MAX_TAKE = 1 << 16
MAX_PLAN_STEPS = 20_000
MAX_LOOP = 100_000
MAX_DIMS = 32
# JAX's own dtypes that NumPy lacks come from ml_dtypes, JAX's dtypes package; float0 is JAX's tangent of an integer.
ML_DTYPES = ("bfloat16", "int2", "int4", "uint2", "uint4", "float4_e2m1fn", "float8_e3m4", "float8_e4m3",
             "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
             "float8_e8m0fnu")
FLOAT0 = np.dtype([("float0", np.void, 0)])
DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64", "complex64", "complex128", "float0", *ML_DTYPES)


class BadArray(ValueError):
    """An array on the wire that does not say what it holds."""


def encode_array(array: np.ndarray) -> dict:
    """``array`` for the wire (C order, native little-endian bytes), or as its one value when it holds only one."""
    array = np.asarray(array, order="C")  # a scalar stays one (np.ascontiguousarray would make it 1-D)
    shape = {"dtype": dtype_name(array.dtype), "shape": list(array.shape)}
    if is_uniform(array):
        return {**shape, "fill": base64.b64encode(array.reshape(-1)[:1].tobytes()).decode()}
    return {**shape, "data": base64.b64encode(array.tobytes()).decode()}


def decode_array(value: object, most: int = MAX_PUT_BYTES) -> np.ndarray:
    """The array ``encode_array`` made, checked: a known dtype, a shape of whole numbers, as many bytes as both say
    (at most ``most``; a fill, at most MAX_ARRAY_BYTES once made)."""
    if not isinstance(value, dict) or set(value) not in ({"dtype", "shape", "data"}, {"dtype", "shape", "fill"}):
        raise BadArray("an array is {dtype, shape, data} or {dtype, shape, fill}")
    dtype, shape = checked_spec(value["dtype"], value["shape"])
    size = math.prod(shape) * dtype.itemsize
    encoded = value.get("data", value.get("fill"))
    if size > (MAX_ARRAY_BYTES if "fill" in value else most) or not isinstance(encoded, str) or \
            len(encoded) > 4 * (most // 3 + 1):
        raise BadArray(f"an array of {size:,} bytes is more than {most:,}")
    raw = _bytes(encoded)
    if dtype.itemsize == 0:  # float0: a shape with no bytes
        return np.zeros(shape, dtype)
    if "fill" in value:
        if len(raw) != dtype.itemsize:
            raise BadArray(f"a fill of dtype {dtype.name} is {dtype.itemsize} bytes, not {len(raw)}")
        return np.full(shape, np.frombuffer(raw, dtype=dtype)[0], dtype=dtype)
    if len(raw) != size:
        raise BadArray(f"an array of shape {shape} and dtype {dtype.name} holds {size:,} bytes, not {len(raw):,}")
    return np.frombuffer(raw, dtype=dtype).reshape(shape)


def checked_spec(dtype: object, shape: object) -> tuple[np.dtype, list[int]]:
    """A dtype that can travel and a shape of whole numbers; else BadArray."""
    if dtype not in DTYPES:
        raise BadArray(f"dtype {str(dtype)[:40]!r} cannot travel to the device")
    if not isinstance(shape, list) or len(shape) > MAX_DIMS or not all(
            type(d) is int and 0 <= d <= 1 << 40 for d in shape):
        raise BadArray("a shape is a list of whole numbers")
    return _dtype(dtype), shape


def parts(array: np.ndarray) -> list[str]:
    """``array``'s bytes in pieces of at most MAX_PUT_BYTES, as base64, for ``append``."""
    raw, most = np.asarray(array, order="C").tobytes(), MAX_PUT_BYTES
    return [base64.b64encode(raw[i:i + most]).decode() for i in range(0, max(len(raw), 1), most)]


def part_bytes(encoded: object) -> bytes:
    """One ``append``'s bytes (at most MAX_PUT_BYTES)."""
    if not isinstance(encoded, str) or len(encoded) > 4 * (MAX_PUT_BYTES // 3 + 1):
        raise BadArray(f"a part carries at most {MAX_PUT_BYTES:,} bytes")
    return _bytes(encoded)


def _bytes(encoded: str) -> bytes:
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise BadArray("an array's bytes are not base64") from None


def is_uniform(array: np.ndarray) -> bool:
    """More than one element, each of the same bits (so NaN is one value, and -0.0 is not 0.0).

    >>> is_uniform(np.ones((2, 3))), is_uniform(np.float32([0.0, -0.0])), is_uniform(np.ones(1))
    (True, False, False)
    """
    if array.size < 2 or array.dtype.itemsize == 0:
        return False
    flat = array.reshape(-1).view(np.uint8).reshape(array.size, -1)
    return bool((flat == flat[0]).all())


def uniform(shape: tuple[int, ...], dtype: object, seed: int) -> np.ndarray:
    """Values in [-1, 1) from ``np.random.default_rng(seed)``, made in place (no float64 copy): the jit tab's input,
    made alike by the worker (for NumPy) and the owner (for the device).

    >>> x = uniform((2, 3), np.float32, 0); x.dtype.name, bool((x >= -1).all() and (x < 1).all())
    ('float32', True)
    """
    dtype = np.dtype(dtype)
    x = np.random.default_rng(seed).random(shape, dtype=np.float32 if dtype.itemsize <= 4 else np.float64)
    x *= 2
    x -= 1
    return x.astype(dtype, copy=False)


def spec(shape: tuple[int, ...], dtype: object) -> list:
    return [list(shape), dtype_name(np.dtype(dtype))]


def dtype_name(dtype: np.dtype) -> str:
    """The name a dtype travels by (NumPy calls float0 "void").

    >>> dtype_name(np.dtype(np.float32)), dtype_name(FLOAT0)
    ('float32', 'float0')
    """
    return "float0" if dtype == FLOAT0 else dtype.name


def problem(request: object) -> str | None:
    """What is wrong with the form of a worker's request, or None: the server relays only well-formed ones."""
    if not isinstance(request, dict):
        return "a device request is a JSON object"
    if request.get("op") not in OPS:
        return f"there is no device op {str(request.get('op'))[:40]!r}"
    if request["op"] == "compile" and request.get("dump") not in DUMPS:
        return "a compile's dump is one of passes, key_passes, buffers or none"
    return None


def _dtype(name: str) -> np.dtype:
    if name in ML_DTYPES:
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, name))
    return FLOAT0 if name == "float0" else np.dtype(name)
