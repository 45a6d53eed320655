"""Pure builders for the Parallel tab: which device holds which block, drawn as a coloured grid."""

from __future__ import annotations

import html

_PALETTE = ("#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
            "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f")


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
