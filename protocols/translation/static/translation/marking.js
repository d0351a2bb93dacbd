/**
 * Marking errors (MQM, ESA): a span chosen with the mouse or the arrow keys
 * (or the [missing] marker) becomes the place of the error being marked;
 * its severity and, for MQM, its category complete it, and a complete error
 * is saved at once. A whole-segment category is one action. Removing an
 * error undoes it on the server too.
 */

import { sliceCodePoints } from "../worker/offsets.js";
import { errorLabel } from "./render.js";
import { MISSING, SOURCE } from "./state.js";
import { cursorSpan, stepCursor, words } from "./words.js";

/**
 * `page` gives what the marking needs of the page: queue, render, say, locked(),
 * goTo(index) (false when the segment cannot open), focusText(side) and takeHeld()
 * (a touch selection still held, taken now).
 */
export function errorMarking(state, els, view, page) {
  const { queue, render, say, locked, goTo, focusText } = page;
  let cursor = null; // the keyboard's span: {segment, side, anchor, focus} in words

  /** A span (or [missing]) chosen by the mouse or the keys becomes the place of the error being marked. */
  function takePlace(place, { keyboard = false } = {}) {
    if (locked() || !state.marksErrors) return;
    if (!state.isReached(place.segment)) {
      say("That segment is not reached yet: finish this one first.", { error: true });
      return;
    }
    if (place.side === SOURCE && !state.study.source_spans) {
      say("This study marks errors in the translation only.", { error: true });
      return;
    }
    if (place.segment !== state.current) {
      state.pending.place = null;
      if (!goTo(place.segment)) return;
    }
    if (state.atCap(place.segment)) {
      say(`At most ${state.cap} errors per segment: remove one to mark another.`, { error: true });
      return;
    }
    if (!keyboard) cursor = null;
    state.setPlace(place);
    render();
    if (place.side === MISSING) say("[missing] marked as the place of an omission.");
    else say(`Selected “${place.text}”${place.side === SOURCE ? " in the source" : ""}.`);
  }

  /** The arrow keys in a text: the next (or previous) word, or one more word with Shift. */
  function stepWord(cell, step, extend) {
    const index = Number(cell.dataset.segment);
    const side = cell.dataset.side;
    if (locked() || index !== state.current) return;
    const text = state.text(index, side);
    const list = words(text);
    const place = state.pending.place;
    let moved;
    if (cursor && cursor.segment === index && cursor.side === side) {
      const span = cursorSpan(list, cursor);
      const shown = place && place.segment === index && place.side === side && place.start === span.start && place.end === span.end;
      // Still the span being marked: step or stretch it. After it was saved (or cancelled) the
      // next arrow goes on to the word after it (or before it), not back to the first word.
      const beyond = step > 0 ? Math.max(cursor.anchor, cursor.focus) + 1 : Math.min(cursor.anchor, cursor.focus) - 1;
      moved = shown ? stepCursor(cursor, list.length, step, extend) : { anchor: beyond, focus: beyond };
    } else if (place && place.segment === index && place.side === side) {
      // A span selected with the mouse: the arrows carry on from its words.
      const first = list.findIndex((w) => w.end > place.start);
      const last = list.findLastIndex((w) => w.start < place.end);
      moved = stepCursor(first >= 0 && last >= first ? { anchor: first, focus: last } : null, list.length, step, extend);
    } else {
      moved = stepCursor(null, list.length, step, extend);
    }
    if (!moved || moved.focus < 0 || moved.focus >= list.length) return;
    cursor = { segment: index, side, anchor: moved.anchor, focus: moved.focus };
    const span = cursorSpan(list, cursor);
    takePlace({ segment: index, side, start: span.start, end: span.end, text: sliceCodePoints(text, span.start, span.end) }, { keyboard: true });
  }

  function commit(error) {
    state.addError(error, false);
    queue.push({ kind: "add", body: error });
    render();
    const where = error.side === MISSING ? " [missing]" : error.side === SOURCE ? ` in the source: “${error.text}”` : `: “${error.text}”`;
    say(`Marked ${errorLabel(state, error)}${where}.`);
    focusText(error.side);
  }

  /** Before a severity, a category or [missing]: refuse at the cap, take a touch selection still held. */
  function ready() {
    if (locked() || !state.marksErrors) return false;
    if (state.atCap(state.current)) {
      say(`At most ${state.cap} errors per segment: remove one to mark another.`, { error: true });
      return false;
    }
    if (!state.pending.place) page.takeHeld();
    return true;
  }

  function chooseSeverity(name) {
    if (!ready()) return;
    if (!state.pending.place) {
      const missing = state.study.missing_marker ? " (or choose [missing] for an omission)" : "";
      say(`Select the words of the error first${missing}, then its severity.`, { error: true });
      return;
    }
    state.chooseSeverity(name);
    if (state.pendingReady) return commit(state.takePending());
    render();
    say(`Severity: ${name}. Now choose its category.`);
  }

  function chooseCategory(key) {
    const category = state.category(key);
    if (!category || !ready()) return;
    if (category.whole_segment) {
      // One action: the whole translation, at the severity chosen already or the most severe.
      const severity = state.pending.severity ?? state.severities.at(-1);
      cursor = null;
      return commit(state.wholeSegmentError(state.current, key, severity));
    }
    state.chooseCategory(key);
    if (state.pendingReady) return commit(state.takePending());
    render();
    say(`Category: ${category.label}. ${state.pending.place ? "Now choose its severity." : "Now select its words."}`);
  }

  function markMissing() {
    if (!state.study.missing_marker || !ready()) return;
    takePlace({ segment: state.current, side: MISSING, start: 0, end: 0, text: "" });
    if (state.pendingReady) commit(state.takePending());
  }

  function cancelPending() {
    if (!state.pendingStarted) return;
    state.cancelPending();
    render();
    say("Cancelled.");
  }

  function removeError(clientId) {
    if (locked()) return;
    const rows = [...els.segments.querySelectorAll(".error-list button.remove")];
    const position = rows.findIndex((button) => button.closest("li").dataset.clientId === clientId);
    const removed = state.removeError(clientId);
    if (!removed) return;
    queue.push({ kind: "remove", body: { client_id: clientId, error: removed } });
    render();
    say(`Removed ${errorLabel(state, removed)}.`);
    // Keep a keyboard user in the lists: the button that took the removed one's place, else the text.
    const buttons = [...els.segments.querySelectorAll(".error-list button.remove")];
    const nextButton = buttons[Math.min(position, buttons.length - 1)];
    if (nextButton) nextButton.focus();
    else focusText();
  }

  return {
    takePlace,
    stepWord,
    chooseSeverity,
    chooseCategory,
    markMissing,
    cancelPending,
    removeError,
    forgetCursor: () => {
      cursor = null;
    },
  };
}
