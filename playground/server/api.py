"""The public API: one plain function per endpoint, JSON-able arguments in, a dict out.

Every tab of the UI calls these, and so can ``gradio_client``, scripts and tests.
Failures are dicts too: ``{"ok": False, "error": {"kind", "message", "line"}}``.
Text is English; a tracer error's ``words`` and a run's ``message_words`` hold the same
text as catalogue pieces (playground/messages), which ``messages.render`` writes in de or zh.
"""

from __future__ import annotations

import collections
import importlib.metadata
import logging
import platform
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from playground import jobs, matrix_memory, messages, replies
from playground.errors import error_dict, internal_error, new_incident_id, said_error
from playground.mnist.catalogue import DataUnavailable
from playground.mnist.config import TrainConfig
from playground.server import graph_render, worker_pools
from playground.server.config import Settings
from playground.server.device_ceilings import DeviceCeilings
from playground.server.endpoints import job_method
from playground.server.job_runner import JobRunner
from playground.server.result_cache import ResultCache, app_version
from playground.server.training.service import NoTrainedModel, TrainingFailed, TrainingService

if TYPE_CHECKING:
    from playground.sandbox import JobPool

log = logging.getLogger(__name__)
MAX_IMAGE_SIDE = 1024
MAX_PIXEL = 255
_PACKAGES = ("jax", "jaxlib", "gradio", "optax", "numpy", "scikit-learn")


