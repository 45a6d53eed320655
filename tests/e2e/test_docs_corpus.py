"""Snippets from JAX's documentation (tests/e2e/docs_corpus.py) through a real server, one test each.

Each entry's code also runs here, in the test process, with plain JAX: every
number a reply shows is compared with what JAX itself gives on the same code
and arguments, and the docs' own claims (the values they print, the errors they
show) are checked against plain JAX too, so a wrong corpus entry fails as well.
"""

from __future__ import annotations

import ast
import contextlib
import io
import math
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import jax
import jax.extend.core
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from playground.owner import batches
from playground.worker.jobs.device import wire_leaves
from playground.worker.jobs.vmap_axes import map_mapped
from playground.worker.lessons.user_errors import user_line
from tests.conftest import SANDBOX, SHARED_CLOCK_S, start_server, stop_server
from tests.e2e import docs_corpus as corpus
from tests.e2e.docs_corpus import Entry, Fails, Ok

CORPUS_FILE = "<docs-corpus>"
RTOL, ATOL = 2e-5, 2e-6  # the reply prints 6 digits; eager and jitted float32 differ in the last bits
RTOL_64, ATOL_64 = 1e-9, 1e-9  # /derivatives and /gradient run in float64
PRINT_OPTIONS = {"threshold": 20, "edgeitems": 3, "precision": 6, "linewidth": 100}  # as the app prints
_TOKEN = re.compile(r"nan|-?inf|True|False|\.\.\.|[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?")
_LEAF = re.compile(r"(?P<dtype>\S+?)\[(?P<shape>[\d, ]*)\]\s+(?P<values>.*)", re.S)
CONCURRENT = 2  # the server's workers: replies are fetched this many at a time


def _client_call(client, entry: Entry) -> dict:
    a, c = entry.arguments, entry.code
    positional = {
        corpus.INSPECT: lambda: (c, a["args"], a["static_argnums"], a["second_args"]),
        corpus.DERIVATIVES: lambda: (c, a["order"], a["x_min"], a["x_max"], a["points"]),
        corpus.GRADIENT: lambda: (c, a["point"]),
        corpus.VMAP: lambda: (c, a["args"], a["in_axes"], a["batch_sizes"], a["out_axes"]),
        corpus.JIT_SPEED: lambda: (c, a["sizes"], a["repeats"]),
        corpus.SHARD: lambda: (c, a["args"], a["mesh_shape"], a["axis_names"], a["in_specs"], a["out_specs"]),
    }[entry.endpoint]()
    try:
        return client.predict(*positional, api_name=entry.endpoint)
    except Exception as exc:  # the client's own failure (a Gradio error event): reported as the reply
        return {"ok": None, "client_error": f"{type(exc).__name__}: {exc}"[:600]}


class Replies:
    """Every entry's request, sent to the server ahead (two at a time: it runs two jobs at once); ``[id]`` waits.

    Each thread has a client of its own: gradio_client's Client is one session, whose event stream the server
    closes when the session's last event ends, and a second thread's event sent at that moment is cut off
    (CancelledError, rarely).
    """

    def __init__(self, server) -> None:
        local = threading.local()

        def call(entry: Entry) -> dict:
            if not hasattr(local, "client"):
                local.client = server.client()
            return _client_call(local.client, entry)

        self._pool = ThreadPoolExecutor(CONCURRENT)
        self._futures = {e.id: self._pool.submit(call, e) for e in corpus.ENTRIES}

    def __getitem__(self, key: str) -> dict:
        return self._futures[key].result()

    def close(self) -> None:
        for future in self._futures.values():
            future.cancel()
        self._pool.shutdown(wait=True)


