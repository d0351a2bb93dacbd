/**
 * A rating block as the worker sees it. The page judges one unit at a time:
 * a Likert output, or a BWS tuple. `saved` is what the server confirmed,
 * `answers` what the page shows (saved, being saved, or not sent yet: a BWS
 * tuple with only its best chosen). The server stays the authority.
 */

import { UnitState } from "../worker/units.js";

export class RatingState extends UnitState {
  constructor(data) {
    const protocol = data.protocol === "bws" ? "bws" : "likert";
    super(data, protocol === "bws" ? data.tuples : data.items);
    this.protocol = protocol;
    this.begin(data);
  }

  savedAnswers(server) {
    return this.protocol === "bws" ? server.judgments : server.ratings;
  }

  /** The key the API knows a unit by: a document's external id, or a tuple's position. */
  key(index) {
    const unit = this.units[index];
    return this.protocol === "bws" ? String(unit.position) : unit.document;
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
}
