"""The three ways a job calls its programs on the device: one program, eager JAX's dispatches, a Python loop.

- ``program``: one compiled call, as ``jax.jit(f)(x)`` makes.
- ``plan``: one compiled program per equation of a jaxpr, dispatched one after another, each waiting for
  nothing but its inputs: what eager JAX does (each primitive is compiled on first use and dispatched from
  Python in turn). The worker exports each equation as a program of its own, and the plan takes as long as
  true eager JAX does (docs/development.md's measurements).
- ``loop``: the per-example program called on each example of a batch, the outputs stacked, as
  ``jnp.stack([f(x) for x in xs])`` does (the vmap tab's Python loop).

Each returns the flat list of its outputs (and, for a loop, how many examples it reached). Nothing here runs
code of the user's: only programs the owner checked and compiled (programs.py), and our own jnp calls.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
from jax import lax

STACK_CHUNK = 128  # outputs stacked at a time: one stack of 10,000 arrays makes XLA compile a 10,000-operand op


class CallError(ValueError):
    """A call that does not fit its programs or buffers; the message says how."""


def run_program(executable: Callable, args: Sequence[jax.Array]) -> list[jax.Array]:
    return jax.tree.leaves(executable(*args))


def run_plan(executables: Sequence[Callable], steps: Sequence[tuple[int, Sequence[int]]], inputs: Sequence[jax.Array],
             result: Sequence[int]) -> list[jax.Array]:
    """Each step's program on the slots it names (the inputs, then every earlier step's outputs, in order)."""
    slots = list(inputs)
    for index, (program, reads) in enumerate(steps):
        try:
            arguments = [slots[slot] for slot in reads]
        except IndexError:
            raise CallError(f"step {index} of the plan reads a slot that is not filled yet") from None
        slots.extend(jax.tree.leaves(executables[program](*arguments)))
    try:
        return [slots[slot] for slot in result]
    except IndexError:
        raise CallError("the plan's result names a slot that no step fills") from None


def run_loop(executable: Callable, batch: Sequence[jax.Array], in_axes: Sequence[int | None],
             out_axes: Sequence[int | None], count: int, limit_s: float) -> tuple[list[jax.Array], int]:
    """The program on examples 0, 1, ... of ``batch`` (each leaf along its axis, None: shared), at least one and
    until ``count`` or ``limit_s`` seconds, outputs stacked along ``out_axes``; and how many examples it reached."""
    if len(in_axes) != len(batch):
        raise CallError(f"the loop has {len(batch)} batch arrays and {len(in_axes)} axes")
    deadline = time.perf_counter() + limit_s
    outputs = []
    for i in range(count):
        if i and time.perf_counter() > deadline:
            break
        one = [leaf if axis is None else lax.dynamic_index_in_dim(leaf, i, axis, keepdims=False)
               for leaf, axis in zip(batch, in_axes, strict=True)]
        outputs.append(jax.tree.leaves(executable(*one)))
    if len(out_axes) != len(outputs[0]):
        raise CallError(f"the program has {len(outputs[0])} outputs and the loop {len(out_axes)} output axes")
    return [column[0] if axis is None else stacked(column, axis)
            for column, axis in zip(zip(*outputs, strict=True), out_axes, strict=True)], len(outputs)


def stacked(leaves: Sequence[jax.Array], axis: int) -> jax.Array:
    """``jnp.stack(leaves, axis)``, in chunks of STACK_CHUNK."""
    if len(leaves) <= STACK_CHUNK:
        return jnp.stack(leaves, axis)
    parts = [jnp.stack(leaves[i:i + STACK_CHUNK], axis) for i in range(0, len(leaves), STACK_CHUNK)]
    while len(parts) > STACK_CHUNK:
        parts = [jnp.concatenate(parts[i:i + STACK_CHUNK], axis) for i in range(0, len(parts), STACK_CHUNK)]
    return jnp.concatenate(parts, axis)