@pytest.fixture(scope="module")
def replies(tmp_path_factory):
    """One real server for the module; replies fetched ahead, in the order the tests ask for them.

    In this host's sandbox only, not in both modes as the rest of tests/e2e: what the corpus checks (JAX's own
    snippets through the handlers, against plain JAX) is the same code in either mode, and in the process mode
    it would take a large share of the end-to-end run (docs/development.md's measurements); the rest of the suite
    checks that mode's pipeline.
    """
    # SHARED_CLOCK_S: entries that expect a behavioural finding, or no warning, must not depend on the load.
    server = start_server(tmp_path_factory.mktemp("docs-corpus"), PLAYGROUND_WORKERS=str(CONCURRENT),
                          PLAYGROUND_SANDBOX=SANDBOX, PLAYGROUND_TIMEOUT_S=SHARED_CLOCK_S)
    fetched = None
    try:
        fetched = Replies(server)
        yield fetched
    finally:
        if fetched is not None:
            fetched.close()
        stop_server(server)


# -- plain JAX, in this process ---------------------------------------------------------------------


def load(entry: Entry, name: str) -> tuple:
    """The entry's code run in a fresh namespace like the app's (jax, jnp, np, lax in scope): (function, namespace)."""
    namespace = {"__name__": "__docs_corpus__", "jax": jax, "jnp": jnp, "np": np, "lax": lax}
    exec(compile(entry.code, CORPUS_FILE, "exec"), namespace)  # noqa: S102 - the corpus' own code
    return namespace[name], namespace


def arguments(expression: str, namespace: dict) -> tuple:
    value = eval(expression.strip() or "()", namespace)  # noqa: S307 - the corpus' own expression
    return value if isinstance(value, tuple) else (value,)


def is_key(leaf) -> bool:
    return hasattr(leaf, "dtype") and jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key)


def short_dtype(dtype) -> str:
    name = np.dtype(dtype).name
    for long, short in (("bfloat", "bf"), ("complex", "c"), ("float", "f"), ("uint", "u"), ("int", "i")):
        if name.startswith(long):
            return short + name[len(long):]
    return name


def leaf_facts(leaf) -> tuple[str, str, list[int], np.ndarray]:
    """(dtype as the pytree view names it, as the result text names it, shape, the numbers shown)."""
    if is_key(leaf):
        return str(leaf.dtype), str(leaf.dtype), list(leaf.shape), np.asarray(jax.random.key_data(leaf))
    array = np.asarray(jnp.asarray(leaf))
    return array.dtype.name, short_dtype(array.dtype), list(array.shape), array


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def same_tokens(shown: list[str], expected: list[str], where: str, exact: bool = False) -> None:
    """The numbers shown against plain JAX's: equal for integers and bools, else within the printed precision."""
    assert len(shown) == len(expected), f"{where}: shows {shown}, plain JAX gives {expected}"
    for got, want in zip(shown, expected, strict=True):
        if "..." in (got, want) or want in ("True", "False") or exact:
            assert got == want, f"{where}: shows {shown}, plain JAX gives {expected}"
            continue
        assert got not in ("True", "False"), f"{where}: shows {shown}, plain JAX gives {expected}"
        g, w = float(got), float(want)
        if math.isnan(w) or math.isinf(w):
            assert got == want, f"{where}: shows {shown}, plain JAX gives {expected}"
        else:
            assert abs(g - w) <= ATOL + RTOL * abs(w), f"{where}: shows {shown}, plain JAX gives {expected}"


def split_leaves(text: str, prefixes: list[str], where: str) -> list[str]:
    """The text of each leaf: the lines after ``{key path}: ``, up to the next leaf's."""
    starts, position = [], 0
    for prefix in prefixes:
        if position == 0 and text.startswith(prefix):
            found = 0
        else:
            found = text.find("\n" + prefix, position)
            assert found >= 0, f"{where}: no leaf {prefix!r} in {text!r}"
            found += 1
        starts.append(found)
        position = found + len(prefix)
    ends = starts[1:] + [len(text)]
    return [text[start + len(prefix):end] for start, prefix, end in zip(starts, prefixes, ends, strict=True)]


