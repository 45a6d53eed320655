"""The jobs a worker knows how to run; the server sends {"kind": ..., ...}."""

from __future__ import annotations

import platform

import jax
import jax.numpy as jnp

from playground import derivatives, jit_benchmark, parallel, parallel_demos, staging, usercode, vectorize
from playground.errors import error_dict
from playground.sandbox.limits import Limits

DEFAULT_CODE = "def f(x):\n    return x + x*x + x*x*x\n"
DEFAULT_ARGS = "jnp.arange(4.0)"


def warm_up() -> None:
    """Start JAX's backend and compile once, so the user's job does not pay for it."""
    jax.jit(lambda x: x * 2 + 1)(jnp.arange(4.0)).block_until_ready()
    staging.inspect(DEFAULT_CODE, DEFAULT_ARGS, 1000)


# Each job kind: the keys it needs, and what runs it. The server fills them (api.py) after its checks.
_NEEDS = {
    "inspect": ("code", "args"),
    "derivatives": ("code", "order", "x_min", "x_max", "points"),
    "gradient": ("code", "point"),
    "vmap": ("code", "args", "in_axes", "out_axes", "batch_sizes"),
    "jit_speed": ("code", "sizes", "repeats"),
    "shard": ("code", "args", "mesh_shape", "axis_names", "in_specs", "out_specs"),
    "parallel_demos": (),
    "about": (),
}


def run(job: dict, limits: Limits) -> dict:
    """Dispatch on job["kind"]; the server has already checked the arguments' types and ranges."""
    kind = job.get("kind")
    if kind not in _NEEDS:
        return error_dict("invalid_input", f"unknown job kind {kind!r}")
    missing = [key for key in _NEEDS[kind] if key not in job]
    if missing:
        return error_dict("invalid_input", f"the {kind} job is missing {', '.join(missing)}")
    usercode.forbid_new_processes()
    usercode.CallbackFailures.install()
    return _with_limits(_dispatch(kind, job, limits), limits)


def _with_limits(result: dict, limits: Limits) -> dict:
    """A limit hit inside the job is named with its value (the handlers do not know the limits)."""
    error = result.get("error") if not result.get("ok") else None
    kind = error.get("kind") if error else None
    if kind == "tasks":
        error["message"] += f" (The limit is {limits.max_tasks:,} threads per job.)"
    elif kind == "memory":
        reserve = f" and reserve {limits.address_space_mb:,} MB of address space" if limits.address_space_mb else ""
        error["message"] += f" (A job may hold {limits.memory_mb:,} MB of memory{reserve}.)"
    return result


def _dispatch(kind: str, job: dict, limits: Limits) -> dict:
    if kind == "inspect":
        return staging.inspect(
            job["code"], job["args"], limits.output_chars, static_argnums=tuple(job.get("static_argnums", ())),
            second_args=job.get("second_args", ""), checks_budget_s=limits.timeout_s / 5)
    if kind == "derivatives":
        return derivatives.derivatives(job["code"], job["order"], job["x_min"], job["x_max"], job["points"])
    if kind == "gradient":
        return derivatives.gradient_and_hessian(job["code"], job["point"])
    if kind == "vmap":
        return vectorize.compare(job["code"], job["args"], job["in_axes"], job["out_axes"], job["batch_sizes"])
    if kind == "jit_speed":
        return jit_benchmark.jit_speed(job["code"], job["sizes"], job["repeats"], limits.memory_mb,
                                       budget_s=0.6 * limits.measure_timeout_s)
    if kind == "shard":
        return parallel.shard(job["code"], job["args"], job["mesh_shape"], job["axis_names"], job["in_specs"],
                              job["out_specs"])
    return run_parallel_demos() if kind == "parallel_demos" else about()


def run_parallel_demos() -> dict:
    """The Parallel tab's fixed demos, in one job (they share one warm worker's devices)."""
    parts = {"devices": parallel.devices(), "collectives": parallel_demos.collectives_demo(),
             "data_parallel": parallel_demos.data_parallel_step(),
             "pmap_vs_shard_map": parallel_demos.pmap_vs_shard_map()}
    failed = next((part for part in parts.values() if not part.get("ok")), None)
    return failed or {"ok": True, **parts}


def about() -> dict:
    devices = jax.devices()
    return {
        "ok": True,
        "python": platform.python_version(),
        "backend": jax.default_backend(),
        "devices": [f"{d.platform}:{d.id} {d.device_kind}" for d in devices],
    }
