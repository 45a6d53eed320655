"""The Parallel tab's fixed demos: collectives under shard_map, a data-parallel MLP step, pmap vs shard_map.

Each demo's code is a source string that is run exactly as it is shown.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

from playground import mlp as model
from playground.errors import UserCodeError
from playground.ipc.limits import Limits
from playground.measure import numerics
from playground.worker.jobs.shard import (
    ATOL,
    RTOL,
    collectives_in,
    devices,
    make_mesh,
    placement,
)
from playground.worker.lessons import user_errors

LAYER_SIZES = (784, 64, 10)
EXAMPLES_PER_DEVICE = 8
LEARNING_RATE = 0.1


_MESH_LINE = "mesh = jax.make_mesh(({n},), ('data',), axis_types=(AxisType.Auto,))\n\n"
PSUM_SOURCE = _MESH_LINE + '''\
def block_sum(block):
    """Runs on each device with its own block of x; psum adds up the blocks of all devices on 'data'."""
    return jax.lax.psum(block, 'data')

psum_demo = jax.jit(jax.shard_map(block_sum, mesh=mesh, in_specs=P('data'), out_specs=P()))
result = psum_demo(x)
'''
ALL_GATHER_SOURCE = _MESH_LINE + '''\
def gather_blocks(block):
    """Every device receives every block; to='invarying' says all devices now hold the same array (so P())."""
    return jax.lax.all_gather(block, 'data', tiled=True, to='invarying')

all_gather_demo = jax.jit(jax.shard_map(gather_blocks, mesh=mesh, in_specs=P('data'), out_specs=P()))
result = all_gather_demo(x)
'''
PMAP_SOURCE = '''\
def normalise(block):
    """One device's block divided by the total over all devices."""
    return block / jax.lax.psum(jnp.sum(block), 'i')

rows = x.reshape({n}, -1)  # pmap maps over a leading axis: one row per device
pmap_result = jax.pmap(normalise, axis_name='i')(rows)
'''
SHARD_MAP_SOURCE = _MESH_LINE + '''\
def normalise(block):
    """One device's block divided by the total over all devices."""
    return block / jax.lax.psum(jnp.sum(block), 'data')

