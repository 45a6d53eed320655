"""An example clicked loads *and runs*: the tab's own run button is clicked once the example's values are in.

Clicking the button (in the browser) takes the same way as a person's click: the
same queue, the same concurrency limit, the same progress lines. The run buttons
are ``trigger_mode="always_last"``, so an example clicked while a run is still
going (Inspect's purity checks) runs as soon as that one ends. Where a tab has
several views, the run button of the one in sight is clicked.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import gradio as gr

from playground.server.ui.translations import t


def click_js(button_ids: list[str]) -> str:
    """JavaScript that clicks the first of ``button_ids`` that is in the page and shown."""
    return ("() => { for (const id of " + json.dumps(button_ids) + ") { const b = document.getElementById(id); "
            "if (b && b.offsetParent !== null) { b.click(); return; } } }")


def examples(gallery: Sequence, inputs: dict, button_ids: list[str]) -> gr.Examples:
    """The gallery's examples under a tab's form, each by its name: a click fills ``inputs`` (the fields by the
    names of the examples' attributes) and then clicks the first of ``button_ids`` in sight."""
    shown = gr.Examples([[getattr(example, name) for name in inputs] for example in gallery], list(inputs.values()),
                        example_labels=[example.name for example in gallery], label=t("pg.field.examples"))
    shown.load_input_event.then(None, None, None, js=click_js(button_ids), queue=False)
    return shown
