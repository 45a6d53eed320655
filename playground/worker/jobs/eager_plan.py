"""Eager JAX on the device: one program per equation of the function's jaxpr, dispatched one after another.

Eager JAX runs a function's primitives one at a time: each is compiled on first
use and dispatched from Python, its result waiting on the device for the next.
The device owner runs no Python of the user's, so the worker sends that run as
a plan: each equation of ``jax.make_jaxpr(f)`` exported as a program of its own
(an equation that calls a jitted function, as most of ``jnp`` does, is one
program, as it is one dispatch), and which slots each reads; the owner
dispatches them in turn (owner/calls.py). Equal equations (``x * x`` twice)
share one program. The function's constants, and outputs that are constants,
travel as arrays.

The slots: the jaxpr's constants, its inputs, its constant outputs, then each equation's outputs in order.

>>> steps, result = plan_steps(jax.make_jaxpr(lambda x: x + x * x + x * x * x)(jnp.ones(3)))
>>> [(eqn.primitive.name, reads) for eqn, reads in steps], result
([('mul', [0, 0]), ('add', [0, 1]), ('mul', [0, 0]), ('mul', [3, 0]), ('add', [2, 4])], [5])
"""

from __future__ import annotations

from collections.abc import Callable

import jax
from jax.extend import core

from playground.worker.jobs.device import Device, is_key, key_impl


def plan(device: Device, function: Callable, specs: list[jax.ShapeDtypeStruct], inputs: list[int]) -> dict:
    """A ``plan`` call (device_ops.py) of ``function`` on the owner's arrays ``inputs`` (one per spec)."""
    # A wrapper of its own, so that JAX's trace cache gives it a trace of its own: a function impure at trace time
    # (a random draw baked in) then differs from the jitted program it is checked against, as eager JAX would.
    closed = jax.make_jaxpr(lambda *args: function(*args))(*specs)
    steps, result = plan_steps(closed)
    consts = device.put(closed.consts) if closed.consts else []
    literals = [out.val for out in closed.jaxpr.outvars if isinstance(out, core.Literal)]
    exported: dict[tuple, int] = {}
    wired = []
    for eqn, reads in steps:
        key = _key(eqn)
        if key not in exported:
            exported[key] = device.export(_one_equation(eqn), *map(_wire_spec, _inputs(eqn))).id
        wired.append([exported[key], reads])
    slots = [*consts, *inputs, *(device.put(literals) if literals else [])]
    return {"plan": {"inputs": slots, "steps": wired, "result": result}}


def plan_steps(closed: core.ClosedJaxpr) -> tuple[list[tuple[core.JaxprEqn, list[int]]], list[int]]:
    """Each equation with the slots it reads, and the slots of the function's outputs (see above)."""
    jaxpr = closed.jaxpr
    slot: dict[object, int] = {v: i for i, v in enumerate([*jaxpr.constvars, *jaxpr.invars])}
    constant_outputs = [out for out in jaxpr.outvars if isinstance(out, core.Literal)]
    first_constant = len(slot)
    next_slot = first_constant + len(constant_outputs)
    steps = []
    for eqn in jaxpr.eqns:
        steps.append((eqn, [slot[v] for v in _inputs(eqn)]))
        for out in eqn.outvars:  # a dropped output (_) takes its slot too: the program returns it
            slot[out] = next_slot
            next_slot += 1
    constants = iter(range(first_constant, first_constant + len(constant_outputs)))
    return steps, [next(constants) if isinstance(v, core.Literal) else slot[v] for v in jaxpr.outvars]


def _inputs(eqn: core.JaxprEqn) -> list[core.Var]:
    return [v for v in eqn.invars if not isinstance(v, core.Literal)]


def _key(eqn: core.JaxprEqn) -> tuple:
    """What makes two equations the same program: the primitive, its parameters, its inputs' types, its literals."""
    return (eqn.primitive.name, str(eqn.params), tuple(str(v.aval) for v in eqn.invars),
            tuple(repr(v.val) if isinstance(v, core.Literal) else None for v in eqn.invars))


def _one_equation(eqn: core.JaxprEqn) -> Callable:
    """A function of the equation's variable inputs that applies its primitive, literals filled in, as
    ``jax.core.eval_jaxpr`` does. A typed PRNG key travels as its bits (the owner's arrays are plain ones): made a
    key again inside, sent back as bits."""
    def one(*args):
        given = iter(args)
        values = [v.val if isinstance(v, core.Literal) else _unwired(next(given), v.aval) for v in eqn.invars]
        with eqn.ctx.manager:  # the equation's context (its compute type, its thread resources)
            out = eqn.primitive.bind(*values, **eqn.primitive.get_bind_params(eqn.params))
        outs = list(out) if eqn.primitive.multiple_results else [out]
        return [jax.random.key_data(o) if is_key(o.aval) else o for o in outs]
    return one


def _wire_spec(v: core.Var) -> jax.ShapeDtypeStruct:
    if is_key(v.aval):  # its bits: the key's shape and the implementation's own trailing dimensions
        bits = jax.eval_shape(jax.random.key_data, jax.ShapeDtypeStruct(v.aval.shape, v.aval.dtype))
        return jax.ShapeDtypeStruct(bits.shape, bits.dtype)
    return jax.ShapeDtypeStruct(v.aval.shape, v.aval.dtype)


def _unwired(value, aval):
    return jax.random.wrap_key_data(value, impl=key_impl(aval.dtype)) if is_key(aval) else value
