"""The page in German and in Simplified Chinese: a browser asking for de-DE or zh-CN opens every tab (each inner
tab and closed panel too) and finds no English left in the static text, beyond a short list of JAX's terms and
names; and an English browser switches to German under the footer's Settings.

Left out, by element: what the server writes once a job has run (its statuses, the About summary, the datasets'
names: playground/messages translates those from the request's Accept-Language; the Train tab's device banner,
written on load, is read), the code in the editors (the reader's own), API responses shown as JSON (data),
and the Plotly figures (drawn by playground/server/ui/figures/training_plots.py, not Gradio labels).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from playground import messages
from playground.server.ui import train_views
from playground.server.ui.translations import I18N, UI_KEYS, text
from tests.browser.conftest import blank_tab, open_app, reopen_app, save_screenshot, wait_until_finished
from tests.browser.test_inspect_ui import RESULT_TIMEOUT_MS
from tests.browser.test_transformation_tabs import set_code

# (tab id, catalogue key of its name or None where the name is JAX's own, an element the tab shows once open)
TABS = (
    ("inspect", "pg.tab.inspect", "#inspect-code"),
    ("compiler", "pg.tab.compiler", "#compiler-code"),
    ("derivatives", "pg.tab.derivatives", "#deriv-code"),
    ("vmap", None, "#vmap-code"),
    ("jit", None, "#jit-code"),
    ("speed", "pg.tab.speed", "#speed-code"),
    ("parallel", "pg.tab.parallel", "#shard-code"),
    ("train", "pg.tab.train", "#train-start"),
    ("about", "pg.tab.about", "#about-summary"),
)
BROWSER_LOCALES = {"de-DE": "de", "zh-CN": "zh"}  # the browser's language -> the catalogue's
# Server-written panels, the reader's code, figures: see the module's docstring.
LEFT_OUT = ("#about-summary", "#share-notice", "[id$='-exercise']", "[id$='-status']",
            "#train-dataset", ".cm-editor", ".json-holder", ".js-plotly-plot", "svg")
# JAX's terms and names that German and Chinese JAX material keeps, and code: never a finding.
ALLOWED = {
    "jax", "jnp", "np", "lax", "jaxpr", "vmap", "jit", "grad", "pytree", "pytrees", "tracer", "trace", "traced",
    "retracing", "sharding", "mesh", "stablehlo", "hlo", "xla", "ir", "pass", "passes", "fusion", "kernel", "kernels",
    "batch", "cse", "algsimp", "x64", "donate", "donation", "in_axes", "out_axes", "in_specs", "out_specs",
    "static_argnums", "partitionspec", "stack_frame_id", "filenames", "functionnames", "filelocations", "stackframes",
    "def", "f", "g", "x", "n", "w", "b", "e", "tanh", "sin", "softplus", "softmax", "relu", "dot", "bias", "if",
    "cond", "scan", "fori_loop", "predict", "log-softmax", "mlp", "mnist", "numpy", "float32", "float64", "optax",
    "sgd", "momentum", "adam", "api", "mcp", "json", "csv", "npz", "w0", "b0", "w1", "b1", "gpu", "tpu", "cpu",
    "all-reduce", "collective", "pmap", "shard_map", "eager", "block_until_ready", "jax_num_cpu_devices", "python",
    "gradio", "playground", "hessian", "markdown", "epoch", "diff", "params", "shape", "dtype", "f32", "mlir",
    "roofline", "flop", "flops", "remat", "ms", "h",  # a unit, and the finite differences' step (x ± h)
}
WORD = re.compile(r"/?[A-Za-z][A-Za-z0-9_'’.-]*[A-Za-z0-9_]|[A-Za-z]")
CODE = re.compile(r"^/|[._]")  # an endpoint (/inspect), a dotted or snake_case name (jnp.arange, in_axes)
# Small English words no German text here uses; the catalogue's English words are added below.
ENGLISH_STOPWORDS = {"the", "and", "of", "to", "your", "with", "is", "for", "from", "this", "that", "these", "each",
                     "its", "it", "by", "are", "be", "or", "not", "no", "you", "what", "how", "which", "after",
                     "before", "here", "one", "all", "on", "at", "again", "does", "shown", "show", "run", "stop"}

VISIBLE_TEXT_JS = """(leftOut) => {
  const skip = (element) => element.closest(leftOut.join(","));
  const shown = (element) => element.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!node.nodeValue.trim() || !element || ["SCRIPT", "STYLE"].includes(element.tagName)) continue;
    if (!skip(element) && shown(element)) texts.push(node.nodeValue.trim());
  }
  for (const button of document.querySelectorAll("#train-sketch button")) {  // the drawing pad's tooltips
    if (!skip(button) && shown(button)) texts.push(button.title, button.getAttribute("aria-label") || "");
  }
  for (const field of document.querySelectorAll("input, textarea")) {
    if (skip(field) || !shown(field)) continue;
    if (field.placeholder) texts.push(field.placeholder);
    if (field.getAttribute("role") === "combobox" && field.value) texts.push(field.value);  // a dropdown's choice
  }
  return texts;
}"""

# Resolves once what the page was told to show has been drawn: after the fonts and two frames (Svelte writes a
# tab's components into the page before the next frame is drawn).
DRAWN_JS = "async () => { await document.fonts.ready; for (const frame of [1, 2]) " \
           "await new Promise(done => requestAnimationFrame(done)); }"


def _words(texts) -> set[str]:
    found = (word.lower().strip(".'’") for each in texts for word in WORD.findall(each))
    return {word for word in found if not CODE.search(word)}


def english_words(locale: str) -> set[str]:
    """Words that mark English: the catalogue's English words that no text in ``locale`` uses, and a few more."""
    english = _words(text(key, "en") for key in UI_KEYS)
    local = _words(text(key, locale) for key in UI_KEYS)
    return (english - local | ENGLISH_STOPWORDS - local) - ALLOWED


