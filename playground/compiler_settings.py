"""The named settings a function can be compared under: one function, two ways of compiling it. Stdlib only.

Each is a fixed set of per-call XLA options or JAX switches, so a caller names
a setting and never passes XLA options of its own (``xla_dump_to`` and friends
stay ours).

>>> SETTINGS["fusion: off"].compiler_options["xla_disable_hlo_passes"].split(",")[0]
'fusion'
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Setting:
    label: str  # for the table's column
    what: str  # one sentence: what changes, and what to look for
    compiler_options: dict = field(default_factory=dict)  # per-call XLA options (lowered.compile(...))
    x64: bool = False  # trace and run with jax_enable_x64: the arguments are made again, in 64 bits
    donate: bool = False  # donate_argnums: every argument's buffer may be reused for the output


# The fusion passes of XLA's CPU and GPU pipelines (each backend ignores the names it does not have); the GPU's
# fusion-wrapper stays on: it is how an unfused operation becomes a kernel at all.
_FUSION_PASSES = "fusion,priority-fusion,multi_output_fusion,horizontal-loop-fusion,horizontal-input-fusion"

SETTINGS = {
    "fusion: off": Setting(
        "fusion off", "XLA's fusion passes disabled (xla_disable_hlo_passes): every elementwise operation is a "
        "kernel of its own, and each intermediate result goes through memory.",
        {"xla_disable_hlo_passes": _FUSION_PASSES}),
    "cse: off": Setting(
        "CSE off", "Common subexpression elimination disabled: an operation written twice is computed twice.",
        {"xla_disable_hlo_passes": "cse"}),
    "algsimp: off": Setting(
        "algebraic simplification off", "Algebraic simplification disabled: the rewrites by algebra's rules "
        "(x*1 -> x, reshapes folded) are not made.", {"xla_disable_hlo_passes": "algsimp"}),
    "x64: on": Setting(
        "64-bit", "jax_enable_x64: the arguments are made again with 64-bit floats and integers where they "
        "asked for the default, so the program computes in float64 (twice the bytes).", x64=True),
    "donate: on": Setting(
        "donated arguments", "donate_argnums on every argument: XLA may write the output into an input's buffer "
        "(memory: the aliased bytes) instead of allocating a new one.", donate=True),
}
