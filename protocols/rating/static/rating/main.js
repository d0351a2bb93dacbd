/**
 * The Likert and Best-Worst Scaling pages: wires the state, the save queue,
 * the protocol's view, navigation, Submit and the closed-task views.
 * Every score or judgment is saved as soon as it is complete.
 */

import { answerPageSaving } from "../worker/saving.js";
import { renderClosed } from "../worker/closed.js";
import { attachFeedback } from "../worker/feedback.js";
import { startUnitPage, unitNavigation, unitStrip } from "../worker/units.js";
import { bwsView } from "./bws.js";
import { attachKeyboard } from "./keyboard.js";
import { likertView } from "./likert.js";
import { RatingQueue } from "./queue.js";
import { RatingState } from "./state.js";

const data = JSON.parse(document.getElementById("task-data").textContent);
const state = new RatingState(data);
const byId = (id) => document.getElementById(id);
const els = Object.fromEntries(
  Object.entries({
    banner: "banner", saveWarning: "save-warning", completion: "completion", question: "question",
    unit: "unit", heading: "unit-heading", status: "unit-status", body: "unit-body", message: "message",
    nav: "unit-nav", previous: "previous", next: "next", strip: "unit-strip", submitRow: "submit-row",
    submit: "submit", submitProgress: "submit-progress", progress: "progress", dialog: "submit-dialog",
    keys: "keys-help",
  }).map(([name, id]) => [name, byId(id)]),
);

const keyOf = (op) => RatingState.opKey(op);

function say(message, { error = false } = {}) {
  els.message.textContent = message;
  els.message.classList.toggle("error", error);
}

// --- rendering -------------------------------------------------------------------

const view =
  state.protocol === "bws"
    ? bwsView(state, els, { onChoose: (index, role, document) => choose(index, role, document), onValue: (index, value) => setValue(index, value) })
    : likertView(state, els, { onScore: (index, score) => setScore(index, score) });

const updateStrip = unitStrip(els.strip, state.units.length, { describe: view.describe, onGo: (index) => nav.goTo(index) });

function render() {
  const total = state.units.length;
  const index = state.current;
  const done = state.completeCount;
  els.question.textContent = data.study.question || (state.protocol === "bws" ? "Which output is the best, and which the worst?" : "How good is this output?");
  if (total) {
    view.render();
    const unitName = `${view.unitName} ${index + 1} of ${total}`;
    if (els.heading.textContent !== unitName) els.heading.textContent = unitName;
    const status = view.status(index, queue.has(state.key(index), keyOf));
    els.status.textContent = status.text;
    els.status.dataset.kind = status.kind;
  }
  updateStrip(index, (i) => state.isComplete(i));
  els.progress.textContent = els.submitProgress.textContent = view.progress(done, total);
  els.previous.disabled = index <= 0;
  els.next.disabled = index >= state.lastIndex;
  els.submitRow.hidden = els.keys.hidden = state.readOnly;
  els.submit.disabled = !state.allComplete || state.submitting;
  els.submit.textContent = state.submitting ? "Submitting…" : "Submit";
  renderClosed(state, els, data.api.done);
  feedback.render();
  if (state.notYetOpen) {
    // Not an error: a retest block waits for its date.
    els.banner.className = "notice";
    els.banner.textContent = `This second round opens on ${formatDate(state.opensAt)}. Please come back then with this link.`;
  }
}

function formatDate(date) {
  const utc = `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  return `${utc} (${date.toLocaleString([], { dateStyle: "medium", timeStyle: "short" })} your time)`;
}

// --- saving -----------------------------------------------------------------------

const saving = answerPageSaving({
  state, els, render, say, api: data.api, queue: () => queue,
});
const queue = new RatingQueue(data.token, data.api, saving.callbacks);
const feedback = attachFeedback(queue, state);
const nav = unitNavigation({ state, els, queue: () => queue, render, say });

// --- the worker's actions -----------------------------------------------------------

function setScore(index, score) {
  if (state.readOnly || state.submitting) return render();
  if (!state.scalePoints.includes(score)) {
    say(`Choose a score from ${state.study.scale.min} to ${state.study.scale.max}.`, { error: true });
    return;
  }
  state.setScore(index, score);
  queue.push({ kind: "rating", body: { document: state.key(index), score } });
  say(`Output ${index + 1}: ${score}.`);
  render();
}

/** Best and worst are chosen, but the required value is not. */
function picked(index) {
  const answer = state.answer(index);
  return Boolean(answer?.best && answer?.worst) && state.valueMissing(index);
}

function choose(index, role, document) {
  if (state.readOnly || state.submitting) return render();
  const number = state.units[index].items.findIndex((item) => item.document === document) + 1;
  const cleared = state.choose(index, role, document);
  const body = state.judgmentBody(index);
  if (body) queue.push({ kind: "judgment", body });
  say(
    cleared
      ? `Output ${number} is now the ${role}, so it is no longer the ${cleared}: choose the ${cleared} again.`
      : `Output ${number}: ${role}.${picked(index) ? " Now choose how large the difference is." : ""}`,
    { error: Boolean(cleared) },
  );
  render();
}

function setValue(index, value) {
  if (state.readOnly || state.submitting) return render();
  state.setValue(index, value);
  const body = state.judgmentBody(index);
  if (body) queue.push({ kind: "judgment", body });
  say(body ? `Difference: ${value}.` : `Difference: ${value}. It is saved once you choose the best and the worst.`);
  render();
}

function keyboardScore(digit) {
  const { min, max } = state.study.scale;
  const score = digit === 0 && min > 0 && max >= 10 ? 10 : digit;
  setScore(state.current, score);
}

function keyboardChoice(role, number) {
  const document = view.document(number);
  if (!document) return say(`There is no output ${number} in this tuple.`, { error: true });
  choose(state.current, role, document);
}

function keyboardValue(value) {
  const max = state.study.value_scale;
  if (!max) return say("This study asks for no difference rating.", { error: true });
  if (value < 1 || value > max) return say(`Choose a difference from 1 to ${max}.`, { error: true });
  setValue(state.current, value);
}

const HINTS = {
  best: "Best: press the number of the output.",
  worst: "Worst: press the number of the output.",
  value: "Difference: press a number.",
};

// --- start ---------------------------------------------------------------------------

attachKeyboard({
  protocol: state.protocol,
  dialog: els.dialog,
  isOpen: () => !state.readOnly && !state.submitting,
  actions: {
    next: nav.next,
    previous: nav.previous,
    score: keyboardScore,
    choose: keyboardChoice,
    value: keyboardValue,
    hint: (prefix) => say(HINTS[prefix] ?? ""),
  },
});

startUnitPage({ data, state, queue, render });
