"""The public API: one plain function per endpoint, JSON-able arguments in, a dict out.

Every tab of the UI calls these, and so can ``gradio_client``, scripts and tests. ``PlaygroundAPI``'s endpoints:

- a method per public job, made from its declaration (playground/jobs/; answering/endpoints.py's ``job_method``,
  added by ``_with_job_methods``): inspect, passes, graph, compare, derivatives, gradient, vmap, jit_speed,
  speed_of_light, pallas, shard, parallel_demos (tests/test_api.py holds this list against the declarations);
- the server's own, written here: about; and in training_api.py: train, race, stop_training, predict, datasets.

Failures are dicts too: ``{"ok": False, "error": {"kind", "message", "line"}}``.
Text is English; a tracer error's ``words``, an argument check's (validation.py) and a run's
``message_words`` hold the same text as catalogue pieces (playground/messages), which
``messages.render`` writes in de or zh.
"""

from __future__ import annotations

import collections
import importlib.metadata
import logging
import platform
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from playground import jobs, matrix_memory, messages
from playground.server import worker_pools
from playground.server.answering.endpoints import job_method
from playground.server.answering.result_cache import ResultCache, app_version
from playground.server.answering.runner import JobRunner
from playground.server.compiler import graph_render
from playground.server.config import Settings
from playground.server.device_owner import starting
from playground.server.training.service import TrainingService
from playground.server.training_api import TrainingEndpoints

if TYPE_CHECKING:
    from playground.server.pools import JobPool

log = logging.getLogger(__name__)
_PACKAGES = ("jax", "jaxlib", "gradio", "optax", "numpy", "scikit-learn")


def _with_job_methods(cls: type) -> type:
    """``cls`` with a method per public job kind, named after it (the module's docstring lists them)."""
    for kind in jobs.REGISTRY.values():
        if kind.public:
            setattr(cls, kind.name, job_method(kind))
    return cls


