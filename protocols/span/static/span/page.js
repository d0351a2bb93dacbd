/**
 * The annotation page: wires the state, the save queue, the renderers and
 * the worker's mouse and keyboard together. FALTE's steps: select a span,
 * choose a category, (paired) select the earlier span, comment, Add; after
 * the last segment, the questions about the whole text (questions.js).
 *
 * main.js starts the page as it is. A page add-on (another entry module) may
 * bring its own state class, queue operations and panel through the hooks of
 * startSpanPage; the plain page loads none of it, nor its words.
 */

import { handOff, sharedQueueCallbacks } from "../worker/saving.js";
import { fetchState, reportActivity } from "../worker/api.js";
import { startActivityClock } from "../worker/activity.js";
import { attachFeedback } from "../worker/feedback.js";
import { attachCue } from "./cue.js";
import { buildCategories, renderClosed, renderList, renderNav, renderPending } from "./panels.js";
import { attachKeyboard } from "./keyboard.js";
import { attachMouse } from "./mouse.js";
import { SpanQueue } from "./queue.js";
import { renderText } from "./render.js";
import { TaskState } from "./state.js";

/** The page's data (json_script). */
export function taskData() {
  return JSON.parse(document.getElementById("task-data").textContent);
}

const NO_ADD_ON = {
  render() {},
  blocks: () => false,
  chooseCategory: () => false,
  takeSpan: () => false,
  undoKey: () => false,
};

/**
 * Start the page. `addOn` (all optional): `State`, a TaskState subclass; `routes`, queue
 * operations {kind: (body, api) => promise}; `ops`, {kind: {saved(state, op, result),
 * rejected(state, op, {resync}), replay(state, op)}} for those operations; `attach(state, els,
 * {queue, render, say})`, which builds its panel and returns hooks: render(), blocks(index)
 * (moving on to `index` must wait: it says why), chooseCategory(key) and takeSpan(span)
 * (true when it takes them), undoKey() (true when it took the worker's u).
 */
