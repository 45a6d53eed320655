"""Share links and class links for every tab: the buttons that make them, and the page load that opens them.

Each tab builds its controls, then hands a ``Sharing`` (its fields by name, the
controls a class link may hide, its code editor, its notes, the buttons that run
it) to ``wire``. On each page load, the link in ``?s=<token>`` is opened: the tab
selected, the state put back, a class link's options applied and the tab's run
buttons clicked; a link that cannot be read shows why in the page's notice and
changes nothing. The visitor's edits to the link's tab are kept in their browser
(kept_edits.py) and come back on a reload, with a note and the way back to the
link's version; read-only code says so, with the way to a copy to edit (link_notes.py).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from dataclasses import dataclass, field

import gradio as gr

from playground import messages
from playground.server.links import sharing
from playground.server.links.fields import BrokenLink, TabSchema
from playground.server.links.sharing import MAX_EXERCISE_CHARS, Link
from playground.server.ui import kept_edits, language
from playground.server.ui.link_notes import LinkNotes, locked_label
from playground.server.ui.link_scripts import ADDRESS_JS, COPY_LINK_JS, RUN_JS
from playground.server.ui.translations import t, words


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
    notes: LinkNotes
    code: tuple = ()  # the editors a class link can make read-only
    hideable: dict = field(default_factory=dict)
    # The hideable controls that replace the code (examples, presets): read-only code hides them too.
    writes_code: tuple[str, ...] = ()
    runs: tuple[str, ...] | Callable[[dict], list[str]] = ()
    # A field whose value picks a sub-view: {field: {value: (gr.Tabs, tab id)}}, e.g. the Compiler's three views.
    select: dict = field(default_factory=dict)

    def run_buttons(self, state: dict) -> list[str]:
        return list(self.runs(state) if callable(self.runs) else self.runs)

    def views(self) -> list:
        """The sub-views' tabs that a field's value picks (``select``), each once."""
        found: list = []
        for options in self.select.values():
            found += [where for where, _ in options.values() if all(where is not known for known in found)]
        return found

    def selected(self, state: dict) -> dict[int, str]:
        """The sub-view each of ``state``'s fields picks, by the id of its gr.Tabs."""
        return {id(self.select[name][value][0]): self.select[name][value][1] for name, value in state.items()
                if name in self.select and value in self.select[name]}

    def shown(self, link: Link) -> dict:
        """The state the page shows for ``link``: its fields, and the tab's own values for those it lacks, each as
        its component hands it to the page (a code editor's without the blank lines around it)."""
        return {name: _as_shown(block, block.postprocess(link.state[name]) if name in link.state else block.value)
                for name, block in self.fields.items()}


def _address_of(token: str, link: Link, tab: Sharing) -> str:
    """The page's link as the address box holds it (see ``wire``)."""
    return json.dumps({"token": token, "tab": link.tab, "state": tab.shown(link)})


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


def wire(demo: gr.Blocks, tabs: gr.Tabs, notice: gr.HTML, shared: list[Sharing]) -> None:
    """Every tab's links: made by its buttons, opened on the page's load, its edits kept (the module's docstring).

    The page's link (the one in the address bar) is kept in a hidden box as {"token", "tab", "state"}, the state
    as the page shows it: what the browser keeps edits under and compares them with; "" on a page without one.
    """
    schemas = {tab.tab: tab.schema for tab in shared}
    page_link = gr.Textbox(visible="hidden", elem_id="share-address")
    runs = gr.Textbox(visible="hidden", elem_id="share-runs")  # the buttons a link presses, as JSON: "[]" for none
    for tab in shared:
        token = gr.Textbox(visible="hidden")
        _wire_buttons(tab, schemas, token, page_link)
        kept_edits.keep(tab.tab, tab.fields, page_link)
        _wire_back(tab, schemas, page_link, runs)
        _wire_edit_copy(tab, schemas, token, page_link)
    _open_on_load(demo, tabs, notice, shared, page_link, runs)


