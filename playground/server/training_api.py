"""The API's training endpoints: train, race, stop_training, predict and datasets (api.py's ``PlaygroundAPI``).

The training service (server/training/service.py) does the work; these methods check what a caller sent and
answer as every endpoint does: dicts, failures as ``{"ok": False, "error": ...}``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import numpy as np

from playground.errors import error_dict, internal_error, new_incident_id, said_error
from playground.mnist.catalogue import DataUnavailable
from playground.mnist.config import TrainConfig
from playground.server.training.service import NoTrainedModel, TrainingService
from playground.server.training.stopping import TrainingFailed
from playground.validation import Refused

log = logging.getLogger(__name__)
MAX_IMAGE_SIDE = 1024
MAX_PIXEL = 255


class TrainingEndpoints:
    _training: TrainingService | None

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
        first measured), "epoch_ends" (each epoch that ended since the update before: its "step", "epoch",
        "elapsed_s", "epoch_accuracy" (the full test set) and "epoch_train_accuracy" (training images); a TPU
        ends dozens an update), "epoch_accuracy" and "epoch_train_accuracy" (the last of them, or None),
        "train_accuracy" (the latest measurement on training images), "samples_per_s", "seconds_per_epoch" (an epoch's
        training at that rate), "elapsed_s", "device", "devices" (how many it trains on), "dataset" (the one it
        trains on), "test_split" (true where it trains and tests on parts of the dataset's test set alone),
        "data_note" (a catalogue piece where the images are not the dataset's own split: its test set
        alone, split 80/20),
        "data_fallback" (a piece where the dataset asked for could be neither found nor downloaded, and the run
        trains on "digits" instead), "n_train", "n_test", "compile_cache" (from "compiling" on: "new" where this
        configuration's programs are compiled for the first time here, "kept" where they were compiled before and
        are loaded from the device owner's compilation cache, None without one) and "done". The last one ("done":
        True) adds "stopped", "xla_compiles" (the XLA compiles the run made: 0 for one whose programs were all
        kept), "message" (and "message_words", its catalogue piece), "target_accuracy" (0.97) and
        "time_to_target_s" (seconds from the request to the first full-test-set measurement at or above it, or
        None: not reached), "median_samples_per_s" (the median of its updates' rates after the first epoch:
        compiling is not in it), "params_file" (.npz), "metrics_file" (CSV), "losses_file" (CSV: each step's loss),
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
        yield from self._stream_training(lambda training: training.train(TrainConfig.from_dict(config), session))

    def race(self, config: dict | None = None, session: str = "") -> Iterator[dict]:
        """Race the host's CPU against its accelerator: the same training run on both at once, compared.

        ``config`` is ``train``'s. Updates before the race begins are ``train``'s ("data", "queued"); then each
        has "phase", "elapsed_s" (since Start, as the server saw it), "done", and "cpu" and "device": each side's
        latest ``train`` update with "history" ([seconds since Start, loss]: every step's loss, the last of an
        update's at its arrival, those before it a step's time apart). The last ("done": True) adds "comparison":
        "cpu" and "device" ({"name", "samples_per_s" (its "median_samples_per_s"), "to_target_s" (its
        "time_to_target_s", both sides counted from the same Start), "stopped"}), "speedup" (device / CPU
        samples/s) and "message".
        On a host without an accelerator the answer is an error saying so. The device's model becomes the
        session's (Stop and ``predict`` as with ``train``).

        Args:
            config: the hyperparameters, as ``train`` takes them (null or {}: all defaults).

        Returns:
            the last update (``done`` True, with "comparison")
            or an error dict {"ok": False, "error": {"kind", "message", "line"}}
        """
        yield from self._stream_training(lambda training: training.race(TrainConfig.from_dict(config), session))

    def _stream_training(self, start) -> Iterator[dict]:
        """A training service's stream as the API answers it: each update with "ok", every failure an error dict."""
        if self._training is None:
            yield error_dict("unavailable", "Training is not enabled on this server.")
            return
        try:
            for update in start(self._training):
                yield {"ok": True, **update}
        except DataUnavailable as exc:
            yield _unavailable(exc)
        except Refused as exc:  # a setting's check: its words name the field, for a page to write as its label
            yield exc.error
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
                "measured": self._training.measured(), "max_run_s": self._training.graces.max_run_s}


def _unavailable(exc: DataUnavailable) -> dict:
    """A dataset that cannot be had: in short, with its details apart, where the exception has a short version."""
    if exc.said is None:
        return error_dict("unavailable", str(exc))
    return said_error("unavailable", exc.said, fix=exc.fix, details=exc.details)
