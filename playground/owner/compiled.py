"""The owner's compiled programs: compiled once, kept for later calls of the same artifact, a few hundred at most.

A job's programs are often another job's too: the eager plan of ``x * x`` at one shape is the same artifact
whoever's function it came from, and a class runs the same examples. So a compile is kept under the
artifact's SHA-256 and its setting, and a later request for the same bytes finds it; its report says how long
the first compile took and that it was kept. A compile that dumps XLA's passes or buffers is made afresh:
the dump is what it is for.
"""

from __future__ import annotations

import collections
import re
import threading
import time
from dataclasses import dataclass

import jax

from playground import compiler_settings
from playground.measure import xla_estimates

MAX_KEPT = 512
# The owner compiles an artifact by calling it inside a jit of its own, and the worker exported the user's jit
# inside one: each instruction's op_name then reads jit(f)/call_exported/jit(f)/jit(f)/sin. Shown as the user's
# own compile names it, jit(f)/sin.
_WRAPPERS = re.compile(r'op_name="jit\(([^)"]*)\)/call_exported/(?:jit\(\1\)/)+')


@dataclass
class Compiled:
    executable: jax.stages.Compiled
    compile_s: float
    module: str  # the HLO module's name, as XLA's dumps and the profiler name it
    kept: bool = False  # found in the cache (compile_s is then the first compile's)

    def report(self, hlo: bool = True) -> dict:
        """What a compile op answers: its time, the optimised HLO (when asked), XLA's estimates."""
        return {"compile_s": self.compile_s, "kept": self.kept, "module": self.module,
                "hlo": shown(self.executable.as_text()) if hlo else None,
                "cost": xla_estimates.cost_summary(self.executable),
                "memory": xla_estimates.memory_summary(self.executable)}


def shown(hlo: str) -> str:
    """The optimised HLO with the wrappers' names left out of each op_name.

    >>> shown('x = f32[4] sine(p), metadata={op_name="jit(f)/call_exported/jit(f)/jit(f)/jit(g)/sin"}')
    'x = f32[4] sine(p), metadata={op_name="jit(f)/jit(g)/sin"}'
    """
    return _WRAPPERS.sub(r'op_name="jit(\1)/', hlo)


class CompiledCache:
    def __init__(self, most: int = MAX_KEPT) -> None:
        self._most = most
        self._kept: collections.OrderedDict[tuple[str, str | None], Compiled] = collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, digest: str, setting: str | None, program: jax.export.Exported) -> Compiled:
        """The program compiled under ``setting``: kept, or compiled now and kept."""
        key = (digest, setting)
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                return Compiled(found.executable, found.compile_s, found.module, kept=True)
        made = self.compile_fresh(program, setting)
        self.keep(digest, setting, made)
        return made

    def keep(self, digest: str, setting: str | None, made: Compiled) -> None:
        with self._lock:
            self._kept[(digest, setting)] = made
            while len(self._kept) > self._most:
                self._kept.popitem(last=False)

    @staticmethod
    def compile_fresh(program: jax.export.Exported, setting: str | None, more: dict | None = None) -> Compiled:
        """The program compiled now, under ``setting`` and the further XLA options ``more`` (a dump's)."""
        options = {**(compiler_settings.SETTINGS[setting].compiler_options if setting else {}), **(more or {})}
        specs = [jax.ShapeDtypeStruct(aval.shape, aval.dtype) for aval in program.in_avals]

        def call(*args):
            return program.call(*args)

        # Named as the function it was exported from (the HLO module is jit_<name>, as where it was written).
        call.__name__ = re.sub(r"\W", "_", program.fun_name)[:60] or "call"
        start = time.perf_counter()
        executable = jax.jit(call).lower(*specs).compile(compiler_options=options or None)
        seconds = time.perf_counter() - start
        module = executable.as_text().split(",", 1)[0].removeprefix("HloModule ").strip()
        return Compiled(executable, seconds, module)
