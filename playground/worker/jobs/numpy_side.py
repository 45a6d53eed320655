"""NumPy's side of the jit tab's benchmark (inside a worker): where it runs, and its check before it is timed.

NumPy's version of the user's function (numpy_stand_in.py) is timed only where it computes what jit does: its
result on the same input, the input unchanged, float32 of the input's shape (``result``, on the host alone), then
equal to jit's within the benchmark's tolerance at every element up to MAX_CHECKED, else at MAX_CHECKED spread
evenly over the array (``disagreement``, with jit's result fetched from the device at those positions).
"""

from __future__ import annotations

from concurrent.futures import Executor, Future, ThreadPoolExecutor

import numpy as np

from playground import device_ops
from playground.measure import numerics
from playground.worker.jobs.device import Device
from playground.worker.lessons import user_errors

MAX_CHECKED = device_ops.MAX_TAKE  # NumPy is compared with jit at every element up to this many, else at as many


def host_for(device: Device) -> Executor:
    """Where NumPy's work runs: a thread beside the device's work on an accelerator, in turn where the device is the
    host's CPU (jit_speed.py's docstring says why)."""
    return _InTurn() if device.about["platform"] == "cpu" else ThreadPoolExecutor(1, thread_name_prefix="numpy")


class _InTurn(Executor):
    """An executor that runs what it is given at once, on the caller's thread."""

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # handed on as it is: the caller's .result() raises it, as a thread's would
            future.set_exception(exc)
        return future


def result(as_numpy, x_host: np.ndarray) -> tuple[np.ndarray | None, str | None]:
    """NumPy's result on ``x_host`` where it is one to compare with jit's: (the result, None), or (None, why the
    NumPy version is left out)."""
    n = x_host.shape[0]
    x_copy = x_host.copy()
    try:
        by_numpy = as_numpy(x_copy)
    except Exception as exc:
        return None, (f"Your code does not run with jnp as NumPy (n={n}): "
                      f"{user_errors.error_result(exc)['error']['message']}")
    if not np.array_equal(x_copy, x_host, equal_nan=True):
        return None, ("With jnp as NumPy the function changes its input in place (JAX arrays are immutable), "
                      "so every timed run would see other numbers.")
    if not isinstance(by_numpy, np.ndarray):
        return None, f"With jnp as NumPy the function returns a {type(by_numpy).__name__}, not a NumPy array."
    if by_numpy.dtype != np.float32 or by_numpy.shape != (n, n):
        return None, (f"With jnp as NumPy the function gives {by_numpy.dtype} of shape {by_numpy.shape}, JAX float32 "
                      f"of shape {(n, n)}: timing them side by side would not compare like with like.")
    return by_numpy, None


def disagreement(by_numpy: np.ndarray, device: Device, by_jit: int, rtol: float, atol: float) -> str | None:
    """None where NumPy's result agrees with jit's (``by_jit`` on the device) at every element or MAX_CHECKED spread
    ones; else how they differ."""
    n = by_numpy.shape[0]
    positions = checked_positions(n)
    by_jit_there = device.fetch([by_jit], take=positions)[0]
    found = numerics.compare(by_numpy.reshape(-1)[positions], by_jit_there, rtol, atol)
    if found.equal:
        return None
    return f"With jnp as NumPy the function gives other results at n={n} ({difference(found)})."


def checked_positions(n: int) -> list[int]:
    """Every element's flat position up to MAX_CHECKED elements, else MAX_CHECKED spread evenly over the array.

    >>> len(checked_positions(10)), checked_positions(1000)[:3], checked_positions(1000)[-1]
    (100, [0, 15, 31], 999999)
    """
    if n * n <= MAX_CHECKED:
        return list(range(n * n))
    return np.linspace(0, n * n - 1, MAX_CHECKED).round().astype(np.int64).tolist()


def difference(found) -> str:
    largest = found["largest"] if isinstance(found, dict) else found.largest
    return f"largest difference {largest:.3g}" if largest is not None else "differences that are not finite"
