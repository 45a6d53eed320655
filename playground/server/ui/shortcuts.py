"""Keyboard shortcuts, installed once when the page loads: Ctrl+Enter (⌘+Enter on a Mac) runs the current tab.

"The current tab's run button" is the visible primary button that follows the
focused element in the page (so in the Derivatives tab the gradient's editor runs
the gradient, and in the Compiler tab the view that is shown runs), or the first
visible one when the focus is below them all or nowhere. The listener runs in the
capture phase so that the code editor does not take the key for a new line first.
"""

RUN_SHORTCUT_JS = """() => {
  const visible = (element) => element.offsetParent !== null && !element.disabled;
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return;
    const buttons = [...document.querySelectorAll("button.primary")].filter(visible);
    if (!buttons.length) return;
    const focused = document.activeElement;
    const next = focused && focused !== document.body
      ? buttons.find((b) => focused.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING)
      : null;
    event.preventDefault();
    event.stopPropagation();
    (next || buttons[0]).click();
  }, true);
}"""
