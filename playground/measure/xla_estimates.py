"""XLA's own estimates for a compiled program: flops, bytes accessed, transcendentals, and its memory plan.

A backend that reports nothing gets null and the reason, never a made-up number.
"""

from __future__ import annotations

import jax


def cost_summary(compiled) -> dict:
    """XLA's estimates. A backend that reports nothing gets null and the reason, never a made-up number."""
    backend = jax.default_backend()
    try:
        raw = compiled.cost_analysis()
        failure = None
    except Exception as exc:  # some backends do not implement it
        raw, failure = None, f"cost_analysis() is not available on the {backend} backend ({type(exc).__name__})"
    if isinstance(raw, (list, tuple)):
        raw = raw[0] if raw else None
    summary: dict = {}
    unavailable = {}
    for key, name in (("flops", "flops"), ("bytes accessed", "bytes_accessed"), ("transcendentals", "transcendentals")):
        value = raw.get(key) if isinstance(raw, dict) else None
        if value is None or value < 0:
            summary[name] = None
            unavailable[name] = failure or (f"XLA's {backend} cost analysis has no {key!r} entry "
                                            "(it leaves out counts that are zero)")
        else:
            summary[name] = float(value)
    summary["unavailable"] = unavailable
    return summary


def memory_summary(compiled) -> dict:
    """Bytes XLA sets aside for arguments, outputs and temporaries, and the output bytes that reuse an argument's."""
    fields = {"argument_bytes": "argument_size_in_bytes", "output_bytes": "output_size_in_bytes",
              "temp_bytes": "temp_size_in_bytes", "generated_code_bytes": "generated_code_size_in_bytes",
              "alias_bytes": "alias_size_in_bytes"}  # outputs written into donated arguments' buffers
    try:
        stats = compiled.memory_analysis()
    except Exception as exc:
        stats, reason = None, f"memory_analysis() failed ({type(exc).__name__})"
    else:
        reason = f"the {jax.default_backend()} backend did not report memory use"
    if stats is None:
        return {**dict.fromkeys(fields), "unavailable": reason}
    return {name: int(getattr(stats, attr)) for name, attr in fields.items()}
