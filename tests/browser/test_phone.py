"""Every tab on a phone (390 × 844, touch): all tabs in sight, nothing overlapping, nothing wider than the screen.

Each tab is opened, run where it runs in seconds, and checked for what made it
unusable on a phone before: tabs hidden behind "⋯", Source ↔ IR squeezed into
three 90 px columns, tables wrapping one character per line, the Parallel
grid over its table, editors narrower than the screen, a plot beside its table
at 150 px each, plot titles cut off at the screen's edge, a legend on the right
that left a plot's bars 64 px, a legend entry cut at the plot's edge ("64.2 GFLOP/s
measure"), a dropdown's text under its arrow. Train is also checked
after a short run, with its results drawn; the jit tab's Measure again, in
German and Chinese, beside a result from the cache. Screenshots: phone_<tab>.png and
phone_train_results.png (look at them).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from playground.server.ui.translations import text
from tests.browser.conftest import (
    DROPDOWN_TEXT_UNDER_ARROW_JS,
    SQUEEZED_CELLS_JS,
    blank_tab,
    reopen_app,
    save_screenshot,
    wait_until_finished,
)
from tests.browser.test_inspect_ui import RESULT_TIMEOUT_MS
from tests.browser.test_train_tab import TRAIN_TIMEOUT_MS, plot_title, set_number
from tests.browser.test_transformation_tabs import fill, open_tab, table_rows

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
# An editor at the screen's width, less the page's 8 px margins and a little: 32 px margins left it 326 px.
FULL_WIDTH = PHONE["viewport"]["width"] - 30
TABS = ["Inspect", "Compiler", "Derivatives", "vmap", "jit", "Speed of light", "Parallel", "Train", "About"]

# Blocks that overlap a sibling they do not contain, anywhere in the selected tab (2 px of slack for borders).
OVERLAPS_JS = """(panel) => {
  const shown = [...panel.querySelectorAll('.block, table, .js-plotly-plot, button')].filter(e => {
    const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && e.offsetParent !== null; });
  const found = [];
  for (let i = 0; i < shown.length; i++) for (let j = i + 1; j < shown.length; j++) {
    const a = shown[i], b = shown[j];
    if (a.contains(b) || b.contains(a)) continue;
    const p = a.getBoundingClientRect(), q = b.getBoundingClientRect();
    const x = Math.min(p.right, q.right) - Math.max(p.left, q.left);
    const y = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
    if (x > 2 && y > 2) found.push(`${a.id || a.className} x ${b.id || b.className}`);
  }
  return found.slice(0, 5);
}"""


# Plot titles running past their plot's edge, where the SVG cuts them off (a title is one line unless it has <br>).
CUT_TITLES_JS = """(panel) => [...panel.querySelectorAll('.js-plotly-plot')].filter(p => p.offsetParent !== null)
  .flatMap(plot => { const box = plot.getBoundingClientRect();
    return [...plot.querySelectorAll('.gtitle')].filter(title => { const r = title.getBoundingClientRect();
      return r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1); }).map(t => t.textContent); })
  .slice(0, 5)"""


# Texts written on a plot (annotations: the digit grid's captions) that run into each other.
CROWDED_CAPTIONS_JS = """(plot) => { const boxes = [...plot.querySelectorAll('g.annotation')]
    .map(a => [a.textContent, a.getBoundingClientRect()]).filter(([, r]) => r.width > 0);
  const found = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [s, p] = boxes[i], [t, q] = boxes[j];
    const x = Math.min(p.right, q.right) - Math.max(p.left, q.left);
    const y = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
    if (x > 1 && y > 1) found.push(`${s} x ${t}`);
  }
  return found.slice(0, 5); }"""


# Plots and tables in a block narrower than 300 px: two results squeezed side by side instead of stacked.
NARROW_RESULTS_JS = """(panel) => [...panel.querySelectorAll('.js-plotly-plot, table')]
  .filter(e => e.offsetParent !== null).map(e => e.closest('.block') || e)
  .filter(block => block.getBoundingClientRect().width < 300).map(block => block.id || block.className).slice(0, 5)"""


# Plots whose drawing area (each subplot's) is under 200 px wide: a legend or colour bar took the width it needed.
SQUEEZED_PLOT_AREAS_JS = """(panel) => [...panel.querySelectorAll('.js-plotly-plot')]
  .filter(p => p.offsetParent !== null)
  .flatMap(plot => [...plot.querySelectorAll('.draglayer .nsewdrag')]
    .map(area => area.getBoundingClientRect().width).filter(width => width < 200)
    .map(width => `${plot.closest('.block')?.id}: ${Math.round(width)} px`))
  .slice(0, 5)"""


# Text of a plot (a legend entry, a title, an axis's label or tick, an annotation) cut off by the plot's edge or by
# its legend's box, or a legend entry over another text: plotly never wraps a legend entry (a long one runs past a
# phone's edge), and a tall legend below a plot of fixed height is drawn over the axis's title.
CLIPPED_PLOT_TEXT_JS = """(panel) => [...panel.querySelectorAll('.js-plotly-plot')].filter(p => p.offsetParent !== null)
  .flatMap(plot => { const box = plot.getBoundingClientRect();
    const outside = (r, b) => r.left < b.left - 1 || r.right > b.right + 1 || r.top < b.top - 1
      || r.bottom > b.bottom + 1;
    const meet = (r, q) => Math.min(r.right, q.right) - Math.max(r.left, q.left) > 1
      && Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top) > 1;
    const texts = [...plot.querySelectorAll('svg text')].filter(text => text.getBoundingClientRect().width > 0
      && text.textContent.trim() && !text.closest('.hoverlayer'));
    const others = texts.filter(text => !text.closest('.legend')).map(text => text.getBoundingClientRect());
    return texts.filter(text => {
      const r = text.getBoundingClientRect(), legend = text.closest('.legend');
      if (outside(r, box)) return true;
      return legend && (outside(r, legend.querySelector('.bg').getBoundingClientRect())
        || others.some(q => meet(r, q)));
    }).map(text => `${plot.closest('.block')?.id}: ${text.textContent.slice(0, 60)}`); })
  .slice(0, 5)"""


@pytest.fixture(scope="module")
def phone_tab(chromium_browser):
    page = blank_tab(chromium_browser, **PHONE)
    yield page
    page.context.close()


@pytest.fixture
def phone(phone_tab, server):
    return reopen_app(phone_tab, server.url)


def _panel(page: Page):
    return page.locator("#main-tabs > div[role=tabpanel]:visible").first


def _result_in_sight(page: Page, status: str) -> None:
    """After a run, a phone shows its result without scrolling for it (not below the fold, 844 px and more down)."""
    top = page.locator(f"#{status}").evaluate("e => e.getBoundingClientRect().top")
    # From the top of the screen on: -0.06 px is at the top too (the page scrolls by whole pixels, a block may
    # start between two).
    assert -1 < top < page.viewport_size["height"] / 2, top


def _run(page: Page, tab: str) -> None:
    """Run the tab's default where that takes seconds, so that its results are checked too, with what a phone
    needs of them: the result in sight after the run, results stacked rather than side by side."""
    if tab == "Inspect":
        page.locator("#inspect-run").click()
        expect(page.locator("#inspect-status .pg-verdict-ok")).to_be_visible(timeout=RESULT_TIMEOUT_MS)
        expect(page.locator("#inspect-status")).to_contain_text("Traced")
        _result_in_sight(page, "inspect-status")
        panes = page.locator("#inspect-source-map .source-ir > div")  # source, jaxpr, HLO
        expect(panes).to_have_count(3)
        boxes = [pane.bounding_box() for pane in panes.all()]
        assert all(box["width"] >= 300 for box in boxes), boxes  # each the screen's width, not 90 px
        assert boxes[0]["y"] < boxes[1]["y"] < boxes[2]["y"], boxes  # one above the other
    elif tab == "Compiler":
        # A phone's diffs are unified from the start: side by side, two columns of HLO wrap into slivers at 390 px.
        expect(page.locator("#compiler-diff-style input[value='unified']")).to_be_checked()
        page.locator("#compiler-passes-run").click()
        expect(page.locator("#compiler-passes-status .pg-verdict-ok")).to_be_visible(timeout=RESULT_TIMEOUT_MS)
        diff = page.locator("#compiler-pass-diff .compiler-diff")
        expect(diff).to_contain_text("+++ after")
        expect(diff.locator(".diff-row")).to_have_count(0)  # one column of - and + lines, no side-by-side rows
        # Its long lines scroll sideways in their box: the page itself cuts off what goes past its edge.
        box = diff.evaluate("(d) => [getComputedStyle(d).overflowX, d.scrollWidth > d.clientWidth]")
        assert box == ["auto", True], box
    elif tab == "Derivatives":
        page.locator("#deriv-run").click()
        expect(page.locator("#deriv-status .pg-verdict-ok")).to_be_visible(timeout=RESULT_TIMEOUT_MS)
        _result_in_sight(page, "deriv-status")
        for plot in ("#deriv-plot", "#deriv-growth"):  # drawn a moment after the verdict
            expect(page.locator(f"{plot} .js-plotly-plot")).to_be_visible()
    elif tab == "vmap":
        page.locator("#vmap-sizes textarea").fill("1, 10")
        page.locator("#vmap-run").click()
        expect(page.locator("#vmap-table table")).to_be_visible(timeout=RESULT_TIMEOUT_MS)
        expect(page.locator("#vmap-plot .js-plotly-plot")).to_be_visible()  # drawn a moment after the table
    elif tab == "jit":
        page.locator("#jit-sizes textarea").fill("16, 32")
        page.locator("#jit-run").click()
        expect(page.locator("#jit-table table")).to_be_visible(timeout=RESULT_TIMEOUT_MS)
        expect(page.locator("#jit-plot .js-plotly-plot")).to_be_visible()
    elif tab == "Speed of light":
        page.locator("#speed-run").click()
        expect(page.locator("#speed-verdict")).to_contain_text("memory-bound", timeout=2 * RESULT_TIMEOUT_MS)
        _result_in_sight(page, "speed-status")
        for plot in ("#speed-roofline", "#speed-memory", "#speed-kernels"):  # drawn a moment after the verdict
            expect(page.locator(f"{plot} .js-plotly-plot")).to_be_visible()
    elif tab == "Parallel":
        page.locator("#shard-run").click()
        expect(page.locator("#shard-details")).to_contain_text("Result", timeout=RESULT_TIMEOUT_MS)
        grid, details = (page.locator(f"#{name}").bounding_box() for name in ("shard-placement", "shard-details"))
        assert grid["width"] >= 300 and details["width"] >= 300, (grid, details)
        assert grid["y"] + grid["height"] <= details["y"] + 2, (grid, details)  # the details below the grid
    elif tab == "About":
        expect(page.locator("#about-summary table").first).to_be_visible(timeout=RESULT_TIMEOUT_MS)


@pytest.mark.parametrize("tab", TABS)
def test_each_tab_fits_a_phone(phone: Page, tab: str):
    tabs = phone.locator("#main-tabs [role=tablist]").first
    for name in TABS:  # every tab in sight, none in a "⋯" menu
        expect(tabs.get_by_role("tab", name=name, exact=True)).to_be_visible()
    expect(phone.locator("#main-tabs .overflow-menu")).to_have_count(0)
    tabs.get_by_role("tab", name=tab, exact=True).click()
    _run(phone, tab)
    panel = _panel(phone)

    save_screenshot(phone, f"phone_{tab.lower().replace(' ', '_')}.png")
    width = phone.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px screen"
    for editor in panel.locator(".cm-editor:visible").all():
        assert editor.bounding_box()["width"] >= FULL_WIDTH, "an editor narrower than the screen"
    assert panel.evaluate(OVERLAPS_JS) == []
    assert panel.evaluate(SQUEEZED_CELLS_JS) == []
    assert panel.evaluate(NARROW_RESULTS_JS) == []
    assert panel.evaluate(CUT_TITLES_JS) == []
    assert panel.evaluate(SQUEEZED_PLOT_AREAS_JS) == []
    assert panel.evaluate(CLIPPED_PLOT_TEXT_JS) == []
    assert panel.evaluate(DROPDOWN_TEXT_UNDER_ARROW_JS) == []


def test_a_finished_training_run_fits_a_phone(phone_tab, classroom_server):
    """Train's results (curves, digit grid, confusion matrix) at phone width once a short run has finished."""
    phone = reopen_app(phone_tab, classroom_server.url)
    phone.get_by_role("tab", name="Train", exact=True).click()
    set_number(phone, "train-epochs", 2)
    phone.locator("#train-start").click()
    expect(phone.locator("#train-status")).to_contain_text("Finished", timeout=TRAIN_TIMEOUT_MS)
    expect(phone.locator("#train-status")).to_contain_text("Only the test set of MNIST is here")
    expect(plot_title(phone, "train-grid")).to_contain_text(re.compile(r"mistakes first|no mistakes in all"))
    expect(plot_title(phone, "train-confusion")).to_contain_text("accuracy")
    panel = _panel(phone)
    phone.locator("#train-grid").scroll_into_view_if_needed()
    save_screenshot(phone, "phone_train_results.png")
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
    assert panel.evaluate(OVERLAPS_JS) == []
    assert panel.evaluate(NARROW_RESULTS_JS) == []
    assert panel.evaluate(CUT_TITLES_JS) == []
    assert panel.evaluate(SQUEEZED_PLOT_AREAS_JS) == []
    assert panel.evaluate(CLIPPED_PLOT_TEXT_JS) == []
    assert phone.locator("#train-grid .js-plotly-plot").evaluate(CROWDED_CAPTIONS_JS) == []