def check_result_text(text: str, reference, where: str = "result") -> None:
    """The reply's result text (each leaf as ``f32[4] [0. 3. 14. 39.]``, under its key path) against plain JAX."""
    leaves = jax.tree_util.tree_flatten_with_path(reference)[0]
    if len(leaves) == 1 and not leaves[0][0]:
        segments = [text]
    else:
        segments = split_leaves(text, [f"{jax.tree_util.keystr(path)}: " for path, _ in leaves], where)
    for (path, leaf), segment in zip(leaves, segments, strict=True):
        at = f"{where}{jax.tree_util.keystr(path)}"
        _, dtype, shape, numbers = leaf_facts(leaf)
        match = _LEAF.fullmatch(segment.strip())
        assert match, f"{at}: {segment!r} is not `dtype[shape] values`"
        assert match["dtype"] == dtype, f"{at}: dtype {match['dtype']}, plain JAX gives {dtype}"
        assert match["shape"] == ", ".join(map(str, shape)), f"{at}: shape [{match['shape']}], plain JAX {shape}"
        if is_key(leaf):  # a typed key: its bits (jax.random.key_data) must be shown, as u32[..., 2]
            bits = re.search(r"u32\[(?P<shape>[\d, ]*)\] (?P<values>.*)", match["values"], re.S)
            assert bits, f"{at}: {segment!r} does not show the key's bits"
            assert bits["shape"] == ", ".join(map(str, numbers.shape)), f"{at}: key data shape {bits['shape']}"
            match = bits
        with np.printoptions(**PRINT_OPTIONS):
            expected = tokens(str(numbers))
        same_tokens(tokens(match["values"]), expected, at, exact=numbers.dtype.kind in "iub")


def check_tree(view: dict, reference, prefix: str = "") -> None:
    """The reply's pytree view (key paths, shapes, dtypes) against plain JAX's."""
    leaves = jax.tree_util.tree_flatten_with_path(reference)[0]
    expected = [{"key_path": prefix + jax.tree_util.keystr(path), "shape": leaf_facts(leaf)[2],
                 "dtype": leaf_facts(leaf)[0]} for path, leaf in leaves]
    assert [{k: leaf[k] for k in ("key_path", "shape", "dtype")} for leaf in view["leaves"]] == expected


def match_docs(reference, values, where: str = "docs") -> None:
    """The numbers the docs print, against plain JAX's result (a corpus check: plain JAX must agree with its docs)."""
    if isinstance(reference, dict):
        assert set(reference) == set(values), where
        for key in reference:
            match_docs(reference[key], values[key], f"{where}[{key!r}]")
    elif isinstance(reference, (list, tuple)) and not isinstance(values, (int, float, bool)) and \
            len(reference) == len(values) and not all(isinstance(r, (int, float)) for r in reference):
        for i, (r, v) in enumerate(zip(reference, values, strict=True)):
            match_docs(r, v, f"{where}[{i}]")
    else:
        np.testing.assert_allclose(np.asarray(reference, dtype=float), np.asarray(values, dtype=float), rtol=1e-5,
                                   atol=1e-6, equal_nan=True, err_msg=f"{where}: plain JAX disagrees with the docs")


