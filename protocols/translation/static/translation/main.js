/**
 * The translation page (MQM, ESA, DA): wires the state, the save queue, the
 * document, the tools and the worker's mouse and keyboard together.
 *
 * MQM and ESA: select the words of an error (mouse, or the arrow keys in a
 * text), then choose its severity and, for MQM, its category: the error is
 * saved as soon as it is complete. ESA and DA: score the segment; the next
 * segment opens once the current one is scored. Every action goes through the
 * save queue at once (retried, kept in localStorage); a reload opens the
 * saved segment with everything on it.
 */

import { startActivityClock } from "../worker/activity.js";
import { fetchState, reportActivity } from "../worker/api.js";
import { renderClosed } from "../worker/closed.js";
import { attachFeedback } from "../worker/feedback.js";
import { handOff, sharedQueueCallbacks } from "../worker/saving.js";
import { attachKeyboard } from "./keyboard.js";
import { attachMouse } from "./mouse.js";
import { TranslationQueue } from "./queue.js";
import { errorMarking } from "./marking.js";
import { documentView } from "./render.js";
import { SOURCE, TARGET, TranslationState } from "./state.js";
import { buildTools, digitScale } from "./tools.js";

const data = JSON.parse(document.getElementById("task-data").textContent);
const state = new TranslationState(data);
const byId = (id) => document.getElementById(id);
const els = Object.fromEntries(
  Object.entries({
    banner: "banner", saveWarning: "save-warning", completion: "completion", segments: "segments", tools: "tools",
    errorPanel: "error-panel", prompt: "step-prompt", pending: "pending", pendingText: "pending-text",
    severities: "severity-buttons", categories: "category-buttons", description: "category-description",
    missing: "missing", comment: "error-comment", cancel: "cancel", scorePanel: "score-panel", range: "score-range",
    number: "score-number", scaleLabels: "scale-labels", scoreStatus: "score-status", scoreWarning: "score-warning",
    previous: "previous", next: "next", submit: "submit", message: "message", progress: "progress",
    dialog: "submit-dialog", keys: "keys-help", layout: "translation-layout",
  }).map(([name, id]) => [name, byId(id)]),
); // prettier-ignore

function say(message, { error = false } = {}) {
  els.message.textContent = message;
  els.message.classList.toggle("error", error);
}

const view = documentView(state, els, { onRemove: (id) => marking.removeError(id), onOpen: (index) => navigate(index) });
const tools = buildTools(state, els, {
  severity: (name) => marking.chooseSeverity(name),
  category: (key) => marking.chooseCategory(key),
  missing: () => marking.markMissing(),
  cancel: () => marking.cancelPending(),
  comment: (text) => {
    state.pending.comment = text;
    els.cancel.disabled = !state.pendingStarted;
  },
  score: (value) => saveScore(value),
  say,
});

let mouse = { dragging: false, takeHeld: () => false };

function render() {
  if (!mouse.dragging) view.render(els.tools);
  const scoreSaving = queue.has(state.current, (op) => (op.kind === "score" ? op.body.segment : null));
  tools.render({ scoreSaving });
  const total = state.segments.length;
  const scored = state.scoring ? ` · ${state.scoredCount} of ${total} scored` : "";
  els.progress.textContent = `Segment ${state.current + 1} of ${total}${scored}`;
  els.keys.hidden = state.readOnly;
  renderClosed(state, els, data.api.done);
  feedback.render();
}

// --- saving ---------------------------------------------------------------------------

let warningsStale = false;
let savedCount = 0; // operations the server confirmed: a state read before the latest one is stale

