/**
 * Pages that take a list of units one at a time (the rating and pairwise
 * pages): the strip of numbered buttons, moving between units, and Submit.
 *
 * The page's state gives: current, lastIndex, units, completeCount,
 * allComplete, firstOpen(), readOnly and submitting.
 */

import { el, fill } from "./dom.js";

/** Numbered buttons, one per unit: done ones are marked, the current one is aria-current. */
export function unitStrip(container, count, { describe, onGo }) {
  const buttons = Array.from({ length: count }, (_, index) => {
    const button = el("button", { type: "button", className: "unit-button" }, String(index + 1));
    button.addEventListener("click", () => onGo(index));
    return button;
  });
  fill(container, buttons);
  return (current, isComplete) => {
    buttons.forEach((button, index) => {
      const complete = isComplete(index);
      button.classList.toggle("complete", complete);
      if (index === current) button.setAttribute("aria-current", "step");
      else button.removeAttribute("aria-current");
      button.setAttribute("aria-label", describe(index, complete));
    });
  };
}

/**
 * Previous, next and Submit: wires the buttons, the confirmation dialog and
 * the warning before leaving with unsaved work. `queue()` gives the page's
 * save queue (made after the page's first functions, so only known later).
 * Returns { goTo, next, previous, openSubmit } for the keyboard and the strip.
 */
export function unitNavigation({ state, els, queue, render, say }) {
  function goTo(index) {
    if (index < 0 || index > state.lastIndex || index === state.current) return;
    state.current = index;
    render();
    say("");
    // The new unit's heading takes the focus: the keys then act on the unit, not inside a control.
    els.heading.focus();
  }

  function next() {
    if (state.current < state.lastIndex) return goTo(state.current + 1);
    if (state.readOnly) return;
    if (state.allComplete) return openSubmit();
    const open = state.firstOpen();
    say(`${state.units.length - state.completeCount} still to do before you can submit.`, { error: true });
    if (open !== null) goTo(open);
  }

  function openSubmit() {
    if (state.readOnly || state.submitting || !state.allComplete) return;
    els.dialog.returnValue = ""; // Escape keeps the last returnValue: never let it be an old "confirm"
    els.dialog.showModal();
  }

  els.dialog.addEventListener("close", () => {
    if (els.dialog.returnValue !== "confirm" || state.readOnly) return;
    state.submitting = true;
    queue().push({ kind: "submit", body: {} });
    say("Submitting…");
    render();
  });
  els.previous.addEventListener("click", () => goTo(state.current - 1));
  els.next.addEventListener("click", () => goTo(state.current + 1));
  els.submit.addEventListener("click", openSubmit);
  window.addEventListener("beforeunload", (event) => {
    if (!queue().size) return;
    // Unsaved work: ask before leaving (it is also kept in localStorage for the next visit).
    event.preventDefault();
    event.returnValue = "";
  });
  return { goTo, next, previous: () => goTo(state.current - 1), openSubmit };
}
