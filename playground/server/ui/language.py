"""The reader's language (en, de or zh, playground/messages): the page's own, else the request's Accept-Language.

The page's language is the one Gradio shows: the browser's, or the one picked in
the footer's Settings. PAGE_LANGUAGE_JS keeps it in a cookie (``pg_lang``, from
``<html lang>``, which Gradio sets), so that the messages the server writes follow
a switch made in Settings too; requests without it (API calls) go by Accept-Language.
"""

from __future__ import annotations

import json
from http.cookies import CookieError, SimpleCookie

import gradio as gr

from playground import messages

COOKIE = "pg_lang"
PICKED = "pg_lang_picked"  # localStorage: the language last picked in Settings, which Gradio does not keep
# Run once when the page loads (part of launch(js=...)): a language picked in Settings before comes back (Gradio
# starts from the browser's language on every load, and its changeLocale is the one way to set another); then
# <html lang> goes into the cookie, now and on every change, and a change is a pick to keep.
PAGE_LANGUAGE_JS = """async () => {
  const html = document.documentElement;
  const picked = (localStorage.getItem("PICKED") || "").replace(/[^A-Za-z-]/g, "").slice(0, 16);
  if (picked && picked !== html.lang) {
    const core = performance.getEntriesByType("resource").map(entry => entry.name)
      .find(name => /\\/assets\\/core-[A-Za-z0-9_-]+\\.js$/.test(name));
    try { if (core) (await import(core)).changeLocale(picked); } catch (error) { console.warn(error); }
  }
  const keep = () => {
    const lang = (html.lang || "").replace(/[^A-Za-z-]/g, "").slice(0, 16);
    if (lang) document.cookie = "COOKIE=" + lang + "; path=/; SameSite=Lax; max-age=31536000";
  };
  const start = html.lang;
  new MutationObserver(() => {
    keep();
    if (html.lang && html.lang !== start) localStorage.setItem("PICKED", html.lang);
  }).observe(html, {attributes: true, attributeFilter: ["lang"]});
  keep();
}""".replace("COOKIE", COOKIE).replace("PICKED", PICKED)


def tab_titles_js(titles: dict[str, dict[str, str]]) -> str:
    """Run once when the page loads (part of launch(js=...)): on every change of the page's language, each tab in
    ``titles`` (by tab id, per locale) gets its title in it. Gradio writes a tab's title when the tab is first
    shown: after a switch in Settings, the tabs not shown since would keep the language before it. The title's own
    text node is rewritten, not replaced, so that Gradio's later writes still land on the page."""
    return """() => {
  const titles = TITLES;
  const html = document.documentElement;
  const put = () => {
    const lang = html.lang || "en";
    for (const button of document.querySelectorAll("[role=tab][data-tab-id]")) {
      const title = titles[button.dataset.tabId];
      if (!title) continue;
      const text = title[lang] || title[lang.split("-")[0]] || title.en;
      const node = [...button.childNodes].find(n => n.nodeType === Node.TEXT_NODE && n.data.trim());
      if (node) { if (node.data !== text) node.data = text; }
      else if (button.textContent !== text) button.textContent = text;
    }
  };
  new MutationObserver(put).observe(html, {attributes: true, attributeFilter: ["lang"]});
}""".replace("TITLES", json.dumps(titles, ensure_ascii=False))


def of(request: gr.Request | None) -> str:
    """The page's language from its cookie, else ``messages.choose`` of Accept-Language; English without a
    request (API calls, tests)."""
    headers = getattr(request, "headers", None)
    if headers is None:
        return messages.DEFAULT
    page = _cookie(headers.get("cookie"))
    return messages.choose(page) if page else messages.choose(headers.get("accept-language"))


def _cookie(header: str | None) -> str | None:
    if not header:
        return None
    try:
        cookie = SimpleCookie(header)
    except CookieError:
        return None
    return cookie[COOKIE].value if COOKIE in cookie else None
