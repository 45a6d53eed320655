"""A visitor's edits to a link, kept in their browser so that a reload does not lose them.

A link's page (``?s=<token>``) opens with the link's state; a student who then
edits it and reloads would get the link's state back, their work gone. So every
change to a field of the link's tab is written to the browser's localStorage,
under the link's token: ``{"tab": ..., "state": {...}, "at": <ms>}``, or nothing
once the fields are back to the link's version. The page's load reads it back
(share_links.py puts it in place, checked like a link, and says so). Nothing of
it goes to the server until a page loads with that link: it is the visitor's own
browser that keeps it, per link, the newest KEPT_LINKS links.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import gradio as gr

PREFIX = "pg_edits:"  # localStorage: a link's kept edits, under PREFIX + its token
KEPT_LINKS = 20  # the links whose edits are kept, the most recently edited first: an old one's go

# The page's load event: the kept edits of the link in the address, as the text the server reads.
READ_JS = """() => {
  const token = new URLSearchParams(window.location.search).get("s");
  try { return [token ? localStorage.getItem("PREFIX" + token) || "" : ""]; }
  catch (error) { return [""]; }  // storage refused (a browser setting): the link's own state
}""".replace("PREFIX", PREFIX)

# On any change of a field of the tab: its fields, kept for the page's link unless they are the link's own.
# ``address`` is the page's link as share_links writes it, {"token", "tab", "state"}, or "" on a page without one.
_SAVE_JS = """(address, ...values) => {
  const link = address ? JSON.parse(address) : null;
  if (!link || link.tab !== TAB) return [];
  const names = NAMES, key = "PREFIX" + link.token;
  const state = Object.fromEntries(names.map((name, i) => [name, values[i]]));
  const same = names.every(name => JSON.stringify(state[name]) === JSON.stringify(link.state[name]));
  const others = () => Object.keys(localStorage).filter(k => k.startsWith("PREFIX") && k !== key);
  const age = (k) => { try { return JSON.parse(localStorage.getItem(k)).at || 0; } catch (error) { return 0; } };
  try {
    if (same) { localStorage.removeItem(key); return []; }
    const kept = JSON.stringify({tab: TAB, state, at: Date.now()});
    try { localStorage.setItem(key, kept); }
    catch (full) { others().forEach(k => localStorage.removeItem(k)); localStorage.setItem(key, kept); }
    others().sort((a, b) => age(b) - age(a)).slice(KEPT - 1).forEach(k => localStorage.removeItem(k));
  } catch (error) { console.warn("this browser did not keep the edits", error); }
  return [];
}""".replace("PREFIX", PREFIX).replace("KEPT", str(KEPT_LINKS))


def keep(tab: str, fields: dict, address: gr.Textbox) -> None:
    """Keep the fields of ``tab`` (its link's fields by name) in the browser on every change, in the browser alone:
    the event runs no server code."""
    names = list(fields)
    save = _SAVE_JS.replace("TAB", json.dumps(tab)).replace("NAMES", json.dumps(names))
    inputs: Sequence = [address, *fields.values()]
    for block in fields.values():
        block.change(None, inputs, None, js=save, queue=False, show_progress="hidden")
