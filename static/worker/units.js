/**
 * Pages that take a list of units one at a time (the rating and pairwise
 * pages): the strip of numbered buttons, moving between units, and Submit.
 *
 * The page's state gives: current, lastIndex, units, completeCount,
 * allComplete, firstOpen(), readOnly and submitting.
 */

import { startActivityClock } from "./activity.js";
import { reportActivity } from "./api.js";
import { el, fill } from "./dom.js";

const CLOSED = new Set(["submitted", "released"]);

export const copy = (value) => (value && typeof value === "object" ? { ...value } : value);

/**
 * The block as the page holds it: `saved` is what the server confirmed,
 * `answers` what the page shows (saved, being saved, or not sent yet), both
 * keyed by key(index). The server stays the authority. A page's subclass
 * gives key(index), isComplete(index), savedAnswers(server) and, for its
 * save queue's operations, the static opKey(op), applyOp(op) and
 * markSaved(op, data); it calls begin(data) once its own fields are set.
 */
export class UnitState {
  constructor(data, units) {
    this.study = data.study;
    this.units = units ?? [];
    this.opensAt = data.available_from ? new Date(data.available_from) : null;
    this.closedMessage = null;
    this.submitting = false;
  }

  begin(data) {
    this.applyServer(data);
    this.current = this.firstOpen() ?? 0;
  }

  /** Take the server's view (page load, api.state after a refusal or a conflict). */
  applyServer(server) {
    this.status = server.status;
    this.completion = server.completion ?? null;
    const saved = this.savedAnswers(server) ?? {};
    this.saved = Object.fromEntries(Object.entries(saved).map(([key, value]) => [key, copy(value)]));
    this.answers = Object.fromEntries(Object.entries(this.saved).map(([key, value]) => [key, copy(value)]));
  }

  get notYetOpen() {
    return this.opensAt !== null && this.opensAt.getTime() > Date.now();
  }

  get readOnly() {
    return CLOSED.has(this.status) || this.closedMessage !== null || this.notYetOpen;
  }

  get lastIndex() {
    return this.units.length - 1;
  }

  answer(index) {
    return this.answers[this.key(index)];
  }

  get completeCount() {
    return this.units.filter((_, index) => this.isComplete(index)).length;
  }

  get allComplete() {
    return this.units.length > 0 && this.completeCount === this.units.length;
  }

  /** The first unit still to do at or after `from` (wrapping), or null. */
  firstOpen(from = 0) {
    for (let step = 0; step < this.units.length; step += 1) {
      const index = (from + step) % this.units.length;
      if (!this.isComplete(index)) return index;
    }
    return null;
  }

  /** The server refused `op`: back to what it has, plus what is still queued for the same unit. */
  revert(op, queued) {
    const keyOf = this.constructor.opKey;
    const key = keyOf(op);
    if (key === null) return;
    if (key in this.saved) this.answers[key] = copy(this.saved[key]);
    else delete this.answers[key];
    for (const later of queued) if (keyOf(later) === key) this.applyOp(later);
  }
}

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

/**
 * Start the page: apply what the queue still holds from an earlier visit,
 * draw, send, and count active time, from the opening date of a retest that
 * is still to come (the page opens itself when the date comes while it shows).
 */
export function startUnitPage({ data, state, queue, render }) {
  if (state.readOnly) queue.clear();
  else for (const op of queue.ops) state.applyOp(op);
  render();
  queue.run();

  const startClock = () =>
    startActivityClock({
      intervalSeconds: Math.max(1, data.activity_interval_seconds || 15),
      isOpen: () => !state.readOnly,
      async report(seconds) {
        const result = await reportActivity(data.api, seconds);
        if (result.status === 409) queue.handlers.onClosed(result.data?.error ?? "This task can no longer change.");
        return result.status === 200;
      },
    });

  if (!state.notYetOpen) return startClock();
  const wait = state.opensAt.getTime() - Date.now();
  if (wait < 2 ** 31 - 1) {
    setTimeout(() => {
      render();
      if (!state.readOnly) startClock();
    }, wait + 500);
  }
}
