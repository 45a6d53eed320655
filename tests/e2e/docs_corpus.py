"""Snippets from JAX's own documentation, as the playground's endpoints take them, with what the docs say happens.

Each ``Entry`` is one code cell (or docstring example) of JAX's documentation,
adapted only as far as the app's form needs: the code defines the function the
app picks (the one named ``f``, else the last top-level ``def``), and the
arguments are one Python expression evaluated with ``jax``, ``jnp``, ``np`` and
``lax`` in scope (and the code's own names). ``adapted`` says what was changed.

``expect`` is either ``Ok`` (the reply succeeds, and its numbers equal plain JAX
run on the same code in the test process, plus the docs' own claims listed in
the entry) or ``Fails`` (the docs show an error on purpose: the reply is an
error of that kind, on the user's line, naming the exception plain JAX raises,
and it teaches a fix).

Pages are paths in github.com/jax-ml/jax at ``DOCS_COMMIT`` (the newest docs
snapshot): jit-compilation, the Sharp Bits, thinking_in_jax, control-flow,
automatic-differentiation, automatic-vectorization, pytrees (formerly
working-with-pytrees), key-concepts, random-numbers, stateful-computations, the
advanced-autodiff pages (higher-order, jacobian-vector-products, custom
derivative rules) and parallel. ``sharded-computation.md`` was folded into
``parallel.md`` there, so its entries cite the file at ``SHARDED_COMMIT``, its
last version. Docstring examples cite the source file of the function, as
installed (JAX 0.10.2).

Endpoints are the real ``api_name``s: ``/inspect``, ``/derivatives``,
``/gradient``, ``/vmap``, ``/jit_speed`` (the jit benchmark) and ``/shard`` (the
Parallel tab).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Any

DOCS_COMMIT = "cec06d116c05f0d52adfceee3d3b730fdbcb0ce5"
SHARDED_COMMIT = "eaa32d470f4c7e062feed96175d6fdd976b52fdc"

JIT_PAGE = "docs/jit-compilation.md"
GOTCHAS = "docs/notebooks/Common_Gotchas_in_JAX.md"
THINKING = "docs/notebooks/thinking_in_jax.md"
CONTROL = "docs/control-flow.md"
AUTODIFF = "docs/automatic-differentiation.md"
VECTORIZE = "docs/automatic-vectorization.md"
PYTREES = "docs/pytrees.md (was working-with-pytrees.md)"
CONCEPTS = "docs/key-concepts.md"
RANDOM = "docs/random-numbers.md"
STATEFUL = "docs/stateful-computations.md"
HIGHER = "docs/higher-order.md (advanced_autodiff)"
JVP = "docs/jacobian-vector-products.md (advanced_autodiff)"
SHARDED = f"docs/sharded-computation.md@{SHARDED_COMMIT[:10]}"
PARALLEL = "docs/parallel.md"
LAX_NUMPY = "jax/_src/numpy/lax_numpy.py docstring"
LOOPS = "jax/_src/lax/control_flow/loops.py docstring"
API = "jax/_src/api.py docstring"
ARRAY_METHODS = "jax/_src/numpy/array_methods.py docstring"

INSPECT, DERIVATIVES, GRADIENT, VMAP, JIT_SPEED, SHARD = (
    "/inspect", "/derivatives", "/gradient", "/vmap", "/jit_speed", "/shard")


@dataclass(frozen=True)
class Ok:
    """The reply succeeds; its numbers are compared with plain JAX, and these docs claims are checked too.

    ``values``: numbers the docs print (an inspect result as a Python literal;
    for /derivatives ``{x: [f, f', ...]}``). ``stdout``: the reply's output equals
    what plain JAX prints tracing and running the function. ``purity``: "clean"
    (no finding) or "flagged" (a finding on one of ``purity_lines``, or anywhere if none are given).
    """

    function: str
    values: Any = None
    stdout: bool = False
    purity: str | None = None
    purity_lines: tuple[int, ...] = ()
    retraced: bool | None = None
    warnings: tuple[str, ...] = ()
    quiet: bool = False  # the reply carries no warning: the docs show this as the right way
    absent_primitives: tuple[str, ...] = ()
    jaxpr: bool = False  # the docs print this jaxpr: the reply's equals plain JAX's make_jaxpr, word for word
    input_leaves: int | None = None
    collectives: tuple[str, ...] = ()  # /shard: at least one of these is in the compiled program
    same_placement: bool = False  # /shard: the output is laid out like the first input
    fused_kernels: int | None = None  # /jit_speed


@dataclass(frozen=True)
class Fails:
    """The docs show an error on purpose: an error reply of ``kind`` on the line containing ``line_with``.

    The reply's message names the exception plain JAX raises on the same code
    (under ``jax.jit``; for /derivatives, ``jax.grad``), and the reply teaches a
    fix (a non-empty ``fix`` or ``hint``).
    """

    line_with: str
    kind: str = "user_exception"
    teaches: bool = True

    def line(self, code: str) -> int:
        found = [n for n, text in enumerate(code.splitlines(), 1) if self.line_with in text]
        if len(found) != 1:
            raise ValueError(f"{self.line_with!r} is on lines {found} of the code, not on exactly one")
        return found[0]


@dataclass(frozen=True)
class Entry:
    id: str
    page: str  # path, then the section
    endpoint: str
    code: str
    arguments: dict  # the endpoint's other arguments, by name (playground/server/api.py)
    docs_say: str
    expect: Ok | Fails
    adapted: str = ""
    tags: tuple[str, ...] = field(default=())


def code(*parts: str) -> str:
    """The parts, each dedented, joined: one snippet's source."""
    return "".join(textwrap.dedent(part).lstrip("\n") for part in parts)


def inspect(args: str = "", static_argnums: list[int] | None = None, second_args: str = "") -> dict:
    return {"args": args, "static_argnums": static_argnums, "second_args": second_args}


def derivatives(order: int, x_min: float, x_max: float, points: int) -> dict:
    return {"order": order, "x_min": x_min, "x_max": x_max, "points": points}


def vmap(args: str, in_axes: str = "0", out_axes: str = "0", batch_sizes: tuple[int, ...] = (2, 16)) -> dict:
    return {"args": args, "in_axes": in_axes, "out_axes": out_axes, "batch_sizes": list(batch_sizes)}


def shard(args: str, mesh_shape: list[int], axis_names: list[str], in_specs: str, out_specs: str) -> dict:
    return {"args": args, "mesh_shape": mesh_shape, "axis_names": axis_names, "in_specs": in_specs,
            "out_specs": out_specs}


JIT_SIZES = {"sizes": [10, 100], "repeats": 3}

# -- shared pieces of code, as the pages define them ------------------------------------------

LOGISTIC = """
key = jax.random.key(0)

def sigmoid(x):
  return 0.5 * (jnp.tanh(x / 2) + 1)

# Outputs probability of a label being true.
def predict(W, b, inputs):
  return sigmoid(jnp.dot(inputs, W) + b)

# Build a toy dataset.
inputs = jnp.array([[0.52, 1.12,  0.77],
                    [0.88, -1.08, 0.15],
                    [0.52, 0.06, -1.30],
                    [0.74, -2.49, 1.39]])
targets = jnp.array([True, True, False, True])

# Training loss is the negative log-likelihood of the training examples.
def loss(W, b):
  preds = predict(W, b, inputs)
  label_probs = preds * targets + (1 - preds) * (1 - targets)
  return -jnp.sum(jnp.log(label_probs))

# Initialize random model coefficients
key, W_key, b_key = jax.random.split(key, 3)
W = jax.random.normal(W_key, (3,))
b = jax.random.normal(b_key, ())
"""

TD = """
# Value function and initial parameters
value_fn = lambda theta, state: jnp.dot(theta, state)
theta = jnp.array([0.1, -0.1, 0.])

# An example transition.
s_tm1 = jnp.array([1., 2., -1.])
r_t = jnp.array(1.)
s_t = jnp.array([2., 1., 0.])
"""

SUM_LOGISTIC = """
from jax import grad

def sum_logistic(x):
  return jnp.sum(1.0 / (1.0 + jnp.exp(-x)))
"""

SELU = """
def selu(x, alpha=1.67, lambda_=1.05):
  return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
"""

CONVOLVE = """
def convolve(x, w):
  output = []
  for i in range(1, len(x)-1):
    output.append(jnp.dot(x[i-1:i+2], w))
  return jnp.array(output)
"""

CONVOLVE_ARGS = "(jnp.arange(5), jnp.array([2., 3., 4.]))"

# -- jit-compilation.md -------------------------------------------------------------------------

JIT_ENTRIES = [
    Entry("jit-log2-side-effect", f"{JIT_PAGE} § How JAX transformations work", INSPECT, code("""
        global_list = []

        def log2(x):
          global_list.append(x)
          ln_x = jnp.log(x)
          ln_2 = jnp.log(2.0)
          return ln_x / ln_2
        """), inspect("3.0"),
        "log2(3.0) is traced to log, log, div; the jaxpr has nothing for global_list.append(x): impure "
        "functions are dangerous under transformations.",
        Ok("log2", purity="flagged", purity_lines=(4,), jaxpr=True)),
    Entry("jit-print-traced", f"{JIT_PAGE} § How JAX transformations work", INSPECT, code("""
        def log2_with_print(x):
          print("printed x:", x)
          ln_x = jnp.log(x)
          ln_2 = jnp.log(2.0)
          return ln_x / ln_2
        """), inspect("3."),
        "print runs only while tracing, and the printed x is a traced object, not 3.0.",
        Ok("log2_with_print", stdout=True, jaxpr=True)),
    Entry("jit-rank-branch", f"{JIT_PAGE} § How JAX transformations work", INSPECT, code("""
        def log2_if_rank_2(x):
          if x.ndim == 2:
            ln_x = jnp.log(x)
            ln_2 = jnp.log(2.0)
            return ln_x / ln_2
          else:
            return x

        """), inspect("jax.numpy.array([1, 2, 3])"),
        "The jaxpr only knows the branch taken: for a rank-1 input it just returns x, with no log.",
        Ok("log2_if_rank_2", values=[1, 2, 3], absent_primitives=("log",), jaxpr=True)),
    Entry("jit-if-on-value", f"{JIT_PAGE} § Why can't we just JIT everything?", INSPECT, code("""
        # Condition on value of x.

        def f(x):
          if x > 0:
            return x
          else:
            return 2 * x
        """), inspect("10"),
        "jax.jit(f)(10) raises an error: the trace-time control flow is conditioned on a runtime value.",
        Fails("if x > 0:")),
    Entry("jit-while-on-value", f"{JIT_PAGE} § Why can't we just JIT everything?", INSPECT, code("""
        # While loop conditioned on x and n.

        def g(x, n):
          i = 0
          while i < n:
            i += 1
          return x + i
        """), inspect("(10, 20)"),
        "jax.jit(g)(10, 20) raises an error: the while loop is conditioned on the traced n.",
        Fails("while i < n:")),
    Entry("jit-static-argnums", f"{JIT_PAGE} § Marking arguments as static", INSPECT, code("""
        def f(x):
          if x > 0:
            return x
          else:
            return 2 * x

        f_jit_correct = jax.jit(f, static_argnums=0)
        """), inspect("10"),
        "f_jit_correct = jax.jit(f, static_argnums=0); f_jit_correct(10) prints 10.",
        Ok("f_jit_correct", values=10),
        adapted="The app's static_argnums box is left empty: the user's own jit says it."),
    Entry("jit-static-argnames", f"{JIT_PAGE} § Marking arguments as static", INSPECT, code("""
        def g(x, n):
          i = 0
          while i < n:
            i += 1
          return x + i

        g_jit_correct = jax.jit(g, static_argnames=['n'])
        """), inspect("(10, 20)"),
        "g_jit_correct = jax.jit(g, static_argnames=['n']); g_jit_correct(10, 20) prints 30.",
        Ok("g_jit_correct", values=30)),
    Entry("jit-decorator-factory", f"{JIT_PAGE} § Marking arguments as static", INSPECT, code("""
        @jax.jit(static_argnames=['n'])
        def g_jit_decorated(x, n):
          i = 0
          while i < n:
            i += 1
          return x + i
        """), inspect("(10, 20)"),
        "With the decorator factory pattern, g_jit_decorated(10, 20) prints 30.",
        Ok("g_jit_decorated", values=30)),
    Entry("jitdoc-partial-static", f"{API} of jax.jit § Examples", INSPECT, code("""
        from functools import partial

        @partial(jax.jit, static_argnames=['n'])
        def g(x, n):
          for i in range(n):
            x = x ** 2
          return x
        """), inspect("(jnp.arange(4), 3)"),
        "g(jnp.arange(4), 3) is Array([   0,    1,  256, 6561], dtype=int32).",
        Ok("g", values=[0, 1, 256, 6561])),
    Entry("jitdoc-selu-random-input", f"{API} of jax.jit § Examples", INSPECT, code("""
        @jax.jit
        def selu(x, alpha=1.67, lmbda=1.05):
          return lmbda * jax.numpy.where(x > 0, x, alpha * jax.numpy.exp(x) - alpha)
        """), inspect("jax.random.normal(jax.random.key(0), (10,))"),
        "selu is compiled into a single fused kernel; print(selu(x)) shows ten values.",
        Ok("selu")),
]

# -- Common_Gotchas_in_JAX (the Sharp Bits) ----------------------------------------------------

PRINT_SIDE_EFFECT = code("""
    def impure_print_side_effect(x):
      print("Executing function")  # This is a side-effect
      return x
    """)

GOTCHA_ENTRIES = [
    Entry("sharp-print-cached-call", f"{GOTCHAS} § Pure functions", INSPECT, PRINT_SIDE_EFFECT,
          inspect("4.", second_args="5."),
          "The side effect appears during the first run; a second call with the same type and shape uses the "
          "cached compilation and does not print.",
          Ok("impure_print_side_effect", values=4.0, stdout=True, retraced=False)),
    Entry("sharp-print-new-type", f"{GOTCHAS} § Pure functions", INSPECT, PRINT_SIDE_EFFECT,
          inspect("4.", second_args="jnp.array([5.])"),
          "JAX re-runs the Python function when the type or shape of the argument changes.",
          Ok("impure_print_side_effect", values=4.0, stdout=True, retraced=True)),
    Entry("sharp-saves-global", f"{GOTCHAS} § Pure functions", INSPECT, code("""
        g = 0.
        def impure_saves_global(x):
          global g
          g = x
          return x
        """), inspect("4."),
        "The call returns 4.0, but the saved global has an internal JAX value (a tracer).",
        Ok("impure_saves_global", values=4.0, purity="flagged", purity_lines=(3, 4))),
    Entry("sharp-pure-internal-state", f"{GOTCHAS} § Pure functions", INSPECT, code("""
        def pure_uses_internal_state(x):
          state = dict(even=0, odd=0)
          for i in range(10):
            state['even' if i % 2 == 0 else 'odd'] += x
          return state['even'] + state['odd']
        """), inspect("5."),
        "A function can be functionally pure even if it uses stateful objects internally: it prints 50.0.",
        Ok("pure_uses_internal_state", values=50.0, purity="clean")),
    Entry("sharp-fori-loop-iterator", f"{GOTCHAS} § Pure functions (iterators)", INSPECT, code("""
        iterator = iter(range(10))

        def f(init):
          return lax.fori_loop(0, 10, lambda i,x: x+next(iterator), init)
        """), inspect("0"),
        "With an iterator in the body: unexpected result 0 (the body is traced once).",
        Ok("f", values=0),
        adapted="The loop's initial value 0 is the function's argument."),
    Entry("sharp-scan", f"{GOTCHAS} § Pure functions (iterators)", INSPECT, code("""
        def func11(arr, extra):
            ones = jnp.ones(arr.shape)
            def body(carry, aelems):
                ae1, ae2 = aelems
                return (carry + ae1 * ae2 + extra, carry)
            return lax.scan(body, 0., (arr, ones))
        """), inspect("(jnp.arange(16), 5.)"),
        "make_jaxpr(func11)(jnp.arange(16), 5.) traces a scan over the array.",
        Ok("func11", jaxpr=True)),
    Entry("sharp-inplace-update", f"{GOTCHAS} § In-place updates", INSPECT, code("""
        def f(jax_array):
          # In place update of JAX's array will yield an error!
          jax_array[1, :] = 1.0
          return jax_array
        """), inspect("jnp.zeros((3,3), dtype=jnp.float32)"),
        "In-place indexed updating on a jax.Array raises an error; use x.at[idx].set(y).",
        Fails("jax_array[1, :] = 1.0")),
    Entry("sharp-at-set", f"{GOTCHAS} § Array updates: x.at[idx].set(y)", INSPECT, code("""
        def f(jax_array):
          updated_array = jax_array.at[1, :].set(1.0)
          return updated_array
        """), inspect("jnp.zeros((3,3), dtype=jnp.float32)"),
        "The update returns a new array with row 1 set to ones.",
        Ok("f", values=[[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])),
    Entry("sharp-iadd-rebinds", f"{GOTCHAS} § In-place updates", INSPECT, code("""
        def f(jax_array):
          jax_array_new = jax_array
          jax_array_new += 10
          return jax_array_new, jax_array
        """), inspect("jnp.array([10, 20])"),
        "`jax_array_new += 10` rebinds to [20, 30]; the original stays [10, 20].",
        Ok("f", values=([20, 30], [10, 20]))),
    Entry("sharp-out-of-bounds-clamped", f"{GOTCHAS} § Out-of-bounds indexing", INSPECT, code("""
        def f(x):
          return x[11]
        """), inspect("jnp.arange(10)"),
        "jnp.arange(10)[11] is clamped to the last value: 9.",
        Ok("f", values=9)),
    Entry("sharp-out-of-bounds-fill", f"{GOTCHAS} § Out-of-bounds indexing", INSPECT, code("""
        def f(x):
          return x.at[11].get(mode='fill', fill_value=jnp.nan)
        """), inspect("jnp.arange(10.0)"),
        "jnp.arange(10.0).at[11].get(mode='fill', fill_value=jnp.nan) is nan.",
        Ok("f", values=float("nan"))),
    Entry("sharp-list-to-sum", f"{GOTCHAS} § Non-array inputs: NumPy vs. JAX", INSPECT, code("""
        def f(x):
          return jnp.sum(x)
        """), inspect("[1, 2, 3]"),
        "jnp.sum([1, 2, 3]) returns a helpful error: JAX does not convert lists to arrays implicitly; "
        "use jnp.array(x).",
        Fails("return jnp.sum(x)")),
    Entry("sharp-permissive-sum", f"{GOTCHAS} § Non-array inputs: NumPy vs. JAX", INSPECT, code("""
        def permissive_sum(x):
          return jnp.sum(jnp.array(x))
        """), inspect("list(range(10))"),
        "permissive_sum(list(range(10))) is 45, but its jaxpr has one input per list element (10).",
        Ok("permissive_sum", values=45, input_leaves=10, jaxpr=True)),
    Entry("sharp-boolean-mask", f"{GOTCHAS} § Dynamic shapes", INSPECT, code("""
        def nansum(x):
          mask = ~jnp.isnan(x)  # boolean mask selecting non-nan values
          x_without_nans = x[mask]
          return x_without_nans.sum()
        """), inspect("jnp.array([1, 2, jnp.nan, 3, 4])"),
        "jax.jit(nansum)(x) errors: the size of x_without_nans depends on the values in x.",
        Fails("x_without_nans = x[mask]")),
    Entry("sharp-where-instead", f"{GOTCHAS} § Dynamic shapes", INSPECT, code("""
        @jax.jit
        def nansum_2(x):
          mask = ~jnp.isnan(x)  # boolean mask selecting non-nan values
          return jnp.where(mask, x, 0).sum()
        """), inspect("jnp.array([1, 2, jnp.nan, 3, 4])"),
        "The three-argument jnp.where avoids the dynamic shape: 10.0.",
        Ok("nansum_2", values=10.0)),
    Entry("sharp-float64-truncated", f"{GOTCHAS} § Double (64bit) precision", INSPECT, code("""
        from jax import random

        def f(key):
          return random.uniform(key, (1000,), dtype=jnp.float64)
        """), inspect("random.key(0)"),
        "By default JAX enforces single precision: x.dtype is float32, with a warning that float64 is not "
        "available.",
        Ok("f", warnings=("float64",)),
        adapted="The key is the function's argument."),
]

CUSTOM_CLASS_ENTRIES = [
    Entry("sharp-jit-method-self", f"{GOTCHAS} § Using jax.jit with class methods", INSPECT, code("""
        import jax.numpy as jnp
        from jax import jit

        class CustomClass:
          def __init__(self, x: jnp.ndarray, mul: bool):
            self.x = x
            self.mul = mul

          @jit  # <---- How to do this correctly?
          def calc(self, y):
            if self.mul:
              return self.x * y
            return y

        def f(y):
          c = CustomClass(2, True)
          return c.calc(y)
        """), inspect("3"),
        "c.calc(3) fails: the first argument is self, a CustomClass, which JAX does not know how to handle; "
        "use a jitted helper, a static self, or register the class as a pytree.",
        Fails("return c.calc(y)"), adapted="The call c = CustomClass(2, True); c.calc(3) is the function f(y)."),
    Entry("sharp-jit-helper", f"{GOTCHAS} § Strategy 1: JIT-compiled helper function", INSPECT, code("""
        from jax import jit

        class CustomClass:
          def __init__(self, x: jnp.ndarray, mul: bool):
            self.x = x
            self.mul = mul

          def calc(self, y):
            return _calc(self.mul, self.x, y)

        @jit(static_argnums=0)
        def _calc(mul, x, y):
          if mul:
            return x * y
          return y

        def f(y):
          c = CustomClass(2, True)
          return c.calc(y)
        """), inspect("3"),
        "With a jitted helper whose first argument is static, print(c.calc(3)) prints 6.",
        Ok("f", values=6), adapted="The call c = CustomClass(2, True); c.calc(3) is the function f(y)."),
    Entry("sharp-jit-static-self", f"{GOTCHAS} § Strategy 2: Marking self as static", INSPECT, code("""
        from jax import jit

        class CustomClass:
          def __init__(self, x: jnp.ndarray, mul: bool):
            self.x = x
            self.mul = mul

          @jit(static_argnums=0)
          def calc(self, y):
            if self.mul:
              return self.x * y
            return y

          def __hash__(self):
            return hash((self.x, self.mul))

          def __eq__(self, other):
            return (isinstance(other, CustomClass) and
                    (self.x, self.mul) == (other.x, other.mul))

        def f(y):
          c = CustomClass(2, True)
          return c.calc(y)
        """), inspect("3"),
        "With self static (and __hash__/__eq__ defined), print(c.calc(3)) prints 6.",
        Ok("f", values=6), adapted="The call c = CustomClass(2, True); c.calc(3) is the function f(y)."),
    Entry("sharp-jit-pytree-class", f"{GOTCHAS} § Strategy 3: Making CustomClass a PyTree", INSPECT, code("""
        from jax import jit, tree_util

        class CustomClass:
          def __init__(self, x: jnp.ndarray, mul: bool):
            self.x = x
            self.mul = mul

          @jit
          def calc(self, y):
            if self.mul:
              return self.x * y
            return y

          def _tree_flatten(self):
            children = (self.x,)  # arrays / dynamic values
            aux_data = {'mul': self.mul}  # static values
            return (children, aux_data)

          @classmethod
          def _tree_unflatten(cls, aux_data, children):
            return cls(*children, **aux_data)

        tree_util.register_pytree_node(CustomClass,
                                       CustomClass._tree_flatten,
                                       CustomClass._tree_unflatten)

        def f(c, y):
          return c.calc(y)
        """), inspect("(CustomClass(jnp.array(2), True), 3)"),
        "A registered pytree goes through jit: c = CustomClass(jnp.array(2), True); print(c.calc(3)) prints 6 "
        "(non-hashable x is supported).",
        Ok("f", values=6, input_leaves=2),
        adapted="The object is an argument of f(c, y), which calls the jitted method."),
    Entry("sharp-cond-iterator", f"{GOTCHAS} § Pure functions (iterators)", INSPECT, code("""
        def f():
          iter_operand = iter(range(10))
          return lax.cond(True, lambda x: next(x)+1, lambda x: next(x)-1, iter_operand) # throws error
        """), inspect(""),
        "lax.cond with an iterator operand throws an error: an iterator is not a JAX type.",
        Fails("return lax.cond(True, lambda x: next(x)+1"),
        adapted="Wrapped in a function of no arguments."),
]

CUSTOM_JVP = """
from jax import custom_jvp

@custom_jvp
def log1pexp(x):
  return jnp.log(1. + jnp.exp(x))

@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
  x, = primals
  x_dot, = tangents
  ans = log1pexp(x)
  ans_dot = (1 - 1/(1 + jnp.exp(x))) * x_dot
  return ans, ans_dot
"""

CUSTOM_RULES = "docs/notebooks/Custom_derivative_rules_for_Python_code.md (advanced_autodiff)"

CUSTOM_JVP_ENTRIES = [
    Entry("custom-grad-nan", f"{CUSTOM_RULES} § Example: Numerical stability", INSPECT, code("""
        from jax import grad

        def log1pexp(x):
          return jnp.log(1. + jnp.exp(x))

        f = grad(log1pexp)
        """), inspect("100."),
        "Without a rule, grad(log1pexp)(100.) is nan (inf / inf in the derivative).",
        Ok("f", values=float("nan")), adapted="`f = grad(log1pexp)` so the app runs it."),
    Entry("custom-jvp-grad", f"{CUSTOM_RULES} § Example: Numerical stability", INSPECT, code(CUSTOM_JVP, """
        from jax import grad
        f = grad(log1pexp)
        """), inspect("100."),
        "With the custom_jvp rule, print(grad(log1pexp)(100.)) prints 1.0.",
        Ok("f", values=1.0), adapted="`f = grad(log1pexp)` so the app runs it."),
    Entry("custom-jvp-derivatives", f"{CUSTOM_RULES} § Example: Numerical stability", DERIVATIVES,
          code(CUSTOM_JVP), derivatives(2, -3.0, 3.0, 7),
          "jit(grad(log1pexp)) works with the rule: f' is the sigmoid, 1 - 1/(1 + e^x).",
          Ok("log1pexp"), adapted="none: the app runs log1pexp, not its rule log1pexp_jvp, defined after it."),
    Entry("custom-vjp-clip-gradient", f"{CUSTOM_RULES} § Example: Gradient clipping", INSPECT, code("""
        from jax import custom_vjp

        @custom_vjp
        def clip_gradient(lo, hi, x):
          return x  # identity function

        def clip_gradient_fwd(lo, hi, x):
          return x, (lo, hi)  # save bounds as residuals

        def clip_gradient_bwd(res, g):
          lo, hi = res
          return (None, None, jnp.clip(g, lo, hi))  # use None to indicate zero cotangents for lo and hi

        clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)
        """), inspect("-0.75, 0.75, 2.0"),
        "clip_gradient is the identity function: its value is its x.",
        Ok("clip_gradient", values=2.0), adapted="none: the app runs clip_gradient, not the rules passed to defvjp."),
]

# -- thinking_in_jax ------------------------------------------------------------------------

THINKING_ENTRIES = [
    Entry("think-norm", f"{THINKING} § Just-in-time compilation with jax.jit", INSPECT, code("""
        import jax.numpy as jnp

        def norm(X):
          X = X - X.mean(0)
          return X / X.std(0)
        """), inspect("jnp.array(np.random.RandomState(1701).rand(10000, 10))"),
        "norm_compiled(X) is allclose to norm(X) (atol 1e-6).",
        Ok("norm"),
        adapted="np.random.seed(1701); np.random.rand(...) written as RandomState(1701).rand(...)."),
    Entry("think-negatives", f"{THINKING} § Just-in-time compilation with jax.jit", INSPECT, code("""
        def get_negatives(x):
          return x[x < 0]
        """), inspect("jnp.array(np.random.RandomState(1701).randn(10))"),
        "jit(get_negatives)(x) fails: the output shape depends on the values of x.",
        Fails("return x[x < 0]")),
    Entry("think-grad", f"{THINKING} § Taking derivatives with jax.grad", INSPECT, code(SUM_LOGISTIC, """
        derivative_fn = grad(sum_logistic)
        """), inspect("jnp.arange(3.)"),
        "grad(sum_logistic)(x_small) is the logistic function's derivative at 0, 1, 2.",
        Ok("derivative_fn")),
    Entry("think-hessian", f"{THINKING} § Taking derivatives with jax.grad", INSPECT, code(SUM_LOGISTIC, """
        from jax import jacfwd, jacrev, jit
        def hessian(fun):
          return jit(jacfwd(jacrev(fun)))
        f = hessian(sum_logistic)
        """), inspect("jnp.arange(3.)"),
        "hessian(sum_logistic)(x_small) is a diagonal 3 x 3 matrix.",
        Ok("f"), adapted="`f = hessian(sum_logistic)` so the app runs it."),
    Entry("think-debug-print", f"{THINKING} § Debugging (jax.debug.print)", INSPECT, code("""
        @jax.jit
        def f(x):
          jax.debug.print("jax.debug.print(x) -> {x}", x=x)
          y = jnp.sin(x)
          jax.debug.print("jax.debug.print(y) -> {y}", y=y)
          return y
        """), inspect("2."),
        "jax.debug.print shows the runtime values: x -> 2.0 and y -> sin(2.0); it is the way to see values "
        "under jit (print only sees tracers).",
        Ok("f", stdout=True, quiet=True)),
]

# -- control-flow.md ------------------------------------------------------------------------------

EXAMPLE_FUN = code("""
    from jax import jit

    def example_fun(length, val):
      return jnp.ones((length,)) * val
    """)

CONTROL_ENTRIES = [
    Entry("cf-cond-array-predicate", "jax/_src/lax/control_flow/conditionals.py docstring (cond: pred must be a "
          "scalar)", INSPECT, code("""
        def f(x):
          return lax.cond(x > 0, lambda x: x, lambda x: -x, x)
        """), inspect("jnp.array([1., -2.])"),
        "pred must be a scalar: lax.cond picks one branch; a choice per element is jnp.where's.",
        Fails("return lax.cond(x > 0")),
    Entry("cf-for-unrolled", f"{CONTROL} § Control flow and logical operators with JIT", INSPECT, code("""
        from jax import jit

        @jit
        def f(x):
          for i in range(3):
            x = 2 * x
          return x
        """), inspect("3"),
        "A Python for loop over range(3) works under jit: f(3) prints 24.",
        Ok("f", values=24)),
    Entry("cf-if-fails", f"{CONTROL} § Control flow and logical operators with JIT", INSPECT, code("""
        from jax import jit

        @jit
        def f(x):
          if x < 3:
            return 3. * x ** 2
          else:
            return -4 * x
        """), inspect("2"),
        "f(2) fails: `if x < 3` needs a concrete bool from a traced value.",
        Fails("if x < 3:")),
    Entry("cf-and-fails", f"{CONTROL} § Control flow and logical operators with JIT", INSPECT, code("""
        from jax import jit

        @jit
        def g(x):
          return (x > 0) and (x < 3)
        """), inspect("2"),
        "g(2) fails: `and` short-circuits on a traced bool.",
        Fails("return (x > 0) and (x < 3)")),
    Entry("cf-static-argnames-x", f"{CONTROL} § Control flow and logical operators with JIT", INSPECT, code("""
        from jax import jit

        def f(x):
          if x < 3:
            return 3. * x ** 2
          else:
            return -4 * x

        f = jit(f, static_argnames='x')
        """), inspect("2."),
        "With static_argnames='x', f(2.) prints 12.0.",
        Ok("f", values=12.0)),
    Entry("cf-static-argnames-n", f"{CONTROL} § Control flow and logical operators with JIT", INSPECT, code("""
        from jax import jit

        def f(x, n):
          y = 0.
          for i in range(n):
            y = y + x[i]
          return y

        f = jit(f, static_argnames='n')
        """), inspect("(jnp.array([2., 3., 4.]), 2)"),
        "The loop is statically unrolled: f(jnp.array([2., 3., 4.]), 2) is 5.0.",
        Ok("f", values=5.0)),
    Entry("cf-value-dependent-shape", f"{CONTROL} § argument-value dependent shapes", INSPECT, code(EXAMPLE_FUN, """

        bad_example_jit = jit(example_fun)
        """), inspect("(10, 4)"),
        "bad_example_jit(10, 4) fails: the shape of jnp.ones depends on the value of length.",
        Fails("return jnp.ones((length,)) * val"),
        adapted="The app jits example_fun itself, as bad_example_jit does."),
    Entry("cf-value-shape-static", f"{CONTROL} § argument-value dependent shapes", INSPECT, code(EXAMPLE_FUN, """

        # static_argnames tells JAX to recompile on changes at these argument positions:
        good_example_jit = jit(example_fun, static_argnames='length')
        """), inspect("(10, 4)", second_args="(5, 4)"),
        "good_example_jit(10, 4) is ten 4s; good_example_jit(5, 4) recompiles.",
        Ok("good_example_jit", values=[4.0] * 10, retraced=True)),
    Entry("cf-print-in-jit", f"{CONTROL} § argument-value dependent shapes", INSPECT, code("""
        from jax import jit

        @jit
        def f(x):
          print(x)
          y = 2 * x
          print(y)
          return y
        """), inspect("2"),
        "Printing inside jit shows tracers, not values; f(2) is 4.",
        Ok("f", values=4, stdout=True)),
    Entry("cf-cond", f"{CONTROL} § Structured control flow primitives: cond", INSPECT, code("""
        from jax import lax

        def f(operand):
          return (lax.cond(True, lambda x: x+1, lambda x: x-1, operand),
                  lax.cond(False, lambda x: x+1, lambda x: x-1, operand))
        """), inspect("jnp.array([0.])"),
        "lax.cond(True, ...) gives array([1.]); lax.cond(False, ...) gives array([-1.]).",
        Ok("f", values=([1.0], [-1.0]))),
    Entry("cf-while-loop", f"{CONTROL} § Structured control flow primitives: while_loop", INSPECT, code("""
        cond_fun = lambda x: x < 10
        body_fun = lambda x: x+1

        def f(init_val):
          return lax.while_loop(cond_fun, body_fun, init_val)
        """), inspect("0"),
        "lax.while_loop(cond_fun, body_fun, 0) --> array(10, dtype=int32).",
        Ok("f", values=10), adapted="init_val is the function's argument."),
    Entry("cf-fori-loop", f"{CONTROL} § Structured control flow primitives: fori_loop", INSPECT, code("""
        start = 0
        stop = 10
        body_fun = lambda i,x: x+i

        def f(init_val):
          return lax.fori_loop(start, stop, body_fun, init_val)
        """), inspect("0"),
        "lax.fori_loop(0, 10, body_fun, 0) --> array(45, dtype=int32).",
        Ok("f", values=45), adapted="init_val is the function's argument."),
    Entry("cf-logical-and", f"{CONTROL} § Logical operators", INSPECT, code("""
        from jax import jit

        @jit
        def jax_check_positive_even(x):
          is_even = x % 2 == 0
          # `logical_and` does not short circuit, so `x > 0` is always evaluated.
          return jnp.logical_and(is_even, x > 0)
        """), inspect("jnp.array([-1, 2, 5])"),
        "On an array, jnp.logical_and gives elementwise values: [False  True False].",
        Ok("jax_check_positive_even", values=[False, True, False])),
    Entry("cf-python-and-on-array", f"{CONTROL} § Logical operators", INSPECT, code("""
        def python_check_positive_even(x):
          is_even = x % 2 == 0
          # `and` short-circults, so when `is_even` is `False`, `x > 0` is not evaluated.
          return is_even and (x > 0)
        """), inspect("jnp.array([-1, 2, 5])"),
        "Python's `and` on an array of more than one element errors, even without jit; use jnp.logical_and.",
        Fails("return is_even and (x > 0)")),
]

# -- key-concepts.md ------------------------------------------------------------------------------

CONCEPT_ENTRIES = [
    Entry("concepts-tracing-print", f"{CONCEPTS} § Tracing", INSPECT, code("""
        @jax.jit
        def f(x):
          print(x)
          return x + 1
        """), inspect("jnp.arange(5)"),
        "print(x) shows a tracer with the shape and dtype of x, not its values.",
        Ok("f", values=[1, 2, 3, 4, 5], stdout=True)),
    Entry("concepts-lax-add-strict", f"{CONCEPTS} § JAX API layering: NumPy, lax & XLA", INSPECT, code("""
        from jax import lax

        def f():
          return lax.add(1, 1.0)  # jax.lax API requires explicit type promotion.
        """), inspect(""),
        "lax.add(1, 1.0) raises: jax.lax requires explicit type promotion (jnp.add promotes).",
        Fails("return lax.add(1, 1.0)"), adapted="Wrapped in a function of no arguments."),
    Entry("concepts-convolve", f"{CONCEPTS} § JAX API layering: NumPy, lax & XLA", INSPECT, code("""
        def f(x, y):
          return jnp.convolve(x, y)
        """), inspect("(jnp.array([1, 2, 1]), jnp.ones(10))"),
        "jnp.convolve(x, y) is the full convolution, 12 values.",
        Ok("f", values=[1.0, 3.0] + [4.0] * 8 + [3.0, 1.0])),
    Entry("concepts-pytree-list", f"{CONCEPTS} § Pytrees", INSPECT, code("""
        def f(params):
          return jax.tree.leaves(params)
        """), inspect("[1, 2, (jnp.arange(3), jnp.ones(2))]"),
        "The nested list has the leaves 1, 2, [0 1 2] and [1. 1.].",
        Ok("f", values=[1, 2, [0, 1, 2], [1.0, 1.0]], input_leaves=4),
        adapted="The docs print jax.tree.leaves(params); the function returns them."),
    Entry("concepts-pytree-dict", f"{CONCEPTS} § Pytrees", INSPECT, code("""
        def f(params):
          return jax.tree.leaves(params)
        """), inspect("{'n': 5, 'W': jnp.ones((2, 2)), 'b': jnp.zeros(2)}"),
        "The dict's leaves come in key order: W, b, n.",
        Ok("f", values=[[[1.0, 1.0], [1.0, 1.0]], [0.0, 0.0], 5], input_leaves=3),
        adapted="The docs print jax.tree.leaves(params); the function returns them."),
    Entry("concepts-pytree-namedtuple", f"{CONCEPTS} § Pytrees", INSPECT, code("""
        from typing import NamedTuple

        class Params(NamedTuple):
          a: int
          b: float

        def f(params):
          return params
        """), inspect("(Params(1, 5.0),)"),
        "A NamedTuple is a pytree: its leaves are 1 and 5.0.",
        Ok("f", values=(1, 5.0), input_leaves=2),
        adapted="The NamedTuple goes in and comes back out (a one-tuple around it: a tuple of arguments "
                "would be several)."),
]

# -- pytrees.md -----------------------------------------------------------------------------------

PYTREE_ENTRIES = [
    Entry("pytrees-tree-map", f"{PYTREES} § Common function: jax.tree.map", INSPECT, code("""
        def f(list_of_lists):
          return jax.tree.map(lambda x: x*2, list_of_lists)
        """), inspect("[[1, 2, 3], [1, 2], [1, 2, 3, 4]]"),
        "Every leaf doubled: [[2, 4, 6], [2, 4], [2, 4, 6, 8]].",
        Ok("f", values=[[2, 4, 6], [2, 4], [2, 4, 6, 8]], input_leaves=9)),
    Entry("pytrees-mlp-update", f"{PYTREES} § Example of jax.tree.map with ML model parameters", INSPECT, code("""
        import numpy as np

        def init_mlp_params(layer_widths):
          params = []
          for n_in, n_out in zip(layer_widths[:-1], layer_widths[1:]):
            params.append(
                dict(weights=np.random.normal(size=(n_in, n_out)) * np.sqrt(2/n_in),
                     biases=np.ones(shape=(n_out,))
                    )
            )
          return params

        np.random.seed(0)
        params = init_mlp_params([1, 128, 128, 1])

        # Define the forward pass.
        def forward(params, x):
          *hidden, last = params
          for layer in hidden:
            x = jax.nn.relu(x @ layer['weights'] + layer['biases'])
          return x @ last['weights'] + last['biases']

        # Define the loss function.
        def loss_fn(params, x, y):
          return jnp.mean((forward(params, x) - y) ** 2)

        # Set the learning rate.
        LEARNING_RATE = 0.0001

        # Using the stochastic gradient descent, define the parameter update function.
        # Apply `@jax.jit` for JIT compilation (speed).
        @jax.jit
        def update(params, x, y):
          # Calculate the gradients with `jax.grad`.
          grads = jax.grad(loss_fn)(params, x, y)
          # Note that `grads` is a pytree with the same structure as `params`.
          # `jax.grad` is one of many JAX functions that has
          # built-in support for pytrees.
          # This is useful - you can apply the SGD update using JAX pytree utilities.
          return jax.tree.map(
              lambda p, g: p - LEARNING_RATE * g, params, grads
          )

        xs = np.linspace(-1, 1, 128).reshape(128, 1)
        ys = xs ** 2
        """), inspect("(params, xs, ys)"),
        "update returns params of the same structure (a list of dicts of weights and biases), one SGD step on.",
        Ok("update", input_leaves=8),
        adapted="np.random.seed(0) added so the worker and the test build the same params; the page gives no "
                "data, so xs, ys = a grid on [-1, 1] and its square."),
    Entry("pytrees-nodes-not-leaves", f"{PYTREES} § Mistaking pytree nodes for leaves", INSPECT, code("""
        def f(a_tree):
          # Try to make another pytree with ones instead of zeros.
          shapes = jax.tree.map(lambda x: x.shape, a_tree)
          return jax.tree.map(jnp.ones, shapes)
        """), inspect("[jnp.zeros((2, 3)), jnp.zeros((3, 4))]"),
        "The shape tuples are pytree nodes, so jnp.ones is applied to each integer: ones(2), ones(3), ones(3), "
        "ones(4).",
        Ok("f", values=[([1.0, 1.0], [1.0, 1.0, 1.0]), ([1.0, 1.0, 1.0], [1.0] * 4)])),
    Entry("pytrees-transpose", f"{PYTREES} § Transposing pytrees", INSPECT, code("""
        def tree_transpose(list_of_trees):
          \"\"\"
          Converts a list of trees of identical structure into a single tree of lists.
          \"\"\"
          return jax.tree.map(lambda *xs: list(xs), *list_of_trees)
        """), inspect("[dict(t=1, obs=3), dict(t=2, obs=4)]"),
        "Row-major to column-major: {'obs': [3, 4], 't': [1, 2]}.",
        Ok("tree_transpose", values={"obs": [3, 4], "t": [1, 2]})),
    Entry("pytrees-unsortable-keys", f"{PYTREES} § Dictionary keys must be sortable", INSPECT, code("""
        def f():
          return jax.tree.map(lambda x: x + 1, {1: 7, "y": 42})
        """), inspect(""),
        "jax.tree.map over a dict with keys 1 and 'y' raises: dictionary keys must be sortable.",
        Fails('return jax.tree.map(lambda x: x + 1, {1: 7, "y": 42})'),
        adapted="Wrapped in a function of no arguments."),
]

# -- random-numbers.md ----------------------------------------------------------------------------

RANDOM_ENTRIES = [
    Entry("random-same-key", f"{RANDOM} § Explicit random state", INSPECT, code("""
        from jax import random

        def f(key):
          return random.normal(key), random.normal(key)
        """), inspect("random.key(42)"),
        "The same key gives the same number twice.",
        Ok("f"), adapted="The key is the function's argument."),
    Entry("random-split-loop", f"{RANDOM} § Explicit random state", INSPECT, code("""
        from jax import random

        def f(key):
          vals = []
          for i in range(3):
            new_key, subkey = random.split(key)
            del key  # The old key is consumed by split() -- we must never use it again.

            val = random.normal(subkey)
            del subkey  # The subkey is consumed by normal().

            vals.append(val)
            key = new_key  # new_key is safe to use in the next iteration.
          return jnp.stack(vals)
        """), inspect("random.key(42)"),
        "Three draws from three subkeys, three different numbers.",
        Ok("f"), adapted="The draws are returned instead of printed."),
    Entry("random-split-keys-out", f"{RANDOM} § Explicit random state", INSPECT, code("""
        from jax import random

        def f(key):
          key, subkey = random.split(key)
          return key, subkey
        """), inspect("random.key(42)"),
        "random.split(key) gives two new typed keys.",
        Ok("f"), adapted="The keys are returned."),
    Entry("random-no-sequential-equivalence", f"{RANDOM} § Lack of sequential equivalence", INSPECT, code("""
        from jax import random

        def f(key):
          subkeys = random.split(key, 3)
          sequence = jnp.stack([random.normal(subkey) for subkey in subkeys])
          return sequence, random.normal(key, shape=(3,))
        """), inspect("random.key(42)"),
        "Drawing individually from split keys differs from drawing all at once.",
        Ok("f"), adapted="np.stack written jnp.stack (inside jit NumPy cannot stack tracers)."),
]

# -- stateful-computations.md ---------------------------------------------------------------------

LINEAR = """
from typing import NamedTuple

class Params(NamedTuple):
  weight: jnp.ndarray
  bias: jnp.ndarray


def init(rng) -> Params:
  \"\"\"Returns the initial model params.\"\"\"
  weights_key, bias_key = jax.random.split(rng)
  weight = jax.random.normal(weights_key, ())
  bias = jax.random.normal(bias_key, ())
  return Params(weight, bias)
"""

STATEFUL_ENTRIES = [
    Entry("optax-step", "optax docs/getting_started.ipynb § Basic usage (the update step)", INSPECT, code("""
        import optax

        optimizer = optax.adam(learning_rate=1e-2)
        params = {'w': jnp.ones((3,))}
        opt_state = optimizer.init(params)

        def loss(params, x, y):
          return jnp.mean(optax.l2_loss(x @ params['w'], y))

        def step(params, opt_state, x, y):
          grads = jax.grad(loss)(params, x, y)
          updates, opt_state = optimizer.update(grads, opt_state, params)
          params = optax.apply_updates(params, updates)
          return params, opt_state
        """), inspect("params, opt_state, jnp.ones((4, 3)), jnp.zeros(4)"),
        "An optax step is a pure function: the new parameters and state are returned.",
        Ok("step", purity="clean"), adapted="the update step of optax's guide as one function."),
    Entry("stateful-counter", f"{STATEFUL} § A simple example: Counter", INSPECT, code("""
        class Counter:
          \"\"\"A simple counter.\"\"\"

          def __init__(self):
            self.n = 0

          def count(self) -> int:
            \"\"\"Increments the counter and returns the new value.\"\"\"
            self.n += 1
            return self.n

          def reset(self):
            \"\"\"Resets the counter to zero.\"\"\"
            self.n = 0


        counter = Counter()
        counter.reset()
        fast_count = jax.jit(counter.count)
        """), inspect("", second_args="()"),
        "fast_count() prints 1 every time: the state change happens once, while tracing, and the compiled "
        "program returns the constant 1.",
        Ok("fast_count", values=1, retraced=False, purity="flagged")),
    Entry("stateful-counter-v2", f"{STATEFUL} § The solution: explicit state", INSPECT, code("""
        CounterState = int

        class CounterV2:

          def count(self, n: CounterState) -> tuple[int, CounterState]:
            # You could just return n+1, but here we separate its role as
            # the output and as the counter state for didactic purposes.
            return n+1, n+1

          def reset(self) -> CounterState:
            return 0

        counter = CounterV2()
        fast_count = jax.jit(counter.count)
        """), inspect("counter.reset()"),
        "With explicit state, fast_count(state) returns (1, 1) from state 0.",
        Ok("fast_count", values=(1, 1))),
    Entry("stateful-sgd-update", f"{STATEFUL} § Simple worked example: Linear Regression", INSPECT, code(LINEAR, """

        def loss(params: Params, x: jnp.ndarray, y: jnp.ndarray) -> jnp.ndarray:
          \"\"\"Computes the least squares error of the model's predictions on x against y.\"\"\"
          pred = params.weight * x + params.bias
          return jnp.mean((pred - y) ** 2)


        LEARNING_RATE = 0.005

        @jax.jit
        def update(params: Params, x: jnp.ndarray, y: jnp.ndarray) -> Params:
          \"\"\"Performs one SGD update step on params using the given data.\"\"\"
          grad = jax.grad(loss)(params, x, y)
          new_params = jax.tree.map(
              lambda param, g: param - g * LEARNING_RATE, params, grad)

          return new_params

        rng = jax.random.key(42)

        # Generate true data from y = w*x + b + noise
        true_w, true_b = 2, -1
        x_rng, noise_rng = jax.random.split(rng)
        xs = jax.random.normal(x_rng, (128, 1))
        noise = jax.random.normal(noise_rng, (128, 1)) * 0.5
        ys = xs * true_w + true_b + noise
        """), inspect("(init(rng), xs, ys)"),
        "update(params, xs, ys) returns new Params, one SGD step on.",
        Ok("update"), adapted="The comments about optimizer state are left out; one step, not 1000."),
]

# -- automatic-differentiation.md, higher-order.md, jacobian-vector-products.md ----------------------

AUTODIFF_ENTRIES = [
    Entry("autodiff-grad-argnums", f"{AUTODIFF} § 2. Computing gradients in a linear logistic regression", INSPECT,
          code(LOGISTIC, """
        from jax import grad
        f = grad(loss, (0, 1))
        """), inspect("(W, b)"),
        "grad(loss, (0, 1))(W, b) gives W_grad and b_grad together.",
        Ok("f"), adapted="`f = grad(loss, (0, 1))` so the app runs it."),
    Entry("autodiff-grad-dict", f"{AUTODIFF} § 3. Differentiating with respect to nested lists, tuples, and dicts",
          INSPECT, code(LOGISTIC, """
        from jax import grad

        def loss2(params_dict):
            preds = predict(params_dict['W'], params_dict['b'], inputs)
            label_probs = preds * targets + (1 - preds) * (1 - targets)
            return -jnp.sum(jnp.log(label_probs))

        f = grad(loss2)
        """), inspect("{'W': W, 'b': b}"),
        "grad(loss2)({'W': W, 'b': b}) is a dict with the same keys.",
        Ok("f"), adapted="`f = grad(loss2)` so the app runs it."),
    Entry("autodiff-value-and-grad", f"{AUTODIFF} § 4. Evaluating a function and its gradient", INSPECT,
          code(LOGISTIC, """
        f = jax.value_and_grad(loss, (0, 1))
        """), inspect("(W, b)"),
        "value_and_grad gives the loss value (equal to loss(W, b)) and both gradients.",
        Ok("f"), adapted="`f = jax.value_and_grad(loss, (0, 1))` so the app runs it."),
    Entry("autodiff-stop-gradient", f"{HIGHER} § Stopping gradients", INSPECT, code(TD, """
        def td_loss(theta, s_tm1, r_t, s_t):
          v_tm1 = value_fn(theta, s_tm1)
          target = r_t + value_fn(theta, s_t)
          return -0.5 * ((jax.lax.stop_gradient(target) - v_tm1) ** 2)

        td_update = jax.grad(td_loss)
        """), inspect("(theta, s_tm1, r_t, s_t)"),
        "With stop_gradient the TD(0) update is [1.2, 2.4, -1.2].",
        Ok("td_update", values=[1.2, 2.4, -1.2])),
    Entry("autodiff-per-example-grads", f"{HIGHER} § Per-example gradients", INSPECT, code(TD, """
        def td_loss(theta, s_tm1, r_t, s_t):
          v_tm1 = value_fn(theta, s_tm1)
          target = r_t + value_fn(theta, s_t)
          return -0.5 * ((jax.lax.stop_gradient(target) - v_tm1) ** 2)

        perex_grads = jax.jit(jax.vmap(jax.grad(td_loss), in_axes=(None, 0, 0, 0)))

        # Test it:
        batched_s_tm1 = jnp.stack([s_tm1, s_tm1])
        batched_r_t = jnp.stack([r_t, r_t])
        batched_s_t = jnp.stack([s_t, s_t])
        """), inspect("(theta, batched_s_tm1, batched_r_t, batched_s_t)"),
        "perex_grads gives one TD update per example: [1.2, 2.4, -1.2] twice.",
        Ok("perex_grads", values=[[1.2, 2.4, -1.2], [1.2, 2.4, -1.2]])),
    Entry("autodiff-jvp", f"{JVP} § JVPs in JAX code", INSPECT, code("""
        key = jax.random.key(0)

        # Initialize random model coefficients
        key, W_key, b_key = jax.random.split(key, 3)
        W = jax.random.normal(W_key, (3,))
        b = jax.random.normal(b_key, ())

        # Define a sigmoid function.
        def sigmoid(x):
            return 0.5 * (jnp.tanh(x / 2) + 1)

        # Outputs probability of a label being true.
        def predict(W, b, inputs):
            return sigmoid(jnp.dot(inputs, W) + b)

        # Build a toy dataset.
        inputs = jnp.array([[0.52, 1.12,  0.77],
                           [0.88, -1.08, 0.15],
                           [0.52, 0.06, -1.30],
                           [0.74, -2.49, 1.39]])

        # Isolate the function from the weight matrix to the predictions
        predict_W = lambda W: predict(W, b, inputs)

        key, subkey = jax.random.split(key)
        v = jax.random.normal(subkey, W.shape)

        def f(W, v):
          # Push forward the vector `v` along `f` evaluated at `W`
          return jax.jvp(predict_W, (W,), (v,))
        """), inspect("(W, v)"),
        "jax.jvp(f, (W,), (v,)) gives the predictions y and the pushed-forward tangent u.",
        Ok("f"), adapted="The docs' lambda f is named predict_W, and the jvp call is the function f."),
    Entry("autodiff-vgrad", f"{JVP} § Vector-valued gradients with VJPs", INSPECT, code("""
        def vgrad(f, x):
          y, vjp_fn = jax.vjp(f, x)
          return vjp_fn(jnp.ones(y.shape))[0]

        def f(x):
          return vgrad(lambda x: 3*x**2, x)
        """), inspect("jnp.ones((2, 2))"),
        "vgrad(lambda x: 3*x**2, jnp.ones((2, 2))) is [[6. 6.] [6. 6.]].",
        Ok("f", values=[[6.0, 6.0], [6.0, 6.0]]), adapted="The call is wrapped in f."),
    Entry("autodiff-hvp-forward-over-reverse", f"{JVP} § Hessian-vector products using both forward- and "
          "reverse-mode", INSPECT, code("""
        # forward-over-reverse
        def hvp(f, primals, tangents):
          return jax.jvp(jax.grad(f), primals, tangents)[1]

        def sum_tanh_sq(X):
          return jnp.sum(jnp.tanh(X)**2)

        def hessian(f):
            return jax.jacfwd(jax.jacrev(f))

        def check(X, V):
          ans1 = hvp(sum_tanh_sq, (X,), (V,))
          ans2 = jnp.tensordot(hessian(sum_tanh_sq)(X), V, 2)
          return jnp.allclose(ans1, ans2, 1e-4, 1e-4)
        """), inspect("(jax.random.normal(jax.random.split(jax.random.key(0), 3)[1], (3, 4)), "
                      "jax.random.normal(jax.random.split(jax.random.key(0), 3)[2], (3, 4)))"),
        "The forward-over-reverse HVP equals the full Hessian contracted with V: True.",
        Ok("check", values=True),
        adapted="The docs' f is named sum_tanh_sq; the comparison is the function check; X and V are 3 x 4, "
                "not 30 x 40 (the full Hessian has 1.4 million entries), from the page's key split."),
    Entry("autodiff-jacrev-dict", f"{HIGHER} § Jacobians and Hessians using jax.jacfwd and jax.jacrev", INSPECT,
          code(LOGISTIC, """
        def predict_dict(params, inputs):
            return predict(params['W'], params['b'], inputs)

        f = jax.jacrev(predict_dict)
        """), inspect("({'W': W, 'b': b}, inputs)"),
        "jax.jacrev(predict_dict) gives a dict of Jacobians, from W (4 x 3) and from b (4).",
        Ok("f"), adapted="`f = jax.jacrev(predict_dict)` so the app runs it."),
    Entry("autodiff-jacfwd-jacrev", f"{HIGHER} § Jacobians and Hessians using jax.jacfwd and jax.jacrev", INSPECT,
          code(LOGISTIC, """
        from jax import jacfwd, jacrev

        # Isolate the function from the weight matrix to the predictions
        predict_W = lambda W: predict(W, b, inputs)

        def f(W):
          return jacfwd(predict_W)(W), jacrev(predict_W)(W)
        """), inspect("W"),
        "jacfwd and jacrev give the same 4 x 3 Jacobian.",
        Ok("f"), adapted="The docs' lambda f is named predict_W; f returns both Jacobians."),
]

# -- jax.numpy / jax.lax docstrings ---------------------------------------------------------------

DOCSTRING_ENTRIES = [
    Entry("doc-where", f"{LAX_NUMPY} of jnp.where § Examples", INSPECT, code("""
        def f(x):
          return jnp.where(x > 4, x, 0)
        """), inspect("jnp.arange(10)"),
        "jnp.where(x > 4, x, 0) is Array([0, 0, 0, 0, 0, 5, 6, 7, 8, 9], dtype=int32).",
        Ok("f", values=[0, 0, 0, 0, 0, 5, 6, 7, 8, 9])),
    Entry("doc-select", f"{LAX_NUMPY} of jnp.select § Examples", INSPECT, code("""
        def f(condlist, choicelist):
          return jnp.select(condlist, choicelist, default=0)
        """), inspect("([jnp.array([False, True, False, False]), jnp.array([True, False, False, False]), "
                      "jnp.array([False, True, True, False])], [jnp.array([1, 2, 3, 4]), "
                      "jnp.array([10, 20, 30, 40]), jnp.array([100, 200, 300, 400])])"),
        "jnp.select(condlist, choicelist, default=0) is Array([ 10,   2, 300,   0], dtype=int32).",
        Ok("f", values=[10, 2, 300, 0])),
    Entry("doc-associative-scan", f"{LOOPS} of lax.associative_scan § Examples", INSPECT, code("""
        def f(x):
          return (lax.associative_scan(jnp.add, x),
                  lax.associative_scan(jnp.add, x, reverse=True))
        """), inspect("jnp.arange(0, 4)"),
        "Partial sums [0, 1, 3, 6]; reversed partial sums [6, 6, 5, 3].",
        Ok("f", values=([0, 1, 3, 6], [6, 6, 5, 3]))),
    Entry("doc-at-modes", f"{ARRAY_METHODS} of jax.numpy.ndarray.at § Examples", INSPECT, code("""
        def f(x):
          return (x.at[2].add(10),
                  x.at[10].add(10),  # dropped
                  x.at[20].add(10, mode='clip'),  # clipped
                  x.at[-1].set(99))
        """), inspect("jnp.arange(5.0)"),
        "Out-of-bound updates are dropped by default and clipped with mode='clip'; -1 counts from the end.",
        Ok("f", values=([0, 1, 12, 3, 4], [0, 1, 2, 3, 4], [0, 1, 2, 3, 14], [0, 1, 2, 3, 99]))),
    Entry("doc-lax-map-batch-size", f"{LOOPS} of lax.map", INSPECT, code("""
        def add_one(x):
          print('inner shape:', x.shape)
          return x + 1

        def map_in_batches(x):
          return lax.map(add_one, x, batch_size=3)
        """), inspect("jnp.ones((10, 3, 4))"),
        "'inner shape: (3, 4)' is printed twice (once for the batches, once for the remainder); y.shape is "
        "(10, 3, 4), all 2s.",
        Ok("map_in_batches", stdout=True),
        adapted="The docs' f is named add_one and the call y = lax.map(f, x, batch_size=3) is the function "
                "map_in_batches, so that the app runs the map."),
    Entry("doc-grad-tanh", f"{API} of jax.grad", INSPECT, code("""
        import jax

        grad_tanh = jax.grad(jax.numpy.tanh)
        f = grad_tanh
        """), inspect("0.2"),
        "print(grad_tanh(0.2)) prints 0.961043.",
        Ok("f", values=0.961043), adapted="`f = grad_tanh` so the app runs it."),
]

# -- /derivatives and /gradient ---------------------------------------------------------------------

DERIVATIVE_ENTRIES = [
    Entry("deriv-tanh", f"{AUTODIFF} § 1. Taking gradients with jax.grad", DERIVATIVES, code("""
        import jax.numpy as jnp
        f = jnp.tanh
        """), derivatives(3, -2.0, 2.0, 5),
        "grad(jnp.tanh), grad(grad(jnp.tanh)), ... evaluated at 2.0.",
        Ok("f"), adapted="`f = jnp.tanh` (the docs: grad_tanh = grad(jnp.tanh))."),
    Entry("deriv-polynomial", f"{AUTODIFF} § 1. Taking gradients with jax.grad", DERIVATIVES, code("""
        f = lambda x: x**3 + 2*x**2 - 3*x + 1
        """), derivatives(4, -1.0, 1.0, 5),
        "f'(1) = 4, f''(1) = 10, f'''(1) = 6, f''''(1) = 0.",
        Ok("f", values={1.0: [1.0, 4.0, 10.0, 6.0, 0.0]})),
    Entry("deriv-sum-logistic", f"{THINKING} § Taking derivatives with jax.grad", DERIVATIVES, code(SUM_LOGISTIC),
          derivatives(3, -2.0, 2.0, 5),
          "grad(jit(grad(jit(grad(sum_logistic)))))(1.0) is the third derivative at 1.0.",
          Ok("sum_logistic")),
    Entry("deriv-python-if", f"{CONTROL} § Python control flow + autodiff", DERIVATIVES, code("""
        def f(x):
          if x < 3:
            return 3. * x ** 2
          else:
            return -4 * x
        """), derivatives(1, -2.0, 4.0, 4),
        "grad works with regular Python control flow: grad(f)(2.) is 12.0 and grad(f)(4.) is -4.0.",
        Ok("f", values={2.0: [12.0, 12.0], 4.0: [-16.0, -4.0]})),
    Entry("deriv-lax-cond", f"{CONTROL} § Structured control flow primitives (summary: lax.cond and grad)",
          DERIVATIVES, code("""
        from jax import lax

        def f(x):
          return lax.cond(x < 3, lambda x: 3. * x ** 2, lambda x: -4. * x, x)
        """), derivatives(1, -2.0, 4.0, 4),
        "lax.cond is differentiable: the same derivatives as the Python if, 12.0 at 2 and -4.0 at 4.",
        Ok("f", values={2.0: [12.0, 12.0], 4.0: [-16.0, -4.0]}),
        adapted="The page's Python-if example written with lax.cond, as its summary table says works with grad."),
    Entry("deriv-fori-static", f"{CONTROL} § Structured control flow primitives: fori_loop", DERIVATIVES, code("""
        from jax import lax

        def f(x):
          return lax.fori_loop(0, 3, lambda i, x: 2 * x, x)
        """), derivatives(2, -3.0, 3.0, 7),
        "fori_loop is fwd and rev-mode differentiable if its endpoints are static: f = 8x, f' = 8.",
        Ok("f", values={3.0: [24.0, 8.0, 0.0]}),
        adapted="The page's `for i in range(3): x = 2 * x` written with lax.fori_loop."),
    Entry("deriv-while-loop-reverse", f"{CONTROL} § Structured control flow primitives (summary table)",
          DERIVATIVES, code("""
        from jax import lax

        cond_fun = lambda c: c[0] < 3
        body_fun = lambda c: (c[0] + 1, 2. * c[1])

        def f(x):
          return lax.while_loop(cond_fun, body_fun, (0, x))[1]
        """), derivatives(1, -3.0, 3.0, 7),
        "lax.while_loop is only forward-mode differentiable: grad (reverse mode) of it fails.",
        Fails("return lax.while_loop(cond_fun, body_fun, (0, x))[1]"),
        adapted="A while_loop doubling x three times, in the page's cond_fun/body_fun style."),
    Entry("deriv-python-for", f"{CONTROL} § Control flow and logical operators with JIT", DERIVATIVES, code("""
        def f(x):
          for i in range(3):
            x = 2 * x
          return x
        """), derivatives(2, -3.0, 3.0, 7),
        "A loop over range(3) unrolls: f(x) = 8x, so f' = 8 and f'' = 0.",
        Ok("f", values={3.0: [24.0, 8.0, 0.0]})),
    Entry("deriv-straight-through", f"{HIGHER} § Straight-through estimator using stop_gradient", DERIVATIVES,
          code("""
        def round_f(x):
          return jnp.round(x)  # non-differentiable

        def straight_through_f(x):
          # Create an exactly-zero expression with Sterbenz lemma that has
          # an exactly-one gradient.
          zero = x - jax.lax.stop_gradient(x)
          return zero + jax.lax.stop_gradient(round_f(x))
        """), derivatives(1, -3.2, 3.2, 5),
        "grad(straight_through_f)(3.2) is 1.0, and straight_through_f(3.2) is 3.0.",
        Ok("straight_through_f", values={3.2: [3.0, 1.0]}),
        adapted="The docs' f (jnp.round) is named round_f, so that the app picks straight_through_f."),
    Entry("deriv-round", f"{HIGHER} § Straight-through estimator using stop_gradient", DERIVATIVES, code("""
        def f(x):
          return jnp.round(x)  # non-differentiable
        """), derivatives(1, -3.2, 3.2, 5),
        "grad(f)(3.2) is 0.0 for f = jnp.round.",
        Ok("f", values={3.2: [3.0, 0.0]})),
    Entry("deriv-selu", f"{CONCEPTS} § Transformations", DERIVATIVES, code(SELU), derivatives(2, -2.5, 2.5, 6),
          "selu is built from jnp.where, so grad works on both of its pieces.",
          Ok("selu")),
    Entry("gradient-hessian-dot", f"{HIGHER} § Taking gradients (part 2)", GRADIENT, code("""
        import jax.numpy as jnp

        def f(x):
          return jnp.dot(x, x)
        """), {"point": "jnp.array([1., 2., 3.])"},
        "hessian(f)(jnp.array([1., 2., 3.])) is 2 times the identity.",
        Ok("f", values={"gradient": [2.0, 4.0, 6.0], "hessian": [[2.0, 0, 0], [0, 2.0, 0], [0, 0, 2.0]]})),
]

# -- /vmap ------------------------------------------------------------------------------------------

VMAP_ENTRIES = [
    Entry("vmap-convolve", f"{VECTORIZE} § Automatic vectorization", VMAP, code(CONVOLVE), vmap(CONVOLVE_ARGS),
          "jax.vmap(convolve)(xs, ws) batches convolve, as the manually vectorized version does.",
          Ok("convolve")),
    Entry("vmap-convolve-axis-1", f"{VECTORIZE} § Automatic vectorization", VMAP, code(CONVOLVE),
          vmap(CONVOLVE_ARGS, in_axes="1", out_axes="1"),
          "jax.vmap(convolve, in_axes=1, out_axes=1) works on transposed batches.",
          Ok("convolve")),
    Entry("vmap-apply-matrix", f"{THINKING} § Auto-vectorization with jax.vmap", VMAP, code("""
        from jax import random

        key = random.key(1701)
        key1, key2 = random.split(key)
        mat = random.normal(key1, (150, 100))
        batched_x = random.normal(key2, (10, 100))

        def apply_matrix(x):
          return jnp.dot(mat, x)
        """), vmap("batched_x[0]"),
        "vmap(apply_matrix) equals the naively batched loop (atol 1e-4).",
        Ok("apply_matrix"), adapted="One example, batched_x[0], is the argument."),
    Entry("vmap-per-example-grads", f"{HIGHER} § Per-example gradients", VMAP, code(TD, """
        def td_loss(theta, s_tm1, r_t, s_t):
          v_tm1 = value_fn(theta, s_tm1)
          target = r_t + value_fn(theta, s_t)
          return -0.5 * ((jax.lax.stop_gradient(target) - v_tm1) ** 2)

        dtdloss_dtheta = jax.grad(td_loss)
        f = dtdloss_dtheta
        """), vmap("(theta, s_tm1, r_t, s_t)", in_axes="(None, 0, 0, 0)"),
        "jax.vmap(dtdloss_dtheta, in_axes=(None, 0, 0, 0)) gives per-example gradients.",
        Ok("f"), adapted="`f = dtdloss_dtheta` so the app runs it."),
    Entry("vmap-random-normal", f"{RANDOM} § Lack of sequential equivalence", VMAP, code("""
        from jax import random
        f = random.normal
        """), vmap("random.key(42)"),
        "jax.vmap(random.normal)(subkeys) draws one number per key.",
        Ok("f"), adapted="`f = random.normal`; one key is the example."),
    Entry("vmap-dict-in-axes", f"{API} of jax.vmap", VMAP, code("""
        def foo(dct, x):
         return dct['a'] + dct['b'] + x
        """), vmap("({'a': 0., 'b': 1.}, 1.)", in_axes="({'a': None, 'b': 0}, None)"),
        "vmap(foo, in_axes=({'a': None, 'b': 0}, None)) maps only dct['b'].",
        Ok("foo"), adapted="One example of dct['b'] (a scalar) is the argument."),
    Entry("vmap-pytree-in-axes", f"{PYTREES} § Pytrees and JAX transformations", VMAP, code("""
        def f(a, d):
          return a * d["k1"] + d["k2"]
        """), vmap("(2., {'k1': 3., 'k2': 1.})", in_axes="(None, {'k1': None, 'k2': 0})"),
        "vmap(f, in_axes=(None, {'k1': None, 'k2': 0})) maps only d['k2'].",
        Ok("f"), adapted="A two-argument f of the shape the page describes, with one example."),
    Entry("vmap-out-axes-none", f"{API} of jax.vmap", VMAP, code("""
        f = lambda x, y: (x + y, y * 2.)
        """), vmap("(1., 4.)", in_axes="(0, None)", out_axes="(0, None)"),
        "With out_axes=(0, None) the second, unmapped result stays unbatched: (Array([4., 5.]), 8.0).",
        Ok("f")),
    Entry("vmap-nested-in-axes", f"{API} of jax.vmap", VMAP, code("""
        def foo(tree_arg):
          x, (y, z) = tree_arg
          return jnp.dot(x, jnp.dot(y, z))
        """), vmap("((jnp.ones((2, 3)), (jnp.ones((3, 4)), jnp.ones((4, 5)))),)", in_axes="((0, (1, 2)),)"),
        "vmap(foo, in_axes=((0, (1, 2)),)) maps each leaf along its own axis; the result is (6, 2, 5) for K = 6.",
        Ok("foo")),
]

# -- /jit_speed ---------------------------------------------------------------------------------------

JIT_SPEED_ENTRIES = [
    Entry("jitspeed-selu", f"{API} of jax.jit § Examples; {JIT_PAGE} § JIT compiling a function", JIT_SPEED,
          code(SELU), JIT_SIZES,
          "selu can be compiled into a single fused kernel by XLA; jitted it is faster than op by op.",
          Ok("selu", fused_kernels=1)),
    Entry("jitspeed-norm", f"{THINKING} § Just-in-time compilation with jax.jit", JIT_SPEED, code("""
        def norm(X):
          X = X - X.mean(0)
          return X / X.std(0)
        """), JIT_SIZES,
        "np.allclose(norm(X), norm_compiled(X), atol=1E-6) is True.",
        Ok("norm")),
]

# -- /shard (the Parallel tab) ------------------------------------------------------------------------

SHARD_ENTRIES = [
    Entry("shard-elementwise", f"{SHARDED} § 1. Automatic parallelism via jit", SHARD, code("""
        @jax.jit
        def f_elementwise(x):
          return 2 * jnp.sin(x) + 1
        """), shard("jnp.arange(32.0).reshape(4, 8)", [2, 4], ["x", "y"], "('x', 'y')", "('x', 'y')"),
        "The result of an elementwise function keeps the input's sharding: 'shardings match: True'.",
        Ok("f_elementwise", same_placement=True)),
    Entry("shard-contract", f"{SHARDED} § 1. Automatic parallelism via jit", SHARD, code("""
        @jax.jit
        def f_contract(x):
          return x.sum(axis=0)
        """), shard("jnp.arange(32.0).reshape(4, 8)", [2, 4], ["x", "y"], "('x', 'y')", "('y',)"),
        "Summing over the sharded axis gives a result sharded along y: the sums of the columns.",
        Ok("f_contract", values=[48.0 + 4 * i for i in range(8)])),
    Entry("shard-sum-all-reduce", f"{PARALLEL} § Explicit sharding mode makes sharding queryable", SHARD, code("""
        f = lambda x: x.sum(0)
        """), shard("jax.random.normal(jax.random.key(0), (8, 4))", [4, 2], ["X", "Y"], "('X', 'Y')", "('Y',)"),
        "The compiled x.sum(0) of an x sharded P('X', 'Y') contains an all-reduce: "
        "print('all-reduce(' in compile_txt) prints True.",
        Ok("f", collectives=("all-reduce",))),
    Entry("shard-layer", f"{SHARDED} § Comparing the three approaches", SHARD, code("""
        @jax.jit
        def layer(x, weights, bias):
          return jax.nn.sigmoid(x @ weights + bias)
        """), shard("((rng := np.random.default_rng(0)).normal(size=(32,)), rng.normal(size=(32, 4)), "
                    "rng.normal(size=(4,)))", [8], ["x"], "(('x',), (), ())", "()"),
        "layer(x_sharded, weights_sharded, bias) with x split over 8 devices gives the same 4 values as on one.",
        Ok("layer"), adapted="rng = np.random.default_rng(0) and the three draws written in one expression."),
    Entry("shard-auto-dot-P-specs", f"{PARALLEL} § Auto sharding mode decides shardings automatically", SHARD,
          code("""
        @jax.jit
        def f(x, y):
          z = jnp.dot(x, y)
          return z
        """), shard("(jnp.arange(8 * 4. ).reshape(8, 4 ), jnp.arange(4 * 16.).reshape(4, 16))", [4, 2],
                    ["X", "Y"], "(P(None, 'X'), P('X', None))", "P('X', None)"),
        "z = jnp.dot(x, y) with the contracted dimension sharded is not an error in Auto mode; the compiler "
        "adds the reduction.",
        Ok("f", collectives=("all-reduce", "reduce-scatter")),
        adapted="The specs are written as PartitionSpecs, P(...) (the page: jax.P(...)); the "
                "with_sharding_constraint to P('X', None) is the out_specs."),
]

ENTRIES: list[Entry] = [
    *JIT_ENTRIES, *GOTCHA_ENTRIES, *CUSTOM_CLASS_ENTRIES, *CUSTOM_JVP_ENTRIES, *THINKING_ENTRIES,
    *CONTROL_ENTRIES, *CONCEPT_ENTRIES, *PYTREE_ENTRIES, *RANDOM_ENTRIES, *STATEFUL_ENTRIES, *AUTODIFF_ENTRIES,
    *DOCSTRING_ENTRIES, *DERIVATIVE_ENTRIES, *VMAP_ENTRIES, *JIT_SPEED_ENTRIES, *SHARD_ENTRIES,
]
