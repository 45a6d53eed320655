"""Everything a training run needs before its first step: where its arrays live, its first state, its programs.

``prepare`` puts the data and the first state on the device(s) and compiles
the chunk runner and the evaluation ahead of time (``jit(...).lower(...).compile()``),
so that no chunk's timing includes a compile; the loop (loop.py) calls it
after its "compiling" update. ``compile_ahead`` compiles the same programs
from the arrays' shapes alone, and runs and places nothing: the device owner
compiles the default configuration when it starts, beside the jobs (it needs
no turn of the device), so that JAX's caches hold its programs before anyone
presses Start.

Nothing slow to compile is compiled. The first state (parameters, optimiser
state) is NumPy's, made on the host and copied over, and each epoch's order is
a NumPy permutation of the host's, copied over one epoch ahead: on a TPU v5e a
sort of 60,000 keys (``jax.random.permutation``) took 10-14 s to compile and
0.9 ms an epoch to run, ``mlp.init_params`` 3.5 s to compile there and 8.6 s
on its host's CPU (JAX's random numbers), where a training chunk takes
0.3-0.5 s.
"""

from __future__ import annotations

import functools
from concurrent.futures import Future, ThreadPoolExecutor

import jax
import numpy as np

from playground.mnist.catalogue import ROLES, ArrayData
from playground.mnist.config import IMAGE_PIXELS, TrainConfig
from playground.owner import compile_cache
from playground.owner.training import epochs
from playground.owner.training import steps as worker_steps
from playground.owner.training.evaluation import Evaluation, batch_shape, classify
from playground.owner.training.pixels import as_rows
from playground.owner.training.placement import Placement, block_steps
from playground.owner.training.steps import RunChunk, TrainState, make_optimizer

TRAIN_EVAL_SIZE = 10_000  # training images classified at each epoch's end: full MNIST's 60,000 would cost 6 test sets
ESTIMATE_SIZE = 1000  # test images of the quick estimate (and training images of its twin)
ESTIMATE_EVERY_S = 2.0
_ORDERS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="epoch-orders")  # runs side by side make their own


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