shard_map_result = jax.jit(jax.shard_map(normalise, mesh=mesh, in_specs=P('data'), out_specs=P('data')))(x)
'''
WHY_SHARD_MAP = ("jax.pmap is in maintenance mode and, since JAX 0.8, built on jax.shard_map; shard_map composes "
                 "with jit and shardings, works on multi-dimensional meshes and needs no leading device axis, so new "
                 "code should use it.")


def _exec_demo(source: str, x: jax.Array) -> dict:
    namespace = {"jax": jax, "jnp": jnp, "P": P, "AxisType": AxisType, "x": x}
    exec(compile(source, "<demo>", "exec"), namespace)  # noqa: S102 - our own constant source
    return namespace


def _demo_devices(mesh_shape: Any) -> int:
    if mesh_shape is None:
        return len(jax.devices())
    if not isinstance(mesh_shape, (list, tuple)) or len(mesh_shape) != 1:
        raise UserCodeError("invalid_input", f"The demos use a 1-D mesh on axis 'data': give one size such as [4]; "
                            f"got {mesh_shape!r}.")
    make_mesh(mesh_shape, ["data"])  # the checks, with their messages
    return mesh_shape[0]


def collectives_demo(mesh_shape: list[int] | None = None) -> dict:
    """``jax.shard_map`` with ``psum`` and with ``all_gather`` on ``x = arange(2n)``, split over n devices on 'data'.

    psum: each device ends with the sum of all blocks (``expected``: NumPy's sum
    of the blocks); all_gather: each device ends with all of x. Returns
    ``{"ok", "n_devices", "input", "psum": {"code", "result", "expected",
    "matches", "collectives", "hlo_lines"}, "all_gather": {...}}``.
    """
    try:
        n = _demo_devices(mesh_shape)
        x = jnp.arange(2.0 * n)
        blocks = np.asarray(x).reshape(n, -1)
        report: dict = {"ok": True, "n_devices": n, "input": np.asarray(x).tolist()}
        for key, source, expected in (("psum", PSUM_SOURCE, blocks.sum(axis=0)),
                                      ("all_gather", ALL_GATHER_SOURCE, blocks.reshape(-1))):
            code = source.format(n=n)
            namespace = _exec_demo(code, x)
            result = np.asarray(namespace["result"])
            names, lines = collectives_in(namespace[f"{key}_demo"].lower(x).compile().as_text())
            report[key] = {"code": code, "result": result.tolist(), "expected": expected.tolist(),
                           "matches": bool(np.array_equal(result, expected)), "collectives": names, "hlo_lines": lines}
    except Exception as exc:
        return user_errors.error_result(exc)
    return report


def pmap_vs_shard_map() -> dict:
    """The same per-device function with ``jax.pmap`` (legacy) and ``jax.shard_map``; results compared bit for bit.

    Returns ``{"ok", "n_devices", "pmap_code", "shard_map_code", "pmap_result" (one row per device),
    "shard_map_result" (one flat array), "equal", "why"}``.
    """
    try:
        n = len(jax.devices())
        x = jnp.arange(1.0, 2.0 * n + 1)
        pmap_code, shard_map_code = PMAP_SOURCE.format(n=n), SHARD_MAP_SOURCE.format(n=n)
        by_pmap = np.asarray(_exec_demo(pmap_code, x)["pmap_result"])
        by_shard_map = np.asarray(_exec_demo(shard_map_code, x)["shard_map_result"])
    except Exception as exc:
        return user_errors.error_result(exc)
    return {"ok": True, "n_devices": n, "pmap_code": pmap_code, "shard_map_code": shard_map_code,
            "pmap_result": by_pmap.tolist(), "shard_map_result": by_shard_map.tolist(),
            "equal": bool(np.array_equal(by_pmap.reshape(-1), by_shard_map)), "why": WHY_SHARD_MAP}


def sgd_step(params: model.Params, images: jax.Array, labels: jax.Array) -> model.Params:
    """Params in, params out: one step of plain SGD on the Train tab's MLP (playground/mlp.py)."""
    grads = jax.grad(model.loss)(params, images, labels)
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)


def data_parallel_step() -> dict:
    """One SGD step with the batch split over all devices on 'data' and the params replicated (``P()``).

    Each device computes the gradient of its slice of the batch; the mean over
    the batch needs every slice, so XLA adds an all-reduce that sums them. The
    new params are checked against the same step jitted on one device.
    Returns ``{"ok", "n_devices", "layer_sizes", "batch_size", "batch_placement",
    "params_placement", "collectives", "hlo_collective_lines",
    "matches_single_device", "max_abs_diff", "loss_before", "loss_after"}``.
    """
    try:
        n = len(jax.devices())
        mesh = make_mesh([n], ["data"])
        params = model.init_params(jax.random.key(0), LAYER_SIZES)
        size = EXAMPLES_PER_DEVICE * n
        batch = (jax.random.uniform(jax.random.key(1), (size, LAYER_SIZES[0])),
                 jax.random.randint(jax.random.key(2), (size,), 0, LAYER_SIZES[-1]))
        replicated, split = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))
        params_on_mesh, batch_on_mesh = jax.device_put(params, replicated), jax.device_put(batch, split)
        step = jax.jit(sgd_step, in_shardings=(replicated, split, split), out_shardings=replicated)
        compiled = step.lower(params_on_mesh, *batch_on_mesh).compile()
        new_params = compiled(params_on_mesh, *batch_on_mesh)
        same, diff = numerics.tree_difference(new_params, jax.jit(sgd_step)(params, *batch), RTOL, ATOL)
        names, lines = collectives_in(compiled.as_text())
        single_loss = jax.jit(model.loss)
        before, after = single_loss(params, *batch), single_loss(jax.device_get(new_params), *batch)
    except Exception as exc:
        return user_errors.error_result(exc)
    return {"ok": True, "n_devices": n, "layer_sizes": list(LAYER_SIZES), "batch_size": size,
            "batch_placement": placement(batch_on_mesh[0]), "params_placement": placement(params_on_mesh[0][0]),
            "collectives": names, "hlo_collective_lines": lines, "matches_single_device": same,
            "max_abs_diff": diff, "loss_before": float(before), "loss_after": float(after)}


def demos_job(limits: Limits) -> dict:
    """The registry's "parallel_demos" job: the Parallel tab's fixed demos in one job (one warm worker's devices)."""
    parts = {"devices": devices(), "collectives": collectives_demo(), "data_parallel": data_parallel_step(),
             "pmap_vs_shard_map": pmap_vs_shard_map()}
    failed = next((part for part in parts.values() if not part.get("ok")), None)
    return failed or {"ok": True, **parts}
