"""The user's function run again with ``jnp`` as NumPy, for the jit tab's NumPy column (inside a worker).

The same source runs in a namespace where ``jnp`` is NumPy and ``jax``/``lax``
are stand-ins: ``jax.numpy`` (however it is imported) is NumPy, ``jax.jit``
leaves the function as it is, and anything else of JAX raises, so the NumPy
timing can never silently run JAX.

>>> function, why = numpy_version("def f(x):\\n    return jnp.sin(x) * 2\\n", "f")
>>> type(function(np.zeros(3))).__module__, why
('numpy', None)
"""

from __future__ import annotations

import builtins
import types

import numpy as np

from playground.errors import USER_FILENAME
from playground.user_ast import parse
from playground.worker.functions import usercode
from playground.worker.lessons import user_errors


def numpy_version(code: str, name: str) -> tuple:
    """The user's function run again with ``jnp`` as NumPy: (function or None, why not).

    ``jax`` and ``lax`` are stand-ins there: ``jax.numpy`` (however imported) is
    NumPy, ``jax.jit`` leaves the function as it is, and anything else of JAX
    raises, so the NumPy timing can never silently run JAX.
    """
    stand_in = _NumpyJax("jax (NumPy stand-in)")
    namespace = {**usercode.base_namespace(), "jnp": np, "jax": stand_in, "lax": _NumpyJax("jax.lax (NumPy stand-in)")}
    namespace["__builtins__"] = {**vars(builtins), "__import__": _numpy_import(stand_in)}
    try:
        exec(compile(parse(code), USER_FILENAME, "exec"), namespace)  # noqa: S102 - sandboxed
    except Exception as exc:
        return None, f"Your code does not run with jnp as NumPy: {user_errors.error_result(exc)['error']['message']}"
    function = namespace.get(name)
    return (function, None) if callable(function) else (None, f"`{name}` is not a function with jnp as NumPy.")


class _NumpyJax(types.ModuleType):
    """``jax`` as the NumPy run sees it. Its name is not in sys.modules, so ``from jax import lax`` fails too."""

    def __getattr__(self, attr: str):
        if attr == "numpy":
            return np
        if attr == "jit" and self.__name__.startswith("jax "):
            return _no_jit
        raise AttributeError(f"{self.__name__.split()[0]}.{attr} is JAX-only: the NumPy version has jnp as NumPy "
                             "and nothing else of JAX")


def _no_jit(function=None, **_options):
    return function if function is not None else (lambda f: f)


def _numpy_import(stand_in: types.ModuleType):
    def numpy_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and (name == "jax" or name.startswith("jax.")):
            if name == "jax.numpy" and fromlist:
                return np
            if name in ("jax", "jax.numpy"):
                return stand_in
            raise ImportError(f"{name} is JAX-only: the NumPy version has jnp as NumPy and nothing else of JAX")
        return builtins.__import__(name, globals, locals, fromlist, level)

    return numpy_import