def prepare(config: TrainConfig, data: ArrayData, placement: Placement, block: int, whole_epochs: bool,
            estimate_size: int, estimate_every_s: float
            ) -> tuple[TrainState, RunChunk, EpochOrders, Evaluation]:
    """Everything before the first step: the first state, the chunk runner, the epochs' orders and the evaluation,
    on the device(s), the runner and the evaluation compiled ahead of time (jit(...).lower(...).compile()), so
    that no chunk's timing includes a compile."""
    n_train = len(data.train_labels)
    # The data goes to the device(s) once, as rows of uint8 pixels (pixels.as_rows). Evaluation runs on the
    # replicated copies: every device classifies the whole test set, simple, and quick beside the training.
    train_images, train_labels = placement.replicate((as_rows(data.train_images),
                                                      data.train_labels.astype(np.int32)))
    evaluation = _evaluation(data, placement, estimate_size, estimate_every_s)
    state = TrainState(*placement.replicate(first_state(config)), worker_steps.initial_smoothed(),
                       worker_steps.initial_losses(n_train // config.batch_size))
    orders = EpochOrders(config.seed, n_train, placement)
    run_chunk = _compile(config, placement, block, whole_epochs,
                         (state, train_images, train_labels, orders(0)),
                         set_sizes(n_train, len(data.test_labels), estimate_size))
    return state, run_chunk, orders, evaluation


class EpochOrders:
    """Each epoch's permutation of the training images, on the device(s): ``orders(epoch)``. A NumPy permutation
    of the host's, seeded by the run's seed and the epoch (the same run, the same orders), made and copied over
    when asked for, or before by ``ahead`` on a thread of its own (the loop's thread waits for the device
    meanwhile); the two latest are kept."""

    def __init__(self, seed: int, n_train: int, placement: Placement) -> None:
        self._seed, self._n, self._placement = seed, n_train, placement
        self._made: dict[int, Future] = {}

    def __call__(self, epoch: int) -> jax.Array:
        if epoch not in self._made:
            self.ahead(epoch)
        return self._made[epoch].result()

    def ahead(self, epoch: int) -> None:
        """Start making ``epoch``'s order now, while the device trains: it is on the device before the epoch."""
        if epoch not in self._made:
            self._made[epoch] = _ORDERS.submit(lambda: self._placement.replicate(epoch_order(self._seed, epoch,
                                                                                            self._n)))
            for old in sorted(self._made)[:-2]:
                del self._made[old]


def epoch_order(seed: int, epoch: int, n: int) -> np.ndarray:
    """The order of the ``n`` training images in ``epoch`` of a run seeded ``seed``: int32 indices.

    >>> epoch_order(0, 1, 5).tolist() == epoch_order(0, 1, 5).tolist() != epoch_order(0, 2, 5).tolist()
    True
    """
    return np.random.default_rng([seed, epoch]).permutation(n).astype(np.int32)


def first_state(config: TrainConfig) -> tuple:
    """The run's first parameters and optimiser state, as host (NumPy) arrays, compiling nothing: He-initialised
    weights (``mlp.init_params``'s scaling) from NumPy's generator seeded by the run's seed and the layer, zero
    biases, and the optimiser's state as optax makes it for these three, zeros of its shapes."""
    params = []
    for layer, (n_in, n_out) in enumerate(zip(config.layers[:-1], config.layers[1:], strict=True)):
        weights = np.random.default_rng([config.seed, layer]).standard_normal((n_in, n_out), np.float32)
        params.append((weights * np.float32(np.sqrt(2.0 / n_in)), np.zeros(n_out, np.float32)))
    shapes = jax.eval_shape(make_optimizer(config).init, params)
    return params, jax.tree.map(lambda leaf: np.zeros(leaf.shape, leaf.dtype), shapes)


def _compile(config: TrainConfig, placement: Placement, block: int, whole_epochs: bool, arrays: tuple,
             sizes: tuple[int, ...]) -> RunChunk:
    """The run's chunk runner for ``arrays`` (state, train images, labels, an epoch's order: device arrays, or
    their shapes for ``compile_ahead``) and ``classify`` for the batches of each of the evaluation's sets
    (``set_sizes``), compiled side by side (JAX compiles on several threads at once).

    With ``whole_epochs`` the runner runs whole epochs as a program of their own, compiled now, and the rest of an
    epoch in chunks compiled when a chunk first needs them: the loop then begins with a whole epoch, and on an
    accelerator that trains an epoch within a chunk's time no chunk ever does (on a TPU v5e a compile of both took
    2.2 s where one took 1.3 s; a new configuration's first curve point waits for it).
    """
    optimizer = make_optimizer(config)
    params = arrays[0].params
    steps_per_epoch = arrays[2].shape[0] // config.batch_size
    batches = [jax.ShapeDtypeStruct(shape, np.uint8, sharding=placement.replicated)
               for shape in sorted({batch_shape(n) for n in sizes})]

    def chunks() -> RunChunk:
        if block == 1:
            return worker_steps.compile_chunks(optimizer, config.batch_size, placement.batch, *arrays)
        return worker_steps.compile_blocks(optimizer, config.batch_size, placement.batch, block, steps_per_epoch,
                                           *arrays)

    with ThreadPoolExecutor(max_workers=len(batches)) as compiling:
        classified = [compiling.submit(compile_cache.kept_beside, lambda b=b: classify.lower(params, b).compile())
                      for b in batches]
        if whole_epochs:
            epoch = epochs.compile_epochs(optimizer, config.batch_size, placement.batch, *arrays)
            run_chunk = epochs.with_whole_epochs(functools.cache(chunks), epoch, steps_per_epoch)
        else:
            run_chunk = chunks()
        compile_cache.count(sum(done.result()[1] for done in classified))  # jit's caches keep the programs
    return run_chunk


def _evaluation(data: ArrayData, placement: Placement, estimate_size: int, estimate_every_s: float) -> Evaluation:
    """The test set, its first ``estimate_size`` images, and a training twin of each, as large and spread evenly
    over the training set, so that no stretch of the file stands for all."""
    _, _, sample, twin = set_sizes(len(data.train_labels), len(data.test_labels), estimate_size)
    train_sample = spread(len(data.train_labels), sample)
    train_estimate = train_sample[spread(sample, twin)]
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
    """Compile the programs a run of ``config`` on ``data`` would (with ``train``'s defaults) from their shapes:
    nothing runs on the device and nothing is put there, so the owner needs no turn of it. The programs land in
    JAX's caches, in memory and on disk where the owner keeps one."""
    arrays = checked_arrays(data)
    placement = placement_for(config, device)
    n_train, n_test = len(arrays.train_labels), len(arrays.test_labels)
    steps_per_epoch = n_train // config.batch_size
    if steps_per_epoch < 1:
        raise ValueError(f"`batch_size` {config.batch_size} is larger than the training set")
    first = first_state(config)

    def placed(shape: tuple[int, ...], dtype) -> jax.ShapeDtypeStruct:
        return jax.ShapeDtypeStruct(shape, dtype, sharding=placement.replicated)

    # As prepare has them: the first state and the data placed, the smoothed loss and the losses still the host's.
    state = TrainState(*jax.tree.map(lambda leaf: placed(leaf.shape, leaf.dtype), first),
                       tuple(jax.ShapeDtypeStruct((), np.asarray(x).dtype) for x in worker_steps.initial_smoothed()),
                       jax.ShapeDtypeStruct((steps_per_epoch,), np.float32))
    shapes = (state, placed((n_train, IMAGE_PIXELS), np.uint8), placed((n_train,), np.int32),
              placed((n_train,), np.int32))
    _compile(config, placement, min(block_steps(placement), steps_per_epoch), placement.whole_epochs, shapes,
             set_sizes(n_train, n_test, ESTIMATE_SIZE))


def set_sizes(n_train: int, n_test: int, estimate_size: int) -> tuple[int, int, int, int]:
    """How many images the evaluation's four sets hold: the test set, the quick estimate, the training sample and
    its estimate twin (``_evaluation`` makes them so)."""
    estimate = min(estimate_size, n_test)
    sample = min(n_train, TRAIN_EVAL_SIZE)
    return n_test, estimate, sample, min(sample, estimate)
