"""The Parallel tab's views: the verdict with its numbers, the placement grid, the mesh table, the demos' text."""

from __future__ import annotations

import re

from playground.server.ui.markdown import verdict
from playground.server.ui.parallel_views import (
    data_parallel_markdown,
    mesh_markdown,
    placement_html,
    shape_of,
    tolerance_markdown,
    verdict_markdown,
)

DIFFERS, OK = verdict("differs"), verdict("ok")  # the labels that replaced emoji

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


ROUNDING = {"terms": 100, "relative": 1.19e-06, "scale": 142.8, "inputs_moved": True}


def shard_reply(**changes) -> dict:
    reply = {"ok": True, "n_devices": 8, "placement": [TWO_BY_FOUR], "shapes": [[8, 4]], "out_placement": TWO_BY_FOUR,
             "matches_unsharded": True, "max_abs_diff": 2.38e-06, "tolerance": 6.84e-04, "rounding": ROUNDING,
             "mismatch": None, "mesh": {"shape": [8], "axis_names": ["data"], "devices": list(range(8))},
             "result": "f32[8]", "collectives": []}
    return {**reply, **changes}


def test_the_verdict_shows_the_difference_and_the_tolerance_next_to_it():
    assert verdict_markdown(shard_reply()) == (f"{OK} On 8 devices the result equals the single-device one within "
                                               "rounding: largest difference 2.38e-06, tolerance 0.000684.")
    wrong = verdict_markdown(shard_reply(matches_unsharded=False, max_abs_diff=0.0084,
                                         mismatch="64 of 64 elements differ by more than the tolerance (the result)"))
    assert wrong == (f"{DIFFERS} On 8 devices the result DIFFERS from the single-device one (largest difference "
                     "0.0084, tolerance 0.000684): 64 of 64 elements differ by more than the tolerance (the result).")


def test_a_difference_that_is_not_finite_is_said_in_words():
    from playground.server.ui.parallel_tab import render_shard

    status, _, _ = render_shard(shard_reply(matches_unsharded=False, max_abs_diff=None))
    assert status.startswith(f"{DIFFERS}") and "a difference that is not finite" in status


def test_the_mismatch_from_the_reply_cannot_format_the_page():
    text = verdict_markdown(shard_reply(matches_unsharded=False, mismatch="![x](https://evil.example) <img>"))
    assert "<img>" not in text and "\\!\\[x\\]" in text


def test_the_tolerance_is_explained_with_the_jobs_numbers():
    text = tolerance_markdown(shard_reply())
    assert text.startswith("**Tolerance** 0.000684 = 4 × ρ × scale")
    assert "ρ = 1.19e-06 for 100 rounding step(s)" in text and "Scale = 143" in text and "`jax.jvp`" in text
    unmoved = tolerance_markdown(shard_reply(rounding={**ROUNDING, "inputs_moved": False}))
    assert "was not measured" in unmoved and "jax.jvp" not in unmoved
    assert tolerance_markdown(shard_reply(tolerance=None)) == "**Tolerance:** none, the results could not be compared."


STEP = {"n_devices": 8, "layer_sizes": [784, 64, 10], "batch_size": 64, "matches_single_device": True,
        "max_abs_diff": 3e-7, "loss_before": 2.3, "loss_after": 2.1, "collectives": ["all-reduce"],
        "batch_placement": [{"device": d, "index": [[8 * d, 8 * d + 8], [0, 784]]} for d in range(8)],
        "params_placement": [{"device": d, "index": [[0, 784], [0, 64]]} for d in range(8)]}


def test_the_data_parallel_step_says_what_its_placements_and_collectives_show():
    text = data_parallel_markdown(STEP)
    assert "Params replicated" in text and "the batch in 8 block(s)" in text
    assert "`all-reduce`: each device computes gradients on its slice of the batch" in text
    split = [{"device": d, "index": [[0, 784], [8 * d, 8 * d + 8]]} for d in range(8)]
    other = data_parallel_markdown({**STEP, "collectives": ["all-gather"], "params_placement": split})
    assert "Params split" in other and "sums them" not in other and "`all-gather`." in other