def plain_stdout(entry: Entry, expect: Ok) -> str:
    """What plain JAX prints loading the code, then calling the function under jit once (trace, compile, run)."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        fn, namespace = load(entry, expect.function)
        args = arguments(entry.arguments["args"], namespace)
        static = tuple(entry.arguments.get("static_argnums") or ())
        jax.block_until_ready(jax.jit(fn, static_argnums=static)(*args))
        jax.effects_barrier()
    return buffer.getvalue()


# -- what a reply must be --------------------------------------------------------------------------


def summary(reply: dict) -> str:
    """The reply, shortened, for failure messages (the report lists these)."""
    if reply.get("ok") is False:
        error = reply.get("error", {})
        fix = error.get("fix") or error.get("hint")
        return (f"error kind={error.get('kind')!r} line={error.get('line')!r} fix={'yes' if fix else 'none'} "
                f"message={str(error.get('message'))[:400]!r}")
    if reply.get("ok") is None:
        return f"no reply: {reply.get('client_error')}"
    shown = {k: reply[k] for k in ("function", "result", "equal", "max_abs_diff", "matches_unsharded", "mismatch",
                                   "collectives", "checked_sizes", "numpy_checked_sizes", "numpy_unavailable",
                                   "retrace", "purity", "warnings", "stdout") if k in reply}
    return f"ok {str(shown)[:700]}"


def plain_failure(entry: Entry) -> BaseException:
    """What plain JAX raises on the entry: under jax.jit (/inspect), or jax.grad (/derivatives), as the docs call it."""
    fn, namespace = load(entry, picked_name(entry))
    with pytest.raises(Exception) as raised:  # noqa: PT011 - the docs show an error; plain JAX must raise one
        if entry.endpoint == corpus.DERIVATIVES:
            with jax.enable_x64(True):
                jax.grad(fn)(entry.arguments["x_min"])
        else:
            args = arguments(entry.arguments.get("args", ""), namespace)
            static = tuple(entry.arguments.get("static_argnums") or ())
            jax.block_until_ready(jax.jit(fn, static_argnums=static)(*args))
    return raised.value


def check_error(entry: Entry, expect: Fails, reply: dict) -> None:
    failure = plain_failure(entry)
    line = expect.line(entry.code)
    assert user_line(failure, CORPUS_FILE) == line, "corpus: plain JAX fails on another line"
    assert reply.get("ok") is False, summary(reply)
    error = reply["error"]
    assert error["kind"] == expect.kind, summary(reply)
    assert error["line"] == line, summary(reply)
    assert type(failure).__name__ in error["message"], summary(reply)
    assert "Traceback" not in error["message"], summary(reply)
    if expect.teaches:
        fix = error.get("fix") or error.get("hint")
        assert isinstance(fix, str) and fix.strip(), f"no fix taught: {summary(reply)}"


# The JAX transformations the corpus's code applies at the top level, as it spells them.
MADE_BY = {"jax.grad", "grad", "jax.value_and_grad", "jax.vmap", "jax.jit", "jit", "jax.jacfwd", "jax.jacrev",
           "jax.hessian"}


def picked_name(entry: Entry) -> str:
    """The function the app runs: the last top-level one that a JAX transformation makes or that is named f,
    else the last top-level def that is no custom derivative's rule (decorated ``@g.defjvp``, or handed to
    ``g.defvjp(fwd, bwd)``)."""
    tree = ast.parse(entry.code)
    rules = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)
             and any(ast.unparse(d).endswith((".defjvp", ".defjvps")) for d in n.decorator_list)}
    rules |= {a.id for n in tree.body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)
              and ast.unparse(n.value.func).endswith((".defvjp", ".defjvp")) for a in n.value.args
              if isinstance(a, ast.Name)}
    picked = None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "f":
            picked = "f"
        elif isinstance(node, ast.Assign):
            made = isinstance(node.value, ast.Call) and ast.unparse(node.value.func) in MADE_BY
            picked = next((t.id for t in node.targets if isinstance(t, ast.Name) and (made or t.id == "f")), picked)
    return picked or [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name not in rules][-1]


def check_inspect(entry: Entry, expect: Ok, reply: dict) -> None:
    fn, namespace = load(entry, expect.function)
    args = arguments(entry.arguments["args"], namespace)
    static = entry.arguments["static_argnums"] or []
    with contextlib.redirect_stdout(io.StringIO()):
        reference = jax.block_until_ready(fn(*args))
        jax.effects_barrier()
    if expect.values is not None:
        match_docs(reference, expect.values)
    assert reply.get("ok") is True, summary(reply)
    assert reply["function"] == expect.function, summary(reply)
    check_result_text(reply["result"], reference)
    check_tree(reply["pytree"]["outputs"], reference)
    dynamic = tuple(a for i, a in enumerate(args) if i not in static)
    if expect.input_leaves is not None:
        assert len(jax.tree.leaves(dynamic)) == expect.input_leaves, "corpus: plain JAX sees other inputs"
        assert len(reply["pytree"]["inputs"]["leaves"]) == expect.input_leaves, reply["pytree"]["inputs"]
    if expect.stdout:
        assert reply["stdout"] == plain_stdout(entry, expect), summary(reply)
    if expect.purity == "clean":
        assert reply["purity"] == [], summary(reply)
    elif expect.purity == "flagged":
        assert any(not expect.purity_lines or f["line"] in expect.purity_lines for f in reply["purity"]), \
            summary(reply)
    if expect.retraced is not None:
        assert reply["retrace"] is not None and reply["retrace"]["retraced"] is expect.retraced, summary(reply)
    if expect.quiet:
        assert reply["warnings"] == [], summary(reply)
    for word in expect.warnings:
        assert any(word in w for w in reply["warnings"]), summary(reply)
    if expect.jaxpr:
        with contextlib.redirect_stdout(io.StringIO()):
            plain = str(jax.make_jaxpr(fn, static_argnums=tuple(static))(*args))
        assert _jaxpr_words(reply["jaxpr"]) == _jaxpr_words(plain), (reply["jaxpr"], plain)
    for primitive in expect.absent_primitives:
        assert not re.search(rf"\b{primitive}\b", reply["jaxpr"]), reply["jaxpr"]


def check_derivatives(entry: Entry, expect: Ok, reply: dict) -> None:
    a = entry.arguments
    xs = np.linspace(a["x_min"], a["x_max"], a["points"])
    with jax.enable_x64(True), contextlib.redirect_stdout(io.StringIO()):
        fn, _ = load(entry, expect.function)
        ladder = [fn]
        for _ in range(a["order"]):
            ladder.append(jax.grad(ladder[-1]))
        # As the docs call grad: eagerly, one point at a time (Python control flow sees concrete values).
        plain = [np.array([float(g(x)) for x in xs]) for g in ladder]
    if expect.values is not None:
        for x, by_order in expect.values.items():
            i = int(np.argmin(abs(xs - x)))
            assert math.isclose(xs[i], x), f"corpus: {x} is not on the grid"
            np.testing.assert_allclose([p[i] for p in plain], by_order, atol=1e-9,
                                       err_msg="plain JAX disagrees with the docs")
    assert reply.get("ok") is True, summary(reply)
    assert reply["function"] == expect.function and reply["dtype"] == "float64", summary(reply)
    np.testing.assert_allclose(reply["xs"], xs, rtol=0, atol=1e-12)
    assert [o["n"] for o in reply["orders"]] == list(range(a["order"] + 1))
    for order, want in zip(reply["orders"], plain, strict=True):
        got = np.array([np.nan if y is None else y for y in order["ys"]], dtype=float)
        np.testing.assert_allclose(got, want, rtol=RTOL_64, atol=ATOL_64, err_msg=f"order {order['n']}")


def check_gradient(entry: Entry, expect: Ok, reply: dict) -> None:
    with jax.enable_x64(True):
        fn, namespace = load(entry, expect.function)
        point = jnp.asarray(arguments(entry.arguments["point"], namespace)[0], dtype=jnp.float64)
        gradient, hessian = np.asarray(jax.grad(fn)(point)), np.asarray(jax.hessian(fn)(point))
    np.testing.assert_allclose(gradient, expect.values["gradient"], err_msg="plain JAX disagrees with the docs")
    np.testing.assert_allclose(hessian, expect.values["hessian"], err_msg="plain JAX disagrees with the docs")
    assert reply.get("ok") is True, summary(reply)
    assert reply["function"] == expect.function
    np.testing.assert_allclose(reply["gradient"], gradient, rtol=RTOL_64, atol=ATOL_64)
    np.testing.assert_allclose(reply["hessian"], hessian, rtol=RTOL_64, atol=ATOL_64)


def _conform(spec, tree):
    """Axes lists take the container type of the value they describe, as jax.vmap matches by node type."""
    if isinstance(spec, (list, tuple)):
        parts = [_conform(s, t) for s, t in zip(spec, tree, strict=True)]
        return parts if isinstance(tree, list) else tuple(parts)
    if isinstance(spec, dict):
        return {k: _conform(v, tree[k]) for k, v in spec.items()}
    return spec


def _jaxpr_words(text: str) -> list[str]:
    return text.split()


def shown_batch(sizes: list[int]) -> int:
    """The batch /vmap prints its batched jaxpr for: the smallest size asked for above 1, else 8."""
    return min([size for size in sizes if size > 1] or [8])


def documented_batch(example: tuple, in_axes, size: int) -> tuple:
    """The batch /vmap makes of one example: each mapped leaf as it travels to the device (a key as its key data),
    batched by the owner's rule (playground/owner/batches.py), a key made a key again; unmapped leaves as they are."""
    def batched(leaf, axis):
        [wired], [impl] = wire_leaves([leaf])
        [made] = batches.batch([wired], [axis % (len(getattr(leaf, "shape", np.shape(leaf))) + 1)], size)
        return jax.random.wrap_key_data(made, impl=impl) if impl else made
    return map_mapped(batched, example, in_axes)