class PlaygroundAPI:
    """The API: a method per public job kind, made from its declaration (server/endpoints.py), and the server's
    own endpoints written here (About, training)."""

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
        self._ceilings = DeviceCeilings(lambda kind, values: self.updates(kind, **values))

    @classmethod
    def from_pools(cls, pools: worker_pools.Pools, settings: Settings,
                   training: TrainingService | None = None) -> PlaygroundAPI:
        """The API over the pools and the device owner ``worker_pools.start`` made for this host."""
        return cls(pools.sandbox, settings, pools.parallel, training, pools.device,
                   pools.accelerator.describe() if pools.accelerator else None, pools.device_why, pools.unavailable)

    def default_matrix_sizes(self) -> list[int]:
        """The jit benchmark's sizes that fit this server's memory limit (10,000 needs about 3 GB)."""
        return matrix_memory.default_sizes(self._settings.limits.memory_mb)

    def train(self, config: dict | None = None, session: str = "") -> Iterator[dict]:
        """Train an MLP on handwritten digits (or clothes), streaming metric updates several times a second.

        ``config`` keys, each optional: "dataset" ("mnist", "fashion_mnist", "digits"), "layers" (e.g. [784, 512,
        256, 10]), "optimizer" ("sgd", "momentum", "adam"), "learning_rate", "batch_size", "epochs", "seed",
        "data_parallel" (true: the batch split over every local device, parameters replicated, gradients
        all-reduced by XLA; the batch size must divide by the device count). Every update has "ok", "phase"
        ("data", "queued", "starting", "compiling", "training", "finishing" (the steps are over, the whole test
        set is measured and the weights saved; with "stopped"), then "finished" or "stopped"), "step", "epoch",
        "loss" (smoothed), "losses" (the loss of each step since the update before, measured on the device; the
        first is step "first_loss_step", counting from 1: a run of N steps sends N), "test_accuracy" (None until
        first measured), "epoch_accuracy" (the full test set, at an epoch's end), "train_accuracy" and
        "epoch_train_accuracy" (the same on training images), "samples_per_s", "seconds_per_epoch" (an epoch's
        training at that rate), "elapsed_s", "device", "devices" (how many it trains on), "dataset" (the one it
        trains on), "data_note" (a catalogue piece where the images are not the dataset's own split: its test set
        alone, split 80/20),
        "data_fallback" (a piece where the dataset asked for could be neither found nor downloaded, and the run
        trains on "digits" instead), "n_train", "n_test", "compile_cache" (from "compiling" on: "new" where this
        configuration's programs are compiled for the first time here, "kept" where they were compiled before and
        are loaded from the device owner's compilation cache, None without one) and "done". The last one ("done":
        True) adds "stopped", "xla_compiles" (the XLA compiles the run made: 0 for one whose programs were all
        kept), "message" (and "message_words", its catalogue piece), "target_accuracy" (0.97) and
        "time_to_target_s" (seconds from the request to the first full-test-set measurement at or above it, or
        None: not reached), "params_file" (.npz), "metrics_file" (CSV), "losses_file" (CSV: each step's loss),
        "confusion" and "samples" (test digits with predictions, mistakes first). A dataset that is neither here
        nor downloadable (offline) where the offline digits cannot stand in has a short "message", a "fix" and
        "details" (where it looked, each mirror's failure). One run per session (the server fills ``session`` in
        from the caller's): Stop and ``predict`` use it.

        Args:
            config: the hyperparameters above as a dict (null or {}: all defaults).

        Returns:
            the last update (``done`` True, "phase" "finished" or "stopped")
            or an error dict {"ok": False, "error": {"kind", "message", "line"}}
        """
        if self._training is None:
            yield error_dict("unavailable", "Training is not enabled on this server.")
            return
        try:
            run = self._training.train(TrainConfig.from_dict(config), session)
            for update in run:
                yield {"ok": True, **update}
        except DataUnavailable as exc:
            yield _unavailable(exc)
        except (ValueError, TypeError) as exc:
            yield error_dict("invalid_input", str(exc))
        except TrainingFailed as exc:
            failure = error_dict("crashed", str(exc))
            failure["error"]["title"] = "Training failed"
            yield failure
        except Exception:  # our bug: the stream still ends with an answer, and the log has the traceback
            incident = new_incident_id()
            log.exception("internal error %s in a training run", incident)
            yield internal_error(incident)

    def stop_training(self, session: str) -> dict:
        """Stop this session's training run: it ends within about a second, keeping its curves and parameters.

        Takes no arguments (the server fills ``session`` in from the caller's).

        Returns:
            {"ok": True, "stopping": whether a run was going}
        """
        stopping = self._training is not None and self._training.stop(session)
        return {"ok": True, "stopping": stopping}

    def predict(self, image: list[list[float]], session: str) -> dict:
        """Class probabilities of a grayscale digit (ink bright on dark) under this session's trained model.

        The image is prepared the way MNIST was: cropped to its ink, scaled to fit 20 x 20 and centred by its
        centre of mass in 28 x 28. The server fills ``session`` in from the caller's.

        Args:
            image: rows of pixel values from 0 to 255 (or 0 to 1), ink bright on dark, at most 1024 x 1024.

        Returns:
            {"ok": True, "probabilities", "predicted", "class_names", "input" (the 28 x 28 the model saw)}
            or an error dict (no model trained yet, a bad image) {"ok": False, "error": {"kind", "message", "line"}}
        """
        try:
            pixels = np.asarray(image, dtype=np.float64)
        except (TypeError, ValueError):
            return error_dict("invalid_input", "`image` must be rows of numbers (a 2-D grayscale image).")
        if pixels.ndim != 2 or not 1 <= min(pixels.shape) <= max(pixels.shape) <= MAX_IMAGE_SIDE:
            return error_dict("invalid_input", f"`image` must be 2-D, at most {MAX_IMAGE_SIDE} × {MAX_IMAGE_SIDE}, "
                                               f"got shape {pixels.shape}.")
        if not np.isfinite(pixels).all():
            return error_dict("invalid_input", f"`image` must hold finite numbers from 0 to {MAX_PIXEL} (or 0 to 1).")
        if pixels.min() < 0 or pixels.max() > MAX_PIXEL:
            return error_dict("invalid_input", f"`image` must hold numbers from 0 to {MAX_PIXEL} (or 0 to 1); got "
                              f"values from {pixels.min():.6g} to {pixels.max():.6g}.")
        if self._training is None:
            return error_dict("unavailable", "Training is not enabled on this server.")
        try:
            return {"ok": True, **self._training.predict(session, pixels)}
        except NoTrainedModel as exc:
            return error_dict("invalid_input", str(exc))

    def datasets(self) -> dict:
        """Each dataset and where it would come from now ("MNIST_DIR", "cache", offline, or None: download), and the
        training rates this server measured, which the Train tab reckons a run's expected time from.

        Takes no arguments.

        Returns:
            {"ok": True, "datasets": [one dict per dataset], "training": the training line's status,
             "measured": [{"dataset", "layers", "batch_size", "data_parallel", "samples_per_s", "n_train",
             "device"}: the last finished run of each, its median samples/s], "max_run_s": a run's time limit}
            or an error dict when training is off
        """
        if self._training is None:
            return error_dict("unavailable", "Training is not enabled on this server.")
        return {"ok": True, "datasets": self._training.datasets(), "training": self._training.status(),
                "measured": self._training.measured(), "max_run_s": self._training.max_run_s}

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
                "process": "in the device owner, between the jobs' turns on the device (our code on validated "
                           "hyperparameters, never user code)"},
        }

    def updates(self, kind: str, **values) -> Iterator[dict]:
        """Run a ``kind`` job from the registry, streaming its updates (job_runner.py; docs/api.md).

        While the job waits: ``{"ok": True, "done": False, "phase": "queued" or "running", "queue": {"position",
        "running", "workers", "wait_s"}, "shared"}``; then Inspect's early reply; the last update (``done`` True) is
        the result, with ``cache`` (None, or ``{"hit", "shared", "measured_at", "age_s"}``), or an error dict.
        """
        by_server = {"sizes": self.default_matrix_sizes}  # the defaults that depend on this server
        for argument in jobs.REGISTRY[kind].arguments:
            if argument.default is jobs.BY_SERVER and not values.get(argument.name):
                values[argument.name] = by_server[argument.name]()
        job = jobs.build(kind, values)
        if job.get("ok") is False:
            yield {**job, "done": True}  # an argument failed its check
            return
        updates = self._runner.updates(kind, job)
        if self._unavailable is not None and jobs.pool_of(kind, job) == "device":
            updates = self._measured_on_cpu(updates)
        if kind == "speed_of_light":  # its reply placed under the device's ceilings
            updates = self._ceilings.on_the_roofline(updates)
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
                **worker_pools.owner_grants(owner)}

    def _runtime_info(self) -> dict:
        """What the workers run: Python, JAX's backend and devices, asked once of a CPU worker (the server never
        starts JAX itself); the devices of the device owner where there is one."""
        with self._runtime_lock:
            if self._runtime is None or not self._runtime.get("ok"):
                job = jobs.build("about", {})
                self._runtime = replies.check(jobs.REGISTRY["about"].reply, self._pools["sandbox"].run(job))
            runtime = dict(self._runtime)
        owner = self._owner_status()
        if owner is not None and owner["devices"]:
            runtime.update(backend=owner["platform"], devices=owner["devices"])
        return runtime


for _kind in jobs.REGISTRY.values():
    if _kind.public:
        setattr(PlaygroundAPI, _kind.name, job_method(_kind))


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _unavailable(exc: DataUnavailable) -> dict:
    """A dataset that cannot be had: in short, with its details apart, where the exception has a short version."""
    if exc.said is None:
        return error_dict("unavailable", str(exc))
    return said_error("unavailable", exc.said, fix=exc.fix, details=exc.details)


def final(updates: Iterator[dict]) -> dict:
    """An endpoint's result, for callers that show no progress: its last update, without the ``done`` marker."""
    last = collections.deque(updates, maxlen=1)
    if not last:
        raise ValueError("the endpoint gave no update")
    return {key: value for key, value in last[0].items() if key != "done"}
