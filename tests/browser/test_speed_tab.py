"""The Speed of light tab in headless Chromium, against the real server: the default example run from the tab, its
verdict, the roofline with its ceilings and points, the memory and kernel timelines, the buffers at the peak in the
colours of the user's lines; at a phone's width with nothing wider than the screen and no plot text cut off (in
English, German and Chinese); and in German and Chinese.

Screenshots: speed.png (the documentation's, with `make screenshots`), speed_phone.png (speed_phone_de.png,
speed_phone_zh.png), speed_de.png and speed_zh.png.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from playground import line_colours
from playground.owner.cache_levels import cache_levels
from playground.server.ui.translations import text
from tests.browser.conftest import (
    CUT_OFF_TABLES_JS,
    SQUEEZED_CELLS_JS,
    blank_tab,
    reopen_app,
    save_screenshot,
    wait_until_finished,
)
from tests.browser.test_inspect_ui import RESULT_TIMEOUT_MS
from tests.browser.test_phone import (
    CLIPPED_PLOT_TEXT_JS,
    NARROW_RESULTS_JS,
    OVERLAPS_JS,
    PHONE,
    SQUEEZED_PLOT_AREAS_JS,
)
from tests.browser.test_share_links import copy_link

TITLE = text("pg.tab.speed", "en")
# The ceilings job runs once per server before the first roofline, then the function's job: both within this.
SPEED_TIMEOUT_MS = 2 * RESULT_TIMEOUT_MS


def open_speed_tab(page: Page, title: str = TITLE) -> None:
    tab = page.get_by_role("tab", name=title, exact=True)
    tab.click()
    expect(tab).to_have_attribute("aria-selected", "true")  # a click during a re-render can be lost
    expect(page.locator("#speed-code .cm-content")).to_contain_text("x + x*x + x*x*x")  # the first example


# The default example, half a FLOP a byte, is memory-bound under a quiet machine's roofs; a test suite beside the
# measurement of the roofs can move the ridge below it: the verdict then says compute-bound, in the same words.
BOUND = re.compile("memory-bound|compute-bound")


def run_default(page: Page, title: str = TITLE, bound: str | re.Pattern = BOUND) -> None:
    """Run the tab's default example and wait for everything it draws: the verdict first, the figures after it."""
    open_speed_tab(page, title)
    page.locator("#speed-run").click()
    expect(page.locator("#speed-verdict")).to_contain_text(bound, timeout=SPEED_TIMEOUT_MS)
    for plot in ("speed-roofline", "speed-memory", "speed-gradient-plot", "speed-kernels"):
        expect(page.locator(f"#{plot} .js-plotly-plot")).to_be_visible()
    wait_until_finished(page.locator("#speed-notes"))


def _rgb(colour: str) -> str:
    """#fde2e4 as the browser computes it: rgb(253, 226, 228)."""
    red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


