"""Share links and class links for every tab: the buttons that make them, and the page load that opens them.

Each tab builds its controls, then hands a ``Sharing`` (its fields by name, the
controls a class link may hide, its code editor, the buttons that run it) to
``wire``. ``open_on_load`` reads ``?s=<token>`` once per page: it selects the tab,
puts the state back, applies a class link's options and clicks the tab's run
buttons; a link that cannot be read shows why in the page's notice and changes nothing.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from dataclasses import dataclass, field

import gradio as gr

from playground.server import sharing
from playground.server.sharing import MAX_EXERCISE_CHARS, Link, TabSchema
from playground.server.ui.translations import t, words

# Builds the full link in the browser (only it knows the public address), shows it in the address bar and
# copies it.
COPY_LINK_JS = """(token) => {
  if (!token) return "";
  const url = window.location.origin + window.location.pathname + "?s=" + token;
  window.history.replaceState(null, "", url);
  if (navigator.clipboard) navigator.clipboard.writeText(url).catch(() => {});
  return url;
}"""
# After a link's state is in place: click its tab's run buttons, as a visitor would. A button in a tab that was
# just selected is drawn a moment later, so each is waited for (for at most 10 s).
RUN_JS = """(targets) => {
  const started = Date.now();
  const press = (id) => {
    const button = document.getElementById(id);
    if (button) button.click();
    else if (Date.now() - started < 10000) setTimeout(() => press(id), 100);
  };
  for (const id of JSON.parse(targets || "[]")) press(id);
  return targets;
}"""


@dataclass
class LinkControls:
    """The "Copy link" button, the class-link panel and the box that shows the link."""

    copy: gr.Button
    hide: gr.CheckboxGroup
    read_only: gr.Checkbox
    exercise_text: gr.Textbox
    make_class_link: gr.Button
    link: gr.Textbox


@dataclass
class Sharing:
    """What one tab's links hold, and where each part goes on the page.

    ``fields`` and ``hideable`` are keyed by the names in ``schema``; a hideable
    control is one or more blocks hidden together. ``runs`` are the elem_ids of
    the buttons that run the tab (none for Train, which waits for Start), or a
    function of the state that picks them.
    """

    tab: str
    schema: TabSchema
    fields: dict
    controls: LinkControls
    exercise: gr.HTML
    code: tuple = ()  # the editors a class link can make read-only
    hideable: dict = field(default_factory=dict)
    runs: tuple[str, ...] | Callable[[dict], list[str]] = ()
    # A field whose value picks a sub-view: {field: {value: (gr.Tabs, tab id)}}, e.g. the Compiler's three views.
    select: dict = field(default_factory=dict)

    def run_buttons(self, state: dict) -> list[str]:
        return list(self.runs(state) if callable(self.runs) else self.runs)


def exercise_box(tab: str) -> gr.HTML:
    """Where a class link's exercise text appears: above the tab's editor, hidden until a link brings one.

    HTML, not Markdown: the text arrives rendered by sharing.exercise_html, which a second Markdown pass could
    turn back into links it refused.
    """
    return gr.HTML(visible=False, elem_id=f"{tab}-exercise", elem_classes=["exercise", "prose"])


def copy_button(tab: str) -> gr.Button:
    """The tab's "Copy link" button, placed beside its run button."""
    return gr.Button(t("pg.share.copy"), elem_id=f"{tab}-share")


def link_panel(tab: str, copy: gr.Button, hideable: dict[str, str]) -> LinkControls:
    """The box that shows the link once made, then a closed "Make a class link" panel.

    ``hideable`` names the controls a class link can hide, with the words its checkboxes say.
    """
    link = gr.Textbox(label=t("pg.share.link"), visible="hidden", interactive=False,
                      elem_id=f"{tab}-link", buttons=["copy"])
    with gr.Accordion(t("pg.share.class_panel"), open=False, elem_id=f"{tab}-class-panel"):
        hide = gr.CheckboxGroup([(words(said), name) for name, said in hideable.items()], label=t("pg.share.hide"),
                                elem_id=f"{tab}-class-hide")
        read_only = gr.Checkbox(False, label=t("pg.share.read_only"), elem_id=f"{tab}-class-read-only")
        exercise_text = gr.Textbox(label=t("pg.share.exercise"), lines=3,
                                   max_length=MAX_EXERCISE_CHARS, elem_id=f"{tab}-class-exercise")
        make_class_link = gr.Button(t("pg.share.make"), elem_id=f"{tab}-class-make")
    return LinkControls(copy, hide, read_only, exercise_text, make_class_link, link)


