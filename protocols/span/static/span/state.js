/**
 * The task as the worker sees it: saved and unsaved annotations, where they
 * are in the document, the annotation being built, and the answers about the
 * whole document (`savedAnswers` as the server confirmed them, `answers` as
 * the page shows them). The page is always rendered from this object; the
 * server stays the authority (api.js).
 */

import { snapToSentences, snapToWords } from "./selection.js";

const CLOSED = new Set(["submitted", "released"]);

export function newClientId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  // randomUUID needs a secure context; a plain-http deployment still gets a v4 UUID.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// null, blank text and [] are "no answer", as on the server (document_questions.py).
export const isEmptyAnswer = (value) =>
  value === undefined || value === null || (typeof value === "string" && !value.trim()) || (Array.isArray(value) && !value.length);
const copyAnswers = (answers) =>
  Object.fromEntries(Object.entries(answers ?? {}).map(([key, value]) => [key, Array.isArray(value) ? [...value] : value]));

function emptyPending() {
  // rawSpan keeps the exact selection, so choosing another category after a
  // whole-sentence one gives the worker's own span back.
  return { rawSpan: null, span: null, category: null, rawPaired: null, paired: null, comment: "" };
}

export class TaskState {
  constructor(data) {
    this.token = data.token;
    this.segments = [...data.segments].sort((a, b) => a.index - b.index);
    this.segmentByIndex = new Map(this.segments.map((s) => [s.index, s]));
    this.categories = data.categories;
    this.categoryByKey = new Map(data.categories.map((c) => [c.key, c]));
    this.coreferenceCue = Boolean(data.study?.coreference_cue);
    this.questions = Array.isArray(data.document_questions) ? data.document_questions : [];
    this.answersError = null;
    this.closedMessage = null;
    this.submitting = false;
    this.pending = emptyPending();
    this.selectionHeld = false; // words selected on a touch screen, not taken yet (mouse.js)
    this.applyServer(data);
  }

  /** Take the server's view (page load, api.state after a conflict). */
  applyServer(server) {
    this.status = server.status;
    this.current = server.current_segment;
    this.furthest = Math.max(server.furthest_segment ?? 0, server.current_segment);
    this.annotations = server.annotations.map((a) => ({ ...a, saved: true }));
    this.completion = server.completion ?? null;
    this.savedAnswers = copyAnswers(server.document_answers);
    this.answers = copyAnswers(server.document_answers);
  }

  get readOnly() {
    return CLOSED.has(this.status) || this.closedMessage !== null;
  }

  get lastIndex() {
    return this.segments.at(-1)?.index ?? 0;
  }

  segment(index) {
    return this.segmentByIndex.get(index);
  }

  category(key) {
    return this.categoryByKey.get(key);
  }

  /** Annotations in reading order (segment, then position). */
  sortedAnnotations() {
    return [...this.annotations].sort(
      (a, b) => a.segment - b.segment || a.start - b.start || a.end - b.end,
    );
  }

  addAnnotation(annotation, saved = false) {
    if (this.annotations.some((a) => a.client_id === annotation.client_id)) return;
    this.annotations.push({ ...annotation, saved });
  }

  markSaved(clientId) {
    const found = this.annotations.find((a) => a.client_id === clientId);
    if (found) found.saved = true;
  }

  /** Remove and return the annotation (kept by the caller to undo a refused remove). */
  removeAnnotation(clientId) {
    const index = this.annotations.findIndex((a) => a.client_id === clientId);
    return index < 0 ? null : this.annotations.splice(index, 1)[0];
  }

  /**
   * Spans drawn over segment `index` besides the annotations and the one being built: none on
   * this page. A page that adds its own state (a subclass, given to startSpanPage) adds them:
   * {start, end, kind: "pending"} drawn as the span being built, or {start, end, kind: "framed",
   * className, color, ref, title} framed in the text, never filled like an annotation.
   */
  addedMarks(index) {
    return [];
  }

  moveTo(index) {
    this.current = index;
    this.furthest = Math.max(this.furthest, index);
  }

  // --- the questions about the whole document ------------------------------

  /** They come after the text: shown on its last segment, and kept in view once the task is closed. */
  get questionsShown() {
    return this.questions.length > 0 && this.furthest >= this.lastIndex && (this.current >= this.lastIndex || this.readOnly);
  }

  setAnswer(key, value) {
    if (isEmptyAnswer(value)) delete this.answers[key];
    else this.answers[key] = Array.isArray(value) ? [...value] : value;
  }

  /** Show answers the server has not confirmed yet (a queued op, replayed after a reload). */
  applyAnswers(answers) {
    for (const [key, value] of Object.entries(answers)) this.setAnswer(key, value);
  }

  markAnswersSaved(answers) {
    this.savedAnswers = copyAnswers(answers);
    this.answersError = null;
  }

  /** The server refused answers: back to what it has, plus what is still queued. */
  revertAnswers(queued, message) {
    this.answers = copyAnswers(this.savedAnswers);
    for (const op of queued) if (op.kind === "answers") this.applyAnswers(op.body.answers);
    this.answersError = message;
  }

  /** The required questions still without an answer. */
  get unansweredQuestions() {
    return this.questions.filter((q) => q.required && isEmptyAnswer(this.answers[q.key]));
  }

  // --- the annotation being built -------------------------------------------

  get pendingCategory() {
    return this.pending.category ? this.category(this.pending.category) : null;
  }

  get awaitingPaired() {
    const category = this.pendingCategory;
    return Boolean(this.pending.span && category?.kind === "paired" && !this.pending.paired);
  }

  get pendingReady() {
    const category = this.pendingCategory;
    if (!this.pending.span || !category) return false;
    return category.kind !== "paired" || Boolean(this.pending.paired);
  }

  get pendingStarted() {
    return Boolean(this.pending.span || this.pending.category || this.pending.comment.trim());
  }

  snapped(span) {
    const category = this.pendingCategory;
    if (!span || !category) return span;
    let snapped = span;
    if (category.snap_to_words) snapped = snapToWords(snapped, this.segment(span.segment));
    if (category.whole_sentence) snapped = snapToSentences(snapped, this.segment(span.segment));
    return snapped;
  }

  setSpan(span) {
    this.pending.rawSpan = span;
    this.pending.span = this.snapped(span);
    this.pending.rawPaired = null;
    this.pending.paired = null;
  }

  setPaired(span) {
    this.pending.rawPaired = span;
    this.pending.paired = this.snapped(span);
  }

  chooseCategory(key) {
    this.pending.category = key;
    this.pending.span = this.snapped(this.pending.rawSpan);
    if (this.pendingCategory.kind === "paired") this.pending.paired = this.snapped(this.pending.rawPaired);
    else this.pending.rawPaired = this.pending.paired = null;
  }

  cancelPending() {
    this.pending = emptyPending();
  }

  /** The finished annotation, ready to save; clears the pending one. */
  takePending() {
    const { span, category, paired, comment } = this.pending;
    const annotation = {
      client_id: newClientId(),
      category,
      segment: span.segment,
      start: span.start,
      end: span.end,
      text: span.text,
      comment: comment.trim(),
      paired: this.pendingCategory.kind === "paired" ? { ...paired } : null,
    };
    this.cancelPending();
    return annotation;
  }
}
