"""Share links and class links in headless Chromium: every tab's state travels in the address and runs again.

Each test sets a tab's fields to something other than its defaults, runs it, presses
"Copy link", and opens the link as another visitor (a browser context of its own, with
no cookie or stored value: nothing shared with the first page but the address): the tab
is selected, its fields are back, it runs by itself (Train waits for Start), and the
result is the same.
"""

from __future__ import annotations

import base64
import json
import re
import zlib

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import blank_tab, reopen_app, save_screenshot, wait_until_finished
from tests.browser.test_inspect_ui import RESULT_TIMEOUT_MS
from tests.browser.test_transformation_tabs import editor, open_tab, set_code

LINK = re.compile(r"\?s=[A-Za-z0-9_-]+$")


@pytest.fixture(scope="module")
def other_visitor(chromium_browser: Browser):
    """Another visitor's tab, in a browser context of its own, for the module's links (reopen_app opens each one
    there as a first visit: the cookies and stored values of the link before are gone). One tab for all, not a new
    context per link: a new context loads the whole app cold (docs/development.md's measurements)."""
    tab = blank_tab(chromium_browser)
    yield tab
    tab.context.close()


def copy_link(page: Page, tab: str) -> str:
    """Press the tab's Copy link; the link shows in its box and in the address bar."""
    page.locator(f"#{tab}-share").click()
    box = page.locator(f"#{tab}-link textarea")
    expect(box).to_have_value(LINK)
    link = box.input_value()
    assert page.url == link  # the address bar shows it too
    return link


def selected_tab(page: Page) -> str:
    return page.get_by_role("tab", selected=True).first.inner_text().strip()


def field(page: Page, elem_id: str):
    return page.locator(f"#{elem_id} textarea, #{elem_id} input").first


def test_inspect_link_restores_runs_and_shows_the_same_result(page: Page, other_visitor: Page):
    code = "def f(x, n):\n    for _ in range(n):\n        x = x * 2\n    return x\n"
    set_code(page, "inspect-code", code)
    field(page, "inspect-args").fill("(jnp.arange(3.0), 3)")
    field(page, "inspect-static").fill("1")
    page.locator("#inspect-run").click()
    result = page.locator("#inspect-result textarea")
    expect(result).to_have_value("f32[3] [ 0.  8. 16.]", timeout=RESULT_TIMEOUT_MS)
    link = copy_link(page, "inspect")

    other = reopen_app(other_visitor, link)
    expect(other.locator("#inspect-result textarea")).to_have_value("f32[3] [ 0.  8. 16.]",
                                                                     timeout=RESULT_TIMEOUT_MS)
    expect(editor(other, "inspect-code")).to_have_text(code.replace("\n", ""))
    expect(field(other, "inspect-args")).to_have_value("(jnp.arange(3.0), 3)")
    expect(field(other, "inspect-static")).to_have_value("1")
    expect(other.locator("#share-notice")).to_be_hidden()


def test_compiler_link_opens_the_view_it_was_made_in(page: Page, other_visitor: Page):
    open_tab(page, "Compiler")
    field(page, "compiler-args").fill("jnp.ones((8, 8))")
    page.get_by_role("tab", name="Graph", exact=True).click()
    page.locator("#compiler-graph-run").click()
    clusters = page.locator("#compiler-hlo-graph g.cluster")
    expect(clusters.first).to_be_attached(timeout=RESULT_TIMEOUT_MS)
    titles = clusters.locator("title").all_inner_texts()
    link = copy_link(page, "compiler")

    other = reopen_app(other_visitor, link)
    expect(other.locator("#compiler-hlo-graph g.cluster").first).to_be_attached(timeout=RESULT_TIMEOUT_MS)
    assert selected_tab(other) == "Compiler"
    expect(other.get_by_role("tab", name="Graph", exact=True)).to_have_attribute("aria-selected", "true")
    expect(field(other, "compiler-args")).to_have_value("jnp.ones((8, 8))")
    assert other.locator("#compiler-hlo-graph g.cluster title").all_inner_texts() == titles


def test_derivatives_link_restores_both_parts_and_runs_them(page: Page, other_visitor: Page):
    open_tab(page, "Derivatives")
    set_code(page, "deriv-code", "def f(x):\n    return jnp.cos(x) * x\n")
    field(page, "deriv-order").fill("2")
    field(page, "deriv-order").press("Enter")
    field(page, "deriv-xmin").fill("-1")
    field(page, "deriv-xmax").fill("2")
    field(page, "deriv-xmax").press("Tab")
    field(page, "grad-point").fill("jnp.array([1.0, 2.0, 3.0])")
    page.locator("#deriv-run").click()
    checks = page.locator("#deriv-checks")
    expect(checks).to_contain_text("f″", timeout=RESULT_TIMEOUT_MS)
    link = copy_link(page, "derivatives")
    wait_until_finished(checks)
    first_checks = checks.inner_text()

    other = reopen_app(other_visitor, link)
    expect(other.locator("#deriv-checks")).to_contain_text("f″", timeout=RESULT_TIMEOUT_MS)
    assert selected_tab(other) == "Derivatives"
    wait_until_finished(other.locator("#deriv-checks"))
    assert other.locator("#deriv-checks").inner_text() == first_checks
    expect(field(other, "deriv-xmin")).to_have_value("-1")
    expect(field(other, "deriv-xmax")).to_have_value("2")
    expect(field(other, "grad-point")).to_have_value("jnp.array([1.0, 2.0, 3.0])")
    expect(other.locator("#grad-status")).to_contain_text("OK", timeout=RESULT_TIMEOUT_MS)  # it ran too


