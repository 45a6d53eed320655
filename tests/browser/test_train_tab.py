"""The Train tab in headless Chromium: live curves, Stop, results, and drawing a digit for the trained model.

The server trains on real MNIST digits (the shared test set split 8,000 / 2,000
into MNIST_DIR-style files) where that folder exists, synthetic ones otherwise;
classifying a drawn digit needs the real ones, and skips without them, saying why.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import save_screenshot
from tests.browser.test_transformation_tabs import open_tab
from tests.conftest import SERVER_START_S, stop_server
from tests.mnist_folders import NO_REAL_DIGITS, REAL_DIGITS, start_training_server

TRAIN_TIMEOUT_S = 180
TRAIN_TIMEOUT_MS = TRAIN_TIMEOUT_S * 1000
# The ceiling of a wait for what the page shows within a second or so (the next status, a run leaving the line):
# far beyond it on a loaded machine.
WAIT_S = 60
# The ceiling of a wait for a stopped run's end: past the service's own graces (2 s to end the chunk, then 120 s to
# measure the test set and save the weights) and WAIT_S more.
STOP_S = 2 + 120 + WAIT_S
# Different steps the status line must show while training: enough to see them keep coming, and in order.
STEPS_SEEN = 3


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = start_training_server(tmp_path_factory, 8000, 2000)
    yield srv
    stop_server(srv)


def set_number(page: Page, elem_id: str, value: float) -> None:
    field = page.locator(f"#{elem_id} input")
    field.fill(str(value))
    field.press("Tab")


def download_link(page: Page, elem_id: str):
    return page.locator(f"#{elem_id} a[href]").first


def plot_title(page: Page, elem_id: str):
    return page.locator(f"#{elem_id} .gtitle")


def steps_shown(page: Page, count: int) -> list[int]:
    """The first ``count`` different step numbers the status line shows, each waited for up to WAIT_S."""
    status, steps = page.locator("#train-status"), []
    for _ in range(count):
        other = rf"(?!{steps[-1]:,}\b)" if steps else ""
        expect(status).to_contain_text(re.compile(rf"step {other}[\d,]+"), timeout=WAIT_S * 1000)
        shown = re.search(r"step ([\d,]+)", status.inner_text())
        if shown:  # else the run ended between the wait and the read: the count below says so
            steps.append(int(shown.group(1).replace(",", "")))
    return steps


# The suite's 300 s counts the module's server start too, and this test's waits add up to more: on a loaded
# machine it would cut the test off inside one, saying nothing of what the page showed. So its ceiling is the
# server's start, the run's start, each step's and the stop's waits end to end, and one WAIT_S more for the rest:
# a wait that runs out first fails saying what the page showed.
@pytest.mark.timeout(SERVER_START_S + TRAIN_TIMEOUT_S + (STEPS_SEEN + 2) * WAIT_S + STOP_S + WAIT_S)
def test_curves_redraw_while_training_and_stop_keeps_them(page: Page):
    open_tab(page, "Train")
    expect(page.locator("#train-device")).to_contain_text("Will train on CPU")
    # A run that cannot end before Stop is pressed. On a loaded machine a click that must scroll first can take
    # longer than a default 100-epoch run lasts; so Stop is scrolled into view before the run, and the layers are
    # wide enough (3.5x the default's work) for 100 epochs to last minutes.
    page.locator("#train-layers textarea").fill("784, 1024, 1024, 10")
    set_number(page, "train-epochs", 100)
    page.locator("#train-stop").scroll_into_view_if_needed()
    page.locator("#train-start").click()
    status = page.locator("#train-status")
    expect(status).to_contain_text("Training:", timeout=TRAIN_TIMEOUT_MS)
    expect(page.locator("#train-device")).to_contain_text("Training on CPU")

    # The status line (and the curves drawn with it) keep changing while training: ever later steps come, not
    # one frozen picture. How often they come depends on a shared CPU that training keeps busy (a few hundred ms
    # between changes, more on a busy machine); the test asks that they keep coming, not for a speed.
    expect(page.locator("#train-loss .scatterlayer .trace").first).to_be_attached()
    steps = steps_shown(page, STEPS_SEEN)
    assert len(steps) == STEPS_SEEN and steps == sorted(steps), steps
    assert page.locator("#train-loss .scatterlayer .trace").count() >= 1
    expect(status).to_contain_text(re.compile(r"[\d,]+ samples/s · [\d.]+ s/epoch"))

    # Pressed once it is enabled, not once it also holds still: while the curves redraw, a loaded machine kept
    # Playwright's "stable" check of the button failing for over a minute (the whole suite on 2 cores).
    stop = page.locator("#train-stop")
    expect(stop).to_be_enabled()
    stop.dispatch_event("click")
    expect(status).to_contain_text(re.compile("Stopping|Stopped"), timeout=WAIT_S * 1000)
    # The run stops at its next chunk (aimed at under a second), plus the browser's round trip. Then the whole test
    # set is measured and the weights saved ("Stopping: …"), which a loaded host may take seconds for: the weights
    # are kept however long that takes, never lost to a short clock after Stop. The weights' link below shows that
    # the worker stopped in time, not that it was killed.
    expect(status).to_contain_text("Stopped", timeout=STOP_S * 1000)
    # the curves are kept: each step's loss and the smoothed loss
    expect(page.locator("#train-loss .scatterlayer .trace")).to_have_count(2)
    expect(download_link(page, "train-params")).to_have_attribute("href", re.compile(r"params\.npz$"))
    expect(page.locator("#train-start")).to_be_enabled()


def test_a_full_run_shows_results_and_classifies_a_drawn_digit(page: Page):
    open_tab(page, "Train")
    set_number(page, "train-epochs", 3)
    page.locator("#train-start").click()
    status = page.locator("#train-status")
    expect(status).to_contain_text("Finished", timeout=TRAIN_TIMEOUT_MS)
    expect(status).to_contain_text("test accuracy")
    expect(status).to_contain_text(re.compile(r"training \d+\.\d\d %"))
    expect(status).to_contain_text(re.compile(r"97 % test accuracy (after [\d,.]+ s|not reached in this run)"))
    # The run just measured this model's rate here: the next one's expected time is reckoned from it.
    expect(page.locator("#train-estimate")).to_contain_text(
        re.compile(r"Expected: about [\d,]+ s of training for 3 epochs"), timeout=WAIT_S * 1000)
    # The loss axis (log) labels its ticks with the values they stand for, in order: never plotly's lone digits
    # ("2, 1, 5, 2, 0.1" read as values).
    labels = page.locator("#train-loss .ytick text").all_text_contents()
    values = [float(label) for label in labels]
    assert len(values) >= 2 and values == sorted(values), labels
    # The training accuracy has its curve beside the test accuracy's (points at each of the 3 epoch ends).
    legend = page.locator("#train-accuracy .legendtext")
    expect(legend.filter(has_text=re.compile(r"^training \(epoch end\)$"))).to_have_count(1)
    expect(legend.filter(has_text=re.compile(r"^test \(epoch end\)$"))).to_have_count(1)
    expect(page.locator("#train-accuracy .scatterlayer .trace")).to_have_count(4)
    expect(plot_title(page, "train-confusion")).to_contain_text("accuracy")
    # The grid shows mistakes first, and says so (on real digits this model gets about 1 in 30 wrong; the
    # synthetic stand-ins of a clone without ../shared may have none, and the title says that instead).
    grid_title = plot_title(page, "train-grid")
    if REAL_DIGITS:
        expect(grid_title).to_contain_text(re.compile(r"mistakes first.*16 of the [\d,]+ the model got wrong"))
    else:
        expect(grid_title).to_contain_text(re.compile(r"mistakes first|no mistakes in all"))
    expect(download_link(page, "train-params")).to_have_attribute("href", re.compile(r"params\.npz$"))
    expect(download_link(page, "train-metrics")).to_have_attribute("href", re.compile(r"metrics\.csv$"))
    page.locator("#train-loss").scroll_into_view_if_needed()
    save_screenshot(page, "train.png")
    if not REAL_DIGITS:  # a model of synthetic bands has never seen a stroke like a "1"
        pytest.skip(f"drawing a digit: {NO_REAL_DIGITS}")

    # Draw a "1": one thick vertical stroke, the way a student would with the mouse.
    sketch = page.locator("#train-sketch")
    sketch.scroll_into_view_if_needed()
    expect(sketch).not_to_contain_text("select the draw tool")  # the brush is chosen already: no click on it
    canvas = sketch.locator("canvas").last
    box = canvas.bounding_box()
    x, top = box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.2
    page.mouse.move(x, top)
    page.mouse.down()
    for step in range(1, 21):
        page.mouse.move(x + step * 0.3, top + step * box["height"] * 0.03)
    page.mouse.up()
    expect(plot_title(page, "train-probabilities")).to_contain_text("What the model thinks: 1")
    expect(page.locator("#train-seen img")).to_be_visible()
    save_screenshot(page, "train_draw.png", full_page=False)


def test_a_run_waiting_for_the_slot_says_its_place_in_words_not_markup(page: Page, server):
    # Another user's long run holds the one training slot; this page's run then waits in line, and the status
    # line shows its place in bold, not the Markdown itself ("**#1**").
    other = server.client()
    job = other.submit({"dataset": "mnist", "layers": [784, 1024, 1024, 10], "epochs": 100}, api_name="/train")
    try:
        for update in job:
            if update["phase"] == "training":
                break
        open_tab(page, "Train")
        page.locator("#train-start").click()
        status = page.locator("#train-status")
        expect(status.locator("strong")).to_have_text("#1", timeout=TRAIN_TIMEOUT_MS)
        expect(status).to_contain_text("in line")
        assert "**" not in status.inner_text() and "<strong>" not in status.inner_text()
        expect(page.locator("#train-stop")).to_be_enabled()
        page.locator("#train-stop").click()  # leaves the line
        expect(status).not_to_contain_text("in line", timeout=WAIT_S * 1000)
    finally:
        other.predict(api_name="/stop_training")
        job.result(timeout=STOP_S)


def test_offline_without_the_files_the_tab_trains_on_the_digits_and_says_why(page: Page):
    open_tab(page, "Train")
    page.locator("#train-dataset input").click()
    page.get_by_role("option", name=re.compile("Fashion-MNIST")).click()
    set_number(page, "train-epochs", 1)
    page.locator("#train-start").click()
    status = page.locator("#train-status")
    expect(status).to_contain_text("Finished", timeout=TRAIN_TIMEOUT_MS)
    expect(status).to_contain_text("Fashion-MNIST is not on this machine and downloading it failed (offline?), so "
                                   "this run trains on the offline “digits” instead.")
    expect(status).to_contain_text("make data")
    expect(status).to_contain_text("1,437 training / 360 test images")  # the digits' own split
    save_screenshot(page, "train_offline.png", full_page=False)
    expect(page.locator("#train-start")).to_be_enabled()
