/**
 * The translation task as the worker sees it: the document's segments, where
 * the worker is (current) and how far they have read (furthest), the errors
 * (saved or still on their way), the segment scores (`savedScores` as the
 * server confirmed them, `scores` as the page shows them), the server's ESA
 * warnings, and the error being marked (`pending`). The page is always drawn
 * from this object; the server stays the authority.
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

const numberKeyed = (object) =>
  Object.fromEntries(Object.entries(object ?? {}).map(([key, value]) => [Number(key), value]));

/** The error being marked: where (a span of one side, or [missing]), its category, its severity. */
function emptyPending() {
  return { place: null, category: null, severity: null, comment: "" };
}

export class TranslationState {
  constructor(data) {
    this.protocol = data.protocol;
    this.study = data.study;
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
    this.errors = (server.errors ?? []).map((e) => ({ ...e, saved: true }));
    this.savedScores = numberKeyed(server.scores);
    this.scores = { ...this.savedScores };
    this.warnings = numberKeyed(server.warnings);
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

  /** The text of one side of a segment ("" when the document has no source). */
  text(index, side) {
    const segment = this.segment(index);
    if (!segment) return "";
    return side === SOURCE ? (segment.source ?? "") : segment.target;
  }

  isReached(index) {
    return index <= this.furthest;
  }

  // --- errors ---------------------------------------------------------------------

  /** A segment's errors in reading order: the translation's, the source's, then [missing]. */
  errorsOf(index) {
    const sides = { [TARGET]: 0, [SOURCE]: 1, [MISSING]: 2 };
    return this.errors
      .filter((e) => e.segment === index)
      .sort((a, b) => sides[a.side] - sides[b.side] || a.start - b.start || a.end - b.end);
  }

  atCap(index) {
    return this.cap !== null && this.errorsOf(index).length >= this.cap;
  }

  addError(error, saved = false) {
    if (this.errors.some((e) => e.client_id === error.client_id)) return;
    this.errors.push({ ...error, saved });
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

  isScored(index) {
    return !this.scoring || typeof this.scores[index] === "number";
  }

  get scoredCount() {
    return this.segments.filter((s) => typeof this.scores[s.index] === "number").length;
  }

  setScore(index, value) {
    this.scores[index] = value;
  }

  /** The server refused a score: back to what it has, plus what is still queued for the segment. */
  revertScore(index, queued) {
    if (index in this.savedScores) this.scores[index] = this.savedScores[index];
    else delete this.scores[index];
    for (const op of queued) if (op.kind === "score" && op.body.segment === index) this.scores[index] = op.body.score;
  }

  // --- moving -----------------------------------------------------------------------

  /** Why the worker cannot open segment `index` now, or "". */
  moveProblem(index) {
    if (!this.segment(index)) return "There is no such segment.";
    if (index > this.furthest + 1) return "Segments are done in order: finish this one first.";
    if (index > this.current && !this.isScored(this.current)) return "Score this segment before going on.";
    return "";
  }

  moveTo(index) {
    this.current = index;
    this.furthest = Math.max(this.furthest, index);
  }

  /** What is still missing before a submit, or "". */
  get submitProblem() {
    if (this.furthest < this.lastIndex) return "Read every segment before submitting.";
    if (this.scoring) {
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
    return this.protocol !== "mqm" || Boolean(this.pending.category);
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
    if (this.protocol === "mqm" && place.side !== TARGET && !this.pending.category) this.pending.category = this.omissionCategory;
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
      segment: place.segment,
      side: place.side,
      start: place.side === MISSING ? 0 : place.start,
      end: place.side === MISSING ? 0 : place.end,
      text: place.side === MISSING ? "" : place.text,
      category: this.protocol === "mqm" ? category : null,
      severity,
      comment: comment.trim(),
    };
    this.cancelPending();
    return error;
  }

  /** A whole-segment category's error: the whole translation of segment `index`. */
  wholeSegmentError(index, key, severity) {
    const text = this.text(index, TARGET);
    const error = {
      client_id: newClientId(),
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
