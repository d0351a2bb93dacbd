/**
 * The task as the suggestion arm's worker sees it (docs/assisted-annotation.md): the
 * plain page's state (state.js) plus the model's candidate spans, each with the worker's
 * decision or null, and the suggestion whose category or boundaries are being changed.
 * Only the suggestion arm's page loads this module (assisted.js).
 */

import { safeColor } from "../worker/dom.js";
import { TaskState } from "./state.js";

/** The action the server will record (protocols/span/assistance/decisions.py): read from what is taken. */
export function actionOf(suggestion, annotation) {
  const samePaired = !annotation.paired || (suggestion.paired && ["segment", "start", "end"].every((k) => annotation.paired[k] === suggestion.paired[k]));
  const sameSpan = ["segment", "start", "end"].every((k) => annotation[k] === suggestion[k]) && samePaired;
  if (!sameSpan) return "adjust";
  return annotation.category === suggestion.category ? "accept" : "change";
}

export class SuggestionTaskState extends TaskState {
  applyServer(server) {
    super.applyServer(server);
    this.suggestions = Array.isArray(server.suggestions) ? server.suggestions.map((s) => ({ ...s })) : [];
    this.adjusting = null; // {id, span}: a suggestion whose boundaries the worker is moving
    this.changing = null; // the id of a suggestion waiting for its new category
    // Decisions in the order taken (ids), so that u takes back the latest wherever the focus went.
    this.decisionOrder = [];
  }

  removeAnnotation(clientId) {
    // A suggestion taken as this annotation waits for a decision again (as on the server).
    for (const suggestion of this.suggestions) {
      if (suggestion.decision?.annotation === clientId) suggestion.decision = null;
    }
    return super.removeAnnotation(clientId);
  }

  suggestion(id) {
    return this.suggestions.find((s) => s.id === id) ?? null;
  }

  /** The suggestions of segment `index`, in reading order. */
  suggestionsIn(index) {
    return this.suggestions.filter((s) => s.segment === index);
  }

  /** The first suggestion before segment `index` still without a decision, or null. */
  undecidedBefore(index) {
    return this.suggestions.find((s) => s.segment < index && !s.decision) ?? null;
  }

  /** The decision of segment `index` taken last on this page and still standing, or null. */
  latestDecidedIn(index) {
    for (const id of [...this.decisionOrder].reverse()) {
      const suggestion = this.suggestion(id);
      if (suggestion?.decision && suggestion.segment === index) return suggestion;
    }
    return null;
  }

  /** Record a decision: `annotation` is the annotation taken (added to the list), or null to reject. */
  decide(id, annotation) {
    const suggestion = this.suggestion(id);
    if (!suggestion) return;
    if (annotation) this.addAnnotation(annotation, false);
    suggestion.decision = { action: annotation ? actionOf(suggestion, annotation) : "reject", annotation: annotation?.client_id ?? null };
    this.decisionOrder = [...this.decisionOrder.filter((other) => other !== id), id];
    this.adjusting = null;
    this.changing = null;
  }

  /** Take a decision back; returns the annotation it had added (or null). */
  undecide(id) {
    const suggestion = this.suggestion(id);
    if (!suggestion?.decision) return null;
    const clientId = suggestion.decision.annotation;
    suggestion.decision = null;
    this.decisionOrder = this.decisionOrder.filter((other) => other !== id);
    return clientId ? this.removeAnnotation(clientId) : null;
  }

  /** The new boundaries being set (drawn as the span being built) and, in the current segment,
   * the suggestions still to decide, framed. */
  addedMarks(index) {
    const marks = [];
    const span = this.adjusting?.span;
    if (span?.segment === index) marks.push({ start: span.start, end: span.end, kind: "pending" });
    if (index !== this.current) return marks;
    for (const suggestion of this.suggestionsIn(index)) {
      if (suggestion.decision || this.adjusting?.id === suggestion.id) continue;
      const category = this.category(suggestion.category);
      marks.push({
        start: suggestion.start, end: suggestion.end, kind: "framed", className: "hl-suggested", ref: String(suggestion.id),
        color: safeColor(category?.color), title: `Suggested: ${category?.label ?? suggestion.category}`,
      });
    }
    return marks;
  }
}
