"""The Inspect tab's views in headless Chromium: source <-> IR colours, costs, pytrees, errors, links, downloads."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from playground.gallery import EXAMPLES
from tests.browser.conftest import VIEWPORT, reopen_app, save_screenshot
from tests.browser.test_inspect_ui import RESULT_TIMEOUT_MS, run_inspect, set_code

MLP = "MLP with a params dict (a pytree)"
TRACER_ERROR = "Python if on a traced value (an error)"
UNROLLED = "def f(x, n):\n    for _ in range(n):\n        x = x * 2\n    return x\n"


def run_example(page: Page, label: str) -> None:
    """Click a gallery example, wait until it has filled the fields, then Run."""
    example = next(e for e in EXAMPLES if e.name == label)
    page.get_by_role("button", name=label, exact=True).click()
    expect(page.locator("#inspect-args textarea")).to_have_value(example.args)
    expect(page.locator("#inspect-code .cm-content")).to_have_text(example.code.strip().replace("\n", ""))
    page.locator("#inspect-run").click()


def wait_for_success(page: Page) -> None:
    """The stages are shown, and the checks that follow them too."""
    expect(page.locator("#inspect-status")).to_contain_text("Traced", timeout=RESULT_TIMEOUT_MS)
    expect(page.locator("#inspect-status")).not_to_contain_text("Still running", timeout=RESULT_TIMEOUT_MS)


def open_tab(page: Page, name: str) -> None:
    tab = page.get_by_role("tab", name=name, exact=True)
    tab.click()
    expect(tab).to_have_attribute("aria-selected", "true")  # a click during a re-render can be lost


def editor_lines(page: Page) -> list[str]:
    return [line.rstrip("\n") for line in page.locator("#inspect-code .cm-line").all_inner_texts()]


# Each pane of the source <-> IR view: its title and its rows, with the user line and computed background.
PANES_JS = """(root) => [...root.querySelectorAll('.source-ir > div')].map(pane => ({
  title: pane.querySelector('b').textContent,
  rows: [...pane.querySelectorAll('[data-line]')].map(row => ({
    line: row.dataset.line, style: row.getAttribute('style') || '', text: row.textContent,
    background: getComputedStyle(row).backgroundColor,
  })),
}))"""
TRANSPARENT = "rgba(0, 0, 0, 0)"


def test_source_map_colours_each_line_and_its_ir_alike(page: Page):
    run_example(page, MLP)
    wait_for_success(page)
    open_tab(page, "Source ↔ IR")
    source_map = page.locator("#inspect-source-map")
    expect(source_map.locator(".source-ir")).to_be_visible()

    panes = source_map.evaluate(PANES_JS)
    assert [p["title"] for p in panes] == ["Your code", "jaxpr", "StableHLO"], panes
    for pane in panes:
        coloured = [r for r in pane["rows"] if r["line"] and "background:" in r["style"]]
        assert coloured, f"no coloured lines in the {pane['title']} pane: {pane['rows']}"
        assert all(r["background"] != TRANSPARENT for r in coloured), coloured

    source, jaxpr, stablehlo = ({r["line"]: r["background"] for r in p["rows"] if "background:" in r["style"]}
                                for p in panes)
    # The MLP's lines 2 (relu), 5 (hidden layer) and 6 (output layer) each produce IR.
    assert {"2", "5", "6"} <= set(source), source
    for name, pane in (("jaxpr", jaxpr), ("StableHLO", stablehlo)):
        for line, background in pane.items():
            assert source.get(line) == background, f"{name} row from line {line} is {background}, source {source}"
    assert len(set(source.values())) == len(source), f"two source lines share a colour: {source}"
    shared = set(source.values()) & set(jaxpr.values())
    assert shared, (source, jaxpr)

    save_screenshot(page, "inspect_source_map.png")


def test_cost_and_pytree_tabs(page: Page):
    run_example(page, MLP)
    wait_for_success(page)

    open_tab(page, "Cost & timing")
    costs = page.locator("#inspect-costs")
    for text in ("Stages", "compile", "flops", "Memory"):
        expect(costs).to_contain_text(text)
    expect(costs.locator("tr", has_text="compile")).to_contain_text(re.compile(r"\d+\.\d ms"))
    expect(costs.locator("tr", has_text="flops")).to_contain_text(re.compile(r"\d"))

    open_tab(page, "Pytrees")
    trees = page.locator("#inspect-pytrees")
    for key_path in ("[0]['b1']", "[0]['w2']", "[1]", "(root)"):
        expect(trees.get_by_text(key_path, exact=True)).to_be_visible(timeout=RESULT_TIMEOUT_MS)
    expect(trees).to_contain_text("PyTreeDef(({'b1': *, 'b2': *, 'w1': *, 'w2': *}, *))")


def test_tracer_error_shows_its_line(page: Page):
    run_example(page, TRACER_ERROR)

    status = page.locator("#inspect-status")
    expect(status).to_contain_text("TracerBoolConversionError", timeout=RESULT_TIMEOUT_MS)
    expect(status).to_contain_text("line 2")
    expect(page.locator("#inspect-result textarea")).to_have_value("")

    save_screenshot(page, "inspect_error.png")


def test_tracer_error_says_how_to_fix_it(page: Page):
    run_example(page, TRACER_ERROR)

    status = page.locator("#inspect-status")
    expect(status).to_contain_text("TracerBoolConversionError", timeout=RESULT_TIMEOUT_MS)
    expect(status).to_contain_text("How to fix it")  # rendered with the error, or never
    expect(status).to_contain_text("jnp.where")
    doc_link = status.get_by_role("link", name="Read more in the JAX documentation")
    expect(doc_link).to_have_attribute(
        "href", "https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError")


def test_share_link_round_trip(page: Page, chromium_browser: Browser):
    set_code(page, UNROLLED)
    page.locator("#inspect-args textarea").fill("(jnp.ones(3), 3)")
    page.locator("#inspect-static input, #inspect-static textarea").first.fill("1")
    page.locator("#inspect-share").click()

    link_box = page.locator("#inspect-link textarea")
    expect(link_box).to_be_visible()
    expect(link_box).to_have_value(re.compile(r"\?s=[A-Za-z0-9_-]+$"))
    link = link_box.input_value()

    context = chromium_browser.new_context(viewport=VIEWPORT)  # nothing shared with the first page but the link
    try:
        other = context.new_page()
        other.set_default_timeout(60_000)
        other.goto(link)
        # gr.Code strips leading and trailing whitespace from values the server sends, so the final newline goes.
        expect(other.locator("#inspect-code .cm-content")).to_have_text(UNROLLED.replace("\n", ""))
        assert editor_lines(other) == UNROLLED.rstrip("\n").split("\n")
        expect(other.locator("#inspect-args textarea")).to_have_value("(jnp.ones(3), 3)")
        expect(other.locator("#inspect-static input, #inspect-static textarea").first).to_have_value("1")

        other.locator("#inspect-run").click()
        wait_for_success(other)
        expect(other.locator("#inspect-result textarea")).to_have_value("f32[3] [8. 8. 8.]")  # 2**3, n static
    finally:
        context.close()


def test_damaged_share_link_warns_and_the_page_still_works(module_tab: Page, server):
    page = reopen_app(module_tab, server.url + "?s=garbage!!")  # a first visit, by the link
    expect(page.locator("#share-notice")).to_contain_text("This link could not be opened")

    page.locator("#inspect-run").click()  # the default example, untouched by the bad link
    wait_for_success(page)
    expect(page.locator("#inspect-result textarea")).to_have_value(re.compile(r"f32\[4\].*39\."))


def test_downloads_hold_the_whole_texts(page: Page):
    run_inspect(page, "def f(x):\n    return jnp.sin(x) * 2\n", "jnp.arange(3.0)")
    wait_for_success(page)

    links = page.locator("#inspect-files a[download]")
    expect(links).to_have_count(3)
    names = [links.nth(i).get_attribute("download") for i in range(3)]
    assert names == ["jaxpr.txt", "stablehlo.mlir", "optimised_hlo.txt"], names

    texts = {name: page.request.get(links.nth(i).get_attribute("href")).text() for i, name in enumerate(names)}
    assert re.search(r"= sin ", texts["jaxpr.txt"]), texts["jaxpr.txt"]
    assert "stablehlo.sine" in texts["stablehlo.mlir"], texts["stablehlo.mlir"]
    assert texts["optimised_hlo.txt"].startswith("HloModule"), texts["optimised_hlo.txt"][:200]


# Many slices of different lengths: one compile under jit, one kernel per length when run eagerly (the purity
# check), so the stages are on screen well before the checks.
SLOW_TO_CHECK = ("def f(x):\n    total = 0.0\n    for k in range(1, 25):\n        total = total + jnp.sum(x[:k] * k)\n"
                 "    return total\n")


def test_the_stages_show_first_and_the_checks_follow(page: Page):
    set_code(page, SLOW_TO_CHECK)
    page.locator("#inspect-args textarea").fill("jnp.arange(40.0)")
    page.locator("#inspect-run").click()
    status = page.locator("#inspect-status")
    # The session server's 60 s clock: the checks are skipped only where the stages took over 12 s.
    expect(status).to_contain_text("Still running: the behavioural purity checks", timeout=RESULT_TIMEOUT_MS)
    expect(page.locator("#inspect-result textarea")).to_have_value(re.compile(r"^f32\[\] "))
    save_screenshot(page, "inspect_checks_pending.png", full_page=False)
    expect(status).not_to_contain_text("Still running", timeout=RESULT_TIMEOUT_MS)
    expect(status).to_contain_text("Traced, lowered and compiled")


def test_a_second_identical_run_says_it_came_from_the_cache(page: Page):
    set_code(page, "def f(x):\n    return jnp.exp(x) / 3  # browser cache\n")
    page.locator("#inspect-args textarea").fill("jnp.ones(3)")
    page.locator("#inspect-run").click()
    wait_for_success(page)  # the whole job: a second Run now finds its result kept, not still running
    page.locator("#inspect-run").click()
    expect(page.locator("#inspect-status")).to_contain_text("Served from the cache: an identical job ran at",
                                                            timeout=RESULT_TIMEOUT_MS)