def wire(tab: Sharing) -> None:
    """Copy link and Make the class link: the state into a token, into the address bar, the clipboard and the box."""
    controls, names, schemas = tab.controls, list(tab.fields), {tab.tab: tab.schema}
    token = gr.Textbox(visible="hidden")

    def state_of(values: tuple) -> dict:
        return {name: _plain(value) for name, value in zip(names, values, strict=True)}

    def plain_link(*values) -> str:
        return _token(Link(tab.tab, state_of(values)), schemas)

    def class_link(hide: list[str], read_only: bool, exercise: str, *values) -> str:
        return _token(Link(tab.tab, state_of(values), tuple(hide or ()), bool(read_only), exercise or ""), schemas)

    def show(event) -> None:
        event.then(None, [token], [controls.link], js=COPY_LINK_JS).then(
            lambda url: gr.update(visible=bool(url)), [controls.link], [controls.link])

    fields = list(tab.fields.values())
    show(controls.copy.click(plain_link, fields, [token], queue=False))
    show(controls.make_class_link.click(class_link, [controls.hide, controls.read_only, controls.exercise_text,
                                                     *fields], [token], queue=False))


def open_on_load(demo: gr.Blocks, tabs: gr.Tabs, notice: gr.HTML, shared: list[Sharing]) -> None:
    """On each page load: open the link in ``?s=``, if any (see the module's docstring)."""
    schemas = {tab.tab: tab.schema for tab in shared}
    outputs: list = [tabs, notice]
    for tab in shared:
        for block in [*tab.fields.values(), *[b for group in tab.hideable.values() for b in group], *tab.code,
                      tab.exercise, *[where for options in tab.select.values() for where, _ in options.values()]]:
            if all(block is not known for known in outputs):
                outputs.append(block)
    runs = gr.Textbox(visible="hidden", elem_id="share-runs")  # the buttons a link presses, as JSON: "[]" for none

    def on_load(request: gr.Request):
        updates: dict[int, dict] = {}
        token = request.query_params.get("s") if request else None
        if not token:
            return (*_updates(outputs, updates), "[]")
        try:
            link = sharing.decode_link(token, schemas)
        except ValueError as exc:
            # HTML, not Markdown: the reason quotes the link's own text, which Markdown could make a link of.
            message = (f"<p><strong>This link could not be opened:</strong> {html.escape(str(exc))} The page shows "
                       "its defaults.</p>")
            updates[id(notice)] = {"value": message, "visible": True}
            return (*_updates(outputs, updates), "[]")
        tab = next(each for each in shared if each.tab == link.tab)
        updates[id(tabs)] = {"selected": link.tab}
        for name, value in link.state.items():
            updates.setdefault(id(tab.fields[name]), {})["value"] = value
            if name in tab.select and value in tab.select[name]:
                where, tab_id = tab.select[name][value]
                updates.setdefault(id(where), {})["selected"] = tab_id
        for name in link.hide:
            for block in tab.hideable[name]:
                updates.setdefault(id(block), {})["visible"] = False
        for editor in tab.code if link.read_only else ():
            updates.setdefault(id(editor), {})["interactive"] = False
        if link.exercise:
            updates[id(tab.exercise)] = {"value": sharing.exercise_html(link.exercise), "visible": True}
        return (*_updates(outputs, updates), json.dumps(tab.run_buttons(link.state)))

    # No progress shown: it would put a spinner and a timer over every field of every tab each time a page opens.
    demo.load(on_load, None, [*outputs, runs], queue=False, show_progress="hidden").then(
        None, [runs], [runs], js=RUN_JS, queue=False)


def _updates(outputs: list, updates: dict[int, dict]) -> tuple:
    return tuple(gr.update(**updates.get(id(block), {})) for block in outputs)


def _token(link: Link, schemas: dict[str, TabSchema]) -> str:
    try:
        return sharing.encode_link(link, schemas)
    except ValueError as exc:
        gr.Warning(html.escape(str(exc)))  # Gradio's toasts render HTML
        return ""


def _plain(value):
    """A component's value as the link stores it: Gradio hands a whole Number as float, or None when blank."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