def test_vmap_link_restores_and_shows_the_same_batched_jaxpr(page: Page, other_visitor: Page):
    open_tab(page, "vmap")
    field(page, "vmap-sizes").fill("1, 10")
    page.locator("#vmap-run").click()
    batched = editor(page, "vmap-batched")
    expect(batched).to_contain_text("{ lambda", timeout=RESULT_TIMEOUT_MS)
    link = copy_link(page, "vmap")
    first = batched.inner_text()

    other = reopen_app(other_visitor, link)
    expect(editor(other, "vmap-batched")).to_contain_text("{ lambda", timeout=RESULT_TIMEOUT_MS)
    assert selected_tab(other) == "vmap"
    assert editor(other, "vmap-batched").inner_text() == first
    expect(field(other, "vmap-sizes")).to_have_value("1, 10")


def test_jit_link_restores_and_measures_the_same_sizes(page: Page, other_visitor: Page):
    open_tab(page, "jit")
    field(page, "jit-sizes").fill("16, 32")
    page.locator("#jit-run").click()
    status = page.locator("#jit-status")
    expect(status).to_contain_text("(n = 16, 32)", timeout=RESULT_TIMEOUT_MS)
    link = copy_link(page, "jit")

    other = reopen_app(other_visitor, link)
    expect(other.locator("#jit-status")).to_contain_text("(n = 16, 32)", timeout=RESULT_TIMEOUT_MS)
    assert selected_tab(other) == "jit"
    expect(other.locator("#jit-table tbody tr")).to_have_count(2)


def test_parallel_link_restores_and_shards_the_same_way(page: Page, other_visitor: Page):
    open_tab(page, "Parallel")
    field(page, "shard-args").fill("(jnp.arange(32.0).reshape(8, 4) / 16, jnp.ones((4, 4)))")
    page.locator("#shard-run").click()
    details = page.locator("#shard-details")
    expect(details).to_contain_text("Result", timeout=RESULT_TIMEOUT_MS)
    link = copy_link(page, "parallel")
    first = details.locator("pre").first.inner_text()

    other = reopen_app(other_visitor, link)
    expect(other.locator("#shard-details")).to_contain_text("Result", timeout=RESULT_TIMEOUT_MS)
    assert selected_tab(other) == "Parallel"
    assert other.locator("#shard-details pre").first.inner_text() == first
    expect(field(other, "shard-args")).to_have_value("(jnp.arange(32.0).reshape(8, 4) / 16, jnp.ones((4, 4)))")


def test_train_link_shows_its_settings_and_waits_for_start(page: Page, other_visitor: Page):
    open_tab(page, "Train")
    page.locator("#train-optimizer").get_by_label("adam").check()
    # Picking an optimiser puts its default rate in the field (a round trip): typed before it comes, a rate is
    # overwritten. Wait for adam's 0.001 (the default sgd's is 0.3), then type.
    expect(field(page, "train-lr")).to_have_value("0.001")
    field(page, "train-lr").fill("0.002")
    field(page, "train-epochs").fill("3")
    field(page, "train-layers").fill("784, 128, 10")
    field(page, "train-layers").press("Tab")
    link = copy_link(page, "train")

    other = reopen_app(other_visitor, link)
    expect(other.get_by_role("tab", name="Train", exact=True)).to_have_attribute("aria-selected", "true")
    expect(field(other, "train-layers")).to_have_value("784, 128, 10")
    expect(other.locator("#train-optimizer").get_by_label("adam")).to_be_checked()
    expect(field(other, "train-lr")).to_have_value("0.002")  # not the optimiser's default, 0.001
    expect(field(other, "train-epochs")).to_have_value("3")
    # What the link presses is decided with the fields and written beside them: nothing, for Train.
    expect(other.locator("#share-runs textarea")).to_have_value("[]")
    expect(other.locator("#train-status")).not_to_contain_text("Training")  # nothing started
    expect(other.locator("#train-start")).to_be_enabled()


@pytest.fixture(scope="module")
def jit_link(module_tab, server) -> str:
    """A link of the jit tab with sizes other than its defaults, made once for the damages below."""
    page = reopen_app(module_tab, server.url)
    open_tab(page, "jit")
    field(page, "jit-sizes").fill("16, 32")
    return copy_link(page, "jit")


