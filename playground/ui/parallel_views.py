"""Pure builders for the Parallel tab: the verdict and its numbers, and which device holds which block.

>>> print(verdict_markdown({"n_devices": 8, "matches_unsharded": True, "max_abs_diff": 2.4e-06,
...                         "tolerance": 4.2e-05, "mismatch": None}))
... # doctest: +NORMALIZE_WHITESPACE
<span class='pg-verdict pg-verdict-ok'>OK</span> On 8 devices the result equals the single-device one within
rounding: largest difference 2.4e-06, tolerance 4.2e-05.
"""

from __future__ import annotations

import html

from playground.ui import markdown as md

# Verdict labels: a word on a colour (markdown.verdict), read right without an emoji font.
OK, DIFFERS = md.verdict("ok"), md.verdict("differs")

_PALETTE = ("#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
            "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f")


def verdict_markdown(response: dict) -> str:
    """The shard job's verdict, with the largest difference and the tolerance it was checked against."""
    numbers = f"{difference_text(response.get('max_abs_diff'))}, {tolerance_text(response.get('tolerance'))}"
    devices = f"On {response['n_devices']} device{'' if response['n_devices'] == 1 else 's'} the result"
    if response["matches_unsharded"]:
        return f"{OK} {devices} equals the single-device one within rounding: {numbers}."
    mismatch = f": {md.text(response['mismatch'])}" if response.get("mismatch") else ""
    return f"{DIFFERS} {devices} DIFFERS from the single-device one ({numbers}){mismatch}."


def tolerance_markdown(response: dict) -> str:
    """How the tolerance next to the verdict was found, with the job's numbers."""
    rounding, tolerance = response["rounding"], response.get("tolerance")
    if tolerance is None or rounding.get("scale") is None:
        return "**Tolerance:** none, the results could not be compared."
    moved = ("plus how far the result moves when every input moves by its own size in a random direction (a "
             "`jax.jvp`)" if rounding["inputs_moved"] else "(how far it moves with its inputs was not measured: "
             "no float inputs, or JAX has no jvp for this function)")
    return (f"**Tolerance** {tolerance:.3g} = 4 × ρ × scale, the rounding that doing the same arithmetic in another "
            f"order explains. ρ = {rounding['relative']:.3g} for {rounding['terms']} rounding step(s), the terms of "
            "the function's sums (read from its jaxpr) and one per other operation: √(steps) × eps, as rounding "
            f"errors add like random signs. Scale = {rounding['scale']:.3g}, the largest magnitude in the "
            f"single-device result {moved}. Integer results must be equal.")


def difference_text(difference: float | None) -> str:
    """The API sends a difference that is not finite (inf, nan) as null."""
    return "a difference that is not finite" if difference is None else f"largest difference {difference:.3g}"


def tolerance_text(tolerance: float | None) -> str:
    return "no tolerance (the results cannot be compared)" if tolerance is None else f"tolerance {tolerance:.3g}"


def data_parallel_markdown(step: dict) -> str:
    """The data-parallel demo: what was split, the verdict, and only the collectives the compiled program has."""
    same = f"{OK} equal to" if step["matches_single_device"] else f"{DIFFERS} different from"
    params = "replicated (every device holds all of them)" if _replicated(step["params_placement"]) else "split"
    found = ", ".join(md.code(c) for c in step["collectives"]) or "none"
    why = (": each device computes gradients on its slice of the batch, and the all-reduce sums them"
           if "all-reduce" in step["collectives"] else "")
    return (f"#### One SGD step of the MLP {step['layer_sizes']}, batch of {step['batch_size']} sharded over "
            f"{step['n_devices']} devices\nParams {params}; the batch in {_blocks(step['batch_placement'])} "
            f"block(s) on axis `data`. New params {same} the single-device step "
            f"({difference_text(step.get('max_abs_diff'))}); loss {step['loss_before']:.4f} → "
            f"{step['loss_after']:.4f}.\n\nCollectives in the compiled step: {found}{why}.")


def _replicated(placement: list[dict]) -> bool:
    return len({str(shard["index"]) for shard in placement}) == 1


def _blocks(placement: list[dict]) -> int:
    return len({str(shard["index"]) for shard in placement})


def shape_of(placement: list[dict]) -> list[int]:
    """The whole array's shape, from where its blocks end."""
    return [max(shard["index"][d][1] for shard in placement) for d in range(len(placement[0]["index"]))]


def placement_html(placement: list[dict], shape: list[int], title: str) -> str:
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
            label = ("device " if len(devices) == 1 else "devices ") + ", ".join(map(str, devices))
            bounds = f"[{row[0]}:{row[1]}" + (f", {col[0]}:{col[1]}]" if len(shape) > 1 else "]")
            tds.append(f'<td style="background:{colour};border:1px solid #555;padding:8px;text-align:center">'
                       f'<b>{html.escape(label)}</b><br><span style="font-size:11px">{html.escape(bounds)}</span></td>')
        cells.append("<tr>" + "".join(tds) + "</tr>")
    caption = (f"{html.escape(title)}: shape {html.escape(str(tuple(shape)))}, {len(rows) * len(cols)} block(s) "
               f"on {len(placement)} device(s)")
    return (f'<div class="placement"><div style="font-weight:600;margin:6px 0">{caption}</div>'
            f'<table style="border-collapse:collapse">{"".join(cells)}</table></div>')


def mesh_markdown(mesh: dict) -> str:
    """The mesh as a table: rows along its first axis, columns along the rest."""
    rows = _rows(mesh["devices"])
    names = mesh["axis_names"]
    corner = f"{names[0]} ↓ / {' × '.join(names[1:])} →" if len(names) > 1 else f"{names[0]} →"
    header = f"| {corner} | " + " | ".join(str(i) for i in range(len(rows[0]))) + " |"
    rule = "|---" * (len(rows[0]) + 1) + "|"
    body = "\n".join(f"| {i if len(names) > 1 else ''} | " + " | ".join(f"device {d}" for d in row) + " |"
                     for i, row in enumerate(rows))
    sizes = " × ".join(f"{n} ({s})" for n, s in zip(names, mesh["shape"], strict=True))
    return f"**Mesh** {sizes}\n\n{header}\n{rule}\n{body}"


def _rows(devices) -> list[list[int]]:
    """A mesh's device ids as rows: 1-D meshes are one row, higher ones keep their first axis as rows."""
    if devices and not isinstance(devices[0], list):
        return [devices]
    return [_flatten(row) for row in devices]


def _flatten(value) -> list[int]:
    return [v for item in value for v in _flatten(item)] if isinstance(value, list) else [value]
