/**
 * A review task as the reviewer sees it: the evaluator items and the answers
 * about each. `saved` is what the server confirmed, `answers` what the page
 * shows (saved, being saved, or typed and not sent yet). The server stays the
 * authority: a refused save goes back to `saved` plus what is still queued.
 */

const CLOSED = new Set(["submitted", "released"]);

const copyAnswers = (answers) =>
  Object.fromEntries(Object.entries(answers ?? {}).map(([key, value]) => [key, Array.isArray(value) ? [...value] : value]));

export class ReviewState {
  constructor(data) {
    this.questions = Array.isArray(data.questions) ? data.questions : [];
    this.items = Array.isArray(data.items) ? data.items : [];
    this.required = this.questions.filter((q) => q.kind === "single").map((q) => q.key);
    this.closedMessage = null;
    this.submitting = false;
    this.applyServer(data);
  }

  /** Take the server's view (page load, api.state after a refusal or a conflict). */
  applyServer(server) {
    this.status = server.status;
    this.completion = server.completion ?? null;
    const saved = server.answers && typeof server.answers === "object" ? server.answers : {};
    this.saved = Object.fromEntries(Object.entries(saved).map(([id, answers]) => [id, copyAnswers(answers)]));
    this.answers = Object.fromEntries(Object.entries(this.saved).map(([id, answers]) => [id, copyAnswers(answers)]));
  }

  get readOnly() {
    return CLOSED.has(this.status) || this.closedMessage !== null;
  }

  /** The answers shown for item `id` ({} when none). */
  answersOf(id) {
    return this.answers[String(id)] ?? {};
  }

  /** An item counts as answered once every single-choice question has an option. */
  isAnswered(id) {
    const answers = this.answersOf(id);
    return this.required.every((key) => typeof answers[key] === "string" && answers[key] !== "");
  }

  get answeredCount() {
    return this.items.filter((item) => this.isAnswered(item.id)).length;
  }

  get allAnswered() {
    return this.items.length > 0 && this.answeredCount === this.items.length;
  }

  /** The first item still to answer, or null. */
  firstOpen() {
    return this.items.find((item) => !this.isAnswered(item.id)) ?? null;
  }

  /** The first single-choice question of item `id` without an answer, or null. */
  firstMissingQuestion(id) {
    const answers = this.answersOf(id);
    return this.required.find((key) => typeof answers[key] !== "string" || answers[key] === "") ?? null;
  }

  setAnswer(id, key, value) {
    this.answers[String(id)] = { ...this.answersOf(id), [key]: value };
  }

  /** What the answers API takes for item `id`: all its answers at once (they replace the stored ones). */
  answersBody(id) {
    return { item: id, answers: copyAnswers(this.answersOf(id)) };
  }

  // --- saving -------------------------------------------------------------------------

  /** The item an operation of the save queue changes, or null (submit). */
  static opKey(op) {
    return op.kind === "answers" ? String(op.body.item) : null;
  }

  /** Show an operation the server has not confirmed yet (a reload replays the queue). */
  applyOp(op) {
    if (op.kind === "answers") this.answers[String(op.body.item)] = copyAnswers(op.body.answers);
    if (op.kind === "submit") this.submitting = true;
  }

  markSaved(op, data) {
    if (op.kind === "answers" && data) this.saved[String(data.item)] = copyAnswers(data.answers);
  }

  /** The server refused `op`: back to what it has, plus what is still queued for the same item. */
  revert(op, queued) {
    const key = ReviewState.opKey(op);
    if (key === null) return;
    if (key in this.saved) this.answers[key] = copyAnswers(this.saved[key]);
    else delete this.answers[key];
    for (const later of queued) if (ReviewState.opKey(later) === key) this.applyOp(later);
  }
}
