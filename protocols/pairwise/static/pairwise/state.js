/**
 * A pairwise block as the worker sees it: one pair at a time. `saved` is
 * what the server confirmed, `answers` what the page shows (saved, being
 * saved, or not sent yet: a side chosen while its required strength is
 * still missing). Both are keyed by the pair's position. The server stays
 * the authority.
 */

import { UnitState } from "../worker/units.js";

export const LEFT = "left";
export const RIGHT = "right";
export const TIE = "tie";

export class PairwiseState extends UnitState {
  constructor(data) {
    super(data, data.pairs);
    this.strengthMax = data.study.strength?.max ?? null;
    this.allowTies = Boolean(data.study.allow_ties);
    this.begin(data);
  }

  savedAnswers(server) {
    return server.choices;
  }

  /** The key the API knows a pair by: its position in the block's pairs. */
  key(index) {
    return String(this.units[index].position);
  }

  /** Does this choice need a strength (a side was chosen and the study has a strength scale)? */
  needsStrength(answer) {
    return this.strengthMax !== null && (answer?.choice === LEFT || answer?.choice === RIGHT);
  }

  strengthMissing(index) {
    const answer = this.answer(index);
    return this.needsStrength(answer) && (answer.strength ?? null) === null;
  }

  isComplete(index) {
    return Boolean(this.answer(index)?.choice) && !this.strengthMissing(index);
  }

  /**
   * Choose a side (or a tie). Choosing the other side drops the strength
   * given for the first one: how much better A was is no answer for B.
   */
  choose(index, choice) {
    const key = this.key(index);
    const before = this.answers[key];
    const strength = choice !== TIE && before?.choice === choice ? (before.strength ?? null) : null;
    this.answers[key] = { choice, strength };
  }

  setStrength(index, strength) {
    const key = this.key(index);
    this.answers[key] = { ...this.answers[key], strength };
  }

  /** What the choices API takes for a pair, or null while the choice (or its strength) is missing. */
  choiceBody(index) {
    if (!this.isComplete(index)) return null;
    const answer = this.answer(index);
    return {
      position: this.units[index].position,
      choice: answer.choice,
      strength: this.needsStrength(answer) ? answer.strength : null,
    };
  }

  // --- saving -------------------------------------------------------------------------

  /** The pair key an operation of the save queue changes, or null (submit). */
  static opKey(op) {
    return op.kind === "choice" ? String(op.body.position) : null;
  }

  /** Show an operation the server has not confirmed yet (a reload replays the queue). */
  applyOp(op) {
    if (op.kind === "choice") {
      this.answers[String(op.body.position)] = { choice: op.body.choice, strength: op.body.strength ?? null };
    }
    if (op.kind === "submit") this.submitting = true;
  }

  markSaved(op, data) {
    if (op.kind === "choice") this.saved[String(data.position)] = { choice: data.choice, strength: data.strength };
  }
}
