"""The Derivatives, vmap and jit tabs in headless Chromium, against the real server; the vmap and jit tabs' numbers
and headings in German and Chinese too.

Screenshots: derivatives.png, vmap.png and jit.png (the documentation's, with `make screenshots`), vmap_de.png,
vmap_zh.png, jit_de.png and jit_zh.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from playground import messages
from playground.gallery import VMAP_PRESETS
from tests.browser.conftest import (
    CUT_OFF_TABLES_JS,
    SQUEEZED_CELLS_JS,
    blank_tab,
    reopen_app,
    save_screenshot,
    wait_until_finished,
)
from tests.browser.test_inspect_ui import RESULT_TIMEOUT_MS

JAXPR_MARKER = "{ lambda"  # the first words of every jaxpr


def open_tab(page: Page, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click()


def editor(page: Page, elem_id: str):
    return page.locator(f"#{elem_id} .cm-content")


def set_code(page: Page, elem_id: str, code: str) -> None:
    """Replace the text of the gr.Code editor ``elem_id`` with ``code``, exactly (one input, no auto-indent)."""
    content = editor(page, elem_id)
    content.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)
    expect(content).to_have_text(code.replace("\n", ""))


def choose(page: Page, elem_id: str, option: str) -> None:
    """Pick ``option`` in the gr.Dropdown ``elem_id``."""
    page.locator(f"#{elem_id} input[role=combobox]").click()
    page.get_by_role("option", name=option, exact=True).click()
    expect(page.locator(f"#{elem_id} input[role=combobox]")).to_have_value(option)


def set_slider(page: Page, elem_id: str, value: int) -> None:
    """Type ``value`` into the number box of the gr.Slider ``elem_id``; the range input must follow."""
    box = page.locator(f"#{elem_id} input[type=number]")
    box.fill(str(value))
    box.press("Enter")
    box.blur()
    expect(page.locator(f"#{elem_id} input[type=range]")).to_have_value(str(value))


def fill(page: Page, elem_id: str, text: str) -> None:
    page.locator(f"#{elem_id} textarea, #{elem_id} input").first.fill(text)


def table_rows(page: Page, elem_id: str):
    return page.locator(f"#{elem_id} table tbody tr")


def header_cells(page: Page, elem_id: str) -> list[str]:
    return page.locator(f"#{elem_id} table thead th").all_inner_texts()


def plot_traces(page: Page, elem_id: str):
    return page.locator(f"#{elem_id} .js-plotly-plot .scatterlayer .trace")


def legend(page: Page, elem_id: str) -> list[str]:
    """The legend's entries (SVG text has no innerText, so textContent)."""
    return page.locator(f"#{elem_id} .legend .legendtext").evaluate_all("nodes => nodes.map(n => n.textContent)")


def axis_titles(page: Page, elem_id: str) -> list[str]:
    """Every axis title, y axes top to bottom then x (plotly's g-y2title, g-x5title, ...: SVG, so textContent)."""
    return page.locator(f"#{elem_id} .js-plotly-plot").evaluate(
        "plot => [...plot.querySelectorAll('g')].filter(g => /^g-[xy]\\d*title$/.test(g.getAttribute('class')))"
        ".sort((a, b) => a.getAttribute('class')[2].localeCompare(b.getAttribute('class')[2]) * -1)"
        ".map(g => g.textContent).filter(text => text)")  # the upper panels' x axes have empty titles


def save(page: Page, name: str) -> None:
    save_screenshot(page, name)


# -- Derivatives --------------------------------------------------------------------------------