def test_the_default_example_is_placed_under_the_measured_ceilings(page: Page):
    run_default(page)
    expect(page.locator("#speed-status .pg-verdict-ok")).to_have_text("OK")
    verdict = page.locator("#speed-verdict")
    expect(verdict.locator("li")).to_have_count(2)  # as written, fusion off: a sentence each
    for label, moved in (("as written", "32\\.0 MB"), ("fusion off", "176 MB")):
        said = rf"{label}: (memory-bound: moves {moved}|compute-bound: 16\.0 MFLOP)"
        expect(verdict).to_contain_text(re.compile(said))
    ceilings = page.locator("#speed-ceilings")
    expect(ceilings).to_contain_text("This machine's roofs")
    expect(ceilings.locator("li")).to_have_count(len(cache_levels()) + 2)  # each cache, memory, compute: how each
    # In turn, the same calls each: a verdict, or too close to call.
    expect(verdict).to_contain_text(re.compile(r"as fast as|too close to call on this machine right now"))
    # n grows until a call takes 50 ms: which n that is depends on the machine and its load.
    expect(ceilings).to_contain_text(re.compile(r"a \d+ × \d+ float32 matmul"))

    roofline = page.locator("#speed-roofline .js-plotly-plot")
    # A roof per level and the compute roof, the two programs and the traced kernels (one: the fusion).
    roofs = len(cache_levels()) + 2
    expect(roofline.locator(".scatterlayer .trace")).to_have_count(roofs + 3)
    expect(roofline.locator(".scatterlayer .point")).to_have_count(3)
    legend = roofline.locator(".legendtext")
    expect(legend).to_have_count(roofs + 3)  # each roof named with its measured value
    expect(legend.filter(has_text="B/s")).to_have_count(roofs - 1)
    # The kernels' entry in two lines, to fit a phone (the page joins their text with nothing between).
    expect(legend).to_contain_text(["FLOP/s (float32 matmul)", "as written", "fusion off",
                                    re.compile(r"kernels \(traced; FLOPs counted from ?the HLO\)")])
    ticks = page.locator("#speed-memory .js-plotly-plot .xtick text").all_text_contents()
    assert ticks and all(tick.isdigit() for tick in ticks), ticks  # whole steps of the schedule

    expect(page.locator("#speed-memory .js-plotly-plot .scatterlayer .trace").first).to_be_visible()
    expect(page.locator("#speed-kernels .js-plotly-plot .barlayer .trace").first).to_be_visible()
    buffers = page.locator("#speed-buffers")
    expect(buffers).to_contain_text("are live; XLA reserves")
    rows = buffers.locator("table tbody tr")
    expect(rows).to_have_count(2)  # x and the fused output
    output = rows.filter(has_text="multiply_add_fusion")
    expect(output).to_contain_text("return x + x*x + x*x*x")
    expect(output).to_contain_text("a fusion: several operations compiled into one kernel")
    expect(rows.filter(has_text="parameter: an input of the program")).to_have_count(1)
    line = output.locator("span", has_text="line 2")  # in line 2's colour, as Inspect's Source ↔ IR paints it
    expect(line).to_have_css("background-color", _rgb(line_colours.colours([2])[2]))
    expect(page.locator("#speed-gradient-text")).to_contain_text("Your code calls no jax.checkpoint")
    kernels = page.locator("#speed-kernel-table")
    expect(kernels.locator("table tbody tr")).to_have_count(1)  # one fused kernel
    expect(kernels).to_contain_text("multiply_add_fusion")
    for table in (buffers, kernels):
        assert table.evaluate(CUT_OFF_TABLES_JS) == []
        assert table.evaluate(SQUEEZED_CELLS_JS) == []
    save_screenshot(page, "speed.png")


def test_the_remat_example_compares_the_gradient_with_and_without_checkpoint(page: Page):
    open_speed_tab(page)
    page.locator(".gallery-item", has_text="layers with jax.checkpoint (remat)").click()  # loads and runs it
    expect(page.locator("#speed-code .cm-content")).to_contain_text("jax.checkpoint(layer)")
    gradient = page.locator("#speed-gradient-text")
    expect(gradient).to_contain_text("without jax.checkpoint and at", timeout=SPEED_TIMEOUT_MS)
    expect(gradient).to_contain_text("computed again in the backward pass")
    # with and without jax.checkpoint timed in turn: a verdict, or too close to call
    expect(gradient).to_contain_text(re.compile(r"jax.checkpoint.*(as fast as|too close to call)"))
    expect(page.locator("#speed-gradient-plot .js-plotly-plot .scatterlayer .trace")).to_have_count(2)
    expect(page.locator("#speed-notes")).to_contain_text("counts a loop's body once")


