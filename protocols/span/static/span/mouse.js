/**
 * The worker's mouse on the text: a selection becomes the span (clamped to
 * the current segment) or, while a paired category waits for it, the earlier
 * span; a click on a highlight shows its row in the list.
 *
 * A touch screen selects with a long press and handles, and no mouseup ends
 * it: the latest selection in the text is held (not drawn, which would take
 * the handles away) and taken when the worker chooses a category or adds
 * (`takeHeld`). A touch on the text itself lets it go.
 */

import { segmentTextElement } from "./render.js";
import { spanFromRange } from "./selection.js";

export function attachMouse(state, els, { render, say, takeSpan = () => false }) {
  const mouse = { dragging: false, textStale: false, held: null, takeHeld };

  function takeSelection() {
    const selection = window.getSelection();
    if (state.readOnly || !selection.rangeCount || selection.isCollapsed) return;
    hold(null);
    takeRange(selection.getRangeAt(0));
    selection.removeAllRanges();
    render();
  }

  /** A touch selection held since the worker made it: taken now, before a category or Add. */
  function takeHeld() {
    const range = mouse.held;
    hold(null);
    if (!range || state.readOnly || range.collapsed) return false;
    takeRange(range);
    window.getSelection().removeAllRanges();
    return true;
  }

  function takeRange(range) {
    const touched = [...els.text.querySelectorAll(".segment-text")].filter((node) => range.intersectsNode(node));
    if (!touched.length) return; // a selection in the list or the sidebar is not a span
    if (state.awaitingPaired) {
      // The earlier span: in the first segment the selection touches, the current one at the latest.
      const root = touched.find((node) => Number(node.dataset.segment) <= state.current);
      const span = root && spanFromRange(range, root, state.segment(Number(root.dataset.segment)));
      if (span) state.setPaired(span);
      else say("Select the earlier span in this segment or an earlier one.", { error: true });
    } else {
      const root = segmentTextElement(els.text, state.current);
      const span = root && spanFromRange(range, root, state.segment(state.current));
      if (span && takeSpan(span)) {
        // Taken by a page add-on (new boundaries of something it shows), not a new annotation.
      } else if (span) {
        state.setSpan(span);
        say(`Selected “${state.pending.span.text}”.`);
      } else {
        say("That selection is outside the current segment: select the error span in the highlighted box.", { error: true });
      }
    }
  }

  document.addEventListener("selectionchange", () => {
    if (mouse.dragging || state.readOnly) return;
    const selection = window.getSelection();
    // A collapsed one keeps the last: a touch on a category button may collapse it before the click.
    if (!selection.rangeCount || selection.isCollapsed) return;
    const range = selection.getRangeAt(0);
    const inText = [...els.text.querySelectorAll(".segment-text")].some((node) => range.intersectsNode(node));
    hold(inText ? range.cloneRange() : null);
  });
  els.text.addEventListener("pointerdown", () => hold(null));

  /** Keep (or let go of) a touch selection; the page shows whether one is held (Add). */
  function hold(range) {
    const was = state.selectionHeld;
    mouse.held = range;
    state.selectionHeld = Boolean(range);
    if (was !== state.selectionHeld) render();
  }

  els.text.addEventListener("mousedown", (event) => {
    if (event.button === 0) mouse.dragging = true;
  });
  document.addEventListener("mouseup", () => {
    if (!mouse.dragging) return;
    mouse.dragging = false;
    // The selection is final at mouseup; reading it now (not after a timeout)
    // means a key pressed right after the drag already sees the span.
    const stale = mouse.textStale;
    mouse.textStale = false;
    takeSelection();
    if (stale) render();
  });

  els.text.addEventListener("click", (event) => {
    const ids = event.target.closest?.(".hl")?.dataset.ids;
    if (!ids || !window.getSelection().isCollapsed) return;
    const id = ids.split(" ").at(-1);
    const row = [...els.list.children].find((node) => node.dataset.clientId === id);
    if (!row) return;
    for (const other of els.list.querySelectorAll(".selected")) other.classList.remove("selected");
    row.classList.add("selected");
    row.scrollIntoView({ block: "nearest" });
  });
  return mouse;
}
