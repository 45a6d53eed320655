"""What a new user meets in the first hour, each point seen in a walk-through, checked in the real page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import save_screenshot
from tests.browser.test_inspect_ui import RESULT_TIMEOUT_MS, run_inspect
from tests.browser.test_transformation_tabs import choose, open_tab, set_code

HINT = "Nothing has run yet: press the button above (or Ctrl+Enter) and the result appears here."


# Each tab's result area before its first run (one fresh page walks them all: opening a tab runs nothing).
FIRST_LOOK = (("Inspect", "inspect-status"), ("Compiler", "compiler-passes-status"), ("Derivatives", "deriv-status"),
              ("Derivatives", "grad-status"), ("vmap", "vmap-status"), ("jit", "jit-status"),
              ("Speed of light", "speed-status"), ("Parallel", "shard-status"))


def test_before_the_first_run_each_result_area_says_what_to_do_and_train_waits_for_start(page: Page):
    for tab, status in FIRST_LOOK:
        open_tab(page, tab)
        expect(page.locator(f"#{status}")).to_have_text(HINT, use_inner_text=True)  # the shortcut in sight too
    open_tab(page, "Train")
    expect(page.locator("#train-status")).to_have_text("Nothing trained yet: press Start.")
    expect(page.locator("#train-stop")).to_be_disabled()
    for field, limits in (("train-lr", "0 to 10"), ("train-batch", "1 to 4,096"), ("train-epochs", "1 to 500"),
                          ("train-seed", "0 to 2,147,483,647"), ("train-layers", "2 to 8 sizes, each 1 to 4,096")):
        expect(page.locator(f"#{field}")).to_contain_text(limits)


def test_the_drawing_pad_draws_on_the_first_stroke(page: Page):
    open_tab(page, "Train")
    pad = page.locator("#train-sketch")
    pad.scroll_into_view_if_needed()
    expect(pad.locator("button[aria-label='Brush']")).to_be_visible()
    expect(pad).not_to_contain_text("select the draw tool to start")  # the brush is already chosen
    box = pad.locator("canvas").first.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y - 60)
    page.mouse.down()
    page.mouse.move(x, y + 60, steps=12)
    page.mouse.up()
    # The stroke reached the server: with no model yet, it says to train one first.
    expect(page.get_by_text("No trained model in this session yet")).to_be_visible(timeout=RESULT_TIMEOUT_MS)


def test_an_example_clicked_loads_and_runs(page: Page):
    page.locator("#inspect-run").click()
    expect(page.locator("#inspect-result textarea")).to_have_value(re.compile(r"f32\[4\]"), timeout=RESULT_TIMEOUT_MS)
    page.get_by_role("button", name="tanh", exact=True).click()
    expect(page.locator("#inspect-code .cm-content")).to_contain_text("jnp.tanh(x)")
    # Run by the click itself: the result is the example's (5 values), not the previous code's (4).
    expect(page.locator("#inspect-result textarea")).to_have_value(re.compile(r"f32\[5\]"), timeout=RESULT_TIMEOUT_MS)
    expect(page.locator("#inspect-status")).to_contain_text("Traced", timeout=RESULT_TIMEOUT_MS)


def test_a_compiler_example_clicked_runs_the_view_in_sight(page: Page):
    open_tab(page, "Compiler")
    page.get_by_role("button", name="softmax", exact=True).click()
    expect(page.locator("#compiler-code .cm-content")).to_contain_text("e / e.sum()")
    expect(page.locator("#compiler-passes-status .pg-verdict-ok")).to_be_visible(timeout=RESULT_TIMEOUT_MS)


def test_a_preset_picked_by_hand_clears_the_result_of_the_code_before(page: Page):
    open_tab(page, "vmap")
    page.locator("#vmap-sizes textarea").fill("1, 10")
    page.locator("#vmap-run").click()
    expect(page.locator("#vmap-table table")).to_be_visible(timeout=RESULT_TIMEOUT_MS)
    choose(page, "vmap-preset", "batched MLP predict")  # while the old code may still be measuring its sizes
    expect(page.locator("#vmap-status")).to_contain_text("Preset loaded")
    expect(page.locator("#vmap-table table")).to_have_count(0)
    # That none of the old run's results comes back later (updates already on their way when it was stopped) is
    # test_preset_pick's, on the same wiring: there, an event says when the stopped run has ended in the page.


def test_the_glossary_and_the_field_hints(page: Page):
    expect(page.locator("#inspect-static")).to_contain_text("Arguments jit treats as constants")
    expect(page.locator("#inspect-second")).to_contain_text("whether jit traced and compiled again")
    page.locator("#inspect-glossary").get_by_text("Glossary").click()
    glossary = page.locator("#inspect-glossary")
    for term in ("jaxpr:", "StableHLO:", "Optimised HLO:", "static_argnums:", "Call again with:"):
        expect(glossary).to_contain_text(term)


# JAX's own example (docs: Control flow and logical operators with JIT), marked `# ok!` for grad.
DOCS_IF = "def f(x):\n  if x < 3:\n    return 3. * x ** 2\n  else:\n    return -4 * x\n"


def test_jaxs_grad_example_with_an_if_says_inspect_added_the_jit_and_opens_in_derivatives(page: Page):
    run_inspect(page, DOCS_IF, "2.0")
    status = page.locator("#inspect-status")
    expect(status).to_contain_text("Your code does not jit f: this tab does", timeout=RESULT_TIMEOUT_MS)
    expect(status).to_contain_text("Without jit, your code is fine as it is: jax.grad alone runs f on real numbers")
    link = status.get_by_role("link", name="Differentiate it point by point in the Derivatives tab")
    save_screenshot(page, "inspect_added_jit.png", full_page=False)
    with page.context.expect_page() as opened:  # Gradio opens a Markdown link in a new tab: Inspect stays
        link.click()
    derivatives = opened.value
    try:
        expect(derivatives.get_by_role("tab", selected=True).first).to_have_text("Derivatives")
        expect(derivatives.locator("#deriv-code .cm-content")).to_have_text(DOCS_IF.replace("\n", ""))
        expect(derivatives.locator("#deriv-status")).to_contain_text("point by point without jit",
                                                                     timeout=RESULT_TIMEOUT_MS)
        expect(derivatives.locator("#deriv-status")).to_contain_text("line 2 (if x < 3:)")
        expect(derivatives.locator("#deriv-preset input")).to_have_value("")  # no preset's name over this code
    finally:
        derivatives.close()
    expect(status).to_contain_text("this tab does")  # the Inspect tab is as it was


def test_a_gradient_made_at_the_top_level_is_what_inspect_runs_and_the_status_says_so(page: Page):
    run_inspect(page, "def loss(w):\n    return jnp.sum(w ** 2)\n\ngrad_loss = jax.grad(loss)\n", "jnp.arange(3.0)")
    expect(page.locator("#inspect-result textarea")).to_have_value("f32[3] [0. 2. 4.]", timeout=RESULT_TIMEOUT_MS)
    status = page.locator("#inspect-status")
    expect(status).to_contain_text("Traced, lowered and compiled grad_loss")
    expect(status).to_contain_text("It ran grad_loss = jax.grad(loss): the last function your code makes with a "
                                   "JAX transformation.")


@pytest.mark.parametrize(("tab", "prefix", "first", "other"), [
    ("Derivatives", "deriv", "tanh", "sin"), ("vmap", "vmap", "per-example gradients", "x + x² + x³")])
def test_the_preset_picker_names_a_preset_only_while_the_editor_holds_it(page: Page, tab, prefix, first, other):
    open_tab(page, tab)
    picker = page.locator(f"#{prefix}-preset input")
    expect(picker).to_have_value(first)
    set_code(page, f"{prefix}-code", "def f(x):\n    return x * 3\n")
    expect(picker).to_have_value("")
    choose(page, f"{prefix}-preset", other)  # a preset picked again names itself, and its code is back
    expect(page.locator(f"#{prefix}-code .cm-content")).not_to_contain_text("x * 3")
    expect(picker).to_have_value(other)


def test_derivatives_of_a_function_with_a_kink_say_where_it_is_not_smooth(page: Page):
    open_tab(page, "Derivatives")
    set_code(page, "deriv-code", "def f(x):\n    return jnp.abs(x + 3)\n")  # the kink: the grid's first point
    page.locator("#deriv-run").click()
    checks = page.locator("#deriv-checks")
    expect(checks).to_contain_text("the function is not smooth there (a jump or a kink)", timeout=RESULT_TIMEOUT_MS)
    expect(checks).to_contain_text("Orders 1 and 2: the finite-difference checks are off by up to")  # one warning
    expect(checks).to_contain_text("at x = -3, far beyond rounding")
    expect(page.locator("#deriv-status")).to_contain_text("f is not smooth at x = -3: the warnings under the checks")


FONT_FACES_JS = """async () => {
  await document.fonts.ready;
  return [...document.fonts].map(face => [face.family.replace(/["']/g, ""), face.weight, face.status]);
}"""


def test_bold_text_comes_from_a_whole_font(page: Page):
    """Gradio ships its SemiBold (600) font files as 5 KB subsets: bold text drawn from one takes each letter it
    lacks from another, smaller font ("JᴀX", "Ausführen"). Only the whole Regular and Bold faces are declared, and
    the page's bold text (the Run button, the tab titles) has loaded the Bold one."""
    faces = page.evaluate(FONT_FACES_JS)
    for family in ("Source Sans Pro", "IBM Plex Mono"):
        assert {weight for name, weight, _ in faces if name == family} == {"400", "700"}, faces
    assert ["Source Sans Pro", "700", "loaded"] in faces, faces
    weight = page.locator("#inspect-run").evaluate("(button) => getComputedStyle(button).fontWeight")
    assert int(weight) > 500, weight  # bold, so drawn from the 700 face