def test_derivatives_tab(page: Page):
    open_tab(page, "Derivatives")
    expect(editor(page, "deriv-code")).to_contain_text("jnp.tanh")  # the first preset
    choose(page, "deriv-preset", "sin")
    expect(editor(page, "deriv-code")).to_have_text("def f(x):    return jnp.sin(x)")
    set_slider(page, "deriv-order", 5)  # away from the default (4) and back, so the box is known to work
    set_slider(page, "deriv-order", 4)
    expect(page.locator("#deriv-xmin input")).to_have_value("-3")
    expect(page.locator("#deriv-xmax input")).to_have_value("3")

    page.locator("#deriv-run").click()
    status = page.locator("#deriv-status")
    expect(status.locator(".pg-verdict-ok")).to_have_text("OK", timeout=RESULT_TIMEOUT_MS)
    expect(status).to_contain_text("derivatives up to order 4 on 200 points, in float64")

    expect(plot_traces(page, "deriv-plot")).to_have_count(5)  # f, f′, f″, f‴, f⁽⁴⁾: a panel each
    assert axis_titles(page, "deriv-plot") == ["f", "f′", "f″", "f‴", "f⁽⁴⁾", "x"]

    checks = page.locator("#deriv-checks")
    expect(table_rows(page, "deriv-checks")).to_have_count(5)
    expect(checks).to_contain_text("closed form")
    errors = [float(e) for e in re.findall(r"\d\.\d\de[-+]\d\d", checks.inner_text())]
    assert len(errors) == 4 and all(e < 1e-12 for e in errors), checks.inner_text()  # orders 1-4
    wait_until_finished(checks)
    assert checks.evaluate(CUT_OFF_TABLES_JS) == []
    expect(page.locator("#deriv-growth .js-plotly-plot .barlayer .trace")).to_have_count(2)

    page.get_by_text("The jaxpr of one order", exact=True).click()
    jaxpr = editor(page, "deriv-jaxpr")
    expect(jaxpr).to_be_visible()
    expect(jaxpr).to_contain_text("grad applied 1 times")  # the order shown first is f′
    expect(jaxpr).to_contain_text("sin")
    expect(jaxpr).to_contain_text("cos")

    page.locator("#grad-run").click()
    expect(page.locator("#grad-status")).to_contain_text("OK f = 38; ∇f = [5, 13, 27]", timeout=RESULT_TIMEOUT_MS)
    expect(page.locator("#grad-hessian .js-plotly-plot .heatmaplayer .hm")).to_have_count(1)
    labels = page.locator("#grad-hessian .heatmap-label")  # the numbers written in the cells, not the axes' ticks
    expect(labels).to_have_count(9)
    # f = sum(x³) + x0·x1 at (1, 2, 3): the Hessian is diag(6x) plus 1 at (0, 1) and (1, 0).
    assert labels.all_text_contents() == ["6", "1", "0", "1", "12", "0", "0", "0", "18"]
    jacobians = page.locator("#grad-jacobians")
    expect(table_rows(page, "grad-jacobians")).to_have_count(2)
    assert header_cells(page, "grad-jacobians") == ["Jacobian", "shape (outputs × inputs)", "jacfwd", "jacrev"]
    for name, shape in (("wide", "4 × 1000"), ("tall", "1000 × 4")):
        cells = jacobians.locator("tr", has_text=name).locator("td").all_inner_texts()
        assert cells[:2] == [name, shape], cells
        assert all(re.fullmatch(r"\d[\d,]*(\.\d+)? (s|ms|µs|ns)", c) for c in cells[2:]), cells
    expect(jacobians).to_contain_text("for a wide Jacobian (few outputs, many inputs) reverse mode wins")
    expect(jacobians).to_contain_text("measured on x ↦ tanh(W @ x), not on your f")  # it names what it timed
    wait_until_finished(jacobians)
    assert jacobians.evaluate(CUT_OFF_TABLES_JS) == []

    page.locator("#grad-hessian").scroll_into_view_if_needed()
    save(page, "derivatives.png")


# -- vmap -----------------------------------------------------------------------------------------------