def check_vmap(entry: Entry, expect: Ok, reply: dict) -> None:
    a = entry.arguments
    fn, namespace = load(entry, expect.function)
    example = arguments(a["args"], namespace)
    in_axes = ast.literal_eval(a["in_axes"])
    in_axes = _conform(tuple(in_axes), example) if isinstance(in_axes, list) else _conform(in_axes, example)
    out_axes = ast.literal_eval(a["out_axes"])
    out_axes = _conform(out_axes, jax.eval_shape(fn, *example))

    batch = documented_batch(example, in_axes, shown_batch(a["batch_sizes"]))  # the documented batch, as the tab's
    vmapped = jax.vmap(fn, in_axes=in_axes, out_axes=out_axes)
    plain_jaxpr = str(jax.make_jaxpr(fn)(*example))
    plain_batched = str(jax.make_jaxpr(vmapped)(*batch))
    assert reply.get("ok") is True, summary(reply)
    assert reply["function"] == expect.function, summary(reply)
    assert reply["equal"] is True, summary(reply)
    assert reply["batch_sizes"] == a["batch_sizes"]
    assert len(reply["vmap_s"]) == len(a["batch_sizes"]) and all(t > 0 for t in reply["vmap_s"])
    assert _jaxpr_words(reply["jaxpr"]) == _jaxpr_words(plain_jaxpr), (reply["jaxpr"], plain_jaxpr)
    assert _jaxpr_words(reply["batched_jaxpr"]) == _jaxpr_words(plain_batched), (reply["batched_jaxpr"],
                                                                                plain_batched)


