/**
 * The review page: the input and the highlighted output on the left, the
 * evaluator items with their questions on the right. Wires the state, the
 * save queue, the cards, Submit and the closed-task views. Every change to an
 * item's answers is saved at once (comments after a pause in typing or when
 * the field is left), always as all of that item's answers together.
 *
 * No keys of its own: Tab and Shift+Tab move between the questions, the
 * arrow keys choose inside a radio group, Space ticks a checkbox (the
 * browser's own controls, listed on the page).
 */

import { answerPageSaving } from "../worker/saving.js";
import { reportActivity } from "../worker/api.js";
import { startActivityClock } from "../worker/activity.js";
import { fill } from "../worker/dom.js";
import { attachFeedback } from "../worker/feedback.js";
import { renderClosed } from "../worker/closed.js";
import { inputContent } from "./input.js";
import { buildItems } from "./items.js";
import { emphasise, itemTags, outputContent, revealSpan } from "./output.js";
import { ReviewQueue } from "./queue.js";
import { withoutUnfitFlags } from "./rules.js";
import { ReviewState } from "./state.js";

const data = JSON.parse(document.getElementById("task-data").textContent);
const state = new ReviewState(data);
const byId = (id) => document.getElementById(id);
const els = Object.fromEntries(
  Object.entries({
    banner: "banner", saveWarning: "save-warning", completion: "completion", input: "input-box", output: "output-box",
    items: "items", progress: "progress", submitBar: "submit-bar", submitProgress: "submit-progress", submit: "submit",
    nextOpen: "next-open", message: "message", dialog: "submit-dialog", keys: "keys-help",
  }).map(([name, id]) => [name, byId(id)]),
);

const TEXT_SAVE_DELAY_MS = 800;
const keyOf = (op) => ReviewState.opKey(op);

function say(message, { error = false } = {}) {
  els.message.textContent = message;
  els.message.classList.toggle("error", error);
}

// --- the texts and the cards ----------------------------------------------------------

const tags = itemTags(state.items);
fill(els.input, inputContent(data.document ?? {}));
fill(els.output, outputContent(data.document?.segments ?? [], state.items, tags));

const cards = buildItems(els.items, state, tags, {
  onChange: (id, key, value) => setAnswer(id, key, value),
  onText: (id, key, value, options) => typeAnswer(id, key, value, options),
});

function render() {
  cards.update((id) => queue.has(String(id), keyOf) || typing.has(String(id)));
  const total = state.items.length;
  const progress = `${state.answeredCount} of ${total} ${total === 1 ? "item" : "items"} answered`;
  els.progress.textContent = els.submitProgress.textContent = progress;
  els.submitBar.hidden = els.keys.hidden = state.readOnly;
  els.submit.disabled = !state.allAnswered || state.submitting;
  els.submit.textContent = state.submitting ? "Submitting…" : "Submit";
  els.nextOpen.hidden = state.allAnswered;
  renderClosed(state, els, data.api.done);
  feedback.render();
}

// --- emphasis: the spans of the card under the mouse or holding the focus ---------------

let hovered = null;
let focused = null;

// The card under the mouse wins over the one holding the focus: one item at a time stands out.
function showEmphasis() {
  const id = hovered ?? focused;
  emphasise(els.output, new Set(id ? [id] : []));
}

for (const [id, { card }] of cards.cards) {
  card.addEventListener("mouseenter", () => {
    hovered = id;
    showEmphasis();
  });
  card.addEventListener("mouseleave", () => {
    hovered = null;
    showEmphasis();
  });
  card.addEventListener("focusin", () => {
    if (focused === id) return;
    focused = id;
    showEmphasis();
    revealSpan(els.output, id);
  });
  card.addEventListener("focusout", (event) => {
    if (card.contains(event.relatedTarget)) return;
    focused = null;
    showEmphasis();
  });
}

