"""The Speed of light tab's words about the roofline: each program's verdict under its roof, the two versions
compared (too close to call where the spread says so), and the device's roofs, one line each on how it was
measured. Pure functions from roofline.place's dict to Markdown, in the reader's language; speed_views.py lays
out the rest.

>>> label("fusion off", "de")
'ohne Fusion'
"""

from __future__ import annotations

from playground import messages
from playground.server import roofline
from playground.server.ui import markdown as md

# The programs' labels, translated; and the gradient's two versions, compared as the programs are.
LABELS = {"as written": "sol.as_written", "fusion off": "sol.fusion_off", "with jax.checkpoint": "sol.with_checkpoint",
          "without jax.checkpoint": "sol.without_checkpoint"}
REMAT_LABELS = ["with jax.checkpoint", "without jax.checkpoint"]  # the order of the gradient's runs


def label(name: str, language: str = "en") -> str:
    """A program's label ("as written", "fusion off") in ``language``; another as it came, escaped."""
    return messages.say(LABELS[name], language) if name in LABELS else md.text(name)


def verdict_markdown(placed: dict, language: str = "en") -> str:
    """One sentence per program: what bounds it and how far it is from the ceiling, in ``language``."""
    ceilings = placed.get("ceilings")
    sentences = [messages.say("sol.program", language, label=label(program["label"], language),
                              verdict=md.text(roofline.verdict(program, ceilings, language)))
                 for program in placed.get("programs") or []]
    lines = [f"- {sentence}" for sentence in sentences]
    if placed.get("comparison") and len(placed.get("programs") or []) == 2:
        lines += ["", comparison_markdown(placed["comparison"], [p["label"] for p in placed["programs"]], language)]
    return "\n".join(lines)


def comparison_markdown(comparison: dict, labels: list[str], language: str = "en") -> str:
    """Which version was faster, or that the spread does not let one tell; a busy machine named.

    >>> print(comparison_markdown({"faster": None, "times": 1.1, "difference_s": 0.001, "spread_s": 0.004,
    ...                            "calls": 9, "busy": True, "fast_s": 0.010, "slow_s": 0.011},
    ...                           ["as written", "fusion off"]))  # doctest: +NORMALIZE_WHITESPACE
    **as written** against **fusion off**: too close to call on this machine right now. Their medians, 10.0 ms and
    11.0 ms (9 calls each, in turn), differ by 1.00 ms, no more than their spread (the middle half of the calls:
    4.00 ms). This machine was busy: other jobs ran while these were timed.
    """
    def took(seconds: float) -> str:
        return roofline.duration(seconds, language)

    said = {"fast": took(comparison["fast_s"]), "slow": took(comparison["slow_s"]), "calls": comparison["calls"],
            "spread": took(comparison["spread_s"])}
    if comparison["faster"] is None:
        text = messages.say("sol.compare.too_close", language, first=label(labels[0], language),
                            second=label(labels[1], language), difference=took(comparison["difference_s"]), **said)
    else:
        text = messages.say("sol.compare.faster", language, faster=label(labels[comparison["faster"]], language),
                            slower=label(labels[1 - comparison["faster"]], language),
                            times=messages.number(comparison["times"], language, 2), **said)
    return f"{text} {messages.say('sol.compare.busy', language)}" if comparison["busy"] else text


def ceilings_markdown(placed: dict, language: str = "en") -> str:
    """The device's roofs, one line each on how it was measured, and where each meets the compute roof; or why
    there are none."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    ceilings = placed.get("ceilings")
    if ceilings is None:
        why = placed.get("ceilings_unavailable") or "-"
        return f"{md.verdict('warning', language)} {say('sol.no_ceilings', why=md.text(why))}"
    lines = [say("sol.ceilings", device=md.text(ceilings["device"])), ""]
    levels = roofline.levels(ceilings)
    for level in levels:
        name = roofline.level_name(level["name"], language)
        how = {"level": name, "bandwidth": roofline.amount(level["bandwidth_bytes_s"], "B/s", language),
               "stream": size(level["stream_bytes"], language), "passes": messages.number(level["passes"], language)}
        lines.append("- " + (say("sol.roof.memory", **how) if level["cache_bytes"] is None else
                             say("sol.roof.cache", **how, size=size(level["cache_bytes"], language)))
                     + (say("sol.roof.lifted", measured=roofline.amount(level["measured_bytes_s"], "B/s", language))
                        if level.get("measured_bytes_s") else ""))
    dtype = md.text(ceilings["dtype"])
    precision = (say("sol.roof.tpu_float32") if ceilings.get("platform") == "tpu" and ceilings["dtype"] == "float32"
                 else "")
    lines.append("- " + say("sol.roof.compute", dtype=dtype, n=int(ceilings["matmul_n"]), precision=precision,
                            flops=roofline.amount(ceilings["peak_flops_s"], "FLOP/s", language)))
    ridges = [say("sol.roof.ridge", level=roofline.level_name(level["name"], language),
                  ridge=messages.number(ceilings["peak_flops_s"] / level["bandwidth_bytes_s"], language, 1))
              for level in levels]
    return "\n".join([*lines, "", say("sol.roof.rule", ridges=", ".join(ridges))])


def size(value: float, language: str) -> str:
    """32.0 MB, 262 kB, 64 B: bytes below a kilobyte are whole."""
    if abs(value) < 1000:
        return f"{messages.number(value, language)} B"
    return roofline.amount(value, "B", language, 1)