def _count_equations(jaxpr) -> int:
    """Equations, counting those of sub-jaxprs (jit, cond, loops) once per call site."""
    def subs(value):
        if isinstance(value, jax.extend.core.ClosedJaxpr):
            return [value.jaxpr]
        if isinstance(value, jax.extend.core.Jaxpr):
            return [value]
        if isinstance(value, (tuple, list)):
            return [s for v in value for s in subs(v)]
        return []
    return sum(1 + sum(_count_equations(s) for v in eqn.params.values() for s in subs(v)) for eqn in jaxpr.eqns)


def check_jit_speed(entry: Entry, expect: Ok, reply: dict) -> None:
    a = entry.arguments
    fn, _ = load(entry, expect.function)
    x = jnp.asarray(np.random.default_rng(0).uniform(-1, 1, (a["sizes"][0],) * 2), dtype=jnp.float32)
    ops = _count_equations(jax.make_jaxpr(fn)(x).jaxpr)
    assert reply.get("ok") is True, summary(reply)
    assert reply["function"] == expect.function
    # eager JAX, jit and NumPy agreed at every size before it was timed (the docs: allclose)
    assert reply["checked_sizes"] == a["sizes"] and reply["numpy_checked_sizes"] == a["sizes"], summary(reply)
    assert reply["sizes"] == a["sizes"] and reply["skipped"] == [], summary(reply)
    for engine in ("numpy_s", "eager_s", "jit_s"):
        assert len(reply[engine]) == len(a["sizes"]) and all(t and t > 0 for t in reply[engine]), reply[engine]
    assert reply["jaxpr_ops"] == ops, f"jaxpr_ops {reply['jaxpr_ops']}, plain JAX's jaxpr has {ops}"
    if expect.fused_kernels is not None:
        assert reply["fused_kernels"] == expect.fused_kernels, summary(reply) + f" fused={reply['fused_kernels']}"


def _spec(text: str):
    """A spec literal as the corpus writes it, PartitionSpec spelled P(...) or jax.P(...) read as a tuple."""
    def as_tuple(*entries):
        return tuple(entries)
    return eval(text, {"__builtins__": {}, "P": as_tuple, "jax": SimpleNamespace(P=as_tuple)})  # noqa: S307


