/**
 * A rating block as the worker sees it. The page judges one unit at a time:
 * a Likert output, or a BWS tuple. `saved` is what the server confirmed,
 * `answers` what the page shows (saved, being saved, or not sent yet: a BWS
 * tuple with only its best chosen). The server stays the authority.
 */

const CLOSED = new Set(["submitted", "released"]);

const copy = (value) => (value && typeof value === "object" ? { ...value } : value);

export class RatingState {
  constructor(data) {
    this.protocol = data.protocol === "bws" ? "bws" : "likert";
    this.study = data.study;
    this.units = (this.protocol === "bws" ? data.tuples : data.items) ?? [];
    this.opensAt = data.available_from ? new Date(data.available_from) : null;
    this.closedMessage = null;
    this.submitting = false;
    this.applyServer(data);
    this.current = this.firstOpen() ?? 0;
  }

  /** Take the server's view (page load, api.state after a refusal or a conflict). */
  applyServer(server) {
    this.status = server.status;
    this.completion = server.completion ?? null;
    const saved = this.protocol === "bws" ? server.judgments : server.ratings;
    this.saved = Object.fromEntries(Object.entries(saved ?? {}).map(([key, value]) => [key, copy(value)]));
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

  /** The key the API knows a unit by: a document's external id, or a tuple's position. */
  key(index) {
    const unit = this.units[index];
    return this.protocol === "bws" ? String(unit.position) : unit.document;
  }

  answer(index) {
    return this.answers[this.key(index)];
  }

  isComplete(index) {
    const answer = this.answer(index);
    if (this.protocol !== "bws") return answer !== undefined && answer !== null;
    return Boolean(answer?.best && answer?.worst) && !this.valueMissing(index);
  }

  /** Does the study ask for the gap between best and worst, and is it still unanswered here? */
  valueMissing(index) {
    return Boolean(this.study.value_scale) && (this.answer(index)?.value ?? null) === null;
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

  // --- Likert -------------------------------------------------------------------

  get scalePoints() {
    const { min, max } = this.study.scale;
    return Array.from({ length: max - min + 1 }, (_, offset) => min + offset);
  }

  setScore(index, score) {
    this.answers[this.key(index)] = score;
  }

  // --- BWS ------------------------------------------------------------------------

  /**
   * Choose `document` as the tuple's best or worst (`role`). The same output
   * cannot be both: taking it for one role clears the other. Returns the
   * role that was cleared, if any.
   */
  choose(index, role, document) {
    const key = this.key(index);
    const answer = { best: null, worst: null, value: null, ...this.answers[key] };
    const other = role === "best" ? "worst" : "best";
    let cleared = null;
    if (answer[other] === document) {
      answer[other] = null;
      cleared = other;
    }
    answer[role] = document;
    this.answers[key] = answer;
    return cleared;
  }

  setValue(index, value) {
    const key = this.key(index);
    this.answers[key] = { best: null, worst: null, ...this.answers[key], value };
  }

  /** What the judgments API takes for a tuple, or null while best, worst or a required value is missing. */
  judgmentBody(index) {
    const answer = this.answer(index);
    if (!answer?.best || !answer?.worst || this.valueMissing(index)) return null;
    return { position: this.units[index].position, best: answer.best, worst: answer.worst, value: answer.value ?? null };
  }

  // --- saving -------------------------------------------------------------------------

  /** The unit key an operation of the save queue changes, or null (submit). */
  static opKey(op) {
    if (op.kind === "rating") return op.body.document;
    if (op.kind === "judgment") return String(op.body.position);
    return null;
  }

  /** Show an operation the server has not confirmed yet (a reload replays the queue). */
  applyOp(op) {
    if (op.kind === "rating") this.answers[op.body.document] = op.body.score;
    if (op.kind === "judgment") {
      const { best, worst, value } = op.body;
      this.answers[String(op.body.position)] = { best, worst, value: value ?? null };
    }
    if (op.kind === "submit") this.submitting = true;
  }

  markSaved(op, data) {
    if (op.kind === "rating") this.saved[data.document] = data.score;
    if (op.kind === "judgment") this.saved[String(data.position)] = { best: data.best, worst: data.worst, value: data.value };
  }

  /** The server refused `op`: back to what it has, plus what is still queued for the same unit. */
  revert(op, queued) {
    const key = RatingState.opKey(op);
    if (key === null) return;
    if (key in this.saved) this.answers[key] = copy(this.saved[key]);
    else delete this.answers[key];
    for (const later of queued) if (RatingState.opKey(later) === key) this.applyOp(later);
  }
}
