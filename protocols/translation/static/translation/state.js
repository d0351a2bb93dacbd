/**
 * The translation task as the worker sees it: the document's segments, where
 * the worker is (current) and how far they have read (furthest), the errors
 * (saved or still on their way), the segment scores (`savedScores` as the
 * server confirmed them, `scores` as the page shows them), the server's ESA
 * warnings, and the error being marked (`pending`). The page is always drawn
 * from this object; the server stays the authority.
 *
 * A contrastive page shows several translations of each segment (`outputs`,
 * Translation 1, 2, ... in this worker's order): every error and score
 * belongs to one of them (its `output`), and `active` is the one the tools
 * work on. A page of one translation has one output, 0. Scores and warnings
 * are keyed "output:index" on both.
 */

import { codePointLength } from "../worker/offsets.js";

const CLOSED = new Set(["submitted", "released"]);
export const TARGET = "target";
export const SOURCE = "source";
export const MISSING = "missing";

export function newClientId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  // randomUUID needs a secure context; a plain-http deployment still gets a v4 UUID.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A score's key: "output:index". */
export const scoreKey = (output, index) => `${output}:${index}`;

// The server keys a one-translation page's scores by index alone.
const outputKeyed = (object) =>
  Object.fromEntries(Object.entries(object ?? {}).map(([key, value]) => [key.includes(":") ? key : scoreKey(0, key), value]));

/** The error being marked: where (a span of one side, or [missing]), its category, its severity. */
function emptyPending() {
  return { place: null, category: null, severity: null, comment: "" };
}

export class TranslationState {
  constructor(data) {
    this.scheme = data.scheme ?? data.protocol; // mqm, esa or da, contrastive or not
    this.study = data.study;
    this.contrastive = Boolean(data.study.contrastive);
    this.outputs = data.outputs?.length ? data.outputs : [{ position: 0, label: "Translation" }];
    this.active = 0;
    this.document = data.document;
    this.segments = [...data.segments].sort((a, b) => a.index - b.index);
    this.segmentByIndex = new Map(this.segments.map((s) => [s.index, s]));
    this.categories = data.categories ?? [];
    this.categoryByKey = new Map(this.categories.map((c) => [c.key, c]));
    this.severities = data.study.severities ?? [];
    this.marksErrors = Boolean(data.study.marks_errors);
    this.scoring = Boolean(data.study.scores) && Boolean(data.study.scale);
    this.scale = data.study.scale;
    this.cap = data.study.max_errors_per_segment ?? null;
    this.closedMessage = null;
    this.submitting = false;
    this.pending = emptyPending();
    this.selectionHeld = false;
    this.applyServer(data);
  }

