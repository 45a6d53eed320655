"""The Pallas tab's examples: each a kernel, the function that calls it, and its plain-jnp reference.

Their shapes keep to a TPU's (8, 128) tiles, so that each runs on the chip as it is, except the last, whose mistake
the tab's check finds.
"""

from __future__ import annotations

from dataclasses import dataclass

IMPORT = "from jax.experimental import pallas as pl\n\n"


@dataclass(frozen=True)
class KernelExample:
    name: str
    code: str
    args: str
    mistake: str = ""  # the finding the tab's check reports for it ("" for a correct kernel)


ELEMENTWISE = KernelExample("Elementwise: x + y, one block per program", IMPORT + '''\
def add_kernel(x_ref, y_ref, o_ref):
    # Each program instance sees one (8, 128) block of each array.
    o_ref[...] = x_ref[...] + y_ref[...]


def f(x, y):
    block = pl.BlockSpec((8, 128), lambda i: (i, 0))
    return pl.pallas_call(
        add_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 8,),
        in_specs=[block, block],
        out_specs=block,
    )(x, y)


def reference(x, y):
    return x + y
''', "jnp.arange(32 * 128.0).reshape(32, 128), jnp.ones((32, 128))")

MATMUL = KernelExample("Tiled matmul with BlockSpecs", IMPORT + '''\
def matmul_kernel(x_ref, y_ref, o_ref):
    # The grid's last axis, k, walks along the shared dimension: each
    # (i, j) block of the output adds up x's row of blocks times y's column.
    @pl.when(pl.program_id(2) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += x_ref[...] @ y_ref[...]


def f(x, y, block=128):
    m, k = x.shape
    n = y.shape[1]
    return pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        grid=(m // block, n // block, k // block),
        in_specs=[pl.BlockSpec((block, block), lambda i, j, k: (i, k)),
                  pl.BlockSpec((block, block), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((block, block), lambda i, j, k: (i, j)),
    )(x, y)


def reference(x, y, block=128):
    return x @ y
''', "jax.random.normal(jax.random.key(0), (256, 256)), jax.random.normal(jax.random.key(1), (256, 256))")

SOFTMAX = KernelExample("Row softmax: a reduction inside each block", IMPORT + '''\
def softmax_kernel(x_ref, o_ref):
    # A block holds whole rows, so each row's max and sum stay in one program.
    x = x_ref[...]
    e = jnp.exp(x - x.max(axis=1, keepdims=True))
    o_ref[...] = e / e.sum(axis=1, keepdims=True)


def f(x):
    rows = pl.BlockSpec((8, x.shape[1]), lambda i: (i, 0))
    return pl.pallas_call(
        softmax_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 8,),
        in_specs=[rows],
        out_specs=rows,
    )(x)


def reference(x):
    return jax.nn.softmax(x, axis=1)
''', "jax.random.normal(jax.random.key(0), (64, 256))")

FUSED = KernelExample("Fused matmul + bias + ReLU", IMPORT + '''\
def dense_relu_kernel(x_ref, w_ref, b_ref, o_ref):
    # One kernel does what XLA would fuse: the product, the bias, the ReLU,
    # without writing the product to memory in between.
    o_ref[...] = jnp.maximum(x_ref[...] @ w_ref[...] + b_ref[...], 0.0)


def f(x, w, b):
    m, n = x.shape[0], w.shape[1]
    return pl.pallas_call(
        dense_relu_kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        grid=(m // 128, n // 128),
        in_specs=[pl.BlockSpec((128, x.shape[1]), lambda i, j: (i, 0)),
                  pl.BlockSpec((w.shape[0], 128), lambda i, j: (0, j)),
                  pl.BlockSpec((1, 128), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((128, 128), lambda i, j: (i, j)),
    )(x, w, b)


def reference(x, w, b):
    return jnp.maximum(x @ w + b, 0.0)
''', "jax.random.normal(jax.random.key(0), (256, 256)), jax.random.normal(jax.random.key(1), (256, 256)), "
     "jnp.linspace(-1.0, 1.0, 256).reshape(1, 256)")

MISTAKE = KernelExample("A classic mistake: a grid that misses blocks", IMPORT + '''\
def double_kernel(x_ref, o_ref):
    o_ref[...] = 2 * x_ref[...]


def f(x):
    block = pl.BlockSpec((8, 128), lambda i: (i, 0))
    return pl.pallas_call(
        double_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 16,),  # the blocks are 8 rows high: half the rows are never written
        in_specs=[block],
        out_specs=block,
    )(x)


def reference(x):
    return 2 * x
''', "jnp.ones((64, 128))", mistake="missed")

EXAMPLES = (ELEMENTWISE, MATMUL, SOFTMAX, FUSED, MISTAKE)
