"""The jitted pieces of training, in the device owner: one optimiser step, and many steps in one call.

The loop runs a chunk of steps one of two ways, each compiled ahead of
time for the run's arrays, behind one signature (``RunChunk``), so the loop
does not care which: one call per chunk on a CPU or a TPU
(``compile_chunks``), and blocks of a fixed number of steps queued one after
the other on a GPU (``compile_blocks``). On a GPU or TPU a whole epoch is a
program of its own (epochs.py).

Images stay ``uint8`` rows on the device and become floats inside the
compiled step (pixels.py).

Why chunks and blocks exist: every call of a jitted function costs a
dispatch from Python (tens of microseconds, more on an accelerator), and a
small MLP step may take less than that. Running many steps inside ONE call,
a ``lax.fori_loop`` that slices each batch out of the permuted indices on the
device, pays that cost once per chunk (or block) instead of once per step.

Data-parallel runs compile the same functions over a mesh of devices: the
batch's gather ends in ``lax.with_sharding_constraint`` to a sharding split
along "data", the parameters come in replicated, and XLA's partitioner does
the rest, as the Parallel tab's data-parallel demo shows: each device
computes the loss and gradient of its slice of the batch, and because the
mean over the batch needs every slice, XLA inserts an all-reduce that sums
the gradients, so every device applies the same update to its copy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import numpy as np
import optax
from jax import lax
from jax.sharding import NamedSharding

from playground.mlp import Params, loss
from playground.mnist.config import TrainConfig
from playground.owner.training.pixels import as_float

LOSS_SMOOTHING = 0.98  # the smoothed loss averages roughly the last 1 / (1 - 0.98) = 50 steps
Smoothed = tuple[jax.Array, jax.Array]  # (running average, steps averaged): see smooth_loss


class TrainState(NamedTuple):
    """What the steps carry from one to the next: the parameters, the optimiser's state, the smoothed loss, and
    each step's own loss.

    ``losses`` has one slot per step of an epoch: step ``i`` of an epoch
    writes its batch loss into ``losses[i]`` on the device, inside the
    compiled loop, so a chunk's losses come back in one transfer with its
    state, however many steps it ran (slots outside the chunk hold older
    steps' values: the caller knows which slots a chunk wrote).
    """

    params: Params
    opt_state: optax.OptState
    smoothed: Smoothed
    losses: jax.Array


# run(state, order, first_step, n_steps) -> state: steps first_step, first_step + 1, ... of the epoch whose
# permutation is ``order``. A call is never cut short: the loop asks whether to stop between chunks, and a chunk is
# short. The state may still be computing when run returns (JAX dispatches asynchronously): block on it to wait.
RunChunk = Callable[[TrainState, jax.Array, int, int], TrainState]


def make_optimizer(config: TrainConfig) -> optax.GradientTransformation:
    """The optax optimiser the config names: plain SGD, SGD with momentum 0.9 (heavy ball), or Adam."""
    if config.optimizer == "sgd":
        return optax.sgd(config.learning_rate)
    if config.optimizer == "momentum":
        return optax.sgd(config.learning_rate, momentum=0.9)
    if config.optimizer == "adam":
        return optax.adam(config.learning_rate)
    raise ValueError(f"unknown optimizer {config.optimizer!r}")


def optimizer_step(optimizer: optax.GradientTransformation, params: Params, opt_state: optax.OptState,
                   images: jax.Array, labels: jax.Array) -> tuple[Params, optax.OptState, jax.Array]:
    """One step of ``optimizer`` (SGD, momentum or Adam) on one batch: the loss, its gradient, the update.

    Not jitted itself: ``make_train_chunk``, ``make_train_block`` and epochs.py compile it.
    """
    batch_loss, grads = jax.value_and_grad(loss)(params, as_float(images), labels)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, batch_loss


def smooth_loss(smoothed: Smoothed, batch_loss: jax.Array) -> Smoothed:
    """Fold one batch loss into an exponential moving average (works on jax and numpy scalars alike)."""
    average, count = smoothed
    return average * LOSS_SMOOTHING + (1 - LOSS_SMOOTHING) * batch_loss, count + 1


def smoothed_value(smoothed: Smoothed) -> float | None:
    """The bias-corrected average: the average starts at 0, so after n steps it is divided by 1 - 0.98**n."""
    average, count = (np.asarray(x) for x in smoothed)
    if count == 0:
        return None
    return float(average / (1 - np.float32(LOSS_SMOOTHING) ** count.astype(np.float32)))


def initial_smoothed() -> Smoothed:
    """Nothing averaged yet (host scalars; the first chunk call moves them to the device)."""
    return np.float32(0.0), np.int32(0)


def initial_losses(steps_per_epoch: int) -> np.ndarray:
    """No step's loss yet: a slot per step of an epoch (on the host; the first chunk call moves it)."""
    return np.zeros(steps_per_epoch, np.float32)


def _step(optimizer: optax.GradientTransformation, batch_size: int, batch_sharding: NamedSharding | None,
          images: jax.Array, labels: jax.Array, order: jax.Array) -> Callable[[jax.Array, TrainState], TrainState]:
    """``step(i, state)``: the state after step ``i`` of the permutation ``order`` (the body of every compiled loop),
    its loss written into ``losses[i]``."""
    def step(i, carry):
        params, opt_state, smoothed, losses = carry
        params, opt_state, batch_loss = optimizer_step(
            optimizer, params, opt_state, *batch_of(images, labels, order, i, batch_size, batch_sharding))
        return params, opt_state, smooth_loss(smoothed, batch_loss), losses.at[i].set(batch_loss)
    return step


def make_train_chunk(optimizer: optax.GradientTransformation, batch_size: int,
                     batch_sharding: NamedSharding | None = None) -> Callable:
    """``chunk(params, opt_state, smoothed, losses, images, labels, order, first_step, n_steps)``: ``n_steps`` steps,
    one call.

    Step ``first_step + i`` trains on ``images[order[(first_step + i) * batch_size :][:batch_size]]``
    (``lax.dynamic_slice`` of the permutation, then a gather). ``first_step``
    and ``n_steps`` are traced values, not static ones: a ``fori_loop`` with
    traced bounds lowers to a ``while`` loop, so ONE compiled program serves
    every chunk length the caller picks. The smoothed loss and each step's
    loss (``TrainState.losses``) ride in the loop carry, so the host needs
    nothing back until the chunk ends.

    For a CPU, where XLA runs a loop on the host anyway, and a TPU, which runs
    it on the chip (placement.block_steps). On a GPU, a loop
    whose trip count XLA does not know copies its condition back to the host
    after every turn (a round trip as long as a small MLP's step), and by
    XLA's runtime as read (not measured) the dispatching thread waits at each
    copy, so nothing queues behind the chunk: ``make_train_block`` is the
    GPU's piece.

    ``params`` and ``opt_state`` are donated (the chunk writes the new ones
    into their buffers); ``smoothed`` and ``losses`` are not, so the caller
    can read a chunk's losses after handing its state to the next chunk.

    With ``batch_sharding`` (a data-parallel run) each batch is split along
    it inside the loop: see the module docstring for the all-reduce this adds.
    """
    def chunk(params, opt_state, smoothed, losses, images, labels, order, first_step, n_steps):
        step = _step(optimizer, batch_size, batch_sharding, images, labels, order)
        return lax.fori_loop(first_step, first_step + n_steps, step, (params, opt_state, smoothed, losses))

    return jax.jit(chunk, donate_argnums=(0, 1))


def make_train_block(optimizer: optax.GradientTransformation, batch_size: int,
                     batch_sharding: NamedSharding | None, steps: int) -> Callable:
    """``block(params, opt_state, smoothed, losses, images, labels, order, first_step)``: exactly ``steps`` steps.

    A GPU's piece of a chunk: a loop whose length is known when it
    is compiled runs on a GPU without asking the host between turns, and its
    call returns as soon as the work is queued, so the next block, the
    evaluation and the next chunk queue up behind it while the device works.
    Steps are numbered as in ``make_train_chunk``, with the same donations.
    """
    if steps < 1:
        raise ValueError(f"a block has at least 1 step, got {steps}")

    def block(params, opt_state, smoothed, losses, images, labels, order, first_step):
        step = _step(optimizer, batch_size, batch_sharding, images, labels, order)
        return lax.fori_loop(0, steps, lambda i, carry: step(first_step + i, carry),
                             (params, opt_state, smoothed, losses))

    return jax.jit(block, donate_argnums=(0, 1))


def batch_of(images: jax.Array, labels: jax.Array, order: jax.Array, step: jax.Array, batch_size: int,
             batch_sharding: NamedSharding | None = None) -> tuple[jax.Array, jax.Array]:
    """The batch for ``step`` of the permutation ``order``: a ``dynamic_slice`` of it, then a gather.

    ``batch_sharding`` splits the gathered batch over the devices of a
    data-parallel run; on one device (``None``) there is nothing to split.
    """
    batch = lax.dynamic_slice(order, (step * batch_size,), (batch_size,))
    gathered = images[batch], labels[batch]
    return gathered if batch_sharding is None else lax.with_sharding_constraint(gathered, batch_sharding)


def compile_chunks(optimizer: optax.GradientTransformation, batch_size: int, batch_sharding: NamedSharding | None,
                   state: TrainState, images: jax.Array, labels: jax.Array, order: jax.Array) -> RunChunk:
    """A chunk in one compiled call (``make_train_chunk``), compiled now for these arrays' shapes."""
    chunk = make_train_chunk(optimizer, batch_size, batch_sharding).lower(
        *state, images, labels, order, np.int32(0), np.int32(1)).compile()

    def run(state: TrainState, order: jax.Array, first_step: int, n_steps: int) -> TrainState:
        return TrainState(*chunk(*state, images, labels, order, np.int32(first_step), np.int32(n_steps)))

    return run


def compile_blocks(optimizer: optax.GradientTransformation, batch_size: int, batch_sharding: NamedSharding | None,
                   block_steps: int, steps_per_epoch: int, state: TrainState, images: jax.Array, labels: jax.Array,
                   order: jax.Array) -> RunChunk:
    """A chunk as blocks of ``block_steps`` steps (``make_train_block``), queued one after the other, and an epoch's
    last ``steps_per_epoch % block_steps`` steps as one more block of that length; both compiled now.

    Chunks must start at a whole number of blocks into their epoch (the
    loop's chunks do: their lengths are whole blocks, or the rest of the
    epoch), so that no step is computed and thrown away.
    """
    if not 1 <= block_steps <= steps_per_epoch:
        raise ValueError(f"block_steps must be from 1 to the epoch's {steps_per_epoch} steps, got {block_steps}")
    blocks = {steps: make_train_block(optimizer, batch_size, batch_sharding, steps).lower(
        *state, images, labels, order, np.int32(0)).compile()
        for steps in {block_steps, steps_per_epoch % block_steps} - {0}}

    def run(state: TrainState, order: jax.Array, first_step: int, n_steps: int) -> TrainState:
        if first_step % block_steps or not (n_steps % block_steps == 0 or first_step + n_steps == steps_per_epoch):
            raise ValueError(f"a chunk of {n_steps} steps from step {first_step} is not made of whole "
                             f"{block_steps}-step blocks and the epoch's last steps")
        step, end = first_step, first_step + n_steps
        while step < end:
            steps = min(block_steps, end - step)
            state = TrainState(*blocks[steps](*state, images, labels, order, np.int32(step)))
            step += steps
        return state

    return run

