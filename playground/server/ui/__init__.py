"""The Gradio page: one module per tab (tabs.py), the only package that imports gradio."""

from __future__ import annotations

import gradio as gr

from playground.server.api import PlaygroundAPI
from playground.server.config import Settings
from playground.server.ui import endpoints, share_links
from playground.server.ui.language import PAGE_LANGUAGE_JS, tab_titles_js
from playground.server.ui.layout import PHONE_DIFFS_UNIFIED_JS, RESULT_IN_SIGHT_JS
from playground.server.ui.shortcuts import RUN_SHORTCUT_JS
from playground.server.ui.sketch_tool import BRUSH_FIRST_JS
from playground.server.ui.tabs import TabContext, tab_modules
from playground.server.ui.translations import I18N as I18N  # the UI's words in en, de and zh-CN, for launch()
from playground.server.ui.translations import example_labels_js, t, tab, tab_titles

SANDBOX_QUEUE = "sandbox"  # every event that runs user code in the sandbox pool shares one concurrency limit
PARALLEL_QUEUE = "parallel"  # the Parallel tab has its own pool of several-device workers
DEVICE_QUEUE = "device"  # the jobs that measure on the device, one at a time in its owner
# Training runs wait inside the training service, which tells each one its place in line and lets Stop
# leave it; Gradio's own limit for them is just the queue's size.
TRAINING_QUEUE = "training"
# Messages (JAX's errors are long lines) wrap instead of scrolling out of sight.
CSS = ", ".join(f"#{panel} pre, #{panel} code" for panel in (
    "inspect-status", "compiler-passes-status", "compiler-graph-status",
    "shard-details", "parallel-collectives", "parallel-data-parallel", "parallel-pmap",
    "train-status",
)) + " { white-space: pre-wrap; word-break: break-word; }" + (
    " .train-device { font-size: 1.4em; padding: 0.4em 0.8em; border-radius: 8px;"
    " background: var(--block-background-fill); border: 1px solid var(--border-color-primary); }") + (
    # Verdict labels (markdown.verdict): a word on a colour, so the meaning needs no emoji font.
    " .pg-verdict { display: inline-block; padding: 0 0.45em; border-radius: 4px; font-weight: 600;"
    " font-size: 0.9em; color: #fff; background: #4b5563; }"
    " .pg-verdict-ok { background: #15803d; } .pg-verdict-error, .pg-verdict-differs { background: #b91c1c; }"
    # Tables scroll sideways in their own box instead of squeezing their columns (a phone), and words wrap only
    # between words, never mid-word: a long header ("eager JAX vs NumPy") takes two lines, so that a table beside
    # a plot on a laptop shows its last column.
    " .prose table { display: block; max-width: 100%; overflow-x: auto; }"
    " .prose th, .prose td { word-break: normal; overflow-wrap: normal; hyphens: manual; }"
    # Chinese has no spaces, and "normal" breaks it between any two characters (批大 / 小): a head breaks at its
    # spaces only, as a German or English one does.
    " .prose th { word-break: keep-all; }"
    " .source-ir { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 8px; }"
    " @media (max-width: 700px) { .source-ir { grid-template-columns: minmax(0, 1fr); } }"
    # On a phone, 32 px margins would take a sixth of a 360 px screen from every editor and table: 8 px up
    # to 480 px wide, 32 beyond. A step in clamp(), not @media: Gradio confines the rules inside an @media to
    # its .contain box, inside the padding of .main (plain rules it keeps as written too).
    " .gradio-container .main.app { padding-left: clamp(8px, (100vw - 480px) * 1000, 32px);"
    " padding-right: clamp(8px, (100vw - 480px) * 1000, 32px); }"
    " .pg-local-mode { border-left: 6px solid #a16207; background: #fef3c7; color: #451a03; padding: 4px 12px; }"
    " .pg-verdict-warning { background: #a16207; } .pg-verdict-busy { background: #1d4ed8; }"
    " .pg-verdict-stopped, .pg-platform-cpu { background: #4b5563; }"
    # Keyboard shortcuts, said only where there is a keyboard: a phone or tablet has none to press them on.
    " @media (hover: none) and (pointer: coarse) { .pg-keys { display: none; } }"
    " .pg-platform-gpu { background: #15803d; } .pg-platform-tpu { background: #1d4ed8; }"
    # What a link's page says above a tab (link_notes.py): kept edits, read-only code.
    " .pg-link-note { border-left: 6px solid #1d4ed8; background: #eff6ff; color: #172554; padding: 4px 12px;"
    " align-items: center; }"
    # A dropdown's arrow sits over the right end of its text box (Gradio places it there, absolutely), where a
    # long choice would run under it: its text stops short of the arrow, and a cut one ends in "…".
    " .gradio-container .secondary-wrap:has(> div.icon-wrap) > input { padding-right: calc(var(--size-5) * 2);"
    " text-overflow: ellipsis; }")