// A click on a highlight (or its tag) goes to the item's card; on a piece that
// several items cover, each click goes to the next of them.
let lastJump = null;
els.output.addEventListener("click", (event) => {
  const target = event.target.closest?.("[data-items]");
  if (!target || window.getSelection()?.toString()) return;
  const ids = target.dataset.items.split(" ");
  // (The click has moved the focus to the output box: remember the last jump instead.)
  const after = lastJump?.items === target.dataset.items ? ids.indexOf(lastJump.id) : -1;
  const next = ids[(after + 1) % ids.length];
  lastJump = { items: target.dataset.items, id: next };
  const card = cards.cards.get(next)?.card;
  if (!card) return;
  focused = next; // the span is in view already: no scrolling of the output
  card.scrollIntoView({ block: "start" });
  card.focus({ preventScroll: true });
  showEmphasis();
});

// --- saving -------------------------------------------------------------------------------

const saving = answerPageSaving({
  state, els, render, say, api: data.api, queue: () => queue,
  afterSubmit: () => window.scrollTo({ top: 0 }),
});
const queue = new ReviewQueue(data.token, data.api, saving.callbacks);
const feedback = attachFeedback(queue, state);

// --- the reviewer's actions -----------------------------------------------------------------

function setAnswer(id, key, value) {
  if (state.readOnly || state.submitting) return render();
  state.setAnswer(id, key, value);
  // A flag that went with the old answer (e.g. "Too strict" with "Not an error") goes with it.
  const item = state.items.find((i) => String(i.id) === String(id));
  const { answers, dropped } = withoutUnfitFlags(state.questions, item, state.answersOf(id));
  for (const [changed, kept] of Object.entries(answers)) if (kept !== state.answersOf(id)[changed]) state.setAnswer(id, changed, kept);
  save(id);
  say(dropped.length ? `Unticked ${dropped.map((option) => `"${option}"`).join(", ")}: it no longer fits this answer.` : "");
  render();
}

// Comments: saved after a pause in typing, and when the field is left.
const typing = new Map(); // item id -> timer of its unsent comment

function typeAnswer(id, key, value, { final }) {
  if (state.readOnly || state.submitting) return;
  const current = state.answersOf(id)[key] ?? "";
  if (value !== current) {
    state.setAnswer(id, key, value);
    clearTimeout(typing.get(String(id)));
    typing.set(String(id), setTimeout(() => save(id), TEXT_SAVE_DELAY_MS));
    render();
  }
  if (final && typing.has(String(id))) save(id);
}

function save(id) {
  clearTimeout(typing.get(String(id)));
  typing.delete(String(id));
  queue.pushAnswers(state.answersBody(id));
  render();
}

function flushTyping() {
  for (const id of [...typing.keys()]) save(Number(id));
}

function goToOpen() {
  const item = state.firstOpen();
  if (!item) return;
  const { card, controls } = cards.cards.get(String(item.id));
  const key = state.firstMissingQuestion(item.id);
  card.scrollIntoView({ block: "start" });
  if (key && controls.has(key)) controls.get(key).focus();
  else card.focus({ preventScroll: true });
}

function openSubmit() {
  if (state.readOnly || state.submitting) return;
  flushTyping();
  if (!state.allAnswered) {
    say(`${state.items.length - state.answeredCount} still to answer before you can submit.`, { error: true });
    return;
  }
  els.dialog.returnValue = ""; // Escape keeps the last returnValue: never let it be an old "confirm"
  els.dialog.showModal();
}

els.dialog.addEventListener("close", () => {
  if (els.dialog.returnValue !== "confirm" || state.readOnly) return;
  flushTyping();
  state.submitting = true;
  queue.push({ kind: "submit", body: {} });
  say("Submitting…");
  render();
});

// --- start ---------------------------------------------------------------------------------

els.submit.addEventListener("click", openSubmit);
els.nextOpen.addEventListener("click", goToOpen);
window.addEventListener("beforeunload", (event) => {
  flushTyping();
  if (!queue.size) return;
  // Unsaved work: ask before leaving (it is also kept in localStorage for the next visit).
  event.preventDefault();
  event.returnValue = "";
});

if (state.readOnly) queue.clear();
else for (const op of queue.ops) state.applyOp(op);
render();
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
