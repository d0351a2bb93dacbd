/**
 * The pairwise comparison page: wires the state, the save queue, the pair
 * view, navigation, Submit and the closed-task views. Every choice is saved
 * as soon as it is complete (with its strength, when the study asks for one).
 */

import { renderClosed } from "../worker/closed.js";
import { attachFeedback } from "../worker/feedback.js";
import { startUnitPage, unitNavigation, unitStrip } from "../worker/units.js";
import { answerPageSaving } from "../worker/saving.js";
import { attachKeyboard } from "./keyboard.js";
import { NAMES, pairView } from "./pair.js";
import { PairwiseQueue } from "./queue.js";
import { PairwiseState, TIE } from "./state.js";

const data = JSON.parse(document.getElementById("task-data").textContent);
const state = new PairwiseState(data);
const byId = (id) => document.getElementById(id);
const els = Object.fromEntries(
  Object.entries({
    banner: "banner", saveWarning: "save-warning", completion: "completion", question: "question",
    unit: "unit", heading: "unit-heading", status: "unit-status", source: "source", outputA: "output-a",
    outputB: "output-b", strengthQuestion: "strength-question", strengthScale: "strength-scale",
    message: "message", previous: "previous", next: "next", strip: "unit-strip", submitRow: "submit-row",
    submit: "submit", submitProgress: "submit-progress", progress: "progress", dialog: "submit-dialog",
    keys: "keys-help",
  }).map(([name, id]) => [name, byId(id)]),
); // prettier-ignore

const keyOf = (op) => PairwiseState.opKey(op);

function say(message, { error = false } = {}) {
  els.message.textContent = message;
  els.message.classList.toggle("error", error);
}

// --- rendering -------------------------------------------------------------------

const view = pairView(state, els, {
  onChoose: (index, choice) => choose(index, choice),
  onStrength: (index, strength) => setStrength(index, strength),
});
const updateStrip = unitStrip(els.strip, state.units.length, { describe: view.describe, onGo: (index) => nav.goTo(index) });

function render() {
  const total = state.units.length;
  const index = state.current;
  els.question.textContent = data.study.question;
  if (total) {
    view.render();
    const unitName = `Pair ${index + 1} of ${total}`;
    if (els.heading.textContent !== unitName) els.heading.textContent = unitName;
    const status = view.status(index, queue.has(state.key(index), keyOf));
    els.status.textContent = status.text;
    els.status.dataset.kind = status.kind;
  }
  updateStrip(index, (i) => state.isComplete(i));
  els.progress.textContent = els.submitProgress.textContent = view.progress(state.completeCount, total);
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

const saving = answerPageSaving({ state, els, render, say, api: data.api, queue: () => queue });
const queue = new PairwiseQueue(data.token, data.api, saving.callbacks);
const feedback = attachFeedback(queue, state);
const nav = unitNavigation({ state, els, queue: () => queue, render, say });

// --- the worker's actions -----------------------------------------------------------

function choose(index, choice) {
  if (state.readOnly || state.submitting) return render();
  if (choice === TIE && !state.allowTies) {
    say("This study asks you to choose A or B: there is no “about the same”.", { error: true });
    return;
  }
  state.choose(index, choice);
  const body = state.choiceBody(index);
  if (body) queue.push({ kind: "choice", body });
  say(`Pair ${index + 1}: ${NAMES[choice]}.${state.strengthMissing(index) ? " Now choose how much better." : ""}`);
  render();
}

function setStrength(index, strength) {
  if (state.readOnly || state.submitting) return render();
  const answer = state.answer(index);
  if (!state.strengthMax) return say("This study asks for no strength.", { error: true });
  if (!state.needsStrength(answer)) {
    render(); // undo a radio the browser checked
    return say(answer?.choice === TIE ? "A tie has no strength." : "Choose A or B first.", { error: true });
  }
  if (strength < 1 || strength > state.strengthMax) {
    return say(`Choose a strength from 1 to ${state.strengthMax}.`, { error: true });
  }
  state.setStrength(index, strength);
  queue.push({ kind: "choice", body: state.choiceBody(index) });
  say(`Pair ${index + 1}: ${NAMES[answer.choice]}, strength ${strength}.`);
  render();
}

// --- start ---------------------------------------------------------------------------

attachKeyboard({
  dialog: els.dialog,
  allowTies: state.allowTies,
  isOpen: () => !state.readOnly && !state.submitting,
  actions: {
    next: nav.next,
    previous: nav.previous,
    choose: (choice) => choose(state.current, choice),
    strength: (value) => setStrength(state.current, value),
  },
});

startUnitPage({ data, state, queue, render });
