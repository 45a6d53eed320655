"""The static UI's words in the reader's language: the ``gr.I18n`` that carries them to Gradio's frontend.

Labels, placeholders, buttons, tab names and the tabs' descriptions are written
as ``t(key)``: a marker that Gradio's frontend replaces with the text in the
browser's language (its ``navigator.language``: "de-DE" finds "de", "zh-CN"
finds "zh-CN"), or in the one picked under the footer's Settings > Language.
The texts are playground/messages' (ui_texts.py, keys "pg.*"), in the app's
languages "en", "de" and "zh"; GRADIO_LOCALE names them as Gradio does.
What the server writes after a run (statuses, errors) is playground/messages' too.

    >>> t("pg.tab.train")
    '__i18n__{"__type__": "translation_metadata", "key": "pg.tab.train"}'
    >>> text("pg.tab.train", "de"), text("pg.tab.train", "zh")
    ('Training', '训练')
"""

from __future__ import annotations

import json
from collections.abc import Callable

import gradio as gr

from playground import messages
from playground.messages import numbers

_MARKER = "__i18n__"  # how gr.I18nData writes itself into a string (gradio/i18n.py)
# The app's languages (messages.LANGUAGES) by Gradio's locale codes, the ones the page's <html lang> gets: Gradio
# matches the browser's language to them (a "zh-CN" browser gets "zh-CN", a "de-AT" one "de").
GRADIO_LOCALE = {"en": "en", "de": "de", "zh": "zh-CN"}
UI_KEYS = tuple(key for key in messages.CATALOGUE if key.startswith(messages.UI_PREFIX))  # the page's, in order

# Gradio's own words that its German or Chinese lacks: its footer with the MCP server on, the sketchpad's hint and
# its toolbar's tooltips (Gradio's German and Chinese have no image_editor words at all), and the place in Gradio's
# queue that its status tracker shows while an event waits for its turn. And one that even its English lacks: the
# status tracker announces "common.complete" to screen readers when an event ends.
_EDITOR = ("add_layer", "brush", "brush_size", "clear_canvas", "color", "erase", "eraser_size", "fit_to_screen",
           "layer", "layers", "pan", "redo", "zoom_in", "zoom_out")
_EDITOR_DE = ("Ebene hinzufügen", "Pinsel", "Pinselgröße", "Zeichenfläche leeren", "Farbe", "Radieren",
              "Radiergröße", "An Bildschirm anpassen", "Ebene", "Ebenen", "Verschieben", "Wiederholen", "Vergrößern",
              "Verkleinern")
_EDITOR_ZH = ("添加图层", "画笔", "画笔大小", "清空画布", "颜色", "擦除", "橡皮擦大小", "适应屏幕", "图层", "图层",
              "平移", "重做", "放大", "缩小")
GRADIO_GAPS = {
    "en": {"common.complete": "Complete"},
    "de": {"errors.use_via_api_or_mcp": "Über API oder MCP verwenden",
           "image_editor.select_draw_tool": "Wähle das Zeichenwerkzeug, um anzufangen",
           "status.queue_position": "In der Warteschlange: {position} von {size}", "common.complete": "Fertig",
           **{f"image_editor.{key}": word for key, word in zip(_EDITOR, _EDITOR_DE, strict=True)}},
    "zh-CN": {"image_editor.select_draw_tool": "选择绘图工具即可开始",
              "status.queue_position": "排队中：第 {position} 位，共 {size} 位", "common.complete": "完成",
              **{f"image_editor.{key}": word for key, word in zip(_EDITOR, _EDITOR_ZH, strict=True)}},
}

I18N = gr.I18n(**{GRADIO_LOCALE[lang]: {key: messages.CATALOGUE[key][lang] for key in UI_KEYS}
                  | GRADIO_GAPS.get(GRADIO_LOCALE[lang], {}) for lang in messages.LANGUAGES})


def text(key: str, lang: str = "en", /, **params: object) -> str:
    """The catalogue's text for ``key`` in ``lang`` ("en", "de", "zh"), its ``{name}`` fields filled in."""
    written = messages.CATALOGUE[key][lang]
    return written.format(**params) if params else written


def t(key: str, /, **params: object) -> str:
    """The marker Gradio's frontend replaces with ``key``'s text in the reader's language.

    With ``params`` (known when the app is built, such as its device count) the filled-in texts get a key of
    their own, a number among them written as each language writes it. One marker per string: Gradio translates
    the first, so add plain text around it, not a second.
    """
    if params:
        filled = f"{key}@" + ",".join(str(value) for value in params.values())
        return composed(filled, lambda lang: text(key, lang, **{name: _written(value, lang)
                                                               for name, value in params.items()}))
    if key not in UI_KEYS:
        raise KeyError(f"{key!r} is not in the UI's catalogue (playground/messages/ui_texts.py)")
    return str(I18N(key))