def _wire_buttons(tab: Sharing, schemas: dict, token: gr.Textbox, page_link: gr.Textbox) -> None:
    """Copy link and Make the class link: the state into a token, into the address bar (and so the page's link),
    the clipboard and the box."""
    controls, names = tab.controls, list(tab.fields)

    def made(link: Link, request: gr.Request | None) -> tuple:
        made_token = _token(link, schemas, language.of(request))
        return made_token, _address_of(made_token, link, tab) if made_token else gr.update()

    # The request comes first: Gradio hands it only to a parameter before the fields' *values.
    def plain_link(request: gr.Request, *values) -> tuple:
        return made(Link(tab.tab, _state_of(names, values)), request)

    def class_link(request: gr.Request, hide: list[str], read_only: bool, exercise: str, *values) -> tuple:
        return made(Link(tab.tab, _state_of(names, values), tuple(hide or ()), bool(read_only), exercise or ""),
                    request)

    def show(event) -> None:
        event.then(None, [token], [controls.link], js=COPY_LINK_JS).then(
            lambda url: gr.update(visible=bool(url)), [controls.link], [controls.link])

    fields = list(tab.fields.values())
    show(controls.copy.click(plain_link, fields, [token, page_link], queue=False))
    show(controls.make_class_link.click(class_link, [controls.hide, controls.read_only, controls.exercise_text,
                                                     *fields], [token, page_link], queue=False))


def _wire_back(tab: Sharing, schemas: dict, page_link: gr.Textbox, runs: gr.Textbox) -> None:
    """The kept edits' way back: the link's version in the fields (which drops what the browser kept for it),
    run again as the link ran it."""
    views = tab.views()
    outputs = [*tab.fields.values(), *views, tab.notes.kept, runs]

    def back(link_text: str) -> tuple:
        link = _page_link(link_text, schemas)
        if link is None or link.tab != tab.tab:
            return tuple(gr.update() for _ in outputs)
        shown = tab.shown(link)
        selected = tab.selected(shown)
        views_back = (gr.update(selected=selected[id(where)]) if id(where) in selected else gr.update()
                      for where in views)
        return (*(shown[name] for name in tab.fields), *views_back, gr.update(visible=False),
                json.dumps(tab.run_buttons(shown)))

    tab.notes.back.click(back, [page_link], outputs, queue=False).then(None, [runs], [runs], js=RUN_JS, queue=False)


def _wire_edit_copy(tab: Sharing, schemas: dict, token: gr.Textbox, page_link: gr.Textbox) -> None:
    """Read-only code's Edit a copy: the same class link with its code editable becomes the page's link (in the
    address bar, so that a reload opens the copy), the editors open, and the examples or presets that read-only
    code hid (not the teacher) come back."""
    names = list(tab.fields)
    writers = [block for name in tab.writes_code for block in tab.hideable[name]]
    outputs = [token, page_link, *tab.code, tab.notes.locked, *writers]

    def edit_copy(request: gr.Request, link_text: str, *values) -> tuple:
        link = _page_link(link_text, schemas)
        if link is None or link.tab != tab.tab:
            return tuple(gr.update() for _ in outputs)
        copy = Link(tab.tab, _state_of(names, values), link.hide, False, link.exercise)
        copy_token = _token(copy, schemas, language.of(request))
        if not copy_token:
            return tuple(gr.update() for _ in outputs)
        shown_again = [name not in link.hide for name in tab.writes_code for _ in tab.hideable[name]]
        return (copy_token, _address_of(copy_token, copy, tab),
                *(gr.update(interactive=True, label=editor.label) for editor in tab.code), gr.update(visible=False),
                *(gr.update(visible=True) if shown else gr.update() for shown in shown_again))

    tab.notes.edit_copy.click(edit_copy, [page_link, *tab.fields.values()], outputs, queue=False).then(
        None, [token], None, js=ADDRESS_JS, queue=False)


