"""A class link in a student's browser: their edits survive a reload, the teacher's version is one click away, and
read-only code says so, with the way to a copy they can edit. At a laptop's width (1366 × 800) and a phone's
(390 × 844), the notes in German and Chinese too.

Each test opens the link as a first visit (reopen_app clears what the browser kept), edits as a student types,
waits until the browser has kept the edits (localStorage), then reloads. Screenshots: class_edits_*.png.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from playground.server.links.sharing import Link, encode_link
from playground.server.ui import compiler_tab, derivatives_tab, inspect_tab, train_tab
from playground.server.ui.kept_edits import PREFIX
from playground.server.ui.translations import text
from tests.browser.conftest import blank_tab, reopen_app, save_screenshot
from tests.browser.test_inspect_ui import RESULT_TIMEOUT_MS
from tests.browser.test_phone import PHONE
from tests.browser.test_share_links import field
from tests.browser.test_transformation_tabs import editor, set_code

SCHEMAS = {"inspect": inspect_tab.LINK, "derivatives": derivatives_tab.LINK, "compiler": compiler_tab.LINK,
           "train": train_tab.LINK}
LAPTOP = {"viewport": {"width": 1366, "height": 800}}
SCREENS = {"laptop": LAPTOP, "phone": PHONE}
TEACHER_CODE = "def f(x):\n    return x * 2\n"
STUDENT_CODE = "def f(x):\n    return x * 3"
EXERCISE = "Make **f** return three times x."
TEACHER_RESULT = re.compile(r"\[0\. 2\. 4\.\]")  # f(jnp.arange(3.0))
STUDENT_RESULT = re.compile(r"\[0\. 3\. 6\. 9\.\]")  # the student's f(jnp.arange(4.0))


def class_link(server, read_only: bool = False, hide: tuple[str, ...] = ("examples",)) -> str:
    link = Link("inspect", {"code": TEACHER_CODE, "args": "jnp.arange(3.0)"}, hide, read_only, EXERCISE)
    return f"{server.url}?s={encode_link(link, SCHEMAS)}"


@pytest.fixture(scope="module", params=list(SCREENS))
def screen(request, chromium_browser):
    """One tab per screen size, for the module's tests at that size."""
    page = blank_tab(chromium_browser, **SCREENS[request.param])
    yield page
    page.context.close()


def opened(page: Page) -> None:
    """Wait until the page's load has opened its link: it then knows the link it keeps edits under."""
    expect(page.locator("#share-address textarea")).to_have_value(re.compile(r'"token"'))


def reload(page: Page) -> Page:
    page.reload()
    page.locator("#inspect-code .cm-content").wait_for(state="attached")
    opened(page)
    return page


def kept(page: Page) -> list[dict]:
    """What the browser keeps of the edits, per link."""
    return page.evaluate(f"""() => Object.keys(localStorage).filter(k => k.startsWith({json.dumps(PREFIX)}))
                             .map(k => JSON.parse(localStorage.getItem(k)))""")


def wait_until_kept(page: Page, what: str) -> None:
    """Until the browser has kept edits holding ``what``."""
    page.wait_for_function(f"""() => Object.keys(localStorage).some(k => k.startsWith({json.dumps(PREFIX)})
                               && localStorage.getItem(k).includes({json.dumps(what)}))""")


def wait_until_none_kept(page: Page) -> None:
    page.wait_for_function(f"() => !Object.keys(localStorage).some(k => k.startsWith({json.dumps(PREFIX)}))")