# Records, from now on, what a status and its table show at each change of either (into window.pgSeen): a streaming
# status may show a text for a moment only, and its rows come while it says the next part is measured; a test that
# polls could miss either on a fast machine.
RECORD_PROGRESS_JS = """([statusId, tableId]) => {
  const status = document.getElementById(statusId), table = document.getElementById(tableId);
  window.pgSeen = [];
  const observer = new MutationObserver(
    () => window.pgSeen.push([status.innerText, table.querySelectorAll('tbody tr').length]));
  for (const element of [status, table]) {
    observer.observe(element, {subtree: true, childList: true, characterData: true});
  }
}"""


def test_vmap_tab(page: Page):
    open_tab(page, "vmap")
    choose(page, "vmap-preset", "batched MLP predict")
    preset = VMAP_PRESETS["batched MLP predict"]
    expect(editor(page, "vmap-code")).to_contain_text("def predict(params, image):")
    expect(page.locator("#vmap-args textarea")).to_have_value(preset.args)
    expect(page.locator("#vmap-in-axes textarea")).to_have_value(preset.in_axes)
    fill(page, "vmap-sizes", "1, 10, 100")

    page.evaluate(RECORD_PROGRESS_JS, ["vmap-status", "vmap-table"])
    page.locator("#vmap-run").click()
    status = page.locator("#vmap-status")
    expect(status).to_contain_text("agree", timeout=RESULT_TIMEOUT_MS)
    expect(status).not_to_contain_text("now measuring", timeout=RESULT_TIMEOUT_MS)
    # Each batch size is shown as it is measured: rows were there while the status said the next was measured.
    seen = page.evaluate("() => window.pgSeen")
    assert any("now measuring" in text and rows >= 1 for text, rows in seen), seen
    expect(status.locator(".pg-verdict-ok")).to_have_text("OK")
    expect(status).to_contain_text("predict")

    one, batched = editor(page, "vmap-jaxpr"), editor(page, "vmap-batched")
    expect(one).to_contain_text(JAXPR_MARKER)
    expect(batched).to_contain_text(JAXPR_MARKER)
    expect(one).to_contain_text("g:f32[784]")  # one flattened image
    expect(batched).to_contain_text("g:f32[10,784]")  # for the smallest size asked for above 1: the new axis in front
    expect(batched).to_contain_text("f32[1,10]")
    assert "f32[1," not in one.inner_text()

    expect(table_rows(page, "vmap-table")).to_have_count(3)
    headers = header_cells(page, "vmap-table")
    assert headers[:4] == ["batch size", "Python loop", "vmap", "jit(vmap)"], headers
    assert "vmap vs Python loop" in headers and "jit(vmap) vs Python loop" in headers, headers
    wait_until_finished(page.locator("#vmap-table"))
    assert page.locator("#vmap-table").evaluate(SQUEEZED_CELLS_JS) == []  # no header wraps inside a word
    assert page.locator("#vmap-table").evaluate(CUT_OFF_TABLES_JS) == []
    sizes = [row.split("\t")[0].strip() for row in table_rows(page, "vmap-table").all_inner_texts()]
    assert sizes == ["1", "10", "100"], sizes
    # A speed-up is shown wherever the Python loop was timed; on a loaded machine the loop may run out of its time
    # budget before a size ("—"), and then so do its speed-ups. vmap and jit(vmap) are timed at every size.
    for row in table_rows(page, "vmap-table").all_inner_texts():
        cells = [cell.strip() for cell in row.split("\t")]
        assert cells[2].endswith("s") and cells[3].endswith("s"), cells
        assert (cells[1] == "—") == ("×" not in row), cells
    expect(plot_traces(page, "vmap-plot")).to_have_count(3)
    assert legend(page, "vmap-plot") == ["Python loop", "vmap", "jit(vmap)"]

    page.locator("#vmap-table").scroll_into_view_if_needed()
    save(page, "vmap.png")


# -- jit -----------------------------------------------------------------------------------------------