  /** Take the server's view (page load, api.state after a refusal or a conflict). */
  applyServer(server) {
    this.status = server.status;
    this.current = server.current_segment ?? 0;
    this.furthest = Math.max(server.furthest_segment ?? 0, this.current);
    this.errors = (server.errors ?? []).map((e) => ({ ...e, output: e.output ?? 0, saved: true }));
    this.savedScores = outputKeyed(server.scores);
    this.scores = { ...this.savedScores };
    this.setWarnings(server.warnings);
    this.completion = server.completion ?? null;
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

  /** The text of one side of a segment ("" when the document has no source); a translation's is `output`'s. */
  text(index, side, output = 0) {
    const segment = this.segment(index);
    if (!segment) return "";
    if (side === SOURCE) return segment.source ?? "";
    return segment.targets ? (segment.targets[output] ?? "") : segment.target;
  }

  outputLabel(output) {
    return this.outputs[output]?.label ?? "Translation";
  }

  /**
   * The tools now work on translation `output`. A span selected in another
   * translation is let go; a source span or [missing] being marked goes with
   * the tools (they belong to whichever translation is chosen).
   */
  setActive(output) {
    if (!this.outputs[output] || output === this.active) return;
    this.active = output;
    const place = this.pending.place;
    if (place?.side === TARGET) this.pending.place = null;
    else if (place) place.output = output;
  }

  isReached(index) {
    return index <= this.furthest;
  }

  // --- errors ---------------------------------------------------------------------

  /** A segment's errors (of one translation, or of all) in reading order: the translation's, the source's, then [missing]. */
  errorsOf(index, output = null) {
    const sides = { [TARGET]: 0, [SOURCE]: 1, [MISSING]: 2 };
    return this.errors
      .filter((e) => e.segment === index && (output === null || e.output === output))
      .sort((a, b) => a.output - b.output || sides[a.side] - sides[b.side] || a.start - b.start || a.end - b.end);
  }

  /** The study's cap holds per translation of a segment (the server counts one document's segment). */
  atCap(index, output = this.active) {
    return this.cap !== null && this.errorsOf(index, output).length >= this.cap;
  }

  addError(error, saved = false) {
    if (this.errors.some((e) => e.client_id === error.client_id)) return;
    this.errors.push({ ...error, output: error.output ?? 0, saved });
  }

  markSaved(clientId, stored) {
    const found = this.errors.find((e) => e.client_id === clientId);
    // The server's copy wins: a whole-segment category covers the whole segment, its spelling of the severity.
    if (found) Object.assign(found, stored ?? {}, { saved: true });
  }

  /** Remove and return the error (kept by the caller to undo a refused remove). */
  removeError(clientId) {
    const index = this.errors.findIndex((e) => e.client_id === clientId);
    return index < 0 ? null : this.errors.splice(index, 1)[0];
  }

  /** Rank of a severity, 0 the mildest (the study lists them mildest first). */
  severityRank(name) {
    const rank = this.severities.findIndex((s) => s.toLowerCase() === String(name).toLowerCase());
    return rank < 0 ? 0 : rank;
  }

  // --- scores ---------------------------------------------------------------------

  /** Translation `output`'s score of segment `index`, or undefined. */
  score(index, output = 0) {
    return this.scores[scoreKey(output, index)];
  }

  warning(index, output = 0) {
    return this.warnings[scoreKey(output, index)] ?? "";
  }

  setWarnings(warnings) {
    this.warnings = outputKeyed(warnings);
  }

  /** The first translation of segment `index` still without a score, or -1. */
  unscoredOutput(index) {
    if (!this.scoring) return -1;
    return this.outputs.findIndex((_, output) => typeof this.score(index, output) !== "number");
  }

  /** Every translation of the segment is scored (or the study gives no scores). */
  isScored(index) {
    return this.unscoredOutput(index) < 0;
  }

  get scoredCount() {
    return this.segments.filter((s) => this.isScored(s.index)).length;
  }

  setScore(index, output, value) {
    this.scores[scoreKey(output, index)] = value;
  }

  /** The server refused a score: back to what it has, plus what is still queued for it. */
  revertScore(index, output, queued) {
    const key = scoreKey(output, index);
    if (key in this.savedScores) this.scores[key] = this.savedScores[key];
    else delete this.scores[key];
    for (const op of queued) {
      if (op.kind === "score" && op.body.segment === index && (op.body.output ?? 0) === output) this.scores[key] = op.body.score;
    }
  }

  // --- moving -----------------------------------------------------------------------

  /** Why the worker cannot open segment `index` now, or "". */
  moveProblem(index) {
    if (!this.segment(index)) return "There is no such segment.";
    if (index > this.furthest + 1) return "Segments are done in order: finish this one first.";
    if (index > this.current && !this.isScored(this.current)) {
      return this.contrastive ? "Score every translation of this segment before going on." : "Score this segment before going on.";
    }
    return "";
  }

  moveTo(index) {
    this.current = index;
    this.furthest = Math.max(this.furthest, index);
  }

  /** What is still missing before a submit, or "". */
  get submitProblem() {
    if (this.furthest < this.lastIndex) return "Read every segment before submitting.";
    if (this.scoring && this.contrastive) {
      const left = this.segments.flatMap((s) => this.outputs.filter((_, output) => typeof this.score(s.index, output) !== "number")).length;
      if (left) return `Score every translation of every segment before submitting (${left} scores left).`;
    } else if (this.scoring) {
      const left = this.segments.length - this.scoredCount;
      if (left) return `Score every segment before submitting (${left} left).`;
    }
    return "";
  }

  // --- the error being marked -------------------------------------------------------

  get pendingStarted() {
    return Boolean(this.pending.place || this.pending.category || this.pending.severity || this.pending.comment.trim());
  }

  /** The error's category is complete (ESA has none). */
  get categoryReady() {
    return this.scheme !== "mqm" || Boolean(this.pending.category);
  }

  /** A place, a severity and (MQM) a category: the error can be saved. */
  get pendingReady() {
    return Boolean(this.pending.place && this.pending.severity && this.categoryReady);
  }

  /** The category an omission most likely has (preselected for a source span and [missing]). */
  get omissionCategory() {
    return this.categories.find((c) => c.key.toLowerCase() === "omission" || /(^|\/)omission$/i.test(c.label))?.key ?? null;
  }

  setPlace(place) {
    this.pending.place = place;
    if (this.scheme === "mqm" && place.side !== TARGET && !this.pending.category) this.pending.category = this.omissionCategory;
  }

  chooseSeverity(name) {
    this.pending.severity = name;
  }

  chooseCategory(key) {
    this.pending.category = key;
  }

  cancelPending() {
    this.pending = emptyPending();
  }

  /** The finished error, ready to save; clears the pending one. */
  takePending() {
    const { place, category, severity, comment } = this.pending;
    const error = {
      client_id: newClientId(),
      output: place.output ?? 0,
      segment: place.segment,
      side: place.side,
      start: place.side === MISSING ? 0 : place.start,
      end: place.side === MISSING ? 0 : place.end,
      text: place.side === MISSING ? "" : place.text,
      category: this.scheme === "mqm" ? category : null,
      severity,
      comment: comment.trim(),
    };
    this.cancelPending();
    return error;
  }

  /** A whole-segment category's error: translation `output` of segment `index`, all of it. */
  wholeSegmentError(index, output, key, severity) {
    const text = this.text(index, TARGET, output);
    const error = {
      client_id: newClientId(),
      output,
      segment: index,
      side: TARGET,
      start: 0,
      end: codePointLength(text),
      text,
      category: key,
      severity,
      comment: this.pending.comment.trim(),
    };
    this.cancelPending();
    return error;
  }
}
