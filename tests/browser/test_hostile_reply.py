"""Code that forges its own reply must not inject markup into the page, typed in or opened from a share link.

User code can write a framed reply on the worker's socket (fd 3) and exit, so every
field of a "result" can be chosen by whoever wrote the code, and a share link hands
that code to someone else, who only presses Run. Whatever the forged reply holds,
the page must show text, not markup: no script runs (``document.title`` stays), no
element gains an event-handler attribute, no image or script element is injected,
and no link points at ``javascript:``.
"""

from __future__ import annotations

import base64
import concurrent.futures
import copy
import json
import zlib

import pytest
from playwright.sync_api import Page, expect

from playground.server.links import sharing
from playground.server.ui import inspect_tab
from tests.browser.conftest import VIEWPORT
from tests.conftest import ROOT
from tests.hostile import support

ARTIFACTS = ROOT / "test-artifacts"
RESULT_TIMEOUT_MS = 60_000
TITLE = "JAX Playground"

IMG = "<img src=x onerror=\"document.title='pwned'\">"
SCRIPT = "\"><script>document.title='pwned'</script>"
ATTR = "1\" onmouseover=\"document.title='pwned'\" x=\""
JS_URL = "javascript:document.title='pwned'"
JS_LINK = f"[click me]({JS_URL})"
HTML_LINK = f"<a href=\"{JS_URL}\">docs</a> **bold**"
EVERYTHING = f"{IMG} {SCRIPT} {JS_LINK} {HTML_LINK}"

# What the page holds that it should not: run in the page after the forged reply is shown.
INJECTED_JS = """() => ({
  title: document.title,
  handlers: [...document.querySelectorAll('*')]
    .filter(e => [...e.attributes].some(a => a.name.toLowerCase().startsWith('on')))
    .map(e => e.outerHTML.slice(0, 160)),
  images: [...document.querySelectorAll('img')].filter(e => e.getAttribute('src') === 'x')
    .map(e => e.outerHTML.slice(0, 160)),
  scripts: [...document.querySelectorAll('script')].filter(e => e.textContent.includes('pwned'))
    .map(e => e.outerHTML.slice(0, 160)),
  links: [...document.querySelectorAll('a[href], area[href]')]
    .filter(e => e.getAttribute('href').replace(/[\\s\\u0000-\\u001f]/g, '').toLowerCase().startsWith('javascript:'))
    .map(e => e.outerHTML.slice(0, 160)),
})"""


# -- a server of this module's own, so its TMPDIR can be checked when it stops ----------------------------------


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory):
    with support.hostile_server(tmp_path_factory, "browser-hostile", PLAYGROUND_WORKERS="2",
                                PLAYGROUND_TIMEOUT_S="6") as (server, _tmpdir):
        yield server


@pytest.fixture(scope="module")
def api_client(hostile_server):
    return hostile_server.client()


@pytest.fixture(scope="module")
def honest_inspect(api_client) -> dict:
    """A real /inspect reply: the forged one changes its texts, so it is otherwise well formed."""
    reply = api_client.predict(support.DEFAULT_CODE, support.DEFAULT_ARGS, api_name="/inspect")
    assert reply["ok"] is True, reply
    return reply


@pytest.fixture(scope="module")
def honest_shard(api_client) -> dict:
    reply = api_client.predict("def f(x):\n    return x * 2\n", "jnp.arange(8.0)", [2], ["data"], "(('data',),)",
                               "('data',)", api_name="/shard")
    assert reply["ok"] is True, reply
    return reply


@pytest.fixture
def hostile_page(chromium_browser, hostile_server, api_client):
    context = chromium_browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(60_000)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.dialogs = dialogs
    page.goto(hostile_server.url)
    page.locator("#inspect-code .cm-content").wait_for()
    yield page
    context.close()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # alive and well, or a failure: never a hang
        pool.submit(support.assert_still_healthy, hostile_server, api_client).result(timeout=90)


# -- forging ---------------------------------------------------------------------------------------------------------


