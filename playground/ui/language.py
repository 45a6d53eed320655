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
# Run once when the page loads (part of launch(js=...)): <html lang> into the cookie, now and on every change.
PAGE_LANGUAGE_JS = """() => {
  const keep = () => {
    const lang = (document.documentElement.lang || "").replace(/[^A-Za-z-]/g, "").slice(0, 16);
    if (lang) document.cookie = "COOKIE=" + lang + "; path=/; SameSite=Lax; max-age=31536000";
  };
  new MutationObserver(keep).observe(document.documentElement, {attributes: true, attributeFilter: ["lang"]});
  keep();
}""".replace("COOKIE", COOKIE)


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