def _written(value: object, lang: str) -> object:
    """A number as ``lang`` writes it (10.000 in German); anything else as it is."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return numbers.figures(value, lang, 6)
    return value


def shown(value: str, lang: str = "en") -> str:
    """``value`` as the page shows it in ``lang``: its marker (if any) replaced by the text, as Gradio does.

    >>> shown(t("pg.inspect.run") + " (now)", "de")
    'Ausführen (now)'
    """
    start = value.find(_MARKER)
    if start < 0:
        return value
    end = value.index("}", start) + 1
    key = json.loads(value[start + len(_MARKER):end])["key"]
    return value[:start] + I18N.translations[GRADIO_LOCALE[lang]].get(key, key) + value[end:]


def composed(key: str, write: Callable[[str], str]) -> str:
    """A marker for a text written per language ("en", "de", "zh") from the catalogue's (a list of setting
    labels, say)."""
    for lang in messages.LANGUAGES:
        I18N.translations[GRADIO_LOCALE[lang]][key] = write(lang)
    return str(I18N(key))


# Each tab titled from the catalogue, by its id: Gradio writes a tab's title in the page's language when the tab is
# first shown, and a language picked later in Settings reaches only the tabs shown since (language.py puts it on
# the others).
TAB_TITLES: dict[str, str] = {}


def tab(title: str, tab_id: str) -> gr.Tab:
    """``gr.Tab`` titled with ``title``'s text, its title following the page's language even before it is shown;
    a title that is no key of the catalogue is a name every language writes the same ("vmap", "jit")."""
    if title not in UI_KEYS:
        return gr.Tab(title, id=tab_id)
    TAB_TITLES[tab_id] = title
    return gr.Tab(t(title), id=tab_id)


def tab_titles() -> dict[str, dict[str, str]]:
    """Each catalogue-titled tab's title in every language by Gradio's locale code (the page's <html lang>), by
    tab id (for the page's script)."""
    return {tab_id: {GRADIO_LOCALE[lang]: text(key, lang) for lang in messages.LANGUAGES}
            for tab_id, key in TAB_TITLES.items()}


def words(english: str) -> str:
    """The marker for a control's name (a class link's checkbox) given in English; as given if not catalogued."""
    key = f"pg.hide.{english}"
    return t(key) if key in UI_KEYS else english


def choice(key: str, value: str) -> tuple[str, str]:
    """A dropdown or radio entry: shown in the reader's language, ``value`` (English) to the server."""
    return t(key), value


# Example names (Inspect's and the Compiler's gallery, gr.Examples) by their English text: Gradio shows example
# labels as given, without translating them, so the page's script below relabels their buttons.
EXAMPLE_KEYS = {messages.CATALOGUE[key]["en"]: key for key in UI_KEYS if key.startswith("pg.example.")} | {
    messages.CATALOGUE["pg.field.x_cubed_intro"]["en"]: "pg.field.x_cubed_intro"}


def example_labels_js() -> str:
    """The page's script: example buttons follow the page's language (the <html lang> Gradio sets)."""
    names = {en: {GRADIO_LOCALE[lang]: text(key, lang) for lang in messages.LANGUAGES}
             for en, key in EXAMPLE_KEYS.items()}
    return """() => {
  const names = NAMES;
  const relabel = () => {
    const lang = document.documentElement.lang || "en";
    document.querySelectorAll(".gallery-item").forEach((button) => {
      // The label's own text node, changed in place: Gradio's frontend keeps updating that node.
      const walker = document.createTreeWalker(button, NodeFilter.SHOW_TEXT);
      let node = walker.nextNode();
      while (node && !node.nodeValue.trim()) node = walker.nextNode();
      if (!node) return;
      const current = node.nodeValue.trim();
      const english = names[current] ? current : button.dataset.pgEnglish;
      const texts = names[english];
      if (!texts) return;
      button.dataset.pgEnglish = english;
      const shown = texts[lang] || texts[lang.split("-")[0]] || english;
      if (current !== shown) node.nodeValue = shown;
    });
  };
  new MutationObserver(relabel).observe(document.documentElement, {attributes: true, attributeFilter: ["lang"]});
  new MutationObserver(relabel).observe(document.body, {childList: true, subtree: true, characterData: true});
  relabel();
}""".replace("NAMES", json.dumps(names, ensure_ascii=False))