def forging_code(message: dict) -> str:
    """User code that sends ``message`` as the worker's reply and exits before the real one."""
    blob = base64.b64encode(zlib.compress(json.dumps(message).encode(), 9)).decode()
    return ("import base64, os, struct, zlib\n"
            f"body = zlib.decompress(base64.b64decode('{blob}'))\n"
            "os.write(3, struct.pack('!Q', len(body)) + body)\n"
            "os._exit(0)\n"
            "def f(x):\n"
            "    return x")


def forged_inspect(base: dict) -> dict:
    """Every text field, and every line_map entry, carrying markup."""
    reply = copy.deepcopy(base)
    line_map = reply["line_map"]
    reply.update(
        function=f"f{IMG}{SCRIPT}",
        result=EVERYTHING,
        stdout=EVERYTHING,
        jaxpr=reply["jaxpr"] + "\n" + EVERYTHING,
        stablehlo=reply["stablehlo"] + "\n" + EVERYTHING,
        hlo=reply["hlo"] + "\n" + EVERYTHING,
        purity=[{"check": f"{IMG}", "line": ATTR, "message": EVERYTHING},
                {"check": "print", "line": 2, "message": f"` {IMG} `"}],
        warnings=[IMG, JS_LINK, HTML_LINK, SCRIPT],
        retrace={"retraced": True, "explanation": f"```\n{IMG}\n```\n{HTML_LINK}"},
        line_map={"jaxpr": [ATTR, IMG] * (len(line_map["jaxpr"]) // 2 + 1),
                  "stablehlo": [ATTR, SCRIPT] * (len(line_map["stablehlo"]) // 2 + 1),
                  "hlo": [IMG] * len(line_map["hlo"])},
        pytree={"inputs": {"treedef": f"`{IMG}", "leaves": [{"key_path": f"` {IMG}", "shape": IMG, "dtype": SCRIPT}],
                           "static": [{"position": IMG, "value": f"` {HTML_LINK}"}]},
                "outputs": {"treedef": IMG, "leaves": [{"key_path": JS_LINK, "shape": [4], "dtype": IMG}]}},
        cost={"flops": None, "bytes_accessed": None, "transcendentals": None,
              "unavailable": {"flops": IMG, "bytes_accessed": SCRIPT, "transcendentals": JS_LINK}},
        memory={"argument_bytes": None, "output_bytes": None, "temp_bytes": None, "generated_code_bytes": None,
                "unavailable": HTML_LINK},
    )
    return reply


FORGED_ERROR = {"ok": False, "error": {
    "kind": "user_exception", "message": f"{EVERYTHING}\n```\n{IMG}", "line": 1,
    "title": IMG, "explanation": f"{SCRIPT} {HTML_LINK}", "fix": JS_LINK, "doc_url": "javascript:alert(1)"}}


def forged_shard(base: dict) -> dict:
    reply = copy.deepcopy(base)
    first = reply["placement"][0][0]
    first["index"] = [[IMG, first["index"][0][1]]]
    reply["placement"][0][1]["index"] = [[ATTR, SCRIPT]]
    if reply.get("out_placement"):  # string bounds throughout, so the grid's rows still sort
        for shard, payload in zip(reply["out_placement"], (IMG, SCRIPT, ATTR, JS_LINK) * 16, strict=False):
            shard["index"] = [[payload, shard["index"][0][1]]]
    reply.update(result=EVERYTHING, collectives=[IMG, JS_LINK], hlo_collective_lines=[SCRIPT])
    reply["mesh"]["axis_names"] = [IMG]
    return reply


# -- driving the page ------------------------------------------------------------------------------------------------


def set_editor(page: Page, editor_id: str, code: str) -> None:
    """Replace a code editor's text as one paste (no key presses: CodeMirror adds no indentation)."""
    editor = page.locator(f"#{editor_id} .cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)
    expect(editor).to_have_text(code.replace("\n", ""))


def let_handlers_fire(page: Page) -> None:
    """Every image in the page loaded or failed (what an injected onerror waits for), then one turn of the page's
    task queue, so that their load and error events, queued by then, have run."""
    page.wait_for_function("() => [...document.images].every(image => image.complete)", timeout=RESULT_TIMEOUT_MS)
    page.evaluate("() => new Promise(resolve => setTimeout(resolve, 0))")


def wait_for_answer(page: Page, status_id: str) -> None:
    """The status shows the outcome, a success (OK) or an error (Error) label, and handlers have had their turn."""
    outcome = page.locator(f"#{status_id} .pg-verdict-ok, #{status_id} .pg-verdict-error").first
    try:
        expect(outcome).to_be_visible(timeout=RESULT_TIMEOUT_MS)
    except AssertionError:
        pytest.fail(f"#{status_id} shows no outcome: the tab's handler failed on the reply (see the server log)")
    let_handlers_fire(page)


def hover_everything_in(page: Page, selector: str, limit: int = 60) -> None:
    """onmouseover handlers fire only under the mouse: pass it over each element there."""
    elements = page.locator(f"{selector} *")
    for i in range(min(elements.count(), limit)):
        try:
            elements.nth(i).hover(timeout=500, force=True)
        except Exception:  # hidden or detached: nothing to fire
            pass


def assert_nothing_injected(page: Page, screenshot: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / screenshot, full_page=True)
    found = page.evaluate(INJECTED_JS)
    problems = {key: value for key, value in found.items() if key != "title" and value}
    assert found["title"] == TITLE, f"a script ran: document.title is {found['title']!r}; also {problems}"
    assert not page.dialogs, f"a script opened dialogs: {page.dialogs}"
    assert not problems, f"markup from the forged reply is in the page: {json.dumps(problems, indent=1)}"


def run_inspect_with(page: Page, code: str) -> None:
    set_editor(page, "inspect-code", code)
    page.locator("#inspect-args textarea").fill("1.0")
    page.locator("#inspect-run").click()
    wait_for_answer(page, "inspect-status")
    hover_everything_in(page, "#inspect-source-map")
    hover_everything_in(page, "#inspect-status")
    let_handlers_fire(page)


# -- the cases -------------------------------------------------------------------------------------------------------


def test_baseline_page_has_no_handlers_or_javascript_links(hostile_page):
    """The checks below would flag Gradio's own page if it had such elements: it has none."""
    assert_nothing_injected(hostile_page, "hostile_reply_baseline.png")


def test_forged_ok_reply_typed_into_inspect(hostile_page, honest_inspect):
    run_inspect_with(hostile_page, forging_code(forged_inspect(honest_inspect)))
    assert_nothing_injected(hostile_page, "hostile_reply_inspect_ok.png")


def test_forged_error_reply_typed_into_inspect(hostile_page):
    run_inspect_with(hostile_page, forging_code(FORGED_ERROR))
    assert_nothing_injected(hostile_page, "hostile_reply_inspect_error.png")


def test_forged_ok_reply_from_a_share_link(hostile_page, hostile_server, honest_inspect):
    code = forging_code(forged_inspect(honest_inspect))
    token = sharing.encode_link(sharing.Link("inspect", {"code": code, "args": "1.0"}), {"inspect": inspect_tab.LINK})
    page = hostile_page
    page.goto(hostile_server.url + "?s=" + token)
    expect(page.locator("#inspect-code .cm-content")).to_have_text(code.replace("\n", ""), timeout=RESULT_TIMEOUT_MS)
    expect(page.locator("#inspect-args textarea")).to_have_value("1.0")
    page.locator("#inspect-run").click()  # all the visitor does
    wait_for_answer(page, "inspect-status")
    hover_everything_in(page, "#inspect-source-map")
    let_handlers_fire(page)
    assert_nothing_injected(page, "hostile_reply_share_link.png")


def test_forged_shard_reply_in_the_parallel_placement_grid(hostile_page, honest_shard):
    page = hostile_page
    tab = page.get_by_role("tab", name="Parallel", exact=True)
    tab.click()
    expect(tab).to_have_attribute("aria-selected", "true")
    set_editor(page, "shard-code", forging_code(forged_shard(honest_shard)))
    page.locator("#shard-run").click()
    wait_for_answer(page, "shard-status")
    hover_everything_in(page, "#shard-placement")
    let_handlers_fire(page)
    assert_nothing_injected(page, "hostile_reply_parallel.png")
