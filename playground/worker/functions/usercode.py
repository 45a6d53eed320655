"""Turn the user's source into a function, and the user's failures into plain words.

Runs inside a sandboxed worker. Nothing here is a security boundary (the OS
layers are); the checks exist to give friendly, precise messages.
"""

from __future__ import annotations

import ast
import builtins
import errno
import io
import linecache
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from playground.errors import ARGS_FILENAME, USER_FILENAME, UserCodeError, truncation_notice
from playground.user_ast import parse, pick_function
from playground.worker.lessons.user_errors import classify, describe, keep_library_frames

_PROCESS_EVENTS = {
    "os.system", "os.exec", "os.posix_spawn", "os.fork", "os.forkpty", "os.spawn",
    "subprocess.Popen", "pty.spawn",
}


@dataclass(frozen=True)
class UserProgram:
    name: str
    function: Callable
    namespace: dict
    defined_in: str  # the def whose lines are the function's: ``loss`` for ``grad_loss = jax.grad(loss)``


def base_namespace() -> dict:
    """What user code and the args expression see without importing anything."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    return {"__name__": "__playground__", "__builtins__": builtins, "jax": jax, "jnp": jnp, "np": np, "lax": lax}


def load(source: str) -> UserProgram:
    """Run the user's module code and return the function to inspect (user_ast.pick_function says which)."""
    tree = parse(source)
    picked = pick_function(tree)
    name = picked.name
    linecache.cache[USER_FILENAME] = (len(source), None, source.splitlines(True), USER_FILENAME)
    namespace = base_namespace()
    exec(compile(tree, USER_FILENAME, "exec"), namespace)  # noqa: S102 - sandboxed by design
    keep_library_frames()  # the code may have turned JAX's traceback filtering back on; our_bug reads those frames
    wait_for_arrays(tree, namespace)
    function = namespace.get(name)
    if not callable(function):
        raise UserCodeError("invalid_input", f"`{name}` is not a function after running your code.")
    return UserProgram(name=name, function=function, namespace=namespace, defined_in=picked.of or name)


def wait_for_arrays(tree: ast.Module, namespace: dict) -> None:
    """Wait for the arrays the module's code made, each on the line that made it.

    JAX dispatches an array's computation and goes on; one that could not be made (too big
    for the job's memory) fails only where it is used, with XLA's words for a failed input,
    and read as a constant of a jitted function it stops the whole process (XLA checks that
    a buffer it reads exists). Waited for here, its failure is XLA's own (out of memory), on
    the user's line: the wait runs as that line of their file.
    """
    import jax

    for name, value in list(namespace.items()):
        # A tracer leaked out of a traced function is an Array too, with nothing to wait for.
        if isinstance(value, jax.Array) and not isinstance(value, jax.core.Tracer) and not value.is_deleted():
            line = _assigned_on(tree, name)
            if line is not None:
                wait = compile("\n" * (line - 1) + f"{name}.block_until_ready()", USER_FILENAME, "exec")
                exec(wait, {name: value})  # noqa: S102 - the user's own array, on their line


def _assigned_on(tree: ast.Module, name: str) -> int | None:
    """The line of the last top-level statement that binds ``name`` (``x = ...``, ``x: T = ...``, ``a, x = ...``)."""
    lines = [node.lineno for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
             and name in {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}]
    return lines[-1] if lines else None


def evaluate_args(expression: str, namespace: dict) -> tuple:
    """Evaluate the arguments expression; a tuple gives several positional arguments."""
    try:
        code = compile(expression.strip() or "()", ARGS_FILENAME, "eval")
    except SyntaxError as exc:
        raise UserCodeError("invalid_input", f"The arguments are not a Python expression: {exc.msg}.") from None
    import jax

    try:
        value = eval(code, namespace)  # noqa: S307 - sandboxed by design
        given = value if isinstance(value, tuple) else (value,)
        # An argument too big for the job's memory fails here, as the allocation it is (wait_for_arrays says why).
        jax.block_until_ready([a for a in given if isinstance(a, jax.Array) and not isinstance(a, jax.core.Tracer)
                               and not a.is_deleted()])
    except Exception as exc:
        kind = classify(exc)
        if kind == "user_exception":
            raise UserCodeError("invalid_input", f"Could not evaluate the arguments: {describe(exc)}") from None
        raise
    return value if isinstance(value, tuple) else (value,)


def check_tree(arguments: tuple, field: str = "Arguments") -> None:
    """The arguments must flatten into a pytree: a dict whose keys cannot be sorted is the user's input to fix."""
    import jax

    try:
        jax.tree.flatten(arguments)
    except (TypeError, ValueError) as exc:
        raise UserCodeError(
            "invalid_input", f"The {field} field gives a dict whose keys cannot be sorted against each other "
            f"({describe(exc)}): JAX sorts a dict's keys to fix the order of its leaves, so they must be of one "
            "kind, e.g. all strings: {'a': 1.0, 'b': 2.0}. See "
            "https://docs.jax.dev/en/latest/pytrees.html#dictionary-keys-must-be-sortable") from None


def forbid_new_processes() -> None:
    """Turn process creation into a clear PermissionError.

    The seccomp filter already makes these calls fail; this audit hook only
    says so in words (os.system would otherwise just return -1).
    """

    def hook(event: str, _args: Any) -> None:
        if event in _PROCESS_EVENTS:
            raise PermissionError(errno.EPERM, f"{event} is not allowed: the sandbox cannot start processes")

    sys.addaudithook(hook)


class CappedText(io.TextIOBase):
    """A text sink that keeps the first ``limit`` characters and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit, self.dropped = limit, 0
        self._parts: list[str] = []
        self._kept = 0

    def write(self, text: str) -> int:
        room = self.limit - self._kept
        if room > 0:
            self._parts.append(text[:room])
            self._kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    @property
    def written(self) -> int:
        """Characters written so far, kept or not."""
        return self._kept + self.dropped

    def getvalue(self) -> str:
        text = "".join(self._parts)
        return text + truncation_notice(self.dropped) if self.dropped else text