def blocks(shape: list[int], entries: tuple, mesh_shape: list[int], axis_names: list[str]) -> list[dict]:
    """Which block of an array each device holds (devices numbered row-major over the mesh), worked out here."""
    out = []
    for device, coords in enumerate(np.ndindex(*mesh_shape)):
        index = []
        for dim, size in enumerate(shape):
            entry = entries[dim] if dim < len(entries) else None
            axes = () if entry is None else (entry,) if isinstance(entry, str) else tuple(entry)
            if not axes:
                index.append([0, size])
                continue
            sizes = [mesh_shape[axis_names.index(ax)] for ax in axes]
            block = int(np.ravel_multi_index([coords[axis_names.index(ax)] for ax in axes], sizes))
            step = size // math.prod(sizes)
            index.append([block * step, (block + 1) * step])
        out.append({"device": device, "index": index})
    return out


def check_shard(entry: Entry, expect: Ok, reply: dict) -> None:
    a = entry.arguments
    fn, namespace = load(entry, expect.function)
    args = tuple(jnp.asarray(x) for x in arguments(a["args"], namespace))
    reference = jax.block_until_ready(fn(*args))
    if expect.values is not None:
        match_docs(reference, expect.values)
    in_literal, out_literal = _spec(a["in_specs"]), _spec(a["out_specs"])
    per_argument = all(isinstance(s, tuple) for s in in_literal) and len(in_literal) == len(args)
    in_specs = list(in_literal) if per_argument else [in_literal]
    mesh, names = a["mesh_shape"], a["axis_names"]
    assert reply.get("ok") is True, summary(reply)
    assert reply["function"] == expect.function
    assert reply["n_devices"] == math.prod(mesh)
    assert reply["mesh"]["devices"] == np.arange(math.prod(mesh)).reshape(mesh).tolist()
    assert reply["matches_unsharded"] is True, summary(reply) + f" max_abs_diff={reply.get('max_abs_diff')}"
    check_result_text(reply["result"], reference)
    assert reply["placement"] == [blocks(list(x.shape), s, mesh, names) for x, s in zip(args, in_specs,
                                                                                          strict=True)]
    assert reply["out_placement"] == blocks(list(jax.tree.leaves(reference)[0].shape), out_literal, mesh, names)
    if expect.same_placement:
        assert reply["out_placement"] == reply["placement"][0]
    if expect.collectives:
        assert set(expect.collectives) & set(reply["collectives"]), summary(reply)


CHECKS = {corpus.INSPECT: check_inspect, corpus.DERIVATIVES: check_derivatives, corpus.GRADIENT: check_gradient,
          corpus.VMAP: check_vmap, corpus.JIT_SPEED: check_jit_speed, corpus.SHARD: check_shard}


def test_corpus_is_big_and_spread():
    by_endpoint = {e: sum(x.endpoint == e for x in corpus.ENTRIES) for e in CHECKS}
    assert len(corpus.ENTRIES) >= 45
    assert len({e.id for e in corpus.ENTRIES}) == len(corpus.ENTRIES)
    assert by_endpoint[corpus.DERIVATIVES] >= 5 and by_endpoint[corpus.VMAP] >= 5
    assert by_endpoint[corpus.SHARD] >= 2 and by_endpoint[corpus.JIT_SPEED] >= 2
    for entry in corpus.ENTRIES:
        expected = entry.expect.function if isinstance(entry.expect, Ok) else None
        if expected is not None:
            assert picked_name(entry) == expected, f"{entry.id}: the app would run another function"
        else:
            entry.expect.line(entry.code)  # the line is in the code, once


@pytest.mark.parametrize("entry", corpus.ENTRIES, ids=[e.id for e in corpus.ENTRIES])
def test_docs_snippet(entry: Entry, replies):
    reply = replies[entry.id]
    if isinstance(entry.expect, Fails):
        check_error(entry, entry.expect, reply)
    else:
        CHECKS[entry.endpoint](entry, entry.expect, reply)