def within_the_screen(page: Page, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"], (selector, box)


def test_a_class_link_opens_at_its_exercise_on_any_screen(screen: Page, server):
    """The link runs its example, and a phone, which scrolls to a run's status after a reader's own click, stays
    at the page's top: the exercise and the note are what a student reads first."""
    page = reopen_app(screen, class_link(server, read_only=True, hide=()))
    opened(page)
    expect(page.locator("#inspect-result textarea")).to_have_value(TEACHER_RESULT, timeout=RESULT_TIMEOUT_MS)
    assert page.evaluate("() => window.scrollY") == 0
    for selector in ("#inspect-exercise", "#inspect-locked"):
        box = page.locator(selector).bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= page.viewport_size["height"], (
            selector, box)
    save_screenshot(page, f"class_link_opened_{page.viewport_size['width']}.png", full_page=False)


def test_a_reload_keeps_the_students_edits_and_one_click_brings_back_the_teachers(screen: Page, server):
    page = reopen_app(screen, class_link(server))
    opened(page)
    result = page.locator("#inspect-result textarea")
    expect(result).to_have_value(TEACHER_RESULT, timeout=RESULT_TIMEOUT_MS)
    kept_note = page.locator("#inspect-kept")
    expect(kept_note).to_be_hidden()  # nothing edited yet
    set_code(page, "inspect-code", STUDENT_CODE)
    field(page, "inspect-args").fill("jnp.arange(4.0)")
    wait_until_kept(page, "jnp.arange(4.0)")

    reload(page)
    expect(editor(page, "inspect-code")).to_have_text(STUDENT_CODE.replace("\n", ""))
    expect(field(page, "inspect-args")).to_have_value("jnp.arange(4.0)")
    expect(kept_note).to_be_visible()
    expect(kept_note).to_contain_text("Your edits are back")
    back = page.locator("#inspect-back")
    expect(back).to_have_text("Back to the teacher's version")
    expect(result).to_have_value(STUDENT_RESULT, timeout=RESULT_TIMEOUT_MS)  # it ran what the student had
    expect(page.locator("#inspect-exercise")).to_contain_text("three times x")  # still the class's link
    within_the_screen(page, "#inspect-kept")
    within_the_screen(page, "#inspect-back")
    save_screenshot(page, f"class_edits_kept_{page.viewport_size['width']}.png", full_page=False)

    back.click()
    expect(editor(page, "inspect-code")).to_have_text(TEACHER_CODE.replace("\n", ""))
    expect(field(page, "inspect-args")).to_have_value("jnp.arange(3.0)")
    expect(kept_note).to_be_hidden()
    expect(result).to_have_value(TEACHER_RESULT, timeout=RESULT_TIMEOUT_MS)  # run again, as the link ran it
    wait_until_none_kept(page)  # the teacher's version is no edit to keep

    reload(page)
    expect(editor(page, "inspect-code")).to_have_text(TEACHER_CODE.replace("\n", ""))
    expect(kept_note).to_be_hidden()


def test_read_only_code_says_so_and_edit_a_copy_makes_one_that_keeps_its_edits(screen: Page, server):
    link = class_link(server, read_only=True, hide=())
    page = reopen_app(screen, link)
    opened(page)
    examples = page.locator(".gallery-item:visible")  # they replace the code: read-only hides them too
    expect(examples).to_have_count(0)
    locked = page.locator("#inspect-locked")
    expect(locked).to_be_visible()
    expect(locked).to_contain_text("Read-only")
    expect(locked).to_contain_text("Edit a copy")
    label = page.locator("#inspect-code [data-testid=block-label]")
    expect(label).to_contain_text("read-only")
    code = editor(page, "inspect-code")
    expect(code).to_have_attribute("contenteditable", "false")
    within_the_screen(page, "#inspect-locked")
    within_the_screen(page, "#inspect-edit-copy")
    locked.scroll_into_view_if_needed()
    save_screenshot(page, f"class_edits_read_only_{page.viewport_size['width']}.png", full_page=False)

    page.locator("#inspect-edit-copy").click()
    expect(code).to_have_attribute("contenteditable", "true")
    expect(locked).to_be_hidden()
    expect(label).not_to_contain_text("read-only")
    expect(examples.first).to_be_visible()  # the teacher hid none: they are back with the editable code
    expect(page).not_to_have_url(link)  # the address leads to the copy
    assert re.search(r"\?s=[A-Za-z0-9_-]+$", page.url), page.url
    set_code(page, "inspect-code", STUDENT_CODE)
    wait_until_kept(page, "x * 3")

    reload(page)  # the copy: editable, the edits back, the exercise still there
    expect(editor(page, "inspect-code")).to_have_text(STUDENT_CODE.replace("\n", ""))
    expect(code).to_have_attribute("contenteditable", "true")
    expect(locked).to_be_hidden()
    expect(page.locator("#inspect-kept")).to_be_visible()
    expect(page.locator("#inspect-exercise")).to_contain_text("three times x")


def test_a_plain_link_made_with_copy_link_keeps_the_edits_made_after_it(page: Page):
    """Copy link puts the link in the address bar: from then on, a reload opens it, with the edits made since."""
    page.locator("#inspect-share").click()
    expect(page).to_have_url(re.compile(r"\?s=[A-Za-z0-9_-]+$"))
    field(page, "inspect-args").fill("jnp.arange(5.0)")
    wait_until_kept(page, "jnp.arange(5.0)")
    reload(page)
    expect(field(page, "inspect-args")).to_have_value("jnp.arange(5.0)")
    expect(page.locator("#inspect-kept")).to_be_visible()
    expect(page.locator("#inspect-back")).to_have_text("Back to the link's version")  # no teacher's: anyone's link


# A link of each kind of field (code with a blank line after it, whole and decimal numbers, sliders, radio buttons,
# a dropdown, checkboxes), and a text field to edit and put back.
PUT_BACK = {
    "inspect": ({"code": TEACHER_CODE, "args": "jnp.arange(3.0)"}, "inspect-args"),
    "derivatives": ({"code": "def f(x):\n    return jnp.sin(x)\n\n", "order": 3, "x_min": -2.5, "points": 100},
                    "grad-point"),
    "compiler": ({"view": "passes", "code": TEACHER_CODE, "args": "jnp.ones(4)", "hide_unchanged": False},
                 "compiler-args"),
    "train": ({"optimizer": "adam", "learning_rate": 0.002, "epochs": 2}, "train-layers"),
}


@pytest.mark.parametrize("tab", list(PUT_BACK))
def test_edits_put_back_by_hand_are_no_edits_to_keep(module_tab: Page, server, tab):
    """What the browser compares its fields with is the link's version as the page shows it: a field put back as
    it was leaves nothing kept, so a reload says nothing (every field of the tab is compared each time)."""
    state, box = PUT_BACK[tab]
    page = reopen_app(module_tab, f"{server.url}?s={encode_link(Link(tab, state), SCHEMAS)}")
    opened(page)
    before = field(page, box).input_value()
    field(page, box).fill(before + " edited")
    wait_until_kept(page, " edited")
    field(page, box).fill(before)
    wait_until_none_kept(page)
    reload(page)
    expect(page.locator(f"#{tab}-kept")).to_be_hidden()


@pytest.mark.parametrize(("locale", "lang"), [("de-DE", "de"), ("zh-CN", "zh")])
def test_the_notes_in_german_and_chinese(chromium_browser, server, locale, lang):
    page = blank_tab(chromium_browser, locale=locale, **PHONE)
    try:
        reopen_app(page, class_link(server, read_only=True))
        opened(page)
        locked = page.locator("#inspect-locked")
        expect(locked).to_contain_text(text("pg.share.locked", lang).split("**")[1])
        expect(page.locator("#inspect-edit-copy")).to_have_text(text("pg.share.edit_copy", lang))
        expect(page.locator("#inspect-code [data-testid=block-label]")).to_contain_text(
            text("pg.share.locked_label", lang))
        field(page, "inspect-args").fill("jnp.arange(4.0)")  # read-only code, but the arguments are the student's
        wait_until_kept(page, "jnp.arange(4.0)")
        reload(page)
        expect(field(page, "inspect-args")).to_have_value("jnp.arange(4.0)")
        expect(page.locator("#inspect-kept")).to_contain_text(text("pg.share.kept", lang).split("**")[1])
        expect(page.locator("#inspect-back")).to_have_text(text("pg.share.back_teacher", lang))
        page.locator("#inspect-kept").scroll_into_view_if_needed()
        save_screenshot(page, f"class_edits_{lang}.png", full_page=False)
    finally:
        page.context.close()