# Gradio's default look, with bold text from the full Bold font files: Gradio ships its SemiBold (600) files as
# 5 KB subsets, so bold letters outside the subset came from another, smaller font ("JᴀX", "Ausführen" in bold).
# With no 600 face declared, CSS takes the 700 face for weight 600.
THEME = gr.themes.Default(
    font=(gr.themes.LocalFont("Source Sans Pro", weights=(400, 700)), "ui-sans-serif", "system-ui", "sans-serif"),
    font_mono=(gr.themes.LocalFont("IBM Plex Mono", weights=(400, 700)), "ui-monospace", "Consolas", "monospace"))

def page_js() -> str:
    """What runs once when the page loads (after ``build_app``, which titles the tabs): the gallery's example
    buttons in the page's language (Gradio leaves them as given), Ctrl+Enter to run the current tab, the page's
    language in a cookie for the server and on every tab's title (language.py), and on a phone a run's status
    scrolled into sight and the compiler's diffs unified (layout.py)."""
    parts = (example_labels_js(), RUN_SHORTCUT_JS, PAGE_LANGUAGE_JS, tab_titles_js(tab_titles()), BRUSH_FIRST_JS,
             RESULT_IN_SIGHT_JS, PHONE_DIFFS_UNIFIED_JS)
    return "() => {\n" + "".join(f"  ({part})();\n" for part in parts) + "}"


def build_app(api: PlaygroundAPI, settings: Settings) -> gr.Blocks:
    # Files handed out for download (IR texts, trained parameters, metrics) are Gradio's copies: gone after an
    # hour, and all of them when the server stops.
    with gr.Blocks(title="JAX Playground", delete_cache=(3600, 3600)) as demo:
        if settings.sandbox == "process":  # process isolation only: said on every page, above everything
            gr.Markdown(t("pg.app.local_mode"), elem_id="local-mode", elem_classes="pg-local-mode")
            gr.Markdown(t("pg.app.intro_local"))
        else:
            gr.Markdown(t("pg.app.intro"))
        # Jobs wait in their pool's line (playground/server/answering/line.py), which tells each its place and its
        # wait, and answers identical ones from the cache: Gradio lets them all in, up to the line's size and as many
        # more.
        context = TabContext(api, demo, settings, {"sandbox": SANDBOX_QUEUE, "parallel": PARALLEL_QUEUE,
                                                   "device": DEVICE_QUEUE, "training": TRAINING_QUEUE})
        # First, so that each takes its own name (Gradio gives a later event of the same name another).
        endpoints.register(context)
        notice = gr.HTML(visible=False, elem_id="share-notice")  # why a link could not be opened
        shared = []
        # Every tab in sight at any width (a phone wraps them into rows): none hides behind a "⋯" menu.
        with gr.Tabs(overflow_behavior="wrap", elem_id="main-tabs") as tabs:
            for module in tab_modules():
                with tab(module.TAB.title, module.TAB.id):
                    sharing = module.build(context)
                if sharing is not None:
                    shared.append(sharing)
        share_links.wire(demo, tabs, notice, shared)
    endpoints.make_the_rest_private(demo)
    return demo
