"""Presets: one picked by hand stops the run of the code before it, and that run's results go, for good; and the
picker shows no preset's name once the code is no longer that preset's.

Gradio's ``cancels=`` alone is not enough for "for good": the browser cancels the
run while the preset's clearing reply is already on its way, and updates of the
old run that were in flight are drawn after the clearing (vmap's table of the
run before can come back, more often on a loaded host; docs/development.md's
measurements). So the clearing is done twice: at once, for the
eye, and once more after the cancelled run has ended in the browser (its
``.then``, which Gradio dispatches only after the run is gone), if a preset was
picked during it. A session-held flag says whether one was: the run's click sets
it to False first, the preset pick to True.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import gradio as gr


def run_stopped_by_preset(run: gr.Button, preset: gr.Dropdown, fn: Callable, inputs: Sequence, outputs: Sequence,
                          cleared: Callable[[], tuple], cleared_outputs: Sequence, **click) -> gr.events.Dependency:
    """``run.click(fn, inputs, outputs, **click)``, its event returned; a preset picked by hand cancels it and
    sets ``cleared_outputs`` to ``cleared()`` (a value for each)."""
    picked = gr.State(False)
    running = run.click(lambda: False, None, picked, queue=False).then(
        fn, inputs, outputs, **click)
    preset.input(lambda: (*cleared(), True), None, [*cleared_outputs, picked],
                 queue=False, cancels=[running])
    running.then(lambda was_picked: (*(cleared() if was_picked else [gr.update()] * len(cleared_outputs)), False),
                 picked, [*cleared_outputs, picked], queue=False)
    return running


def named_while_unchanged(preset: gr.Dropdown, code: gr.Code, preset_code: Callable[[str], str]) -> None:
    """The picker shows a preset only while the editor holds its code (``preset_code(name)``): code typed over it,
    or brought by a link, leaves the picker empty rather than naming code that is no longer there."""
    def shown(text: str | None, name: str | None):
        return gr.update(value=None) if name and not _same_code(preset_code(name), text or "") else gr.update()

    code.change(shown, [code, preset], preset, queue=False, show_progress="hidden")


def _same_code(a: str, b: str) -> bool:
    """Equal but for whitespace at the ends of lines and of the text (the editor drops the last line break)."""
    return [line.rstrip() for line in a.strip().splitlines()] == [line.rstrip() for line in b.strip().splitlines()]
