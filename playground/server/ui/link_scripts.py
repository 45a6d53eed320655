"""What the page runs in the browser for its links: the address bar, the clipboard, a link's run buttons pressed."""

from __future__ import annotations

# Builds the full link in the browser (only it knows the public address) and shows it in the address bar, so
# that a reload opens it.
ADDRESS_JS = """(token) => {
  if (!token) return "";
  const url = window.location.origin + window.location.pathname + "?s=" + token;
  window.history.replaceState(null, "", url);
  return url;
}"""
# The same, and copied.
COPY_LINK_JS = """(token) => {
  const url = (ADDRESS)(token);
  if (url && navigator.clipboard) navigator.clipboard.writeText(url).catch(() => {});
  return url;
}""".replace("ADDRESS", ADDRESS_JS)
# After a link's state is in place: click its tab's run buttons, as a visitor would. A button in a tab that was
# just selected is drawn a moment later, so each is waited for (for at most 10 s). Each click is marked as the
# link's (data-by-link, for the click's moment): a phone leaves the page at its top, where a class link's exercise
# and note are, instead of scrolling to the run's status as it does for a reader's own click (layout.py).
RUN_JS = """(targets) => {
  const started = Date.now();
  const press = (id) => {
    const button = document.getElementById(id);
    if (button) {
      button.dataset.byLink = "1";
      button.click();
      delete button.dataset.byLink;
    }
    else if (Date.now() - started < 10000) setTimeout(() => press(id), 100);
  };
  for (const id of JSON.parse(targets || "[]")) press(id);
  return targets;
}"""
