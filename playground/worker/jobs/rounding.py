"""How much floating-point rounding a JAX function can do, read from its jaxpr. Runs in a worker.

The same function run on one device and sharded over several computes the same
sums in different orders (each device adds its block, then the blocks are
added), so float results differ by rounding, and by more the more terms each
sum has. This counts, for ``numerics.compare_within_rounding``, the terms a
result element can pass through: each reduction adds as many terms as it
reduces (``dot_general``: the contracted size; ``reduce_sum``: the reduced
axes; convolutions: the kernel's size per output feature; cumulative sums, FFTs
and triangular solves: their length), every other floating-point operation one,
except those that only move or pick numbers (``EXACT``: reshapes, slices, max).

What was chosen, and what it misses:

* Terms add up over the whole program (a chain ``x @ w1 @ w2`` rounds in both
  products), counted once per equation, with a ``scan`` body times its length.
  A ``while`` body is counted once: its trip count is not in the jaxpr.
* Rounding errors add like independent random signs, so the budget grows with
  the square root of the terms, weighted by each operation's own dtype:
  ``relative = sqrt(sum of terms * eps(dtype) ** 2)``. A float32 sum of 100
  terms gets ``10 * 2**-23``.
* Reductions inside a ``jax.shard_map`` count their per-device block; both runs
  execute the same shard_map program, so its order does not change.
* A float32 matrix product (``dot_general``, a convolution) at the default
  precision rounds its operands on an accelerator: to TensorFloat-32 (10
  mantissa bits) on a GPU, to bfloat16 (7) on a TPU (``FAST_MATMUL_EPS``).
  One example's product and a batch's may take different kernels there (a
  matrix-vector product on the CUDA cores, a batched one on the tensor
  cores), so its terms count with that epsilon where the job runs on such a
  device (``platform``, as ``jax.Device.platform`` names it), unless the
  product or ``jax.default_matmul_precision`` asks for ``highest``
  (``float32``). ``high`` is taken as the default: a looser budget, never a
  false alarm.

The size of the numbers those roundings act on is not always the size of the
result: ``tanh(x @ w)`` and ``softmax`` squash large sums into small results,
where an error in the sum still shows. ``input_sensitivity`` measures it: how
far the result moves when every floating-point input moves by its own size in
a random direction (one ``jax.jvp``). Rounding a sum is, to first order, such a
relative change of its inputs. A result that is itself rounding noise (sums
that cancel to about zero) moves with no input and is still reported as
differing.

>>> budget = rounding_budget(jax.make_jaxpr(lambda a, b: jnp.tanh(a @ b))(jnp.ones((2, 100)), jnp.ones((100, 3))))
>>> budget.terms, round(budget.relative / float(jnp.finfo(jnp.float32).eps), 2)
(101, 10.05)
"""

from __future__ import annotations

import contextlib
import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend.core import ClosedJaxpr, Jaxpr, JaxprEqn, jaxprs_in_params


@dataclass(frozen=True)
class RoundingBudget:
    terms: int  # terms of all the reductions, and one per other floating-point operation
    relative: float  # sqrt(sum of terms * eps(dtype) ** 2): the relative rounding they can add


def _contracted(eqn: JaxprEqn) -> int:
    (contracting, _), _ = eqn.params["dimension_numbers"]
    return math.prod(eqn.invars[0].aval.shape[d] for d in contracting)


def _reduced(eqn: JaxprEqn) -> int:
    return math.prod(eqn.invars[0].aval.shape[a] for a in eqn.params["axes"])


def _along_axis(eqn: JaxprEqn) -> int:
    return eqn.invars[0].aval.shape[eqn.params["axis"]]


def _kernel(eqn: JaxprEqn) -> int:
    kernel = eqn.invars[1].aval.shape
    return math.prod(kernel) // max(1, kernel[eqn.params["dimension_numbers"].rhs_spec[0]])


REDUCTIONS: dict[str, Callable[[JaxprEqn], int]] = {
    "dot_general": _contracted,
    "reduce_sum": _reduced,
    "reduce_prod": _reduced,
    "cumsum": _along_axis,
    "cumprod": _along_axis,
    "cumlogsumexp": _along_axis,
    "reduce_window_sum": lambda eqn: math.prod(eqn.params["window_dimensions"]),
    "conv_general_dilated": _kernel,
    "fft": lambda eqn: math.prod(eqn.params["fft_lengths"]),
    "triangular_solve": lambda eqn: eqn.invars[0].aval.shape[-1],
    "cholesky": lambda eqn: eqn.invars[0].aval.shape[-1],
    "lu": lambda eqn: eqn.invars[0].aval.shape[-1],
}