@_with_job_methods
class PlaygroundAPI(TrainingEndpoints):
    """The API: a method per public job kind, made from its declaration (server/answering/endpoints.py), and the
    server's own endpoints: About here, training in training_api.py."""

    def __init__(self, pool: JobPool, settings: Settings, parallel_pool: JobPool | None = None,
                 training: TrainingService | None = None, device_pool: JobPool | None = None,
                 accelerator: str | None = None, accelerator_why: str = "",
                 accelerator_unavailable: list | None = None) -> None:
        """``device_pool``: the device owner's line (device_pool.py); None: ``pool`` runs its jobs too (tests).
        ``accelerator`` names the host's GPU or TPU the owner holds (None: it holds the CPU), ``accelerator_why``
        says why, and ``accelerator_unavailable`` is the catalogue piece saying why the host's accelerator could not
        be opened: the jobs that measure then run on the CPU and say so.
        """
        self._pools = {"sandbox": pool, "parallel": parallel_pool or pool, "device": device_pool or pool}
        self._training = training
        self._settings = settings
        self.accelerator = accelerator
        self._accelerator_why = accelerator_why
        self._unavailable = accelerator_unavailable
        self._runtime: dict | None = None
        self._runtime_lock = threading.Lock()
        limits = settings.limits
        cache = (ResultCache(settings.result_cache_entries, settings.result_cache_mb * 2**20, app_version())
                 if settings.result_cache else None)
        self._runner = JobRunner(self._pools, settings.queue_size, lambda kind: limits.measure_timeout_s
                                 if jobs.REGISTRY[kind].timed else limits.timeout_s, cache)

    @classmethod
    def from_pools(cls, pools: worker_pools.Pools, settings: Settings,
                   training: TrainingService | None = None) -> PlaygroundAPI:
        """The API over the pools and the device owner ``worker_pools.start`` made for this host."""
        return cls(pools.sandbox, settings, pools.parallel, training, pools.device,
                   pools.accelerator.describe() if pools.accelerator else None, pools.device_why, pools.unavailable)

    def default_matrix_sizes(self) -> list[int]:
        """The jit benchmark's sizes that fit this server's memory limit (10,000 needs about 3 GB)."""
        return matrix_memory.default_sizes(self._settings.limits.memory_mb)

    def about(self) -> dict:
        """Versions, backend and devices, the sandbox layers in force, and the limits.

        Takes no arguments.

        Returns:
            {"ok", "versions", "backend", "devices", "sandbox", "accelerator", "limits", "graphs", "queue", "training"};
            ``sandbox["mode"]`` is "full" or "process" (the local mode: process isolation only).
        """
        runtime = self._runtime_info()
        limits = self._settings.limits
        return {
            "ok": runtime.get("ok", False),
            "versions": {"python": platform.python_version(), **{p: _version(p) for p in _PACKAGES}},
            "backend": runtime.get("backend"),
            "devices": runtime.get("devices", []),
            "sandbox": {
                "mode": self._settings.sandbox,  # "full", or "process": the local mode (process isolation only)
                "layers": {
                    "process": {"active": True, "detail": "one fresh worker process per job, then discarded; "
                                "whitelisted environment" + ("; server and template not dumpable"
                                                             if self._settings.sandbox == "full" else "")},
                    **self._pools["sandbox"].layers,
                    "watchdogs": {"active": True, "detail": f"wall clock {limits.timeout_s:g} s, resident memory "
                                  f"{limits.memory_mb} MB, {limits.max_tasks:,} threads, output "
                                  f"{limits.output_chars:,} characters per field, reply "
                                  f"{limits.message_bytes // 2**20} MB"},
                },
                "mechanisms": self._pools["sandbox"].mechanisms(),
                "pool": self._pools["sandbox"].status(),
                "parallel_pool": self._pools["parallel"].status(),
                "device_owner": self._owner_status(),
            },
            "accelerator": {"device": self.accelerator, "why": self._accelerator_why,
                            "jobs": jobs.kinds_on("device"),
                            "unavailable": messages.render([self._unavailable]) if self._unavailable else None},
            "limits": limits.to_dict(),
            "graphs": {"renderer": graph_render.renderer(), "missing": None if graph_render.renderer() else
                       graph_render.INSTALL_HINT},
            "queue": {"concurrency": self._settings.workers, "max_waiting": self._settings.queue_size,
                      **self._runner.status()},
            "training": None if self._training is None else {
                **self._training.status(), "max_run_s": self._settings.training_max_s,
                "race": self._training.race_sides(),
                "process": "in the device owner, between the jobs' turns on the device (our code on validated "
                           "hyperparameters, never user code)"},
        }

    def updates(self, kind: str, *, fresh: bool = False, **values) -> Iterator[dict]:
        """Run a ``kind`` job from the registry, streaming its updates (answering/runner.py; docs/api.md).

        While the job waits: ``{"ok": True, "done": False, "phase": "queued" or "running", "queue": {"position",
        "running", "workers", "wait_s"}, "shared"}``; then Inspect's early reply; the last update (``done`` True) is
        the result, with ``cache`` (None, or ``{"hit", "shared", "measured_at", "age_s"}``), or an error dict.
        ``fresh``: run it even where an identical job's result is kept (a timing measured again).
        """
        by_server = {"sizes": self.default_matrix_sizes}  # the defaults that depend on this server
        for argument in jobs.REGISTRY[kind].arguments:
            if argument.default is jobs.BY_SERVER and not values.get(argument.name):
                values[argument.name] = by_server[argument.name]()
        job = jobs.build(kind, values)
        if job.get("ok") is False:
            yield {**job, "done": True}  # an argument failed its check
            return
        updates = self._runner.updates(kind, job, fresh)
        if self._unavailable is not None and jobs.pool_of(kind, job) == "device":
            updates = self._measured_on_cpu(updates)
        yield from updates

    def _measured_on_cpu(self, updates: Iterator[dict]) -> Iterator[dict]:
        """The host's accelerator could not be opened inside the sandbox: the job ran on the CPU, and says why."""
        fallback = messages.piece("accelerator.measured_on_cpu", why=self._unavailable)
        said = {"device_fallback": messages.render([fallback]), "device_fallback_words": fallback}
        for update in updates:
            yield {**update, **said} if update.get("ok") and "device" in update else update

    def _owner_status(self) -> dict | None:
        """The device owner: its process (alive, restarts, last end, resident memory), its device, its layers, what
        its driver was granted beyond them and the sets tried to find that; None where there is none (a test's)."""
        owner = getattr(self._pools["device"], "owner", None)
        if owner is None:
            return None
        hello = owner.hello
        return {**owner.status(), "platform": owner.setup.platform, "device": (hello.get("about") or {}).get("label"),
                "devices": (hello.get("about") or {}).get("devices", []), "layers": hello.get("layers", {}),
                "memory_limit_mb": owner.setup.memory_mb, "compile_cache": hello.get("compile_cache"),
                **starting.owner_grants(owner)}

    def _runtime_info(self) -> dict:
        """What the workers run: Python, JAX's backend and devices, asked once of a CPU worker by the "about" job, in
        line like any other (the server never starts JAX itself); the devices of the device owner where there is
        one."""
        with self._runtime_lock:
            if self._runtime is None or not self._runtime.get("ok"):
                self._runtime = final(self.updates("about"))
            runtime = dict(self._runtime)
        owner = self._owner_status()
        if owner is not None and owner["devices"]:
            runtime.update(backend=owner["platform"], devices=owner["devices"])
        return runtime


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def final(updates: Iterator[dict]) -> dict:
    """An endpoint's result, for callers that show no progress: its last update, without the ``done`` marker."""
    last = collections.deque(updates, maxlen=1)
    if not last:
        raise ValueError("the endpoint gave no update")
    return {key: value for key, value in last[0].items() if key != "done"}
