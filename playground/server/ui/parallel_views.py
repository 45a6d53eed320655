"""Pure builders for the Parallel tab: the verdict and its numbers, and which device holds which block.

>>> print(verdict_markdown({"n_devices": 8, "matches_unsharded": True, "max_abs_diff": 2.4e-06,
...                         "tolerance": 4.2e-05, "mismatch": None}))
... # doctest: +NORMALIZE_WHITESPACE
<span class='pg-verdict pg-verdict-ok'>OK</span> On 8 devices the result equals the single-device one within
rounding: largest difference 2.4e-06, tolerance 4.2e-05.
"""

from __future__ import annotations

import html

from playground import messages
from playground.messages import numbers
from playground.server.ui import markdown as md

# Verdict labels: a word on a colour (markdown.verdict), read right without an emoji font.
OK, DIFFERS = md.verdict("ok"), md.verdict("differs")

_PALETTE = ("#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
            "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f")


def verdict_markdown(response: dict, language: str = "en") -> str:
    """The shard job's verdict, with the largest difference and the tolerance it was checked against."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    measured = say("par.numbers", difference=difference_text(response.get("max_abs_diff"), language),
                   tolerance=tolerance_text(response.get("tolerance"), language))
    n = response["n_devices"]
    devices = say("par.devices_one" if n == 1 else "par.devices_many", n=n)
    if response["matches_unsharded"]:
        return f"{md.verdict('ok', language)} {say('par.equals', devices=devices, numbers=measured)}"
    mismatch = say("par.mismatch", text=md.text(response["mismatch"])) if response.get("mismatch") else ""
    differs = say("par.differs", devices=devices, numbers=measured, mismatch=mismatch)
    return f"{md.verdict('differs', language)} {differs}"


def tolerance_markdown(response: dict, language: str = "en") -> str:
    """How the tolerance next to the verdict was found, with the job's numbers."""
    rounding, tolerance = response["rounding"], response.get("tolerance")
    if tolerance is None or rounding.get("scale") is None:
        return messages.say("par.tolerance_none", language)
    moved = messages.say("par.moved" if rounding["inputs_moved"] else "par.not_moved", language)
    return messages.say("par.tolerance_how", language, tolerance=numbers.figures(tolerance, language),
                        relative=numbers.figures(rounding["relative"], language),
                        terms=numbers.number(rounding["terms"], language),
                        scale=numbers.figures(rounding["scale"], language), moved=moved)


def difference_text(difference: float | None, language: str = "en") -> str:
    """The API sends a difference that is not finite (inf, nan) as null."""
    return (messages.say("par.not_finite", language) if difference is None
            else messages.say("par.largest_difference", language, d=numbers.figures(difference, language)))


def tolerance_text(tolerance: float | None, language: str = "en") -> str:
    return (messages.say("par.no_tolerance", language) if tolerance is None
            else messages.say("par.tolerance", language, t=numbers.figures(tolerance, language)))


def data_parallel_markdown(step: dict, language: str = "en") -> str:
    """The data-parallel demo: what was split, the verdict, and only the collectives the compiled program has."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    same = (f"{md.verdict('ok', language)} {say('par.dp_same')}" if step["matches_single_device"]
            else f"{md.verdict('differs', language)} {say('par.dp_different')}")
    params = say("par.dp_replicated") if _replicated(step["params_placement"]) else say("par.dp_split")
    found = ", ".join(md.code(c) for c in step["collectives"]) or say("par.none")
    why = say("par.dp_why") if "all-reduce" in step["collectives"] else ""
    return say("par.data_parallel", layers=step["layer_sizes"], batch=numbers.number(step["batch_size"], language),
               n=step["n_devices"], params=params, blocks=_blocks(step["batch_placement"]), same=same,
               difference=difference_text(step.get("max_abs_diff"), language),
               before=numbers.number(step["loss_before"], language, 4),
               after=numbers.number(step["loss_after"], language, 4), found=found, why=why)


def _replicated(placement: list[dict]) -> bool:
    return len({str(shard["index"]) for shard in placement}) == 1


def _blocks(placement: list[dict]) -> int:
    return len({str(shard["index"]) for shard in placement})


def shape_of(placement: list[dict]) -> list[int]:
    """The whole array's shape, from where its blocks end."""
    return [max(shard["index"][d][1] for shard in placement) for d in range(len(placement[0]["index"]))]


def placement_html(placement: list[dict], shape: list[int], title: str, language: str = "en") -> str:
    """A grid like ``jax.debug.visualize_array_sharding``: one cell per block, naming its devices.

    1-D arrays are one row of blocks; for arrays of more dimensions the first two
    decide the grid. A block held by several devices (replicated) lists them all.
    """
    blocks: dict[tuple, list[int]] = {}
    for shard in placement:
        index = [tuple(bounds) for bounds in shard["index"]] or [(0, 1)]
        key = (index[0], index[1] if len(index) > 1 else (0, 1))
        blocks.setdefault(key, []).append(shard["device"])
    rows = sorted({key[0] for key in blocks})
    cols = sorted({key[1] for key in blocks})
    cells = []
    for row in rows:
        tds = []
        for col in cols:
            devices = sorted(blocks.get((row, col), []))
            colour = _PALETTE[int(devices[0]) % len(_PALETTE)] if devices else "#fff"
            label = messages.say("par.device" if len(devices) == 1 else "par.devices", language,
                                 d=", ".join(map(str, devices)))
            bounds = f"[{row[0]}:{row[1]}" + (f", {col[0]}:{col[1]}]" if len(shape) > 1 else "]")
            tds.append(f'<td style="background:{colour};border:1px solid #555;padding:8px;text-align:center">'
                       f'<b>{html.escape(label)}</b><br><span style="font-size:11px">{html.escape(bounds)}</span></td>')
        cells.append("<tr>" + "".join(tds) + "</tr>")
    caption = messages.say("par.caption", language, title=html.escape(title), shape=html.escape(str(tuple(shape))),
                           blocks=len(rows) * len(cols), devices=len(placement))
    return (f'<div class="placement"><div style="font-weight:600;margin:6px 0">{caption}</div>'
            f'<table style="border-collapse:collapse">{"".join(cells)}</table></div>')


def mesh_markdown(mesh: dict, language: str = "en") -> str:
    """The mesh as a table: rows along its first axis, columns along the rest."""
    rows = _rows(mesh["devices"])
    names = mesh["axis_names"]
    corner = f"{names[0]} ↓ / {' × '.join(names[1:])} →" if len(names) > 1 else f"{names[0]} →"
    header = f"| {corner} | " + " | ".join(str(i) for i in range(len(rows[0]))) + " |"
    rule = "|---" * (len(rows[0]) + 1) + "|"
    body = "\n".join(f"| {i if len(names) > 1 else ''} | "
                     + " | ".join(messages.say("par.device", language, d=d) for d in row) + " |"
                     for i, row in enumerate(rows))
    sizes = " × ".join(f"{n} ({s})" for n, s in zip(names, mesh["shape"], strict=True))
    return f"{messages.say('par.mesh', language)} {sizes}\n\n{header}\n{rule}\n{body}"


def _rows(devices) -> list[list[int]]:
    """A mesh's device ids as rows: 1-D meshes are one row, higher ones keep their first axis as rows."""
    if devices and not isinstance(devices[0], list):
        return [devices]
    return [_flatten(row) for row in devices]


def _flatten(value) -> list[int]:
    return [v for item in value for v in _flatten(item)] if isinstance(value, list) else [value]
