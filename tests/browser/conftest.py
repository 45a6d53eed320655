"""Headless Chromium for the browser tests: Debian's /usr/bin/chromium, never a downloaded one."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.conftest import refuse_in_quick_run, stop_server
from tests.mnist_folders import start_training_server

CHROMIUM = Path("/usr/bin/chromium")
# Where screenshots go: an ignored folder, so that `make test` leaves the tree clean. `make screenshots`
# points it at assets/ to refresh the pictures of README and the documentation.
SCREENSHOTS = Path(os.environ.get("PLAYGROUND_SCREENSHOTS") or Path(__file__).resolve().parents[2] / "test-artifacts")
# --disable-dev-shm-usage: a container's /dev/shm may be 64 MB, too little for a tab redrawing live plots (the
# renderer is then killed); Chromium keeps that shared memory in /tmp instead.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"]
VIEWPORT = {"width": 1280, "height": 900}
# Table cells (in an element) whose text breaks inside a word: the one-character-per-line wrap. A word's
# rectangles (a Range per word) lie on one line unless the word itself was broken.
SQUEEZED_CELLS_JS = """(panel) => [...panel.querySelectorAll('table th, table td')].filter(cell => {
  if (cell.offsetParent === null) return false;
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const match of node.textContent.matchAll(/[^\\s-]+/g)) {  // after a hyphen: a break between words
      const range = document.createRange();
      range.setStart(node, match.index); range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
      if (tops.size > 1) return true;
    }
  }
  return false; }).map(c => c.innerText).slice(0, 5)"""

# Result tables wider than their box (their last column behind a sideways scroll, out of a laptop reader's sight).
# The tabs' column is 599 px wide at 1280 and at 1366 px alike (Gradio caps its container), so a table that fits
# at the tests' 1280 fits a laptop.
CUT_OFF_TABLES_JS = """(panel) => [...panel.querySelectorAll('.prose table')]
  .filter(table => table.offsetParent !== null && table.scrollWidth > table.clientWidth + 1)
  .map(table => `${table.closest('[id]')?.id}: ${table.scrollWidth} px in ${table.clientWidth}`)"""

# Dropdowns whose text can run under their arrow (Gradio draws the arrow over the right end of the text box: a text
# long enough goes under it, whatever this one's length), or whose text is cut at the box's edge with no "…" to say
# so (the text's own width measured in the box's font).
DROPDOWN_TEXT_UNDER_ARROW_JS = """(panel) => [...panel.querySelectorAll('.secondary-wrap')]
  .filter(wrap => wrap.offsetParent !== null).flatMap(wrap => {
    const input = wrap.querySelector(':scope > input'), arrow = wrap.querySelector(':scope > .icon-wrap');
    if (!input || !arrow || arrow.getBoundingClientRect().width === 0) return [];
    const box = input.getBoundingClientRect(), icon = arrow.getBoundingClientRect(), style = getComputedStyle(input);
    const context = document.createElement('canvas').getContext('2d');
    context.font = style.font;
    const left = box.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft);
    const right = box.right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight);
    const end = left + context.measureText(input.value).width;
    const under = right > icon.left + 1 && icon.top < box.bottom && icon.bottom > box.top;
    const cut = end > right + 1 && style.textOverflow !== 'ellipsis';
    return under || cut ? [`${wrap.closest('[id]')?.id}: "${input.value}"${under ? ' under its arrow' : ' cut'}`] : [];
  }).slice(0, 5)"""


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """The system Chromium; missing means fail on CI, skip on a laptop."""
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} not found: install Debian's chromium package (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return str(CHROMIUM)


@pytest.fixture(scope="session")
def chromium_browser(chromium_path):
    from playwright.sync_api import expect, sync_playwright

    refuse_in_quick_run("a browser")
    # An assertion waits for the page to get there, with a ceiling for a loaded machine (Playwright's own, 5 s, is
    # too short where the suite's servers and browsers share two cores).
    expect.set_options(timeout=60_000)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def open_app(browser, url: str, **context_options):
    """``url`` in a new browser context of its own (1280x900 unless told), once the app is drawn; close its
    ``.context`` when done."""
    page = blank_tab(browser, **context_options)
    _load(page, url)
    return page


def blank_tab(browser, **context_options):
    """A tab in a new browser context of its own (1280x900 unless told), showing nothing yet."""
    page = browser.new_context(**{"viewport": VIEWPORT, **context_options}).new_page()
    page.set_default_timeout(60_000)
    # A page left mid-drawing may ask before it unloads; a reused tab (reopen_app) must not stay behind that.
    page.on("dialog", lambda dialog: dialog.accept() if dialog.type == "beforeunload" else dialog.dismiss())
    # A crashed tab answers no locator: the test's wait would run out saying only what it waited for.
    page.on("crash", lambda crashed: print(f"the tab showing {crashed.url} crashed", file=sys.stderr))
    return page


def reopen_app(page, url: str):
    """``url`` afresh in ``page``, a tab of blank_tab's or open_app's: as a visitor first sees it, with no cookie
    or stored value left from before; returns ``page``.

    For a module's tests that each start from the page as it loads, much cheaper than a new context each
    (docs/development.md's measurements). The tab goes to about:blank first, so that loading the app is a new
    visit, not a reload that would put the scroll position back."""
    if page.url.startswith(("http://", "https://")):  # what the page stored, while it is still there to ask
        page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
    page.goto("about:blank")
    page.context.clear_cookies()
    _load(page, url)
    return page


def _load(page, url: str) -> None:
    """Drawn means Inspect's editor is in the page, not that it is in sight: a share link selects its own tab
    while the page loads, and if that comes first the Inspect editor is never seen (a wait for it would run to its
    ceiling). So: the editor in the page and a selected tab in sight; tests wait for what they look at themselves."""
    page.goto(url)
    page.locator("#inspect-code .cm-content").wait_for(state="attached")
    page.get_by_role("tab", selected=True).first.wait_for()


def wait_until_finished(component) -> None:
    """Wait until no event that writes to ``component`` (a locator) is under way. Meanwhile Gradio's status
    tracker inside the component is shown, with its timer ("0.1s"), so text read before then carries it: a
    streaming run shows its results while it still goes on (text read then may have "0.1s" above a finished
    derivatives table). Once the event is over, Gradio gives the tracker its ``hide`` class."""
    from playwright.sync_api import expect

    expect(component.locator('[data-testid="status-tracker"]:not(.hide)')).to_have_count(0)


@pytest.fixture(scope="module")
def module_tab(chromium_browser):
    """One 1280x900 tab for a module's tests (``page`` opens the app in it afresh for each)."""
    page = blank_tab(chromium_browser)
    yield page
    page.context.close()


@pytest.fixture
def page(module_tab, server):
    """The app afresh at 1280x900 on the session's server, the Inspect tab ready."""
    return reopen_app(module_tab, server.url)


@pytest.fixture(scope="session")
def classroom_server(tmp_path_factory):
    """A server whose MNIST_DIR holds a classroom's folder: MNIST's test set alone (2,500 digits here), which the
    app splits 2,000 / 500 and says so. Started once for test_phone and test_server_languages, which run in one
    lane (tests/conftest.py)."""
    srv = start_training_server(tmp_path_factory, 2000, 500, test_set_only=True)
    yield srv
    stop_server(srv)


def save_screenshot(page, name: str, full_page: bool = True) -> Path:
    """The page as ``name`` in SCREENSHOTS; look at it when a test about the page's looks fails."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / name
    page.screenshot(path=path, full_page=full_page)
    return path
