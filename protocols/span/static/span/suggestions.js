/**
 * The suggestion arm of an assisted study (docs/assisted-annotation.md): the
 * model's candidate spans of the current segment, listed in the Suggestions
 * panel and framed in the text, each waiting for the worker's decision:
 *
 *   Accept (a): the span and category become the worker's annotation;
 *   Change category (g, then the category's key or button);
 *   Adjust (j): select other boundaries, or move them by words with the
 *     arrows (end) and Shift+arrows (start), Enter to keep;
 *   Reject (x); Undo (u) takes a decision back.
 *
 * The letters act while a suggestion's row has focus (Tab reaches it, and a
 * blocked "next segment" puts the focus there), so they never clash with a
 * category's key; u also takes back the latest decision of the segment from
 * wherever the focus went after it (the next row, "next segment"). Nothing
 * counts until the worker acts: moving on waits until every suggestion of the
 * segment is decided. A decision is a queued op ("decide", "undo"), kept and
 * re-sent like an add. Only the suggestion arm's page loads this module
 * (assisted.js); its state is suggestion_state.js.
 */

import { el, fill, fillRows, safeColor } from "../worker/dom.js";
import { codePointLength, sliceCodePoints } from "../worker/offsets.js";
import { snapToSentences, snapToWords } from "./selection.js";
import { newClientId } from "./state.js";

const ACTION_LABELS = { accept: "Accepted", change: "Accepted with another category", adjust: "Accepted with other boundaries", reject: "Rejected" };
const WORD = /[\p{L}\p{M}\p{N}\p{Pc}]/u;

/** Word runs of a text as [start, end) code-point offsets. */
function words(text) {
  const characters = Array.from(text);
  const runs = [];
  for (let i = 0; i < characters.length; i += 1) {
    if (!WORD.test(characters[i])) continue;
    let end = i;
    while (end < characters.length && WORD.test(characters[end])) end += 1;
    runs.push([i, end]);
    i = end;
  }
  return runs;
}

