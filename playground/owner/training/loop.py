"""The training loop, in the device owner: data -> steps -> losses -> evaluation, one update per chunk of steps.

    data = ArrayData(images[:8000], labels[:8000], images[8000:], labels[8000:])  # uint8 (n, 28, 28), labels (n,)
    for update in train(TrainConfig(epochs=2), data):
        print(update["phase"], update["step"], update["loss"], update["test_accuracy"], update["epoch_accuracy"])

    compiling 0 None None None
    training 4 1.90 0.387 None       (chunks of 4, 8, 16, ... steps, growing until one takes ~update_every_s;
    training 12 1.23 0.387 None       the quick estimate on 1,000 test images is refreshed every ~2 s)
    training 62 0.64 0.8935 0.8935   (an epoch ends: the full test set, 62 = 8000 // 128 steps)
    finishing 124 0.36 0.8935 None   (the last chunk is done; the whole test set is measured next)
    training 124 0.36 0.9405 0.9405  (the final update: done=True, params, test_predictions)

(the real MNIST test digits, split 8,000 / 2,000, on 2 CPU cores: 2.1 s in all.)

Where the rest lives:
- data: prepare.py puts the images, the first state and each epoch's order on the device(s) and compiles the
  programs ahead of time; placement.py says where (one device, or all of them for ``data_parallel``);
- steps: steps.py runs a chunk of optimiser steps in one compiled call, epochs.py a whole epoch as one program (on
  an accelerator);
- losses: each step's loss is written on the device (``steps.TrainState.losses``) and read one chunk behind by
  pipeline.py (``Queued.report``), whose ``Pace`` sizes the chunks: a run of N steps sends exactly N losses;
- evaluation: evaluation.py, the quick estimate and its training twin every ~2 s, the full test set and a training
  sample at each epoch's end (``epoch_ends``: a TPU ends many an update), the final measurement;
- around it: runs.py streams a run's updates to the server, turns.py shares the device with the jobs (``pause``).
api.train's docstring says what each key of an update means.

The loop keeps the device busy: it queues the next chunk (and the measurement after this one) before it waits
for a chunk and reports it. A stop (``should_stop()`` returns True; asked before every chunk and every
``pipeline.STOP_POLL_S`` while the host waits) ends the run after the chunk running and the one queued behind it; the
update before the last then has the phase ``finishing`` (and ``stopped``), sent at once, so a caller that waits
a moment for a stop can tell a loop that is wrapping up from one that ignores it. All state is local to one call:
two trainings side by side share nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import jax

from playground.mnist.catalogue import ArrayData
from playground.mnist.config import TrainConfig
from playground.mnist.updates import blank
from playground.owner.training.pipeline import FIRST_CHUNK_STEPS, Pace, Part, Queued, take, wait_unless_stopped
from playground.owner.training.placement import Placement, block_steps
from playground.owner.training.prepare import ESTIMATE_EVERY_S, ESTIMATE_SIZE, checked_arrays, placement_for, prepare

CHUNK_TARGET = 0.8  # aim a chunk at 80% of update_every_s, so the jitter stays inside the promised interval
Pause = Callable[[list, Callable[[], bool]], float | None]  # (the work on its way, should_stop) -> when seen done


def train(config: TrainConfig, data: object, should_stop: Callable[[], bool] = lambda: False, *,
          update_every_s: float = 0.25, estimate_every_s: float = ESTIMATE_EVERY_S,
          estimate_size: int = ESTIMATE_SIZE, block: int | None = None, whole_epochs: bool | None = None,
          device: jax.Device | None = None, pause: Pause = lambda queued, should_stop: None) -> Iterator[dict]:
    """Train on ``data`` (any object with train/test images and labels) on ``device``, yielding metric dicts.

    A chunk's steps run in one compiled call on a CPU or TPU (``steps.compile_chunks``) and in blocks of ``block``
    steps on a GPU (``steps.compile_blocks``; ``block`` defaults to ``block_steps(placement)``, and a ``block``
    above 1 makes a CPU run blocks too). ``whole_epochs`` runs each whole epoch of a chunk as one program of its
    own (``epochs.make_train_epoch``; None: where ``placement.whole_epochs`` says, an accelerator).
    ``config.data_parallel`` trains on every local device instead of ``device`` (``Placement.data_parallel``).
    Bad data, a batch larger than the training set or one that does not split over the devices raise ValueError
    here, at the call, not at the first ``next()``. ``pause(queued, should_stop)`` is called at each chunk's edge
    with the arrays of the work on its way (the device owner's turns, owner/turns.py): it may wait for them and
    hold the run; it returns when it saw them done, or None.
    """
    arrays = checked_arrays(data)
    n_train = len(arrays.train_labels)
    if config.batch_size > n_train:
        raise ValueError(f"`batch_size` {config.batch_size} is larger than the {n_train:,} training images")
    if update_every_s <= 0 or estimate_every_s <= 0 or estimate_size < 1 or (block is not None and block < 1):
        raise ValueError("update_every_s and estimate_every_s must be positive, estimate_size and block at least 1")
    placement = placement_for(config, device)
    return _stream(config, arrays, should_stop, update_every_s, estimate_every_s, estimate_size, block,
                   placement.whole_epochs if whole_epochs is None else whole_epochs, placement, pause)


def _stream(config: TrainConfig, data: ArrayData, should_stop: Callable[[], bool], update_every_s: float,
            estimate_every_s: float, estimate_size: int, block: int | None, whole_epochs: bool,
            placement: Placement, pause: Pause) -> Iterator[dict]:
    started = time.perf_counter()
    # Each epoch drops the last n_train % batch_size images of its permutation (a different few each epoch):
    # every batch then has the same shape, and one compiled step serves them all.
    steps_per_epoch = len(data.train_labels) // config.batch_size
    total_steps = steps_per_epoch * config.epochs
    block = min(block or block_steps(placement), steps_per_epoch)
    metrics = _first_metrics(config, data, placement)
    yield dict(metrics)

    state, run_chunk, orders, evaluation = prepare(config, data, placement, block, whole_epochs, estimate_size,
                                                   estimate_every_s)
    metrics["phase"] = "training"

    # A pipeline one chunk deep: chunk k+1 (and chunk k's measurement) is queued before the host waits for chunk
    # k and reports it, so the device never idles while the host sends an update or measures the time.
    # A run of whole epochs begins with one (prepare._compile): no other chunk is compiled before its first step.
    step, stopped = 0, False
    pace = Pace(CHUNK_TARGET * update_every_s, block, config.batch_size,
                steps_per_epoch if whole_epochs else FIRST_CHUNK_STEPS)
    queued: Queued | None = None
    unreported: list[Queued] = []  # after a stop: the chunks still on their way, reported in the final update
    for pieces in pace.chunks(config.epochs, steps_per_epoch):
        if queued is not None:
            queued.done_at = pause(queued.arrays(), should_stop)
        if should_stop():
            stopped = True
            break
        state, chunk = _queue(pieces, state, step, total_steps, steps_per_epoch, run_chunk, orders, evaluation)
        step = chunk.step
        if queued is not None:
            if not wait_unless_stopped(queued.arrays(), should_stop):
                stopped, unreported = True, [queued, chunk]  # no update of their own: the final one has their losses
                break
            queued.report(metrics, pace, started)
            yield take(metrics)
        queued = chunk
    if not unreported and queued is not None:
        unreported = [queued]
    # "finishing": no step will be queued any more. At the end of the run, once its last chunk is done; after a stop
    # at once, so that the server hears it within its short grace, however long the chunks still queued and the
    # epoch's measurement take (the final update waits for them).
    if not stopped:
        for chunk in unreported:
            chunk.report(metrics, pace, started)
        unreported = []
    yield take(metrics, phase="finishing", stopped=stopped, elapsed_s=time.perf_counter() - started)
    for chunk in unreported:
        chunk.unmeasured().report(metrics, pace, started)  # the final update measures
    pause([], lambda: False)  # a stop may have cut a pause short: the final measurement waits for its turn
    yield evaluation.final_update(metrics, state.params, stopped, not stopped and step == total_steps, started)


def _queue(pieces: list, state, step: int, total_steps: int, steps_per_epoch: int, run_chunk, orders,
           evaluation) -> tuple:
    """Queue a chunk's pieces on the device, each epoch's end measured after it (the chunk's last piece: the quick
    estimate when due, unless it is the run's last step, which the final update measures): the state after them,
    and the chunk on its way (``Queued``)."""
    chunk = Queued([], steps_per_epoch, time.perf_counter())
    for piece in pieces:
        if (piece.epoch + 1) * steps_per_epoch < total_steps:
            orders.ahead(piece.epoch + 1)  # made while the device trains
        state = run_chunk(state, orders(piece.epoch), piece.first, piece.steps)
        step += piece.steps
        measured = None if step == total_steps else evaluation.start(
            state.params, epoch_ended=piece.first + piece.steps == steps_per_epoch)
        chunk.parts.append(Part(step, piece.first, piece.steps, state.smoothed, state.losses, measured))
    return state, chunk


def _first_metrics(config: TrainConfig, data: ArrayData, placement: Placement) -> dict:
    """The first update's metrics, while the steps compile: every key a later update has, nothing measured yet."""
    return blank("compiling", config.epochs, samples_per_s=0.0, device=placement.describe(),
                 devices=len(placement.devices), n_train=len(data.train_labels), n_test=len(data.test_labels))
