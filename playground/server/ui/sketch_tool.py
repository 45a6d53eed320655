"""The drawing pad draws on the first stroke: Gradio's Sketchpad opens with no tool chosen ("select the draw tool
to start"), so the page chooses the brush for it, once for each pad that appears (the Train tab is drawn when it is
first opened, and a pad cleared or redrawn is a new one)."""

BRUSH_FIRST_JS = """() => {
  const choose = () => {
    for (const pad of document.querySelectorAll(".pg-brush-first")) {
      const brush = pad.querySelector("button[aria-label='Brush']");
      if (brush && !brush.dataset.pgChosen) {
        brush.dataset.pgChosen = "1";
        brush.click();
        // The brush's settings open with it: closed again, so that the first stroke lands on the canvas.
        setTimeout(() => document.dispatchEvent(new KeyboardEvent("keydown", {key: "Escape"})), 50);
      }
    }
  };
  new MutationObserver(choose).observe(document.body, {childList: true, subtree: true});
  choose();
}"""