def test_jit_tab(page: Page):
    open_tab(page, "jit")
    expect(editor(page, "jit-code")).to_contain_text("return x + x*x + x*x*x")
    fill(page, "jit-sizes", "10, 100, 1000")

    page.evaluate(RECORD_PROGRESS_JS, ["jit-status", "jit-table"])  # every text on the way, however brief
    page.locator("#jit-run").click()
    status = page.locator("#jit-status")
    expect(status).to_contain_text("Measured on", timeout=RESULT_TIMEOUT_MS)
    expect(status).to_contain_text("cpu")
    expect(status).not_to_contain_text("skipped")
    # While it measures, the status says what: the whole plan from the click on, then each size as its row comes.
    seen = [text for text, _ in page.evaluate("() => window.pgSeen")]
    assert any("Compiling your function for each size, checking NumPy, eager JAX and jit against each other, then "
               "timing each (at least 5 runs) at n = 10, 100 and 1,000" in text for text in seen), seen
    for measuring in ("Measured n = 10 of 10, 100 and 1,000; now measuring n = 100",
                      "Measured n = 10 and 100 of 10, 100 and 1,000; now measuring n = 1,000"):
        assert any(measuring in text for text in seen), seen

    rows = table_rows(page, "jit-table")
    expect(rows).to_have_count(3)
    headers = header_cells(page, "jit-table")
    assert headers == ["n", "NumPy", "eager JAX", "jit", "eager JAX vs NumPy", "jit vs NumPy"], headers
    wait_until_finished(page.locator("#jit-table"))
    assert page.locator("#jit-table").evaluate(SQUEEZED_CELLS_JS) == []  # no header wraps inside a word
    assert page.locator("#jit-table").evaluate(CUT_OFF_TABLES_JS) == []
    for i, n in enumerate(("10", "100", "1,000")):
        cells = rows.nth(i).locator("td").all_inner_texts()
        assert cells[0] == n, cells
        assert all(re.fullmatch(r"\d[\d,]*(\.\d+)?×", c) for c in cells[4:]), cells  # 160×, never 1.6e+02×
    expect(page.locator("#jit-table")).to_contain_text("Compile time (once per shape)")
    expect(plot_traces(page, "jit-plot")).to_have_count(3)
    assert legend(page, "jit-plot") == ["NumPy", "eager JAX", "jit"]

    why = page.locator("#jit-why")
    expect(why).to_contain_text(re.compile(r"the jaxpr has 5 operations"))
    expect(why).to_contain_text("fuses them into one kernel that reads the input once")

    save(page, "jit.png")


def test_jit_measure_again_is_offered_beside_a_cached_result_and_measures(page: Page):
    """Measure once (sizes no other test asks for, so nothing is kept yet), Measure again is not in sight; Measure
    a second time is served from the cache with its age, and Measure again beside it runs the job afresh."""
    open_tab(page, "jit")
    fill(page, "jit-sizes", "11, 13")
    status, again = page.locator("#jit-status"), page.locator("#jit-again")
    page.locator("#jit-run").click()
    expect(status).to_contain_text("Measured on", timeout=RESULT_TIMEOUT_MS)
    wait_until_finished(status)
    expect(again).to_be_hidden()
    page.locator("#jit-run").click()
    expect(status).to_contain_text("Served from the cache", timeout=RESULT_TIMEOUT_MS)
    expect(status).to_contain_text(re.compile(r"\(\d+ s ago\)"))
    expect(again).to_be_visible()
    again.click()
    expect(again).to_be_hidden()
    expect(status).to_contain_text("Measured on", timeout=RESULT_TIMEOUT_MS)
    wait_until_finished(status)
    expect(status).not_to_contain_text("Served from the cache")
    expect(again).to_be_hidden()



# -- results with values JSON cannot spell ---------------------------------------------------------------


