"""An example clicked loads *and runs*: the tab's own run button is clicked once the example's values are in.

Clicking the button (in the browser) takes the same way as a person's click: the
same queue, the same concurrency limit, the same progress lines. The run buttons
are ``trigger_mode="always_last"``, so an example clicked while a run is still
going (Inspect's purity checks) runs as soon as that one ends. Where a tab has
several views, the run button of the one in sight is clicked.
"""

from __future__ import annotations

import json

import gradio as gr


def click_js(button_ids: list[str]) -> str:
    """JavaScript that clicks the first of ``button_ids`` that is in the page and shown."""
    return ("() => { for (const id of " + json.dumps(button_ids) + ") { const b = document.getElementById(id); "
            "if (b && b.offsetParent !== null) { b.click(); return; } } }")


def run_on_click(examples: gr.Examples, button_ids: list[str]) -> None:
    examples.load_input_event.then(None, None, None, js=click_js(button_ids),
                                   queue=False)
