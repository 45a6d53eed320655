"""The Pallas job: the user's kernel run in TPU interpret mode on this CPU, its grid mapped, and its result
checked against the user's plain-``jnp`` reference. Runs inside a worker.

The code defines a kernel, the function that calls it with ``pl.pallas_call``
(named ``f``, else the last top-level def that is neither ``reference`` nor a
kernel, whose parameters all end in ``_ref``), and ``reference``: the same
computation in plain ``jnp``. The job traces ``f`` and maps each
``pallas_call``'s grid (pallas_grid.py: the block of every operand each program
instance touches, and what is wrong with them). A grid that maps to a block
outside its array or writes an output block again after others is reported
with its map and not run (``ran`` False): interpret mode would stop at it, and a
TPU's pipeline cannot run it. Otherwise the job runs ``f`` in JAX's TPU
interpret mode: the kernel's body for each grid point in turn, on the CPU, with
a TPU's semantics and JAX's own checks (a read outside a block raises, every
block's index is checked, uninitialised memory is NaN, races between cores are
looked for). ``reference`` runs jitted, as XLA compiles it. The two results must
have the same shapes and dtypes, and agree within what rounding explains for the
same computation summed in another order (``numerics.compare_within_rounding``,
with the terms of the reference's sums counted by ``rounding.rounding_budget``:
a tiled matmul adds its blocks' products one after the other).

>>> code = '''
... def add_kernel(x_ref, y_ref, o_ref):
...     o_ref[...] = x_ref[...] + y_ref[...]
... def f(x, y):
...     spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
...     return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
...                           in_specs=[spec, spec], out_specs=spec)(x, y)
... def reference(x, y):
...     return x + y
... '''
>>> out = run_kernel("from jax.experimental import pallas as pl" + code, "jnp.ones((16, 128)), jnp.ones((16, 128))")
>>> out["function"], out["matches"], out["max_error"], out["calls"][0]["grid"], out["findings"]
('f', True, 0.0, [2], [])
"""

from __future__ import annotations

import contextlib
import time

import jax
import numpy as np
from jax.experimental.pallas import tpu as pltpu

from playground import messages, user_ast
from playground.errors import UserCodeError
from playground.ipc.limits import Limits
from playground.measure import numerics
from playground.worker.functions import call_signature, usercode
from playground.worker.jobs import inspect, pallas_grid, rounding

REFERENCE = "reference"
MAX_TEXT_CHARS = 200_000
# Grid mistakes that interpret mode stops at (an out-of-bounds block index, an output block revisited), and a TPU's
# pipeline cannot run: found in the grid's map, they are reported with the picture, and the kernel is not run.
REFUSED = frozenset({"outside", "revisited"})
NOT_RUN = {"result": [], "matches": False, "max_error": None, "tolerance": 0.0, "nans": 0, "findings": []}
INTERPRET = pltpu.InterpretParams(detect_races=True, out_of_bounds_reads="raise", uninitialized_memory="nan")


def pallas_job(limits: Limits, code: str, args: str) -> dict:
    """The registry's "pallas" job."""
    return run_kernel(code, args)


