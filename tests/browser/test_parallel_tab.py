"""The Parallel tab in headless Chromium, against the real server (its Parallel pool sees 8 CPU devices)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from playground.gallery import SHARD_EXAMPLE
from tests.browser.test_inspect_ui import RESULT_TIMEOUT_MS
from tests.browser.test_transformation_tabs import editor, open_tab, save


def test_shard_the_default_example(page: Page):
    open_tab(page, "Parallel")
    expect(editor(page, "shard-code")).to_contain_text("return jnp.tanh(x @ w)")
    expect(page.locator("#shard-args textarea")).to_have_value(SHARD_EXAMPLE.args)
    expect(page.locator("#shard-mesh textarea")).to_have_value(SHARD_EXAMPLE.mesh_shape)
    expect(page.locator("#shard-axes textarea")).to_have_value(SHARD_EXAMPLE.axis_names)
    expect(page.locator("#shard-in-specs textarea")).to_have_value(SHARD_EXAMPLE.in_specs)
    expect(page.locator("#shard-out-specs textarea")).to_have_value(SHARD_EXAMPLE.out_specs)

    page.locator("#shard-run").click()
    status = page.locator("#shard-status")
    expect(status.locator(".pg-verdict-ok")).to_have_text("OK", timeout=RESULT_TIMEOUT_MS)
    expect(status).to_contain_text("On 8 devices the result equals the single-device one")

    grids = page.locator("#shard-placement .placement")
    expect(grids).to_have_count(3)  # input 0, input 1, output
    first = grids.first
    expect(first).to_contain_text("input 0: shape (8, 4), 8 block(s) on 8 device(s)")
    rows = first.locator("table tr")
    expect(rows).to_have_count(2)
    for r in range(2):
        cells = rows.nth(r).locator("td")
        expect(cells).to_have_count(4)
        for c in range(4):
            device = 4 * r + c
            bounds = f"[{4 * r}:{4 * r + 4}, {c}:{c + 1}]"
            text = cells.nth(c).inner_text()
            assert text.split("\n") == [f"device {device}", bounds], text
    expect(grids.nth(1)).to_contain_text("input 1: shape (4, 4)")
    expect(grids.nth(2)).to_contain_text("output: shape (8, 4)")

    details = page.locator("#shard-details")
    expect(details).to_contain_text("all-reduce")
    expect(details).to_contain_text("Mesh")
    expect(details).to_contain_text("f32[8, 4]")
    save(page, "parallel.png")


def test_run_the_demos(page: Page):
    open_tab(page, "Parallel")
    page.locator("#parallel-demos-run").click()
    devices = page.locator("#parallel-devices")
    expect(devices).to_contain_text("8 cpu devices", timeout=RESULT_TIMEOUT_MS)
    for d in range(8):
        expect(devices).to_contain_text(f"{d} (cpu)")

    collectives = page.locator("#parallel-collectives")
    expect(collectives).to_contain_text(re.compile(r"psum with jax\.shard_map OK"))
    expect(collectives).to_contain_text(re.compile(r"all_gather with jax\.shard_map OK"))
    expect(collectives.locator(".pg-verdict-differs")).to_have_count(0)
    expect(collectives).to_contain_text("[56.0, 64.0]")

    data_parallel = page.locator("#parallel-data-parallel")
    expect(data_parallel).to_contain_text("all-reduce")
    expect(data_parallel).to_contain_text("equal to")
    expect(data_parallel).to_contain_text("sharded over 8 devices")
    batch = page.locator("#parallel-batch-placement table tr")
    expect(batch).to_have_count(8)  # one row block of 8 images per device
    assert [batch.nth(d).inner_text().split("\n")[0] for d in range(8)] == [f"device {d}" for d in range(8)]

    pmap = page.locator("#parallel-pmap")
    expect(pmap).to_contain_text("same result")
    expect(pmap).to_contain_text("jax.pmap")
    expect(pmap).to_contain_text("maintenance mode")

    page.locator("#parallel-pmap").scroll_into_view_if_needed()
    save(page, "parallel_demos.png")