def test_a_link_restores_the_fields_and_measures_again(page: Page, chromium_browser: Browser):
    open_speed_tab(page)
    page.locator("#speed-gradient input").uncheck()
    page.locator(".gallery-item", has_text="matmul (compute-bound)").click()  # loads and runs it
    expect(page.locator("#speed-verdict")).to_contain_text("compute-bound", timeout=SPEED_TIMEOUT_MS)
    link = copy_link(page, "speed")

    other = blank_tab(chromium_browser)  # another visitor: nothing shared but the address
    try:
        reopen_app(other, link)
        expect(other.get_by_role("tab", name=TITLE, exact=True)).to_have_attribute("aria-selected", "true")
        expect(other.locator("#speed-verdict")).to_contain_text("compute-bound", timeout=SPEED_TIMEOUT_MS)
        expect(other.locator("#speed-code .cm-content")).to_have_text("def f(a, b):    return a @ b")
        expect(other.locator("#speed-args textarea")).to_have_value("jnp.ones((2048, 2048)), jnp.ones((2048, 2048))")
        expect(other.locator("#speed-gradient input")).not_to_be_checked()
        expect(other.locator("#speed-gradient-text")).to_contain_text("Gradient memory was not asked for")
        expect(other.locator("#speed-gradient-plot")).to_be_hidden()  # no figure where none was asked for
    finally:
        other.context.close()


# The verdict's first words in each language, by the browser's locale: the roofline's legend is longest in German.
PHONE_LOCALES = {"en-US": ("en", BOUND), "de-DE": ("de", re.compile("speichergebunden|rechengebunden")),
                 "zh-CN": ("zh", re.compile("受内存带宽限制|受算力限制"))}


@pytest.mark.parametrize("locale", list(PHONE_LOCALES))
def test_the_tab_fits_a_phone(chromium_browser: Browser, server, locale: str):
    """Nothing wider than the screen, nothing squeezed, and no text of a plot cut off at its edge (the roofline's
    legend names each roof with its measured rate, which a phone could cut to "64.2 GFLOP/s measure")."""
    lang, bound = PHONE_LOCALES[locale]
    phone = reopen_app(blank_tab(chromium_browser, locale=locale, **PHONE), server.url)
    try:
        run_default(phone, text("pg.tab.speed", lang), bound)
        panel = phone.locator("#main-tabs > div[role=tabpanel]:visible").first
        save_screenshot(phone, "speed_phone.png" if lang == "en" else f"speed_phone_{lang}.png")
        width = phone.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, f"the page is {width} px wide on a 390 px screen"
        assert panel.evaluate(OVERLAPS_JS) == []
        if lang != "zh":  # Chinese breaks a line between any two characters: no word is cut
            assert panel.evaluate(SQUEEZED_CELLS_JS) == []
        assert panel.evaluate(NARROW_RESULTS_JS) == []
        assert panel.evaluate(SQUEEZED_PLOT_AREAS_JS) == []
        assert panel.evaluate(CLIPPED_PLOT_TEXT_JS) == []
    finally:
        phone.context.close()


# A reader's language: the page's locale, the bound, the verdict (its numbers in the language's format), the roofs'
# heading and the buffer table's column in it.
IN_OTHER_LANGUAGES = {
    "de": ("de-DE", PHONE_LOCALES["de-DE"][1],
           re.compile("wie geschrieben: (speichergebunden: bewegt 32,0 MB|rechengebunden: 16,0 MFLOP)"),
           "Die Dächer dieser Maschine", "deine Zeile"),
    "zh": ("zh-CN", PHONE_LOCALES["zh-CN"][1], re.compile("按原样：(受内存带宽限制：|受算力限制：16.0 MFLOP)"),
           "本机的各个上限", "你的代码行"),
}


@pytest.mark.parametrize("language", IN_OTHER_LANGUAGES)
def test_the_verdict_in_another_language(chromium_browser: Browser, server, language: str):
    locale, bound, verdict, roofs, column = IN_OTHER_LANGUAGES[language]
    page = reopen_app(blank_tab(chromium_browser, locale=locale), server.url)
    try:
        run_default(page, text("pg.tab.speed", language), bound)
        expect(page.locator("#speed-verdict")).to_contain_text(verdict)
        expect(page.locator("#speed-ceilings")).to_contain_text(roofs)
        expect(page.locator("#speed-buffers table thead")).to_contain_text(column)
        expect(page.locator("#speed-run")).to_have_text(text("pg.speed.run", language))
        save_screenshot(page, f"speed_{language}.png")
    finally:
        page.context.close()