def answer_or_error_badge(page: Page, status_id: str) -> None:
    """Wait until the status shows the tab's answer (its OK or Error label) or Gradio's red "Error" badge.

    A handler that raises gets the badge over its outputs (the app runs with show_error off, so no message).
    """
    answered = page.locator(f"#{status_id} .pg-verdict-ok, #{status_id} .pg-verdict-error")
    badge = page.locator(f"#{status_id} [data-testid=status-tracker] .error")
    answered.or_(badge).first.wait_for(timeout=RESULT_TIMEOUT_MS)
    assert badge.count() == 0, "the handler raised: Gradio shows only its red Error badge"


POLE = "def f(x):\n    return jnp.sum(1.0 / x)\n"
# Example 0 is computed while calls[0] <= 3 (eval_shape and the first loop steps): inf; the rest finite.
# The loop and vmap then differ by inf, which the API sends as max_abs_diff None.
DRIFTING = "calls = [0]\ndef f(x):\n    calls[0] += 1\n    return x / (calls[0] > 3)\n"


def test_gradient_at_a_pole_still_answers(page: Page):
    open_tab(page, "Derivatives")
    set_code(page, "grad-code", POLE)
    fill(page, "grad-point", "jnp.array([0.0, 1.0])")
    page.locator("#grad-run").click()
    answer_or_error_badge(page, "grad-status")
    expect(page.locator("#grad-status")).to_contain_text("inf or nan")


def test_vmap_disagreement_by_inf_still_answers(page: Page):
    open_tab(page, "vmap")
    choose(page, "vmap-preset", "x + x² + x³")
    expect(page.locator("#vmap-args textarea")).to_have_value(VMAP_PRESETS["x + x² + x³"].args)  # preset applied
    set_code(page, "vmap-code", DRIFTING)
    fill(page, "vmap-sizes", "4")
    page.locator("#vmap-run").click()
    answer_or_error_badge(page, "vmap-status")
    expect(page.locator("#vmap-status")).to_contain_text("disagree")


# -- the timing tabs in German and Chinese ---------------------------------------------------------------

# A number as each language writes it: German groups thousands with "." and writes the decimal sign as ",".
WRITTEN = {"de": r"\d{1,3}(\.\d{3})*(,\d+)?", "zh": r"\d{1,3}(,\d{3})*(\.\d+)?"}
AND = {"de": " und ", "zh": " 和 "}


@pytest.fixture(scope="module", params=["de-DE", "zh-CN"])
def reader_tab(request, chromium_browser: Browser):
    """A tab of a browser set to German or Chinese (navigator.language and Accept-Language), and its language."""
    page = blank_tab(chromium_browser, locale=request.param)
    yield page, request.param[:2]
    page.context.close()


@pytest.fixture
def reader(reader_tab, server):
    page, language = reader_tab
    return reopen_app(page, server.url), language


def say(key: str, language: str, **params: object) -> str:
    return messages.say(key, language, **params)


UNIT = "[\N{NO-BREAK SPACE} ](s|ms|µs|ns)"  # a time's unit after its number: on one line in a table's cell


def ticks(page: Page, elem_id: str, axis: str) -> list[str]:
    """An axis's tick labels as plotly drew them (SVG text, so textContent), once its three lines are drawn (plotly
    draws after Gradio has shown the table beside it)."""
    expect(plot_traces(page, elem_id)).to_have_count(3)
    labels = page.locator(f"#{elem_id} .js-plotly-plot .{axis}tick text")
    labels.first.wait_for()
    return labels.all_text_contents()


def assert_numbers_in(cells: list[str], language: str, suffix: str) -> None:
    """Each cell a number as ``language`` writes it, then ``suffix`` (a unit or ×), or "—" where none was measured."""
    number = WRITTEN[language]
    assert cells and all(c == "—" or re.fullmatch(rf"{number}{suffix}", c) for c in cells), cells