def _open_on_load(demo: gr.Blocks, tabs: gr.Tabs, notice: gr.HTML, shared: list[Sharing], page_link: gr.Textbox,
                  runs: gr.Textbox) -> None:
    """On each page load: open the link in ``?s=``, if any, with the edits the browser kept for it."""
    schemas = {tab.tab: tab.schema for tab in shared}
    locked_labels = {id(editor): locked_label(editor) for tab in shared for editor in tab.code}
    outputs: list = [tabs, notice]
    for tab in shared:
        notes = tab.notes
        for block in [*tab.fields.values(), *[b for group in tab.hideable.values() for b in group], *tab.code,
                      notes.exercise, notes.kept, notes.back, notes.locked, *tab.views()]:
            if all(block is not known for known in outputs):
                outputs.append(block)
    kept = gr.Textbox(visible="hidden")  # what the browser kept for the link, put there by kept_edits.READ_JS

    def on_load(kept_text: str, request: gr.Request):
        updates: dict[int, dict] = {}
        token = request.query_params.get("s") if request else None
        if not token:
            return *_updates(outputs, updates), "", "[]"
        try:
            link = sharing.decode_link(token, schemas)
        except BrokenLink as exc:
            # HTML, not Markdown: the reason quotes the link's own text, which Markdown could make a link of.
            reader = language.of(request)
            why = html.escape(messages.render([exc.piece], reader))
            message = (f"<p><strong>{messages.say('link.not_opened', reader)}</strong> {why} "
                       f"{messages.say('link.defaults', reader)}</p>")
            updates[id(notice)] = {"value": message, "visible": True}
            return *_updates(outputs, updates), "", "[]"
        tab = next(each for each in shared if each.tab == link.tab)
        edits = sharing.kept_edits(kept_text, link.tab, tab.shown(link), schemas)
        if link.read_only:  # the teacher's code stays: only what the student may change comes back
            edits = {name: value for name, value in edits.items() if all(tab.fields[name] is not e for e in tab.code)}
        state = {**link.state, **edits}
        updates[id(tabs)] = {"selected": link.tab}
        for name, value in state.items():
            updates.setdefault(id(tab.fields[name]), {})["value"] = value
        for where, tab_id in tab.selected(state).items():
            updates.setdefault(where, {})["selected"] = tab_id
        for name in {*link.hide, *(tab.writes_code if link.read_only else ())}:
            for block in tab.hideable[name]:
                updates.setdefault(id(block), {})["visible"] = False
        for editor in tab.code if link.read_only else ():
            updates.setdefault(id(editor), {}).update(interactive=False, label=locked_labels[id(editor)])
        if link.read_only:
            updates[id(tab.notes.locked)] = {"visible": True}
        if edits:
            updates[id(tab.notes.kept)] = {"visible": True}
            back = "pg.share.back_teacher" if link.for_class else "pg.share.back_link"
            updates[id(tab.notes.back)] = {"value": t(back)}
        if link.exercise:
            updates[id(tab.notes.exercise)] = {"value": sharing.exercise_html(link.exercise), "visible": True}
        return *_updates(outputs, updates), _address_of(token, link, tab), json.dumps(tab.run_buttons(state))

    # No progress shown: it would put a spinner and a timer over every field of every tab each time a page opens.
    demo.load(on_load, [kept], [*outputs, page_link, runs], js=kept_edits.READ_JS, queue=False,
              show_progress="hidden").then(None, [runs], [runs], js=RUN_JS, queue=False)


def _page_link(link_text: object, schemas: dict) -> Link | None:
    """The page's link from its box, its token read again (the box is the browser's to change); None for none."""
    try:
        return sharing.decode_link(json.loads(link_text)["token"], schemas)
    except (ValueError, RecursionError, TypeError, KeyError):
        return None


def _state_of(names: list[str], values: tuple) -> dict:
    return {name: _plain(value) for name, value in zip(names, values, strict=True)}


def _updates(outputs: list, updates: dict[int, dict]) -> tuple:
    return tuple(gr.update(**updates.get(id(block), {})) for block in outputs)


def _token(link: Link, schemas: dict[str, TabSchema], reader: str) -> str:
    try:
        return sharing.encode_link(link, schemas)
    except BrokenLink as exc:
        gr.Warning(html.escape(messages.render([exc.piece], reader)))  # Gradio's toasts render HTML
        return ""


def _as_shown(block: gr.components.Component, value):
    """``value`` of ``block`` as the page hands it back: an empty text box's None is ""."""
    value = _plain(value)
    return "" if value is None and isinstance(block, gr.Textbox | gr.Code) else value


def _plain(value):
    """A component's value as the link stores it: Gradio hands a whole Number as float, or None when blank."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