export async function startSpanPage(data, addOn = {}) {
  const { State = TaskState, routes = {}, ops = {}, attach = null } = addOn;
  const state = new State(data);
  // Few tasks ask questions about the whole text: that module loads only for a page that has
  // them, which keeps every other page's first load light (bench/page_weight.py).
  const questions = state.questions.length ? await import("./questions.js") : null;
  const byId = (id) => document.getElementById(id);
  const els = Object.fromEntries(
    Object.entries({
      text: "task-text", context: "context", current: "current", banner: "banner", saveWarning: "save-warning",
      completion: "completion", message: "message", pendingPanel: "pending-panel", prompt: "step-prompt",
      pendingSpan: "pending-span", pendingSpanText: "pending-span-text", pendingPaired: "pending-paired",
      pendingPairedText: "pending-paired-text", comment: "comment", add: "add", cancel: "cancel",
      categories: "category-buttons", description: "category-description", list: "annotation-list",
      listEmpty: "list-empty", count: "annotation-count", counter: "segment-counter",
      currentHeading: "current-heading", nav: "segment-nav", previous: "previous", next: "next",
      submit: "submit", dialog: "submit-dialog", keys: "keys-help",
      questions: "document-questions", questionList: "document-question-list", questionsIntro: "document-questions-intro",
      answersStatus: "document-answers-status",
    }).map(([name, id]) => [name, byId(id)]),
  );

  function render() {
    // Rebuilding the text under a drag in progress would lose the selection.
    if (mouse.dragging) mouse.textStale = true;
    else renderText(state, els);
    renderPending(state, els, categoryButtons);
    added.render();
    renderList(state, els, removeAnnotation);
    renderNav(state, els);
    renderClosed(state, els, data.api.done);
    questionPanel.update(queue.savingAnswers);
    feedback.render();
  }

  function say(message, { error = false } = {}) {
    els.message.textContent = message;
    els.message.classList.toggle("error", error);
  }


  // --- saving ------------------------------------------------------------------

  const queue = new SpanQueue(data.token, data.api, {
    onSaved(op, result) {
      if (op.kind === "add") state.markSaved(op.body.client_id);
      if (op.kind === "answers") state.markAnswersSaved(result.answers);
      ops[op.kind]?.saved?.(state, op, result);
      if (op.kind === "submit") {
        state.submitting = false;
        state.status = result.status;
        state.completion = result.completion;
        state.cancelPending();
      }
      els.saveWarning.hidden = true;
      render();
      if (op.kind === "submit") {
        els.completion.focus();
        handOff(result.completion);
      }
    },
    onRejected(op, message) {
      say(`Not saved: ${message}`, { error: true });
      if (op.kind === "add") state.removeAnnotation(op.body.client_id);
      if (op.kind === "remove" && op.body.annotation) state.addAnnotation(op.body.annotation, true);
      if (op.kind === "submit") state.submitting = false;
      if (op.kind === "move") resync();
      if (op.kind === "answers") state.revertAnswers(queue.ops, message);
      ops[op.kind]?.rejected?.(state, op, { resync });
      render();
    },
    ...sharedQueueCallbacks({ state, els, render, resync, renderWhenIdle: false }),
  }, routes);
  // The note to the researchers sits next to Submit: on the last segment.
  const feedback = attachFeedback(queue, state, { isShown: () => state.current >= state.lastIndex || state.readOnly });

  /** Show what this tab did but the server has not stored yet (after a reload). */
  function replay(ops) {
    for (const op of ops) {
      if (op.kind === "add") state.addAnnotation(op.body, false);
      if (op.kind === "remove") state.removeAnnotation(op.body.client_id);
      if (op.kind === "move") state.moveTo(op.body.segment);
      if (op.kind === "answers") state.applyAnswers(op.body.answers);
      ops[op.kind]?.replay?.(state, op);
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

  // --- the worker's actions -----------------------------------------------------

  function chooseCategory(key, { fromKeyboard = false } = {}) {
    if (state.readOnly || added.chooseCategory(key)) return;
    mouse.takeHeld(); // words selected on a touch screen: the span, or the earlier span
    state.chooseCategory(key);
    render();
    say(`Category: ${state.pendingCategory.label}.`);
    if (fromKeyboard && state.pendingReady) els.add.focus();
  }

  function addAnnotation() {
    if (state.readOnly) return;
    if (mouse.takeHeld()) render(); // the earlier span, selected on a touch screen
    if (state.awaitingPaired) say("Select the earlier span first.", { error: true });
    if (!state.pendingReady) return;
    const annotation = state.takePending();
    state.addAnnotation(annotation, false);
    queue.push({ kind: "add", body: annotation });
    render();
    say(`Added: ${state.category(annotation.category).label}.`);
    // Back to the text: the worker's next key is a shortcut (n, a category), never a letter
    // typed into the comment box or pressed on a button they did not choose.
    els.current.focus({ preventScroll: true });
  }

  function removeAnnotation(clientId) {
    if (state.readOnly) return;
    const position = state.sortedAnnotations().findIndex((a) => a.client_id === clientId);
    const removed = state.removeAnnotation(clientId);
    if (!removed) return;
    queue.push({ kind: "remove", body: { client_id: clientId, annotation: removed } });
    render();
    say(`Removed: ${state.category(removed.category)?.label ?? removed.category}.`);
    // Keep keyboard users in the list: focus the row that took the removed one's place.
    const buttons = els.list.querySelectorAll("button.remove");
    (buttons[Math.min(position, buttons.length - 1)] ?? els.add).focus();
  }

  function cancelPending() {
    state.cancelPending();
    render();
    say("Cancelled.");
  }

  /** Moving on would drop a half-made annotation: ask the worker to finish it first. */
  function blockedByPending() {
    if (!state.pending.span) return false;
    say("Add the annotation you started, or cancel it with Escape, before moving on.", { error: true });
    return true;
  }

  function moveTo(index) {
    if (state.readOnly || state.submitting || !state.segment(index) || blockedByPending()) return;
    if (index > state.current && added.blocks(index)) return;
    state.cancelPending();
    state.moveTo(index);
    queue.push({ kind: "move", body: { segment: index } });
    render();
    say(`Segment ${index + 1} of ${state.segments.length}.`);
  }

  function answerDocumentQuestion(key, value) {
    if (state.readOnly || state.submitting) return;
    state.setAnswer(key, value);
    state.answersError = null;
    queue.pushAnswers({ [key]: value });
    render();
  }

  /** The questions about the whole text come before Submit: point at the first one left. */
  function blockedByQuestions() {
    const left = state.unansweredQuestions;
    if (!left.length) return false;
    say(`Answer the questions about the whole text before submitting. Still to answer: ${left.map((q) => q.label).join("; ")}`, { error: true });
    questionPanel.focus(left[0].key);
    return true;
  }

  function openSubmit() {
    if (state.readOnly || state.submitting || state.current < state.lastIndex || blockedByPending()) return;
    if (added.blocks(state.lastIndex + 1)) return;
    questionPanel.flush();
    if (blockedByQuestions()) return;
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

  // --- start ----------------------------------------------------------------------

  els.comment.addEventListener("input", () => {
    state.pending.comment = els.comment.value;
    renderPending(state, els, categoryButtons);
  });
  els.add.addEventListener("click", addAnnotation);
  els.cancel.addEventListener("click", cancelPending);
  els.previous.addEventListener("click", () => moveTo(state.current - 1));
  els.next.addEventListener("click", () => moveTo(state.current + 1));
  els.submit.addEventListener("click", openSubmit);
  window.addEventListener("beforeunload", (event) => {
    questionPanel.flush(); // typed text waiting for its pause goes into the (stored) queue
    if (!queue.size) return;
    // Unsaved work: ask before leaving (it is also kept in localStorage for the next visit).
    event.preventDefault();
    event.returnValue = "";
  });

  const categoryButtons = buildCategories(state, els, (key) => chooseCategory(key));
  const questionPanel = questions
    ? questions.buildQuestions(state, els, answerDocumentQuestion)
    : { flush() {}, focus() {}, update() {} };
  const added = attach ? { ...NO_ADD_ON, ...attach(state, els, { queue, render, say }) } : NO_ADD_ON;
  const mouse = attachMouse(state, els, { render, say, takeSpan: (span) => added.takeSpan(span) });
  attachKeyboard(state, els.dialog, {
    chooseCategory: (key) => chooseCategory(key, { fromKeyboard: true }),
    add: addAnnotation,
    cancel: cancelPending,
    next: () => (state.current < state.lastIndex ? moveTo(state.current + 1) : openSubmit()),
    previous: () => moveTo(state.current - 1),
    undo: () => added.undoKey(),
  });
  if (state.coreferenceCue) attachCue(els.text);
  if (state.readOnly) queue.clear();
  else replay(queue.ops);
  render();
  byId("task-layout").classList.remove("awaiting-script");
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
}