/** The server's ESA warnings again, after an error changed on a scored segment. */
async function refreshWarnings() {
  warningsStale = false;
  const before = savedCount;
  const result = await fetchState(data.api);
  // Something saved meanwhile (a score, another error) may have changed them again: read them once more.
  if (result.status !== 200) return;
  if (queue.size || savedCount !== before) {
    // Read again once the queue is idle (onIdle), or now if it already is.
    warningsStale = true;
    if (!queue.size) refreshWarnings();
    return;
  }
  state.warnings = Object.fromEntries(Object.entries(result.data.warnings ?? {}).map(([k, v]) => [Number(k), v]));
  render();
}

const shared = sharedQueueCallbacks({ state, els, render, resync, renderWhenIdle: true });
const queue = new TranslationQueue(data.token, data.api, {
  onSaved(op, result) {
    savedCount += 1;
    if (op.kind === "add") state.markSaved(op.body.client_id, result);
    const segment = op.kind === "add" ? op.body.segment : op.kind === "remove" ? op.body.error?.segment : null;
    if (segment != null && state.study.score_warnings && typeof state.scores[segment] === "number") warningsStale = true;
    if (op.kind === "score") {
      const index = op.body.segment;
      state.savedScores[index] = result.score;
      const later = queue.ops.some((o) => o.kind === "score" && o.body.segment === index);
      if (!later) state.warnings[index] = result.warning ?? "";
    }
    if (op.kind === "submit") {
      state.submitting = false;
      state.status = result.status;
      state.completion = result.completion;
      state.cancelPending();
      say("");
    }
    els.saveWarning.hidden = true;
    render();
    if (op.kind === "submit") {
      els.completion.focus();
      handOff(result.completion);
    }
  },
  onRejected(op, message) {
    if (op.kind === "submit") {
      state.submitting = false;
      say(`Not submitted: ${message}`, { error: true });
      resync();
    } else {
      say(`Not saved: ${message}`, { error: true });
    }
    if (op.kind === "add") state.removeError(op.body.client_id);
    if (op.kind === "remove" && op.body.error) state.addError(op.body.error, true);
    if (op.kind === "score") state.revertScore(op.body.segment, queue.ops);
    if (op.kind === "move") resync();
    render();
  },
  onClosed: shared.onClosed,
  onRetrying: shared.onRetrying,
  onIdle() {
    shared.onIdle();
    if (warningsStale && !state.readOnly) refreshWarnings();
  },
});
const feedback = attachFeedback(queue, state, { isShown: () => state.current >= state.lastIndex || state.readOnly });

/** Show what this tab did but the server has not stored yet (after a reload). */
function replay(ops) {
  for (const op of ops) {
    if (op.kind === "add") state.addError(op.body, false);
    if (op.kind === "remove") state.removeError(op.body.client_id);
    if (op.kind === "score") state.setScore(op.body.segment, op.body.score);
    if (op.kind === "move") state.moveTo(op.body.segment);
    if (op.kind === "submit") state.submitting = true;
  }
}

async function resync() {
  const result = await fetchState(data.api);
  if (result.status !== 200) return;
  state.applyServer(result.data);
  if (!state.readOnly) replay(queue.ops);
  render();
}

// --- the worker's actions ----------------------------------------------------------------

const locked = () => state.readOnly || state.submitting;

function focusText(side = TARGET) {
  const node = view.textElement(state.current, side === SOURCE ? SOURCE : TARGET);
  if (node && node.tabIndex === 0) node.focus({ preventScroll: true });
  else view.row(state.current)?.focus({ preventScroll: true });
}

/** Go to segment `index` (saved at once); false, with the reason said, when it cannot open. */
function goTo(index) {
  if (index === state.current) return true;
  const problem = state.moveProblem(index);
  if (problem) {
    say(problem, { error: true });
    if (!state.isScored(state.current)) els.range?.focus();
    return false;
  }
  if (state.pending.place) {
    say("Finish the error you started (its severity and category) or cancel it with Escape before moving on.", { error: true });
    return false;
  }
  state.cancelPending();
  marking.forgetCursor();
  state.moveTo(index);
  queue.push({ kind: "move", body: { segment: index } });
  render();
  say(`Segment ${index + 1} of ${state.segments.length}.`);
  return true;
}

