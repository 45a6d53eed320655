"""What the tabs share so that a phone works as well as a laptop: widths, so that a phone stacks what a laptop
shows side by side, and a run's status brought into sight on a phone.

A Gradio row wraps a child onto its own line once the row is narrower than
the children's minimum widths together: two results of at least
``SIDE_BY_SIDE_MIN_PX`` each sit side by side in a row of 656 px and more (a
window of 720 px with the page's margins: a laptop) and one above the other in a
narrower one (a phone, a tablet upright, a narrow window), each the
row's full width instead of 150 px. Every result in such a row needs the minimum:
one without it is squeezed to what the others leave over.
"""

import gradio as gr

SIDE_BY_SIDE_MIN_PX = 320


def beside() -> gr.Column:
    """A column for a Markdown or HTML result in a side-by-side row (``with beside(): gr.Markdown(...)``).

    Gradio 6 takes ``min_width`` from a Markdown and leaves its block at a minimum of 0 (an HTML has none),
    so at 400 px a table beside a 320 px plot got the 40 px left over; a column keeps its minimum. Other
    components take ``min_width=SIDE_BY_SIDE_MIN_PX`` themselves.
    """
    return gr.Column(min_width=SIDE_BY_SIDE_MIN_PX)


# Run once when the page loads (part of the app's js): on a phone the result is below the fold, so once a run's
# status first changes (the job is waiting or running, or its result is in), it is scrolled into sight, unless
# it is in sight already. A wider screen shows it beside or just below the button, and is left where it is; so is
# a page whose link pressed the button (link_scripts.RUN_JS): its reader reads the link's exercise first.
RESULT_IN_SIGHT_JS = """() => {
  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[id$='-run'], button[id$='-start']");
    if (!button || window.innerWidth > 700 || button.dataset.byLink) return;
    const status = document.getElementById(button.id.replace(/-(run|start)$/, "-status"));
    if (!status) return;
    const seen = new MutationObserver(() => {
      seen.disconnect();
      const box = status.getBoundingClientRect();
      if (box.top > window.innerHeight * 0.6 || box.bottom < 0) status.scrollIntoView({block: "start"});
    });
    seen.observe(status, {childList: true, subtree: true, characterData: true});
  }, true);
}"""

# On a phone the compiler's diffs start unified: one column of - and + lines fits 390 px, where two columns side by
# side wrap each line into slivers. Once, at the first sight of each diff-style choice (a tab's content may come
# later than the page), and never over a share link's own choice.
PHONE_DIFFS_UNIFIED_JS = """() => {
  if (window.innerWidth > 700 || new URLSearchParams(location.search).has("s")) return;
  const pending = new Set(["compiler-diff-style", "compiler-compare-style"]);
  const pick = () => {
    for (const id of [...pending]) {
      const unified = document.querySelector(`#${id} input[value="unified"]`);
      if (!unified) continue;
      if (!unified.checked) unified.click();
      pending.delete(id);
    }
    if (!pending.size) watcher.disconnect();
  };
  const watcher = new MutationObserver(pick);
  watcher.observe(document.body, {childList: true, subtree: true});
  pick();
}"""