def run_kernel(code: str, args: str) -> dict:
    """Success: ``{"ok", "function", "reference", "mode", "ran", "calls", "grid_unreadable", "result", "expected",
    "matches", "max_error", "tolerance", "nans", "findings", "interpret_s", "reference_s", "stdout"}``; else an
    error dict, with a lesson where one teaches the mistake."""
    stdout = usercode.CappedText(MAX_TEXT_CHARS)
    try:
        with contextlib.redirect_stdout(stdout):
            program = usercode.load(code)
            name = kernel_caller(user_ast.parse(code))
            function, reference = program.namespace.get(name), program.namespace.get(REFERENCE)
            if not callable(function):
                raise UserCodeError.saying("invalid_input", messages.piece("pallas.no_call", function=name))
            if not callable(reference):
                raise UserCodeError.saying("invalid_input", messages.piece("pallas.no_reference", function=name))
            if not args.strip():
                raise UserCodeError("invalid_input", f"The arguments (`args`) are empty: give the arguments of "
                                    f"`{name}`, e.g. jnp.ones((8, 128)), or a tuple for several.")
            arguments = usercode.evaluate_args(args, program.namespace)
            for called, callee in ((function, name), (reference, REFERENCE)):
                call_signature.check_call(called, callee, arguments, f"the arguments (`args`, {len(arguments)} "
                                          f"value{'s' * (len(arguments) != 1)})")
            jaxpr = jax.make_jaxpr(function)(*arguments)
            if not pallas_grid.pallas_equations(jaxpr):
                raise UserCodeError.saying("invalid_input", messages.piece("pallas.no_call", function=name))
            try:
                calls, unreadable = pallas_grid.read_calls(jaxpr), None
            except pallas_grid.GridUnreadable as exc:
                calls, unreadable = [], str(exc)
            findings = [finding for call in calls for finding in call["findings"]]
            runs = not any(finding["kind"] in REFUSED for finding in findings)
            result, interpret_s = None, 0.0
            if runs:
                started = time.perf_counter()
                with pltpu.force_tpu_interpret_mode(INTERPRET):
                    result = jax.block_until_ready(function(*arguments))
                interpret_s = time.perf_counter() - started
            started = time.perf_counter()
            traced = jax.jit(reference).trace(*arguments)
            expected = jax.block_until_ready(traced.lower().compile()(*arguments))
            reference_s = time.perf_counter() - started
            budget = rounding.rounding_budget(traced.jaxpr)
    except Exception as exc:
        return inspect.explained_error(exc, code)
    compared = compare(result, expected, budget.relative) if runs else {**NOT_RUN, "expected": leaves(expected)}
    findings += compared.pop("findings")
    return {"ok": True, "function": name, "reference": REFERENCE, "mode": "interpret", "ran": runs, "calls": calls,
            "grid_unreadable": unreadable, **compared, "findings": findings, "interpret_s": interpret_s,
            "reference_s": reference_s, "stdout": stdout.getvalue()}


def kernel_caller(tree) -> str:
    """The function that calls the kernel: ``f``, else the last top-level def that is not ``reference`` and not a
    kernel (a def whose parameters all end in ``_ref``).

    >>> kernel_caller(user_ast.parse("def k(x_ref, o_ref): pass\\ndef run(x): pass\\ndef reference(x): pass"))
    'run'
    """
    names = [name for name, node in user_ast.top_level_functions(tree)
             if name != REFERENCE and not _is_kernel(node)]
    if "f" in names or not names:
        return "f"
    return names[-1]


def _is_kernel(node) -> bool:
    parameters = [arg.arg for arg in (*node.args.posonlyargs, *node.args.args)]
    return bool(parameters) and all(parameter.endswith("_ref") for parameter in parameters)


def compare(result, expected, program_rounding: float = 0.0) -> dict:
    """The kernel's result against the reference's: ``result`` and ``expected`` (each leaf's shape and dtype),
    ``matches`` (within the rounding of ``program_rounding``, the reference's relative rounding), ``max_error``
    (None where the shapes differ or a difference is not finite), ``tolerance`` (the deciding leaf's), ``nans``
    (NaNs in the result where the reference has none: interpret mode fills memory no instance wrote with NaN) and
    ``findings``.

    >>> import jax.numpy as jnp
    >>> compare(jnp.ones(3), jnp.ones(3) * (1 + 2**-23))["matches"], compare(jnp.ones(3), jnp.ones(4))["findings"]
    (True, [{'kind': 'out_shape', 'role': 'output', 'index': 0}])
    """
    described = {"result": leaves(result), "expected": leaves(expected)}
    if described["result"] != described["expected"]:
        return {**described, "matches": False, "max_error": None, "tolerance": 0.0, "nans": 0,
                "findings": [{"kind": "out_shape", "role": "output", "index": 0}]}
    verdict = numerics.compare_within_rounding(result, expected, program_rounding)
    nans = sum(int((np.isnan(a) & ~np.isnan(b)).sum()) for a, b in
               zip(map(np.asarray, jax.tree.leaves(result)), map(np.asarray, jax.tree.leaves(expected)), strict=True)
               if np.issubdtype(b.dtype, np.inexact))
    return {**described, "matches": verdict.equal, "max_error": verdict.largest, "tolerance": verdict.tolerance or 0.0,
            "nans": nans, "findings": [] if verdict.equal else [{"kind": "mismatch", "role": "output", "index": 0}]}


def leaves(tree) -> list[dict]:
    """Each leaf's shape and dtype."""
    return [{"shape": [int(size) for size in np.shape(leaf)], "dtype": str(np.asarray(leaf).dtype)}
            for leaf in jax.tree.leaves(tree)]