def test_a_phone_is_offered_no_keyboard_shortcut_and_draws_with_a_finger(phone: Page):
    expect(phone.locator("#inspect-status")).to_have_text(
        "Nothing has run yet: press the button above and the result appears here.", use_inner_text=True)
    phone.get_by_role("tab", name="Train", exact=True).click()
    expect(phone.locator("#train-draw-intro")).to_contain_text("Draw with the mouse, a pen or a finger")


@pytest.mark.parametrize(("locale", "language", "cached", "sizes"), [
    ("de-DE", "de", "Aus dem Cache", "17"), ("zh-CN", "zh", "来自缓存", "19")])
def test_measure_again_in_german_and_chinese_at_a_phones_width(chromium_browser, server, locale, language, cached,
                                                              sizes):
    phone = blank_tab(chromium_browser, locale=locale, **PHONE)
    try:
        reopen_app(phone, server.url)
        open_tab(phone, "jit")
        fill(phone, "jit-sizes", sizes)
        status, again = phone.locator("#jit-status"), phone.locator("#jit-again")
        phone.locator("#jit-run").click()
        expect(table_rows(phone, "jit-table")).to_have_count(1, timeout=RESULT_TIMEOUT_MS)
        wait_until_finished(status)
        phone.locator("#jit-run").click()
        expect(again).to_be_visible(timeout=RESULT_TIMEOUT_MS)
        expect(again).to_have_text(text("pg.measure_again", language))
        expect(status).to_contain_text(cached)
        width = phone.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["viewport"]["width"], f"the page is {width} px wide on a phone"
        panel = phone.locator("#main-tabs > div[role=tabpanel]:visible").first
        assert panel.evaluate(OVERLAPS_JS) == []
    finally:
        phone.context.close()
