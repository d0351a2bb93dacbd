/**
 * The worker's mouse (or finger) on the texts: a selection in a text cell of
 * a reached segment becomes the span of the error being marked, clamped to
 * the cell it starts in, in code points (../worker/ranges.js counts them).
 *
 * A touch screen selects with a long press and handles, and no mouseup ends
 * it: the latest selection in a text is held and taken when the worker
 * chooses a severity, a category or [missing] (`takeHeld`).
 */

import { spanFromRange } from "../worker/ranges.js";

export function attachMouse(state, els, view, { render, say, takePlace }) {
  const mouse = { dragging: false, held: null, takeHeld };

  function takeRange(range) {
    const cells = view.cells().filter((node) => range.intersectsNode(node));
    if (!cells.length) {
      if ([...els.segments.querySelectorAll(".ref-text")].some((node) => range.intersectsNode(node))) {
        say("The reference is there to compare with: mark the errors in the translation.", { error: true });
      }
      return false;
    }
    const cell = cells.find((node) => node.contains(range.startContainer)) ?? cells[0];
    const index = Number(cell.dataset.segment);
    const side = cell.dataset.side;
    const span = spanFromRange(range, cell, { index, text: state.text(index, side) });
    if (!span) return false;
    takePlace({ segment: index, side, start: span.start, end: span.end, text: span.text });
    return true;
  }

  function takeSelection() {
    const selection = window.getSelection();
    if (state.readOnly || !selection.rangeCount || selection.isCollapsed) return;
    mouse.held = null;
    if (takeRange(selection.getRangeAt(0))) selection.removeAllRanges();
  }

  /** A touch selection held since the worker made it: taken now, before a severity or a category. */
  function takeHeld() {
    const range = mouse.held;
    mouse.held = null;
    if (!range || state.readOnly || range.collapsed) return false;
    const taken = takeRange(range);
    if (taken) window.getSelection().removeAllRanges();
    return taken;
  }

  document.addEventListener("selectionchange", () => {
    if (mouse.dragging || state.readOnly) return;
    const selection = window.getSelection();
    // A collapsed one keeps the last: a touch on a button may collapse it before the click.
    if (!selection.rangeCount || selection.isCollapsed) return;
    const range = selection.getRangeAt(0);
    const inText = view.cells().some((node) => range.intersectsNode(node));
    mouse.held = inText ? range.cloneRange() : null;
  });
  els.segments.addEventListener("pointerdown", () => {
    mouse.held = null;
  });
  els.segments.addEventListener("mousedown", (event) => {
    // A press on the tools (a slider's thumb, a button) under the current segment selects no text.
    if (event.button === 0 && !event.target.closest?.("#tools, button, input, textarea")) mouse.dragging = true;
  });
  document.addEventListener("mouseup", () => {
    if (!mouse.dragging) return;
    mouse.dragging = false;
    // The selection is final at mouseup: a key pressed right after the drag already sees the span.
    takeSelection();
    render();
  });
  return mouse;
}