def english_left(texts: list[str], locale: str) -> list[str]:
    """The visible texts that are still English in ``locale``'s page, each with the words that say so."""
    marks = english_words(locale)
    found = []
    for each in texts:
        words = _words([each]) - ALLOWED
        bad = sorted(words if locale == "zh" else words & marks)  # Chinese text has no Latin words but names
        if bad:
            found.append(f"{each!r}: {', '.join(bad)}")
    return sorted(set(found))


def tab_name(key: str | None, locale: str, tab: str) -> str:
    return text(key, locale) if key else tab


def open_everything(page: Page, panel) -> list[str]:
    """The visible texts of the open tab, with each of its inner tabs and closed panels opened in turn."""
    texts = page.evaluate(VISIBLE_TEXT_JS, list(LEFT_OUT))
    for accordion in panel.locator("button.label-wrap:visible").all():
        if "open" not in (accordion.get_attribute("class") or ""):
            accordion.click()
    inner = panel.get_by_role("tab")
    for index in range(inner.count()):
        if inner.nth(index).is_visible():
            inner.nth(index).click()
            expect(inner.nth(index)).to_have_attribute("aria-selected", "true")
            page.evaluate(DRAWN_JS)
            texts += page.evaluate(VISIBLE_TEXT_JS, list(LEFT_OUT))
    return texts + page.evaluate(VISIBLE_TEXT_JS, list(LEFT_OUT))


@pytest.fixture(scope="module", params=list(BROWSER_LOCALES))
def locale_tab(request, chromium_browser: Browser):
    """A tab of a browser set to German or Chinese (navigator.language and Accept-Language both), and its locale."""
    page = blank_tab(chromium_browser, locale=request.param)
    yield page, BROWSER_LOCALES[request.param]
    page.context.close()


@pytest.fixture
def local_page(locale_tab, server):
    """The app afresh in that tab, as that browser first sees it."""
    page, locale = locale_tab
    return reopen_app(page, server.url), locale


def test_every_tab_has_no_english_left(local_page):
    page, locale = local_page
    expect(page.get_by_role("tab", name=text("pg.tab.inspect", locale), exact=True)).to_be_visible()
    findings = {}
    for tab, key, shown in TABS:
        button = page.get_by_role("tab", name=tab_name(key, locale, tab), exact=True)
        button.click()
        expect(button).to_have_attribute("aria-selected", "true")
        page.locator(shown).first.wait_for()
        page.evaluate(DRAWN_JS)  # the tab's components drawn before they are read
        panel = page.locator("[role=tabpanel]").filter(has=page.locator(shown)).first  # the outermost: the tab's
        save_screenshot(page, f"lang_{locale}_{tab}.png")
        left = english_left(open_everything(page, panel), locale)
        if left:
            findings[tab] = left
    assert not findings, f"English left on the {locale} page:\n" + "\n".join(
        f"{tab}: {line}" for tab, lines in findings.items() for line in lines)


def test_examples_and_presets_are_named_in_the_readers_language(local_page):
    page, locale = local_page
    gallery = page.locator(".gallery-item")  # the Inspect tab's, shown first
    expect(gallery.first).to_have_text(text("pg.field.x_cubed_intro", locale))
    expect(page.get_by_role("button", name=text("pg.example.mlp_pytree", locale), exact=True)).to_be_visible()
    page.get_by_role("tab", name=text("pg.tab.derivatives", locale), exact=True).click()
    page.locator("#deriv-preset input[role=combobox]").click()
    page.get_by_role("option", name=text("pg.derivatives.polynomial", locale), exact=True).click()
    expect(page.locator("#deriv-code .cm-content")).to_contain_text("x**5")  # the preset's value is unchanged