/** Open segment `index` and put the focus where its work starts: its translation, or its score. */
function navigate(index) {
  if (locked() || !goTo(index)) return;
  const row = view.row(index);
  row?.scrollIntoView({ block: "center" });
  if (state.marksErrors) focusText();
  else if (els.range) els.range.focus({ preventScroll: true });
  else row?.focus({ preventScroll: true });
}

function next() {
  if (state.current < state.lastIndex) navigate(state.current + 1);
  else openSubmit();
}

function previous() {
  if (state.current > 0) navigate(state.current - 1);
}

function saveScore(value) {
  if (locked() || !state.scoring) return render();
  const { min, max } = state.scale;
  if (!Number.isFinite(value) || value < min || value > max) {
    say(`A score is a whole number from ${min} to ${max}.`, { error: true });
    return render();
  }
  state.setScore(state.current, value);
  queue.pushScore(state.current, value);
  render();
}

function digit(value) {
  if (state.marksErrors) {
    if (value === 0) return state.study.missing_marker ? marking.markMissing : null;
    const name = state.severities[value - 1];
    return name ? () => marking.chooseSeverity(name) : null;
  }
  if (state.scoring && digitScale(state.scale) && value >= state.scale.min && value <= state.scale.max) {
    return () => {
      saveScore(value);
      say(`Score ${value}.`);
    };
  }
  return null;
}

function openSubmit() {
  if (locked()) return;
  if (state.pending.place) {
    say("Finish the error you started or cancel it with Escape before submitting.", { error: true });
    return;
  }
  const problem = state.submitProblem;
  if (problem) {
    say(problem, { error: true });
    return;
  }
  feedback.flush();
  els.dialog.returnValue = ""; // Escape keeps the last returnValue: never let it be an old "confirm"
  els.dialog.showModal();
}

els.dialog.addEventListener("close", () => {
  if (els.dialog.returnValue !== "confirm" || state.readOnly) return;
  state.submitting = true;
  queue.push({ kind: "submit", body: {} });
  render();
  say("Submitting…");
});
els.previous.addEventListener("click", previous);
els.next.addEventListener("click", next);
els.submit.addEventListener("click", openSubmit);
window.addEventListener("beforeunload", (event) => {
  if (!queue.size) return;
  // Unsaved work: ask before leaving (it is also kept in localStorage for the next visit).
  event.preventDefault();
  event.returnValue = "";
});

const marking = errorMarking(state, els, view, {
  queue, render, say, locked, goTo, focusText, takeHeld: () => mouse.takeHeld(),
}); // prettier-ignore
mouse = attachMouse(state, els, view, { render, say, takePlace: marking.takePlace });
attachKeyboard(state, els.dialog, {
  category: marking.chooseCategory,
  digit,
  stepWord: marking.stepWord,
  focusScore: () => els.range?.focus(),
  next,
  previous,
  escape({ typing, inText }) {
    // The first Escape cancels the error being marked; the next leaves the text (the arrows then move between segments).
    const started = state.pendingStarted;
    if (started) marking.cancelPending();
    if (typing) focusText();
    else if (inText && !started) view.row(state.current)?.focus({ preventScroll: true });
  },
});

// --- start --------------------------------------------------------------------------------

if (state.readOnly) queue.clear();
else replay(queue.ops);
render();
els.layout.classList.remove("awaiting-script");
view.row(state.current)?.scrollIntoView({ block: "center" });
queue.run();
startActivityClock({
  intervalSeconds: Math.max(1, data.activity_interval_seconds || 15),
  isOpen: () => !state.readOnly,
  async report(seconds) {
    const result = await reportActivity(data.api, seconds);
    if (result.status === 409) queue.handlers.onClosed(result.data?.error ?? "This task can no longer change.");
    return result.status === 200;
  },
});
