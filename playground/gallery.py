"""The Inspect tab's examples: each one teaches one thing about how JAX sees a function."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Example:
    name: str
    code: str
    args: str
    static_argnums: str = ""  # as typed in the UI: "1" or "0, 2"
    second_args: str = ""
    pure: bool = True  # the purity check must stay silent on pure examples


EXAMPLES = (
    Example("x + x² + x³ (JAX's introduction)", "def f(x):\n    return x + x*x + x*x*x\n", "jnp.arange(4.0)"),
    Example("tanh", "def f(x):\n    return jnp.tanh(x)\n", "jnp.linspace(-2.0, 2.0, 5)"),
    Example(
        "MLP with a params dict (a pytree)",
        "def relu(x):\n    return jnp.maximum(x, 0)\n\n"
        "def f(params, x):\n    h = relu(x @ params['w1'] + params['b1'])\n"
        "    return h @ params['w2'] + params['b2']\n",
        "({'w1': jnp.ones((3, 4)), 'b1': jnp.zeros(4), 'w2': jnp.ones((4, 2)), 'b2': jnp.zeros(2)}, jnp.arange(3.0))",
    ),
    Example(
        "Python if on a traced value (an error)",
        "def f(x):\n    if x > 0:\n        return x\n    return -x\n", "2.0", pure=False,
    ),
    Example(
        "lax.cond instead of if",
        "def f(x):\n    return lax.cond(x > 0, lambda v: v, lambda v: -v, x)\n", "2.0",
    ),
    Example(
        "lax.fori_loop",
        "def f(x):\n    return lax.fori_loop(0, 10, lambda i, acc: acc + i * x, jnp.zeros_like(x))\n",
        "jnp.ones(3)",
    ),
    Example(
        "lax.scan: a running sum",
        "def f(xs):\n    def step(total, x):\n        total = total + x\n        return total, total\n"
        "    return lax.scan(step, 0.0, xs)\n",
        "jnp.arange(5.0)",
    ),
    Example(
        "An impure function that prints",
        "def f(x):\n    print('x is', x)\n    return x * 2\n", "jnp.arange(3.0)", pure=False,
    ),
    Example(
        "static_argnums: a Python loop unrolled",
        "def f(x, n):\n    for _ in range(n):\n        x = x * 2\n    return x\n",
        "(jnp.ones(3), 3)", static_argnums="1", second_args="(jnp.ones(3), 4)",
    ),
    Example(
        "Retracing on a new shape",
        "def f(x):\n    return jnp.sum(x ** 2)\n", "jnp.ones(3)", second_args="jnp.ones(5)",
    ),
)


# The Compiler tab's examples: the fusion demo at a size where fusion pays, and nested computations to draw.
COMPILER_EXAMPLES = (
    Example("x + x² + x³ on 1000 × 1000 (fusion)", "def f(x):\n    return x + x*x + x*x*x\n",
            "jnp.ones((1000, 1000))"),
    Example("lax.cond", "def f(x):\n    return lax.cond(x.sum() > 0, lambda v: v * 2, lambda v: -v, x)\n",
            "jnp.arange(4.0)"),
    Example("lax.scan: a running sum", EXAMPLES[6].code, EXAMPLES[6].args),
    Example("softmax", "def f(x):\n    e = jnp.exp(x - x.max())\n    return e / e.sum()\n",
            "jnp.linspace(-2.0, 2.0, 1000)"),
    Example("MLP layer: dot + bias + relu", "def f(w, b, x):\n    return jax.nn.relu(x @ w + b)\n",
            "(jnp.ones((256, 128)), jnp.zeros(128), jnp.ones((32, 256)))"),
)


# The Speed of light tab's examples: one of each bound, and jax.checkpoint trading FLOPs for a smaller gradient peak.
SPEED_EXAMPLES = (
    Example("x + x*x + x*x*x (memory-bound)", "def f(x):\n    return x + x*x + x*x*x\n", "jnp.ones((2000, 2000))"),
    Example("matmul (compute-bound)", "def f(a, b):\n    return a @ b\n",
            "jnp.ones((2048, 2048)), jnp.ones((2048, 2048))"),
    Example("layers with jax.checkpoint (remat)",
            "def f(ws, x):\n    def layer(h, w):\n        return jnp.tanh(jnp.sin(h @ w) * 2.0), None\n"
            "    x, _ = lax.scan(jax.checkpoint(layer), x, ws)\n    return x\n",
            "jnp.ones((8, 256, 256)) * 0.01, jnp.ones((1024, 256))"),
)

# The Derivatives tab's presets (f: R -> R). worker/jobs/derivative_references.py knows their closed-form
# derivatives.
DERIVATIVE_PRESETS = {
    "tanh": "def f(x):\n    return jnp.tanh(x)\n",
    "x + x² + x³ (JAX's introduction)": "def f(x):\n    return x + x*x + x*x*x\n",
    "sin": "def f(x):\n    return jnp.sin(x)\n",
    "polynomial": "def f(x):\n    return x**5 - 3*x**3 + 2*x\n",
    "softplus": "def f(x):\n    return jax.nn.softplus(x)\n",
}
GRADIENT_EXAMPLE = (
    "def f(x):\n    return jnp.sum(x**3) + x[0] * x[1]\n",
    "jnp.array([1.0, 2.0, 3.0])",
)


@dataclass(frozen=True)
class VmapPreset:
    code: str
    args: str  # one example's arguments
    in_axes: str


# The Train tab's MLP (playground/mlp.py) as a user would write it: a test keeps the two equal.
_MLP_CODE = '''\
def init_params(key, sizes):
    """One (W, b) pair per layer from an explicit PRNG key; He scaling, W ~ N(0, 2/fan_in), suits ReLU."""
    keys = jax.random.split(key, len(sizes) - 1)
    return [(jax.random.normal(k, (m, n)) * jnp.sqrt(2.0 / m), jnp.zeros(n))
            for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

def predict(params, image):
    """Log-probabilities of the 10 digits for ONE flattened 28x28 image."""
    activations = image
    for w, b in params[:-1]:
        activations = jnp.maximum(jnp.dot(activations, w) + b, 0.0)  # ReLU
    final_w, final_b = params[-1]
    logits = jnp.dot(activations, final_w) + final_b
    return logits - jax.nn.logsumexp(logits)
'''

# The vmap tab's presets: a function for ONE example, that example's arguments, and in_axes.
VMAP_PRESETS = {
    "per-example gradients": VmapPreset(
        "def loss(params, x, y):\n"
        "    prediction = jnp.dot(x, params['w']) + params['b']\n"
        "    return (prediction - y) ** 2\n\n"
        "f = jax.grad(loss)  # the gradient for ONE example; vmap gives one per example\n",
        "({'w': jnp.array([0.5, -1.0, 2.0]), 'b': jnp.array(0.1)}, jnp.array([1.0, 2.0, 3.0]), jnp.array(4.0))",
        "(None, 0, 0)",
    ),
    "batched MLP predict": VmapPreset(
        _MLP_CODE,
        "(init_params(jax.random.key(0), [784, 1024, 1024, 10]), jax.random.uniform(jax.random.key(1), (784,)))",
        "(None, 0)",
    ),
    "x + x² + x³": VmapPreset("def f(x):\n    return x + x*x + x*x*x\n", "jnp.ones(3)", "0"),
}

# The jit tab's default: the benchmark of the AWS article on moving from NumPy to JAX (there on 10⁴ × 10⁴ float32).
JIT_BENCHMARK_CODE = "def fn(x):\n    return x + x*x + x*x*x\n"


@dataclass(frozen=True)
class ShardExample:
    code: str
    args: str
    mesh_shape: str
    axis_names: str
    in_specs: str
    out_specs: str


# The Parallel tab's default: a matmul whose contracting dimension is split over 'model', so the
# devices must add up their partial products (an all-reduce) to get the result.
SHARD_EXAMPLE = ShardExample(
    code="def f(x, w):\n    return jnp.tanh(x @ w)\n",
    args="(jnp.arange(32.0).reshape(8, 4) / 32, jnp.ones((4, 4)))",
    mesh_shape="2, 4",
    axis_names="data, model",
    in_specs="(('data', 'model'), ('model', None))",
    out_specs="('data', None)",
)