def test_the_jit_tab_writes_its_numbers_and_headings_in_the_readers_language(reader):
    page, language = reader
    open_tab(page, "jit")
    fill(page, "jit-sizes", "10, 300, 2000")
    page.evaluate(RECORD_PROGRESS_JS, ["jit-status", "jit-table"])
    page.locator("#jit-run").click()
    status = page.locator("#jit-status")
    expect(status.locator(".pg-verdict-ok")).to_have_text(say("verdict.ok", language), timeout=RESULT_TIMEOUT_MS)
    wait_until_finished(page.locator("#jit-table"))
    two_thousand = "2.000" if language == "de" else "2,000"
    seen = [text for text, _ in page.evaluate("() => window.pgSeen")]
    listed = f"n = 10{'、' if language == 'zh' else ', '}300{AND[language]}{two_thousand}"
    assert any(listed in text for text in seen), seen  # the plan, from the click on
    expect(status).to_contain_text(f"n = 10, 300, {two_thousand}")  # what was compared

    eager = say("jit.eager", language)
    assert header_cells(page, "jit-table") == ["n", "NumPy", eager, "jit", say("timing.versus", language, way=eager,
                                               baseline="NumPy"), say("timing.versus", language, way="jit",
                                                                      baseline="NumPy")]
    rows = [[cell.strip() for cell in row.split("\t")] for row in table_rows(page, "jit-table").all_inner_texts()]
    assert [row[0] for row in rows] == ["10", "300", two_thousand], rows
    for row in rows:
        assert_numbers_in(row[1:4], language, UNIT)
        assert_numbers_in(row[4:], language, "×")
    expect(page.locator("#jit-table")).to_contain_text(f"n = {two_thousand}: ")  # the compile times
    assert_numbers_in(ticks(page, "jit-plot", "y"), language, UNIT)
    assert ("1.000" if language == "de" else "1,000") in ticks(page, "jit-plot", "x")  # elements: 100 to 4,000,000
    expect(page.locator("#jit-why")).to_contain_text(f"n = {two_thousand}")
    page.locator("#jit-table").scroll_into_view_if_needed()
    save(page, f"jit_{language}.png")


def test_the_vmap_tab_writes_its_numbers_and_headings_in_the_readers_language(reader):
    page, language = reader
    open_tab(page, "vmap")
    fill(page, "vmap-sizes", "1, 10, 1000")
    page.locator("#vmap-run").click()
    status = page.locator("#vmap-status")
    expect(status.locator(".pg-verdict-ok")).to_have_text(say("verdict.ok", language), timeout=RESULT_TIMEOUT_MS)
    wait_until_finished(page.locator("#vmap-table"))
    thousand = "1.000" if language == "de" else "1,000"
    expect(status).to_contain_text(thousand)  # agreed at, or stopped at, batch size 1,000

    loop = say("plot.python_loop", language)
    assert header_cells(page, "vmap-table") == [
        say("vmap.table_size", language), loop, "vmap", "jit(vmap)",
        say("timing.versus", language, way="vmap", baseline=loop),
        say("timing.versus", language, way="jit(vmap)", baseline=loop)]
    assert page.locator("#vmap-table").evaluate(SQUEEZED_CELLS_JS) == []  # no head wraps inside a word
    rows = [[cell.strip() for cell in row.split("\t")] for row in table_rows(page, "vmap-table").all_inner_texts()]
    assert [row[0] for row in rows] == ["1", "10", thousand], rows
    for row in rows:
        assert_numbers_in(row[1:4], language, UNIT)
        assert_numbers_in(row[4:], language, "×")
    expect(plot_traces(page, "vmap-plot")).to_have_count(3)  # plotly draws after Gradio has shown the table
    assert legend(page, "vmap-plot") == [loop, "vmap", "jit(vmap)"]
    assert_numbers_in(ticks(page, "vmap-plot", "y"), language, UNIT)
    assert thousand in ticks(page, "vmap-plot", "x")
    page.locator("#vmap-table").scroll_into_view_if_needed()
    save(page, f"vmap_{language}.png")
