"""The reader's language (en, de or zh, playground/messages): the page's own, else the request's Accept-Language.

The page's language is the one Gradio shows: the browser's, or the one picked in
the footer's Settings. PAGE_LANGUAGE_JS keeps it in a cookie (``pg_lang``, from
``<html lang>``, which Gradio sets), so that the messages the server writes follow
a switch made in Settings too; requests without it (API calls) go by Accept-Language.
"""

from __future__ import annotations

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