# The relative rounding of a float32 product's operands at XLA's default precision, by platform (a CPU's is float32's):
# TensorFloat-32 keeps 10 mantissa bits, bfloat16 7.
FAST_MATMUL_EPS = {"gpu": 2.0 ** -10, "tpu": 2.0 ** -7}
MATMULS = frozenset({"dot_general", "conv_general_dilated"})

# Operations whose float results are exact: they move, pick or negate numbers, never round them.
EXACT = frozenset({
    "abs", "broadcast_in_dim", "ceil", "clamp", "concatenate", "conj", "copy", "copy_p", "device_put",
    "dynamic_slice", "dynamic_update_slice", "expand_dims", "floor", "gather", "imag", "iota", "max", "min", "neg",
    "pad", "real", "reduce_max", "reduce_min", "reshape", "rev", "round", "select_n", "sharding_constraint", "sign",
    "slice", "sort", "squeeze", "stop_gradient", "transpose",
})


def rounding_budget(jaxpr: ClosedJaxpr | Jaxpr, platform: str = "cpu") -> RoundingBudget:
    """The terms the program's floating-point results pass through, and the relative rounding they allow on
    ``platform`` (where the program runs: "cpu", "gpu", "tpu")."""
    terms, squared = _walk(jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr, {}, platform)
    return RoundingBudget(terms, math.sqrt(squared))


def input_sensitivity(f: Callable, arguments: tuple) -> Any | None:
    """f's movement (a pytree like its result) when each float input x moves by ``|x| * (random signs)``.

    The signs come from a fixed seed, so the same job gives the same answer.
    None when no argument is a float, or when JAX cannot take f's forward
    derivative (a ``custom_vjp`` function, a callback). f's prints while traced
    for this are dropped: the job already showed them.
    """
    floats = [i for i, a in enumerate(arguments) if jax.dtypes.issubdtype(a.dtype, jnp.inexact)]
    if not floats:
        return None
    signs = np.random.default_rng(0)
    tangents = tuple((np.abs(np.asarray(arguments[i])) * (signs.integers(0, 2, np.shape(arguments[i])) * 2 - 1))
                     .astype(arguments[i].dtype) for i in floats)

    def movement(primals: tuple, directions: tuple) -> Any:
        def of_floats(*values):
            full = list(primals)
            for i, v in zip(floats, values, strict=True):
                full[i] = v
            return f(*full)
        return jax.jvp(of_floats, tuple(primals[i] for i in floats), directions)[1]

    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return jax.block_until_ready(jax.jit(movement)(arguments, tangents))
    except (TypeError, ValueError, NotImplementedError):  # what JAX raises for a jvp it has no rule for
        return None


def _walk(jaxpr: Jaxpr, seen: dict[int, tuple[int, float]], platform: str) -> tuple[int, float]:
    """(terms, sum of terms * eps ** 2); ``seen`` keeps each sub-jaxpr's count, so shared ones cost one walk."""
    if id(jaxpr) in seen:
        return seen[id(jaxpr)]
    terms, squared = 0, 0.0
    for eqn in jaxpr.eqns:
        inner = list(jaxprs_in_params(eqn.params))
        if inner:
            repeats = eqn.params.get("length", 1) if eqn.primitive.name == "scan" else 1
            for sub in inner:
                sub_terms, sub_squared = _walk(sub, seen, platform)
                terms, squared = terms + repeats * sub_terms, squared + repeats * sub_squared
            continue
        eps = 0.0 if eqn.primitive.name in EXACT else _eps(eqn, platform)
        if eps:
            count = max(1, REDUCTIONS[eqn.primitive.name](eqn)) if eqn.primitive.name in REDUCTIONS else 1
            terms, squared = terms + count, squared + count * eps * eps
    seen[id(jaxpr)] = (terms, squared)
    return terms, squared


def _eps(eqn: JaxprEqn, platform: str) -> float:
    """Machine epsilon of the equation's result (of its operands' rounding, for a float32 matrix product on an
    accelerator), 0.0 for exact ones (integers, booleans, keys)."""
    dtype = getattr(eqn.outvars[0].aval, "dtype", None) if eqn.outvars else None
    if dtype is None or not jax.dtypes.issubdtype(dtype, jnp.inexact):
        return 0.0
    eps = float(jnp.finfo(dtype).eps)
    if eqn.primitive.name in MATMULS and jnp.finfo(dtype).bits == 32 and not _full_precision(eqn):
        return max(eps, FAST_MATMUL_EPS.get(platform, eps))
    return eps


def _full_precision(eqn: JaxprEqn) -> bool:
    """The product asks for float32 arithmetic: ``precision=HIGHEST`` on an operand, or the default made so."""
    precision = eqn.params.get("precision")
    asked = {getattr(p, "name", str(p)).upper() for p in
             (precision if isinstance(precision, tuple) else (precision,)) if p is not None}
    return "HIGHEST" in asked or str(jax.config.jax_default_matmul_precision).lower() in ("highest", "float32")