def test_settings_switch_an_english_page_to_german(chromium_browser: Browser, server):
    page = open_app(chromium_browser, server.url, locale="en-US")
    try:
        expect(page.get_by_role("tab", name="Inspect", exact=True)).to_be_visible()
        expect(page.get_by_role("button", name=text("pg.example.mlp_pytree", "en"), exact=True)).to_be_visible()
        page.get_by_role("button", name="Settings").click()
        page.get_by_label("Language").click()
        page.get_by_role("option", name="Deutsch", exact=True).click()
        expect(page.get_by_role("tab", name="Untersuchen", exact=True)).to_be_visible()
        expect(page.locator("#inspect-run")).to_have_text(text("pg.inspect.run", "de"))
        expect(page.get_by_role("button", name=text("pg.example.mlp_pytree", "de"), exact=True)).to_be_visible()
        save_screenshot(page, "lang_switched_to_de.png")
        # The pick holds: after a reload the page is German again, and the server writes German too.
        page.reload()
        expect(page.get_by_role("tab", name="Untersuchen", exact=True)).to_be_visible()
        expect(page.locator("#inspect-run")).to_have_text(text("pg.inspect.run", "de"))
        page.wait_for_function("() => document.cookie.split('; ').includes('pg_lang=de')")
    finally:
        page.context.close()


def test_the_catalogue_has_every_language():
    assert tuple(I18N.translations) == ("en", "de", "zh-CN")  # Gradio's codes, which it matches the browser's to
    for key in UI_KEYS:
        assert all(text(key, lang).strip() for lang in messages.LANGUAGES), key


def test_the_train_forms_words_and_its_errors_are_the_readers(local_page):
    """The device it will train on, where each dataset comes from, and a setting out of its range said by the form
    itself, the field named by its label (not Gradio's English toast, which names no field)."""
    page, locale = local_page
    page.get_by_role("tab", name=text("pg.tab.train", locale), exact=True).click()
    expect(page.locator("#train-device")).to_contain_text(messages.say("train.will_train", locale,
                                                                       device="CPU · cpu"))
    page.locator("#train-dataset input[role=combobox]").click()
    notes = {messages.say(key, locale, folder=folder) for key, folder in train_views._WHERE.values()}
    options = page.get_by_role("option").all_inner_texts()
    assert options and all(any(f"({note})" in option for note in notes) for option in options), options
    page.keyboard.press("Escape")
    epochs = page.locator("#train-epochs input")
    epochs.fill("600")
    epochs.press("Tab")
    said = messages.say("invalid.whole_number", locale, field=messages.say(
        "field.label", locale, label=text("pg.train.epochs", locale)), low=1, high=500, value=600)
    expect(page.locator("#train-estimate")).to_contain_text(said)
    page.locator("#train-start").click()
    expect(page.locator("#train-status")).to_contain_text(said)
    expect(page.locator("[data-testid='toast-body']")).to_have_count(0)
    save_screenshot(page, f"lang_{locale}_train_epochs_600.png")


# The text of a server-written panel without its code (the reader's names, JAX's exceptions) and without Gradio's
# status tracker (its timer, "0.1s", shows again when an event chained after the run writes to the panel): what
# must be theirs.
WORDS_BUT_CODE_JS = """(element) => {
  const copy = element.cloneNode(true);
  copy.querySelectorAll('code, pre, [data-testid="status-tracker"]').forEach((code) => code.remove());
  return copy.innerText;
}"""
BRANCHING = "def f(x):\n    if x < 0:\n        return -x\n    return x * x\n"
CUSTOM_JVP = ("@jax.custom_jvp\ndef g(x):\n    return jnp.log1p(jnp.exp(x))\n\n@g.defjvp\n"
              "def g_jvp(primals, tangents):\n    x, = primals\n    x_dot, = tangents\n"
              "    return g(x), x_dot * jax.nn.sigmoid(x)\n")


def test_what_the_server_writes_is_in_the_readers_language(locale_tab, server):
    """A damaged link's notice, a function jit cannot trace (the Derivatives status, its reason too) and which
    function ran where the code defines custom derivative rules: no English in them, the code aside."""
    page, locale = locale_tab
    reopen_app(page, server.url + "?s=eJyrVkrOz0vOyU")  # a link cut short
    notice = page.locator("#share-notice")
    expect(notice).to_contain_text(messages.say("link.not_opened", locale))
    expect(notice).to_contain_text(messages.say("link.defaults", locale))
    said = [notice.evaluate(WORDS_BUT_CODE_JS)]

    page.get_by_role("tab", name=text("pg.tab.derivatives", locale), exact=True).click()
    for code in (BRANCHING, CUSTOM_JVP):
        set_code(page, "deriv-code", code)
        page.locator("#deriv-run").click()
        status = page.locator("#deriv-status")
        expect(status.locator(".pg-verdict-ok")).to_be_visible(timeout=RESULT_TIMEOUT_MS)
        wait_until_finished(status)
        said.append(status.evaluate(WORDS_BUT_CODE_JS))
    assert messages.say("deriv.untraced_some_line", locale) not in said[1]  # the line of the `if` is named
    save_screenshot(page, f"lang_{locale}_server_words.png")
    assert english_left(said, locale) == [], said
