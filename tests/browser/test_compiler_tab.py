"""The Compiler tab in headless Chromium, against the real server: passes, graphs, and two versions compared."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from playground.line_colours import PALETTE
from tests.browser.conftest import DROPDOWN_TEXT_UNDER_ARROW_JS, blank_tab, reopen_app, save_screenshot
from tests.browser.test_inspect_ui import RESULT_TIMEOUT_MS
from tests.browser.test_transformation_tabs import open_tab


@pytest.fixture
def compiler(page: Page) -> Page:
    open_tab(page, "Compiler")
    page.locator("#compiler-code .cm-content").wait_for()
    return page


def test_passes_show_fusion_changing_the_module(compiler: Page):
    page = compiler
    page.locator("#compiler-passes-run").click()
    table = page.locator("#compiler-pass-table table tbody tr")
    expect(table.first).to_be_visible(timeout=RESULT_TIMEOUT_MS)
    expect(page.locator("#compiler-passes-status")).to_contain_text("changed the module")
    # Only the passes that changed something are listed at first; fusion among them, chosen, its diff shown.
    assert all(text == "changed" for text in page.locator("#compiler-pass-table tbody td:nth-child(4)")
               .all_inner_texts())
    expect(page.locator("#compiler-pass-choice input[role=combobox]")).to_have_value(re.compile(r"fusion \("))
    diff = page.locator("#compiler-pass-diff")
    expect(diff).to_contain_text("Fusion: merges elementwise operations")
    added = diff.locator('.diff-row[data-kind="added"], .diff-row[data-kind="changed"]')
    assert added.count() > 0
    assert "fusion(" in " ".join(added.all_inner_texts())
    save_screenshot(page, "compiler_passes.png")

    changed_only = table.count()
    page.locator("#compiler-hide-unchanged input").uncheck()
    expect(table).not_to_have_count(changed_only)
    assert table.count() > 3 * changed_only  # XLA's CPU pipeline runs about 130 passes, a handful change anything
    assert "unchanged" in page.locator("#compiler-pass-table tbody td:nth-child(4)").all_inner_texts()
    sentences = page.locator("#compiler-pass-table tbody td:nth-child(6)").all_inner_texts()
    assert all(sentence.strip() for sentence in sentences)  # every pass says what it does, apply-xla-transforms too

    page.get_by_label("unified").first.check()
    expect(diff.locator("div").filter(has_text=re.compile(r"^\+.*fusion\(")).first).to_be_visible()


def test_graphs_box_the_fusion_and_share_the_source_colours(compiler: Page, graphviz):
    page = compiler
    open_tab(page, "Graph")
    page.locator("#compiler-graph-run").click()
    hlo = page.locator("#compiler-hlo-graph .compiler-graph svg")
    expect(hlo).to_be_visible(timeout=RESULT_TIMEOUT_MS)
    expect(hlo.locator("g.cluster")).to_have_count(1)
    expect(hlo.locator("g.cluster text").first).to_contain_text("fusion")
    jaxpr_nodes = page.locator("#compiler-jaxpr-graph .compiler-graph svg g.node")
    expect(jaxpr_nodes).to_have_count(7)  # the input, 5 equations, the output
    # Line 2 made every operation: its colour is the first of the palette, in the code and in both graphs.
    line = page.locator('#compiler-graph-source div[data-line="2"]')
    expect(line).to_have_attribute("style", re.compile(PALETTE[0]))
    for graph in ("#compiler-jaxpr-graph .compiler-graph svg", "#compiler-hlo-graph .compiler-graph svg"):
        fills = page.locator(f"{graph} g.node path, {graph} g.node polygon").evaluate_all(
            "els => els.map(e => e.getAttribute('fill'))")
        assert PALETTE[0] in fills
    save_screenshot(page, "compiler_graph.png")


def test_nested_computations_are_clusters(compiler: Page, graphviz):
    page = compiler
    page.get_by_role("button", name="lax.cond", exact=True).click()
    expect(page.locator("#compiler-args input, #compiler-args textarea").first).to_have_value("jnp.arange(4.0)")
    expect(page.locator("#compiler-code .cm-content")).to_contain_text("lax.cond")
    open_tab(page, "Graph")
    page.locator("#compiler-graph-run").click()
    jaxpr = page.locator("#compiler-jaxpr-graph .compiler-graph svg")
    expect(jaxpr).to_be_visible(timeout=RESULT_TIMEOUT_MS)
    titles = jaxpr.locator("g.cluster > text").all_text_contents()
    assert "cond" in titles and "branches[0]" in titles and "branches[1]" in titles


def test_compare_fusion_off_has_more_kernels_and_a_diff(compiler: Page):
    page = compiler
    open_tab(page, "Compare")
    page.locator("#compiler-compare-run").click()
    table = page.locator("#compiler-compare-table table")
    expect(table).to_be_visible(timeout=RESULT_TIMEOUT_MS)
    kernels = table.locator("tr").filter(has_text="kernels").locator("td").all_inner_texts()
    assert kernels[1:] == ["1", "4"]
    expect(page.locator("#compiler-compare-table")).to_contain_text("timed in turn in the same job")
    expect(page.locator("#compiler-compare-hlo .diff-row").first).to_be_attached()
    save_screenshot(page, "compiler_compare.png")


def test_graph_fits_a_phone(chromium_browser, server, graphviz):
    context = chromium_browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                           is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(server.url)
        open_tab(page, "Compiler")
        open_tab(page, "Graph")
        page.locator("#compiler-graph-run").click()
        hlo = page.locator("#compiler-hlo-graph .compiler-graph svg")
        expect(hlo).to_be_visible(timeout=RESULT_TIMEOUT_MS)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 400, f"the page scrolls sideways on a phone: {width} px wide"
        assert hlo.bounding_box()["width"] <= 390
    finally:
        context.close()


@pytest.mark.parametrize("screen", [{"width": 1366, "height": 800}, {"width": 390, "height": 844}],
                         ids=["1366x800", "390x844"])
def test_the_pass_choice_stops_short_of_its_arrow(chromium_browser, server, screen):
    """The pass dropdown's longest choice ("#12 ... (pipeline): unchanged") does not run under the dropdown's arrow:
    its text ends before the arrow, cut with "…" where the box is too narrow for it; so does every dropdown's."""
    page = reopen_app(blank_tab(chromium_browser, viewport=screen), server.url)
    try:
        open_tab(page, "Compiler")
        page.locator("#compiler-passes-run").click()
        chooser = page.locator("#compiler-pass-choice input[role=combobox]")
        expect(chooser).to_have_value(re.compile(r"fusion \("), timeout=RESULT_TIMEOUT_MS)
        table = page.locator("#compiler-pass-table table tbody tr")
        changed_only = table.count()
        page.locator("#compiler-hide-unchanged input").uncheck()  # every pass a choice, the longest names too
        expect(table).not_to_have_count(changed_only)
        chooser.click()
        longest = max(page.get_by_role("option").all_inner_texts(), key=len).strip()
        page.get_by_role("option", name=longest, exact=True).click()
        expect(chooser).to_have_value(longest)
        panel = page.locator("#main-tabs > div[role=tabpanel]:visible").first
        assert panel.evaluate(DROPDOWN_TEXT_UNDER_ARROW_JS) == []
        chooser.scroll_into_view_if_needed()
        save_screenshot(page, f"compiler_pass_choice_{screen['width']}.png", full_page=False)
        open_tab(page, "Compare")  # the setting's dropdown
        expect(page.locator("#compiler-setting input[role=combobox]")).to_be_visible()
        assert panel.evaluate(DROPDOWN_TEXT_UNDER_ARROW_JS) == []
    finally:
        page.context.close()