@pytest.mark.parametrize("damage", ["cut in half", "one character changed", "not base64"])
def test_a_damaged_link_says_so_and_the_page_keeps_its_defaults(jit_link: str, other_visitor: Page, damage):
    address, token = jit_link.split("?s=")
    bad = {"cut in half": token[: len(token) // 2],
           "one character changed": token[:10] + ("A" if token[10] != "A" else "B") + token[11:],
           "not base64": token[:5] + "!!" + token[5:]}[damage]
    other = reopen_app(other_visitor, address + "?s=" + bad)
    notice = other.locator("#share-notice")
    expect(notice).to_contain_text("This link could not be opened")
    expect(notice).to_contain_text("The page shows its defaults")
    assert selected_tab(other) == "Inspect"
    open_tab(other, "jit")
    expect(field(other, "jit-sizes")).not_to_have_value("16, 32")


def test_a_link_from_a_newer_version_says_so(module_tab: Page, server):
    document = {"v": 99, "tab": "jit", "state": {"sizes": "16"}}
    token = base64.urlsafe_b64encode(zlib.compress(json.dumps(document).encode())).rstrip(b"=").decode()
    page = reopen_app(module_tab, server.url + "?s=" + token)  # a first visit, by the link
    expect(page.locator("#share-notice")).to_contain_text("made by a newer version of the playground")


def test_an_inspect_link_from_before_the_versions_still_opens(module_tab: Page, server):
    old = {"code": "def f(x):\n    return x * 3\n", "args": "2.0", "static_argnums": "", "second_args": ""}
    data = json.dumps(old, separators=(",", ":")).encode()
    token = base64.urlsafe_b64encode(zlib.compress(data, 9)).rstrip(b"=").decode()
    page = reopen_app(module_tab, server.url + "?s=" + token)
    expect(page.locator("#inspect-result textarea")).to_have_value(re.compile(r"6\."), timeout=RESULT_TIMEOUT_MS)


def test_class_link_hides_controls_shows_the_exercise_and_locks_the_code(page: Page, other_visitor: Page):
    open_tab(page, "Derivatives")
    page.locator("#derivatives-class-panel").click()
    hide = page.locator("#derivatives-class-hide")
    hide.get_by_label("Preset").check()
    hide.get_by_label("The gradient and Hessian part").check()
    page.locator("#derivatives-class-read-only input").check()
    exercise = ("## Exercise 3\nWhich order of **f** is first *zero everywhere*? See "
                "[grad](https://docs.jax.dev/en/latest/_autosummary/jax.grad.html). <img src=x onerror=alert(1)> "
                "[click](javascript:alert(1))")
    page.locator("#derivatives-class-exercise textarea").fill(exercise)
    page.locator("#derivatives-class-make").click()
    box = page.locator("#derivatives-link textarea")
    expect(box).to_have_value(LINK)

    other = reopen_app(other_visitor, box.input_value())
    shown = other.locator("#derivatives-exercise")
    expect(shown).to_contain_text("Exercise 3")
    expect(shown.locator("h2")).to_have_text("Exercise 3")
    expect(shown.locator("strong")).to_have_text("f")
    expect(shown.locator("a")).to_have_count(1)  # the https link; the javascript: one is plain text
    expect(shown.locator("a")).to_have_attribute("href", re.compile(r"^https://docs\.jax\.dev/"))
    expect(shown).to_contain_text("<img src=x onerror=alert(1)>")  # shown as typed, not an element
    assert shown.locator("img").count() == 0
    expect(other.locator("#deriv-preset")).to_be_hidden()
    expect(other.locator("#grad-code")).to_be_hidden()
    expect(other.locator("#grad-run")).to_be_hidden()
    expect(other.locator("#deriv-order")).to_be_visible()  # not chosen, so not hidden
    code = editor(other, "deriv-code")
    expect(code).to_have_attribute("contenteditable", "false")
    before = code.inner_text()
    code.click()
    other.keyboard.type("oops")
    assert code.inner_text() == before
    expect(other.locator("#deriv-checks")).to_contain_text("f′", timeout=RESULT_TIMEOUT_MS)  # it still runs
    save_screenshot(other, "class_link.png")


def test_a_link_quoting_markdown_shows_it_as_text(module_tab: Page, server):
    """The reason quotes the link's own text (here its tab's name): it shows as typed, never as a link."""
    document = {"v": 1, "tab": "[d](https://e.org) <b>b</b>", "state": {}}
    token = base64.urlsafe_b64encode(zlib.compress(json.dumps(document).encode())).rstrip(b"=").decode()
    page = reopen_app(module_tab, server.url + "?s=" + token)
    notice = page.locator("#share-notice")
    expect(notice).to_contain_text("[d](https://e.org) <b>b</b>")
    assert notice.locator("a").count() == 0 and notice.locator("b").count() == 0
