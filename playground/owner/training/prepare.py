"""Everything a training run needs before its first step: where its arrays live, its first state, its programs.

``prepare`` puts the data and the first state on the device(s) and compiles
the chunk runner and the evaluation ahead of time (``jit(...).lower(...).compile()``),
so that no chunk's timing includes a compile; the loop (loop.py) calls it
after its "compiling" update. ``compile_ahead`` does the same and keeps
nothing: the device owner compiles the default configuration when it starts,
so that JAX's caches hold its programs before anyone presses Start.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax
import numpy as np

from playground.mlp import init_params
from playground.mnist.catalogue import ROLES, ArrayData
from playground.mnist.config import TrainConfig
from playground.owner.training import steps as worker_steps
from playground.owner.training.evaluation import Evaluation
from playground.owner.training.placement import Placement, block_steps
from playground.owner.training.steps import RunChunk, TrainState, make_optimizer

TRAIN_EVAL_SIZE = 10_000  # training images classified at each epoch's end: full MNIST's 60,000 would cost 6 test sets
ESTIMATE_SIZE = 1000  # test images of the quick estimate (and training images of its twin)
ESTIMATE_EVERY_S = 2.0


def placement_for(config: TrainConfig, device: jax.Device | None) -> Placement:
    if not config.data_parallel:
        return Placement.on(device or jax.devices()[0])
    if device is not None:
        raise ValueError("a data-parallel run trains on every local device: pass no `device`")
    placement = Placement.data_parallel()
    n = len(placement.devices)
    if config.batch_size % n:
        raise ValueError(f"`batch_size` {config.batch_size} does not split evenly over {n} devices; "
                         f"use a multiple of {n}")
    return placement


def prepare(config: TrainConfig, data: ArrayData, placement: Placement, multi_step: bool, block: int,
             estimate_size: int, estimate_every_s: float
             ) -> tuple[TrainState, RunChunk, Callable[[int], jax.Array], Evaluation]:
    """Everything before the first step: the first state, the chunk runner, ``epoch_order(epoch)`` (that epoch's
    permutation of the training images) and the evaluation, on the device(s), the runner and the evaluation
    compiled ahead of time (jit(...).lower(...).compile()), so that no chunk's timing includes a compile."""
    # The data goes to the device(s) once; images stay uint8 there (1 byte per pixel). Evaluation runs on the
    # replicated copies: every device classifies the whole test set, simple, and quick beside the training.
    train_images, train_labels = placement.replicate((data.train_images, data.train_labels.astype(np.int32)))
    evaluation = _evaluation(data, placement, estimate_size, estimate_every_s)
    init_key, shuffle_key = jax.random.split(jax.random.key(config.seed))
    optimizer = make_optimizer(config)
    params = init_params(init_key, config.layers)
    state = TrainState(*placement.replicate((params, optimizer.init(params))), worker_steps.initial_smoothed(),
                       worker_steps.initial_losses(len(data.train_labels) // config.batch_size))

    @functools.lru_cache(maxsize=1)  # the epoch's chunks share one permutation; epoch 0's is made here, to compile
    def epoch_order(epoch: int) -> jax.Array:
        return placement.replicate(jax.random.permutation(jax.random.fold_in(shuffle_key, epoch), len(train_labels)))

    compiled = (state, train_images, train_labels, epoch_order(0))
    if not multi_step:
        run_chunk = worker_steps.compile_step_by_step(optimizer, config.batch_size, placement.batch, *compiled)
    elif block == 1:
        run_chunk = worker_steps.compile_chunks(optimizer, config.batch_size, placement.batch, *compiled)
    else:
        run_chunk = worker_steps.compile_blocks(optimizer, config.batch_size, placement.batch, block,
                                                len(data.train_labels) // config.batch_size, *compiled)
    evaluation.compile(state.params)
    return state, run_chunk, epoch_order, evaluation


def _evaluation(data: ArrayData, placement: Placement, estimate_size: int, estimate_every_s: float) -> Evaluation:
    """The test set, its first ``estimate_size`` images, and a training twin of each, as large and spread evenly
    over the training set, so that no stretch of the file stands for all."""
    train_sample = spread(len(data.train_labels), TRAIN_EVAL_SIZE)
    train_estimate = train_sample[spread(len(train_sample), min(estimate_size, len(data.test_labels)))]
    return Evaluation(data, placement.replicate, estimate_size, train_sample, train_estimate, estimate_every_s)


def spread(n: int, k: int) -> np.ndarray:
    """``min(n, k)`` distinct indices evenly spaced over ``range(n)``, first and last included.

    >>> spread(10, 4).tolist(), spread(3, 5).tolist()
    ([0, 3, 6, 9], [0, 1, 2])
    """
    return np.unique(np.linspace(0, n - 1, min(n, k)).round().astype(np.int64))


def checked_arrays(data: object) -> ArrayData:
    """The four arrays as numpy, checked: uint8 28×28 images, integer labels 0-9 of matching length."""
    try:
        arrays = ArrayData(*(np.asarray(getattr(data, role)) for role in ROLES))
    except AttributeError as exc:
        raise ValueError(f"the data needs train_images, train_labels, test_images and test_labels ({exc})") from None
    for split in ("train", "test"):
        images, labels = getattr(arrays, f"{split}_images"), getattr(arrays, f"{split}_labels")
        if images.dtype != np.uint8 or images.ndim != 3 or images.shape[1:] != (28, 28):
            raise ValueError(f"{split}_images must be uint8 of shape (n, 28, 28), got {images.dtype} {images.shape}")
        if labels.shape != (len(images),) or not np.issubdtype(labels.dtype, np.integer):
            raise ValueError(f"{split}_labels must be {len(images):,} integers, got {labels.dtype} {labels.shape}")
        if len(images) == 0:
            raise ValueError(f"there are no {split} images")
        if labels.min() < 0 or labels.max() > 9:
            raise ValueError(f"{split}_labels must be classes 0 to 9, found {labels.min()} to {labels.max()}")
    return arrays


def compile_ahead(config: TrainConfig, data: object, device: jax.Device | None = None) -> None:
    """Compile the programs a run of ``config`` on ``data`` would (with ``train``'s defaults), and run none of its
    steps: they land in JAX's caches, in memory and on disk where the owner keeps one."""
    arrays = checked_arrays(data)
    placement = placement_for(config, device)
    steps_per_epoch = len(arrays.train_labels) // config.batch_size
    if steps_per_epoch < 1:
        raise ValueError(f"`batch_size` {config.batch_size} is larger than the training set")
    prepare(config, arrays, placement, True, min(block_steps(placement), steps_per_epoch), ESTIMATE_SIZE,
            ESTIMATE_EVERY_S)
