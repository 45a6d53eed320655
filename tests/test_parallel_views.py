"""The placement grid and mesh table of the Parallel tab."""

from __future__ import annotations

import re

from playground.ui.parallel_tab import shape_of
from playground.ui.parallel_views import mesh_markdown, placement_html

# An (8, 4) array on a 2 x 4 mesh, spec ('data', 'model'): device d holds rows 4*(d//4).. and column d%4.
TWO_BY_FOUR = [{"device": d, "index": [[4 * (d // 4), 4 * (d // 4) + 4], [d % 4, d % 4 + 1]]} for d in range(8)]


def test_a_two_by_four_placement_is_a_two_by_four_grid_of_devices():
    page = placement_html(TWO_BY_FOUR, [8, 4], "input 0")
    rows = re.findall(r"<tr>(.*?)</tr>", page)
    assert len(rows) == 2
    cells = [re.findall(r"<b>device (\d+)</b><br><span[^>]*>\[(\d+):(\d+), (\d+):(\d+)\]", row) for row in rows]
    assert [[c[0] for c in row] for row in cells] == [["0", "1", "2", "3"], ["4", "5", "6", "7"]]
    assert cells[1][2][1:] == ("4", "8", "2", "3")
    assert "shape (8, 4), 8 block(s) on 8 device(s)" in page


def test_replicated_blocks_list_every_device_that_holds_them():
    replicated = [{"device": d, "index": [[0, 4]]} for d in range(3)]
    page = placement_html(replicated, [4], "params")
    assert "devices 0, 1, 2" in page and "[0:4]" in page and "1 block(s) on 3 device(s)" in page


def test_titles_are_escaped():
    assert "&lt;b&gt;" in placement_html(TWO_BY_FOUR, [8, 4], "<b>")


def test_shape_of_reads_where_blocks_end():
    assert shape_of(TWO_BY_FOUR) == [8, 4]


def test_mesh_markdown_lays_devices_out_as_the_mesh():
    text = mesh_markdown({"shape": [2, 4], "axis_names": ["data", "model"], "devices": [[0, 1, 2, 3], [4, 5, 6, 7]]})
    assert "data (2) × model (4)" in text
    assert "| device 4 | device 5 | device 6 | device 7 |" in text
    assert mesh_markdown({"shape": [3], "axis_names": ["x"], "devices": [0, 1, 2]}).endswith(
        "| device 0 | device 1 | device 2 |")


def test_mesh_markdown_header_names_the_axes():
    text = mesh_markdown({"shape": [2, 4], "axis_names": ["data", "model"], "devices": [[0, 1, 2, 3], [4, 5, 6, 7]]})
    assert "| data ↓ / model → | 0 | 1 | 2 | 3 |" in text
    assert "| 1 | device 4 | device 5 | device 6 | device 7 |" in text


def test_a_difference_that_is_not_finite_is_said_in_words():
    from playground.ui.parallel_tab import render_shard

    response = {"ok": True, "n_devices": 8, "placement": [TWO_BY_FOUR], "shapes": [[8, 4]],
                "out_placement": TWO_BY_FOUR, "matches_unsharded": False, "max_abs_diff": None,
                "mesh": {"shape": [8], "axis_names": ["data"], "devices": list(range(8))},
                "result": "f32[8]", "collectives": []}
    status, _, _ = render_shard(response)
    assert status.startswith("❌") and "not finite" in status
