/**
 * A pairwise block as the worker sees it: one pair at a time. `saved` is
 * what the server confirmed, `answers` what the page shows (saved, being
 * saved, or not sent yet: a side chosen while its required strength is
 * still missing). Both are keyed by the pair's position. The server stays
 * the authority.
 */

const CLOSED = new Set(["submitted", "released"]);
export const LEFT = "left";
export const RIGHT = "right";
export const TIE = "tie";

const copy = (value) => (value && typeof value === "object" ? { ...value } : value);

export class PairwiseState {
  constructor(data) {
    this.study = data.study;
    this.units = data.pairs ?? [];
    this.strengthMax = data.study.strength?.max ?? null;
    this.allowTies = Boolean(data.study.allow_ties);
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
    this.saved = Object.fromEntries(Object.entries(server.choices ?? {}).map(([key, value]) => [key, copy(value)]));
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

  /** The key the API knows a pair by: its position in the block's pairs. */
  key(index) {
    return String(this.units[index].position);
  }

  answer(index) {
    return this.answers[this.key(index)];
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

  get completeCount() {
    return this.units.filter((_, index) => this.isComplete(index)).length;
  }

  get allComplete() {
    return this.units.length > 0 && this.completeCount === this.units.length;
  }

  /** The first pair still to do at or after `from` (wrapping), or null. */
  firstOpen(from = 0) {
    for (let step = 0; step < this.units.length; step += 1) {
      const index = (from + step) % this.units.length;
      if (!this.isComplete(index)) return index;
    }
    return null;
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

  /** The server refused `op`: back to what it has, plus what is still queued for the same pair. */
  revert(op, queued) {
    const key = PairwiseState.opKey(op);
    if (key === null) return;
    if (key in this.saved) this.answers[key] = copy(this.saved[key]);
    else delete this.answers[key];
    for (const later of queued) if (PairwiseState.opKey(later) === key) this.applyOp(later);
  }
}
