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
from playground.sandbox import device_grants
from playground.server import graph_render, worker_pools
from playground.server.compiler_api import CompilerEndpoints
from playground.server.config import Settings
from playground.server.job_runner import JobRunner
from playground.server.result_cache import ResultCache, app_version
from playground.server.training.service import NoTrainedModel, TrainingFailed, TrainingService

if TYPE_CHECKING:  # or a ProcessPool: the same interface
    from playground.sandbox import WorkerPool

log = logging.getLogger(__name__)
MAX_IMAGE_SIDE = 1024
MAX_PIXEL = 255
_PACKAGES = ("jax", "jaxlib", "gradio", "optax", "numpy", "scikit-learn")


class PlaygroundAPI(CompilerEndpoints):
    def __init__(self, pool: WorkerPool, settings: Settings, parallel_pool: WorkerPool | None = None,
                 training: TrainingService | None = None, accelerator_pool: WorkerPool | None = None,
                 accelerator: str | None = None, accelerator_why: str = "",
                 accelerator_unavailable: list | None = None) -> None:
        """``accelerator_pool`` holds the host's GPU or TPU (``accelerator`` names it); None: ``pool`` runs all.

        ``accelerator_unavailable``: the catalogue piece saying why the host's accelerator could not be opened
        inside the sandbox; the jobs that would have run there then run on ``pool`` and say so.
        """
        self._pools = {"sandbox": pool, "parallel": parallel_pool or pool, "accelerator": accelerator_pool or pool}
        self._training = training
        self._settings = settings
        self.accelerator = accelerator if accelerator_pool is not None else None
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
        """The API over the pools ``worker_pools.build`` made for this host."""
        on_device = pools.accelerator if pools.device is not None else None
        return cls(pools.sandbox, settings, pools.parallel, training, on_device,
                   pools.device.describe() if pools.device else None, pools.device_why, pools.unavailable)

    def inspect(self, code: str, args: str, static_argnums: list[int] | None = None, second_args: str = "",
                on_accelerator: bool = False) -> Iterator[dict]:
        """Trace, lower and compile the function in ``code`` (named ``f``, else the last ``def``) on ``args``.

        ``args`` is a Python expression with ``jax``, ``jnp``, ``np`` and ``lax`` in
        scope; a tuple gives several positional arguments. ``static_argnums`` is
        passed to ``jax.jit``. With ``second_args``, the jitted function is called
        again on them, and ``retrace`` says whether JAX traced again, and why.

        When the code jits the function itself (``@jax.jit``, ``@partial(jax.jit,
        static_argnames=...)``), that jitted function is inspected, with its own
        static arguments; ``jit`` says so (``own``, ``static_from``, and a ``note``
        when the field and the code disagree).

        Inspect compiles for the CPU; ``on_accelerator=True`` compiles in a worker
        holding the host's GPU or TPU instead (where there is none, on the CPU).
        ``device`` says which.

        Like every job endpoint it streams (see ``updates``); its early update
        comes as soon as the stages are done, with ``pending`` naming the checks
        that still run the function (``purity``, ``retrace``). The result is
        ``{"ok": True, "function", "device", "result", "jaxpr", "stablehlo", "hlo",
        "hlo_locations", "trace_s", "lower_s", "compile_s", "run_s", "cost", "memory",
        "pytree", "line_map", "static_argnums", "jit", "retrace", "purity", "pending",
        "stdout", "warnings", "cache", "done"}`` or an error dict.

        Args:
            code: Python source defining the function (named ``f``, else the last ``def``); jax, jnp, np, lax in scope.
            args: its arguments as one Python expression, e.g. "jnp.arange(4.0)"; a tuple gives several.
            static_argnums: positions of the arguments ``jax.jit`` takes as static (null or []: none).
            second_args: arguments of a second call, to see whether JAX traces again ("": no second call).
            on_accelerator: compile and run on the host's GPU or TPU (the CPU where it has none).

        Returns:
            the last streamed update (``done`` True; earlier ones say where the job stands), the dict above
            or an error dict {"ok": False, "error": {"kind", "message", "line"}}
        """
        yield from self.updates("inspect", code=code, args=args, static_argnums=static_argnums,
                            second_args=second_args, on_accelerator=on_accelerator)

    def derivatives(self, code: str, order: int = 3, x_min: float = -3.0, x_max: float = 3.0,
                    points: int = 200) -> Iterator[dict]:
        """f, f', ..., f^(order) of ``f: R -> R`` on ``points`` values from ``x_min`` to ``x_max``.

        Evaluated with ``vmap`` of nested ``grad``, in float64; each order is checked
        against closed forms (presets) or finite differences of the order below.
        Returns ``{"ok", "function", "dtype", "xs", "orders": [{"n", "ys", "max_error",
        "reference"}], "eqn_counts", "hlo_op_counts", "jaxprs", "notes", "point_by_point"}``.
        ``point_by_point`` is null, unless Python control flow on x kept ``jit``/``vmap``
        from tracing ``f``: then nested ``grad`` ran at each point without jit, within a
        share of the time limit, and it says why, how many points and how long.

        Args:
            code: Python source defining ``f(x)`` of one scalar (named ``f``, else the last ``def``).
            order: the highest derivative, from 1 to 8.
            x_min: the first x.
            x_max: the last x.
            points: how many x values, evenly spaced (2 to 2,000).

        Returns:
            the last streamed update (``done`` True; earlier ones say where the job stands), the dict above
            or an error dict {"ok": False, "error": {"kind", "message", "line"}}
        """
        yield from self.updates("derivatives", code=code, order=order, x_min=x_min, x_max=x_max, points=points)

    def gradient(self, code: str, point: str) -> Iterator[dict]:
        """Gradient and Hessian (``jacfwd(jacrev(f))``) of ``f: R^n -> R`` at ``point``, and jacfwd vs jacrev timing.

        ``without_jit`` is null, or why ``jit`` could not trace ``f`` (Python control flow on its input), which
        was then differentiated at the point without it.

        Returns ``{"ok", "function", "point", "value", "gradient", "hessian", "without_jit", "jacobians"
        (jacfwd vs jacrev on a wide and a tall Jacobian), "explanation"}``.

        Args:
            code: Python source defining ``f(x)`` of one vector returning a scalar (named ``f``, else the last ``def``).
            point: where to differentiate, as a Python expression, e.g. "jnp.array([1.0, 2.0])".

        Returns:
            the last streamed update (``done`` True; earlier ones say where the job stands), the dict above
            or an error dict {"ok": False, "error": {"kind", "message", "line"}}
        """
        yield from self.updates("gradient", code=code, point=point)

    def vmap(self, code: str, args: str, in_axes: str = "0", batch_sizes: list[int] | None = None,
             out_axes: str = "0") -> Iterator[dict]:
        """Batch a one-example function with ``jax.vmap``; compare a Python loop, vmap and jit(vmap).

        Runs on the host's GPU or TPU where there is one (``device`` names it).

        ``args`` are one example's arguments; each batch is built from them along
        ``in_axes``. Returns ``{"ok", "jaxpr", "batched_jaxpr", "batch_sizes", "loop_s",
        "vmap_s", "jit_vmap_s", "equal", "checked_examples", ...}``: times are per-size medians
        in seconds, shown only when all three results are equal; ``checked_examples`` says how
        many examples of each size were compared (the Python loop may stop at its time limit).

        Args:
            code: Python source defining the one-example function (named ``f``, else the last ``def``).
            args: one example's arguments as one Python expression; a tuple gives several.
            in_axes: ``jax.vmap``'s in_axes as a Python literal, e.g. "0" or "(0, None)".
            batch_sizes: the batch sizes to time (null: the defaults).
            out_axes: ``jax.vmap``'s out_axes as a Python literal.

        Returns:
            the last streamed update (``done`` True; earlier ones say where the job stands), the dict above
            or an error dict {"ok": False, "error": {"kind", "message", "line"}}
        """
        yield from self.updates("vmap", code=code, args=args, in_axes=in_axes, out_axes=out_axes,
                            batch_sizes=batch_sizes)

    def jit_speed(self, code: str, sizes: list[int] | None = None, repeats: int = 5) -> Iterator[dict]:
        """NumPy vs eager JAX vs jitted JAX on an n x n float32 input for each size n (compile timed apart).

        Runs on the host's GPU or TPU where there is one (``device`` names what it measured on).

        Returns ``{"ok", "device", "sizes", "numpy_s", "eager_s", "jit_s", "compile_s",
        "jaxpr_ops", "fused_kernels", ...}``; times are per-size medians in seconds.

        Args:
            code: Python source defining a function of one n x n array (the last ``def``).
            sizes: the sizes n to measure (null: those that fit the server's memory limit).
            repeats: timed runs per size and variant.

        Returns:
            the last streamed update (``done`` True; earlier ones say where the job stands), the dict above
            or an error dict {"ok": False, "error": {"kind", "message", "line"}}
        """
        yield from self.updates("jit_speed", code=code, sizes=sizes or self.default_matrix_sizes(), repeats=repeats)

    def default_matrix_sizes(self) -> list[int]:
        """The jit benchmark's sizes that fit this server's memory limit (10,000 needs about 3 GB)."""
        return matrix_memory.default_sizes(self._settings.limits.memory_mb)

    def shard(self, code: str, args: str, mesh_shape: list[int], axis_names: list[str], in_specs: str,
              out_specs: str) -> Iterator[dict]:
        """Run the function under ``jax.jit`` with its inputs and output sharded over a device mesh.

        ``in_specs``/``out_specs`` are Python literals of PartitionSpec entries, e.g.
        ``"(('data', 'model'),)"``. Returns ``{"ok", "n_devices", "placement" (per input,
        which device holds which block, as slice bounds), "result", "matches_unsharded",
        "collectives" (found in the compiled HLO), ...}``.

        Args:
            code: Python source defining the function (named ``f``, else the last ``def``); jax, jnp, np, lax in scope.
            args: its arguments as one Python expression, e.g. "jnp.arange(4.0)"; a tuple gives several.
            mesh_shape: the device mesh's shape, e.g. [2, 4] (its product at most the devices there are).
            axis_names: a name per mesh axis, e.g. ["data", "model"].
            in_specs: a PartitionSpec per argument, as a Python literal.
            out_specs: the output's PartitionSpec, as a Python literal, e.g. "('data', 'model')".

        Returns:
            the last streamed update (``done`` True; earlier ones say where the job stands), the dict above
            or an error dict {"ok": False, "error": {"kind", "message", "line"}}
        """
        yield from self.updates("shard", code=code, args=args, mesh_shape=mesh_shape, axis_names=axis_names,
                            in_specs=in_specs, out_specs=out_specs)

    def parallel_demos(self) -> Iterator[dict]:
        """The devices, shard_map with psum and all_gather, a data-parallel MLP step, and pmap vs shard_map.

        Takes no arguments; runs four small demos on the parallel workers' devices.

        Returns:
            the last streamed update (``done`` True; earlier ones say where the job stands), a dict of the demos
            or an error dict {"ok": False, "error": {"kind", "message", "line"}}
        """
        yield from self.updates("parallel_demos")

    def train(self, config: dict | None, session: str) -> Iterator[dict]:
        """Train the MLP on a dataset, streaming one dict per update (several a second).

        ``config`` keys (missing ones take the defaults): ``dataset`` ("mnist",
        "fashion_mnist", "digits"), ``layers`` (e.g. [784, 512, 256, 10]), ``optimizer``
        ("sgd", "momentum", "adam"), ``learning_rate``, ``batch_size``, ``epochs``, ``seed``,
        ``data_parallel`` (false; true: the batch split over every local device, parameters
        replicated, gradients all-reduced by XLA; the batch size must divide by the device count).
        Every update has ``ok``, ``phase`` ("data", "queued", "starting", "compiling",
        "training", "finishing" (the steps are over, the whole test set is measured and the
        weights saved; with ``stopped``), then "finished" or "stopped"), ``step``, ``epoch``, ``loss`` (smoothed),
        ``test_accuracy`` (None until first measured), ``epoch_accuracy`` (the full test set, at an
        epoch's end, else None), ``train_accuracy`` and ``epoch_train_accuracy`` (the same on training
        images: as many as the estimate has, and up to 10,000 at an epoch's end), ``samples_per_s``,
        ``elapsed_s``, ``device``, ``devices`` (how many it trains on), ``dataset`` (the one it trains on),
        ``data_note`` (a catalogue piece where the images are not the dataset's own split: its test set alone,
        split 80/20), ``data_fallback`` (a piece where the dataset asked for could be neither found nor downloaded,
        and the run trains on "digits" instead), ``n_train``, ``n_test`` and ``done``. The
        last one (``done: True``) adds ``stopped``, ``message`` (and ``message_words``, its catalogue
        piece), ``params_file`` (.npz), ``metrics_file``
        (CSV), ``confusion`` and ``samples`` (test digits with predictions, mistakes first). Errors come as
        one error dict; a dataset that is neither here nor downloadable (offline) where the offline digits
        cannot stand in (no scikit-learn) has a short ``message``, a ``fix`` and ``details`` (where it looked,
        each mirror's failure).
        ``session`` scopes Stop and ``predict`` to the caller.
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
        """Stop this session's run: it ends within about a second, keeping its curves and parameters."""
        stopping = self._training is not None and self._training.stop(session)
        return {"ok": True, "stopping": stopping}

    def predict(self, image, session: str) -> dict:
        """Class probabilities for a drawn digit under this session's latest trained model.

        ``image`` is a grayscale picture as rows of numbers, ink bright on a dark
        background like MNIST (0–255; 0–1 works too), any size up to 1024 × 1024.
        It is prepared the way MNIST was: cropped to the ink, scaled to fit 20 × 20,
        centred by its centre of mass in 28 × 28. Returns ``{"ok", "probabilities",
        "predicted", "class_names", "input" (the 28 × 28 the model saw)}``.
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
        """Each dataset and where it would come from now ("MNIST_DIR", "cache", offline, or None: download).

        Takes no arguments.

        Returns:
            {"ok": True, "datasets": [one dict per dataset], "training": the training line's status}
            or an error dict when training is off
        """
        if self._training is None:
            return error_dict("unavailable", "Training is not enabled on this server.")
        return {"ok": True, "datasets": self._training.datasets(), "training": self._training.status()}

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
                "accelerator_pool": None if self.accelerator is None else self._device_pool_status(),
            },
            "accelerator": {"device": self.accelerator, "why": self._accelerator_why,
                            "jobs": jobs.kinds_on("accelerator") if self.accelerator else [],
                            "unavailable": messages.render([self._unavailable]) if self._unavailable else None},
            "limits": limits.to_dict(),
            "graphs": {"renderer": graph_render.renderer(), "missing": None if graph_render.renderer() else
                       graph_render.INSTALL_HINT},
            "queue": {"concurrency": self._settings.workers, "max_waiting": self._settings.queue_size,
                      **self._runner.status()},
            "training": None if self._training is None else {
                **self._training.status(), "max_run_s": self._settings.training_max_s,
                "process": "one long-lived trusted worker per slot (our code on validated hyperparameters, never "
                           "user code): not sandboxed, outside the server"},
        }

    def updates(self, kind: str, **values) -> Iterator[dict]:
        """Run a ``kind`` job from the registry, streaming its updates (job_runner.py; README's "The API").

        While the job waits: ``{"ok": True, "done": False, "phase": "queued" or "running", "queue": {"position",
        "running", "workers", "wait_s"}, "shared"}``; then Inspect's early reply; the last update (``done`` True) is
        the result, with ``cache`` (None, or ``{"hit", "shared", "measured_at", "age_s"}``), or an error dict.
        """
        job = jobs.build(kind, values)
        if job.get("ok") is False:
            yield {**job, "done": True}  # an argument failed its check
            return
        if self._unavailable is None or jobs.pool_of(kind, job) != "accelerator":
            yield from self._runner.updates(kind, job)
            return
        # The host's accelerator could not be opened inside the sandbox: this job runs on the CPU, and says why.
        fallback = messages.piece("accelerator.measured_on_cpu", why=self._unavailable)
        said = {"device_fallback": messages.render([fallback]), "device_fallback_words": fallback}
        for update in self._runner.updates(kind, job):
            yield {**update, **said} if update.get("ok") and "device" in update else update

    def _device_pool_status(self) -> dict:
        """The accelerator pool's counts, the backend its warm workers reported, its layers and the driver's grants."""
        pool = self._pools["accelerator"]
        return {**pool.status(), "landlock": pool.layers.get("landlock"), "seccomp": pool.layers.get("seccomp"),
                "grants": device_grants.describe(getattr(pool, "grants", ())),
                "grants_tried": getattr(pool, "grant_trials", [])}
    def _runtime_info(self) -> dict:
        """Backend and devices, asked once of a worker that holds the accelerator, if any (the server never starts
        JAX itself)."""
        with self._runtime_lock:
            if self._runtime is None or not self._runtime.get("ok"):
                job = jobs.build("about", {})
                self._runtime = replies.check(replies.ABOUT, self._pools["accelerator"].run(job))
            return self._runtime


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