export function attachSuggestions(state, els, { queue, render, say }) {
  const shownAt = new Map(); // suggestion id -> performance.now() when the worker first saw it
  const byId = (id) => document.getElementById(id);
  const panel = {
    section: byId("suggestions-panel"), list: byId("suggestion-list"), count: byId("suggestion-count"),
    mode: byId("suggestion-mode"), keys: byId("keys-suggestions"),
  };

  function seconds(id) {
    return Math.max(0, (performance.now() - (shownAt.get(id) ?? performance.now())) / 1000);
  }

  function annotationFrom(suggestion, { category = suggestion.category, span = suggestion } = {}) {
    const kind = state.category(category)?.kind;
    return {
      client_id: newClientId(),
      category,
      segment: span.segment,
      start: span.start,
      end: span.end,
      text: span.text,
      comment: "",
      paired: kind === "paired" ? (suggestion.paired ? { ...suggestion.paired } : null) : null,
    };
  }

  function decide(id, annotation) {
    const suggestion = state.suggestion(id);
    if (!suggestion || state.readOnly || suggestion.decision) return;
    if (annotation && state.category(annotation.category)?.kind === "paired" && !annotation.paired) {
      say("That category needs an earlier span: accept it as suggested, or choose a category with one span.", { error: true });
      return;
    }
    const elapsed = seconds(id);
    state.decide(id, annotation);
    queue.push({ kind: "decide", body: { id, annotation, seconds: Math.round(elapsed * 1000) / 1000 } });
    render();
    say(`${ACTION_LABELS[suggestion.decision.action]}: “${suggestion.text}”.`);
    focusNext();
  }

  function undo(id) {
    if (state.readOnly) return;
    const suggestion = state.suggestion(id);
    if (!suggestion?.decision) return;
    state.undecide(id);
    shownAt.set(id, performance.now()); // time to decide counts again from here
    queue.push({ kind: "undo", body: { id } });
    render();
    say(`Taken back: “${suggestion.text}” waits for your decision.`);
    focusRow(id);
  }

  const actions = {
    accept: (id) => decide(id, annotationFrom(state.suggestion(id))),
    reject: (id) => decide(id, null),
    change(id) {
      state.changing = id;
      state.adjusting = null;
      render();
      say("Choose the category for this span: press its key or click it.");
    },
    adjust(id) {
      const suggestion = state.suggestion(id);
      state.adjusting = { id, span: { segment: suggestion.segment, start: suggestion.start, end: suggestion.end, text: suggestion.text } };
      state.changing = null;
      render();
      say("Select the span, or move its end with ← → and its start with Shift+← →; Enter keeps it, Escape cancels.");
    },
    undo,
  };

  /** A category chosen while a suggestion waits for one: the decision "change". */
  function chooseCategory(key) {
    if (state.changing === null) return false;
    const suggestion = state.suggestion(state.changing);
    decide(suggestion.id, annotationFrom(suggestion, { category: key }));
    return true;
  }

  /** A selection while adjusting: the new boundaries (shown until Enter or Keep). */
  function takeSpan(span) {
    if (!state.adjusting) return false;
    setAdjusted(span);
    return true;
  }

  function setAdjusted(span) {
    const suggestion = state.suggestion(state.adjusting.id);
    const category = state.category(suggestion.category);
    const segment = state.segment(span.segment);
    let snapped = span;
    if (category?.snap_to_words) snapped = snapToWords(snapped, segment);
    if (category?.whole_sentence) snapped = snapToSentences(snapped, segment);
    state.adjusting.span = snapped;
    render();
    say(`New boundaries: “${snapped.text}”. Enter keeps them.`);
  }

  function keepAdjusted() {
    const { id, span } = state.adjusting;
    decide(id, annotationFrom(state.suggestion(id), { span }));
  }

  function cancelMode() {
    state.adjusting = null;
    state.changing = null;
    render();
    say("Cancelled.");
  }

  /** ← → move the end by a word, Shift+← → the start; Enter keeps; Escape cancels. */
  function moveBoundary(key, shift) {
    const span = state.adjusting.span;
    const text = state.segment(span.segment).text;
    const runs = words(text);
    let { start, end } = span;
    if (shift) {
      const starts = runs.map(([s]) => s);
      start = key === "ArrowLeft" ? Math.max(0, ...starts.filter((s) => s < start)) : Math.min(end - 1, starts.find((s) => s > start) ?? start);
    } else {
      const ends = runs.map(([, e]) => e);
      end = key === "ArrowRight" ? ends.find((e) => e > end) ?? codePointLength(text) : Math.max(start + 1, ...ends.filter((e) => e < end && e > start));
    }
    if (start >= end) return;
    setAdjusted({ segment: span.segment, start, end, text: sliceCodePoints(text, start, end) });
  }

  // Capture phase: while a mode is on, these keys are the suggestion's, not the page's.
  document.addEventListener(
    "keydown",
    (event) => {
      if (state.readOnly || (!state.adjusting && state.changing === null)) return;
      if (event.target.closest?.("textarea, input, select, dialog")) return;
      if (event.key === "Escape") {
        event.preventDefault();
        cancelMode();
      } else if (state.adjusting && (event.key === "ArrowLeft" || event.key === "ArrowRight")) {
        event.preventDefault();
        moveBoundary(event.key, event.shiftKey);
      } else if (state.adjusting && event.key === "Enter") {
        event.preventDefault();
        keepAdjusted();
      }
    },
    true,
  );

  const KEYS = { a: "accept", x: "reject", g: "change", j: "adjust", u: "undo" };

  function row(suggestion) {
    const category = state.category(suggestion.category);
    const decided = Boolean(suggestion.decision);
    const item = el(
      "li",
      {
        className: "suggestion-row",
        tabIndex: 0,
        dataset: { suggestion: String(suggestion.id), decided: String(decided) },
        "aria-label": `Suggested ${category?.label ?? suggestion.category}: ${suggestion.text}`,
      },
      el(
        "div",
        { className: "suggestion-head" },
        el("span", { className: "swatch", style: { background: safeColor(category?.color) } }),
        el("strong", {}, category?.label ?? suggestion.category),
        el("span", { className: "suggestion-state" }, decided ? ACTION_LABELS[suggestion.decision.action] : "to decide"),
      ),
      el("q", { className: "span-text" }, suggestion.text),
      suggestion.paired ? el("div", { className: "row-paired" }, "earlier span: ", el("q", { className: "span-text" }, suggestion.paired.text)) : null,
    );
    if (state.changing === suggestion.id || state.adjusting?.id === suggestion.id) item.classList.add("active");
    const buttons = decided
      ? [["undo", "Undo", "u"]]
      : [["accept", "Accept", "a"], ["change", "Change category", "g"], ["adjust", "Adjust", "j"], ["reject", "Reject", "x"]];
    if (state.adjusting?.id === suggestion.id) buttons.unshift(["keep", "Keep these boundaries", "Enter"]);
    if (!state.readOnly) {
      item.append(
        el(
          "div",
          { className: "suggestion-actions" },
          buttons.map(([name, label, key]) => {
            const button = el("button", { type: "button", dataset: { action: name } }, label, " ", el("kbd", {}, key));
            button.addEventListener("click", () => (name === "keep" ? keepAdjusted() : actions[name](suggestion.id)));
            return button;
          }),
        ),
      );
    }
    item.addEventListener("keydown", (event) => {
      if (event.target !== item || event.ctrlKey || event.metaKey || event.altKey || state.readOnly) return;
      const name = KEYS[event.key.toLowerCase()];
      if (!name || (decided ? name !== "undo" : name === "undo")) return;
      event.preventDefault(); // the page's own keys (categories, n, p) stay out of it
      actions[name](suggestion.id);
    });
    return item;
  }

  /** Everything row(suggestion) shows: while it is unchanged the row keeps its node. */
  function rowKey(suggestion) {
    const { id, decision, category, text, paired } = suggestion;
    return JSON.stringify([id, decision?.action ?? null, category, text, paired?.text ?? null, state.changing === id, state.adjusting?.id === id, state.readOnly]);
  }

  function focusRow(id) {
    [...panel.list.children].find((node) => Number(node.dataset.suggestion) === id)?.focus();
  }

  /** After a decision: the next undecided suggestion of the segment, or the next-segment button. */
  function focusNext() {
    const next = state.suggestionsIn(state.current).find((s) => !s.decision);
    if (next) focusRow(next.id);
    else (state.current < state.lastIndex ? els.next : els.submit).focus();
  }

  function renderPanel() {
    const shown = !state.readOnly;
    panel.section.hidden = !shown;
    panel.keys.hidden = !shown;
    if (!shown) return;
    const here = state.suggestionsIn(state.current);
    const now = performance.now();
    for (const suggestion of here) if (!shownAt.has(suggestion.id)) shownAt.set(suggestion.id, now);
    const left = here.filter((s) => !s.decision).length;
    panel.count.textContent = `(${left} of ${here.length} to decide)`;
    const focused = document.activeElement?.closest?.(".suggestion-row")?.dataset.suggestion;
    if (here.length) fillRows(panel.list, here, rowKey, row);
    else fill(panel.list, el("li", { className: "empty" }, "None in this segment."));
    // A row drawn anew (its decision changed) takes the focus its old node had.
    if (focused && !panel.list.contains(document.activeElement)) focusRow(Number(focused));
    panel.mode.textContent =
      state.changing !== null ? "Choose the new category." : state.adjusting ? "Adjusting: select or move the boundaries, Enter keeps them." : "";
  }

  /** True (and says why, focusing the suggestion) when moving to segment `index` must wait. */
  function blocks(index) {
    const waiting = state.undecidedBefore(index);
    if (!waiting) return false;
    say("Decide on every suggestion of this segment first: accept, change, adjust or reject it.", { error: true });
    if (waiting.segment === state.current) focusRow(waiting.id);
    return true;
  }

  // A click on a framed suggestion in the text focuses its row.
  els.text.addEventListener("click", (event) => {
    const ids = event.target.closest?.(".hl-suggested")?.dataset.framed;
    if (ids && window.getSelection().isCollapsed && !state.adjusting) focusRow(Number(ids.split(" ").at(-1)));
  });

  /** u away from a decided row (the focus moved on after the decision): take back the
   * segment's latest decision. False (the key is not taken) when there is none. */
  function undoKey() {
    if (state.readOnly || state.adjusting || state.changing !== null) return false;
    const latest = state.latestDecidedIn(state.current);
    if (!latest) return false;
    undo(latest.id);
    return true;
  }

  return { render: renderPanel, blocks, chooseCategory, takeSpan, undoKey, shownAt };
}
