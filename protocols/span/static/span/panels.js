/**
 * Everything around the text: category buttons, the annotation being built,
 * the list of annotations, segment navigation, and the closed-task views.
 * Each function draws one area from the state; main.js decides when.
 */

import { el, fill, fillRows, safeColor } from "../worker/dom.js";

export { renderClosed } from "../worker/closed.js";

const quoted = (text) => el("q", { className: "span-text" }, text);

/** One native <button> per category, grouped as in the taxonomy. Built once. */
export function buildCategories(state, els, onChoose) {
  const describe = (category) =>
    fill(els.description, el("strong", {}, category.label), " ", category.description || "No description.");
  const groups = new Map();
  for (const category of state.categories) {
    if (!groups.has(category.group)) groups.set(category.group, []);
    groups.get(category.group).push(category);
  }
  const buttons = new Map();
  fill(
    els.categories,
    [...groups].map(([group, categories]) =>
      el(
        "div",
        { className: "category-group" },
        group ? el("h3", { className: "group-name" }, group) : null,
        categories.map((category) => {
          const button = el(
            "button",
            {
              type: "button",
              className: "category",
              title: category.description || category.label,
              "aria-pressed": "false",
              "aria-describedby": "category-description",
              dataset: { key: category.key },
            },
            el("span", { className: "swatch", style: { background: safeColor(category.color) } }),
            el("span", { className: "category-label" }, category.label),
            category.kind === "paired" ? el("span", { className: "kind" }, "paired") : null,
            category.whole_sentence ? el("span", { className: "kind" }, "sentences") : null,
            category.snap_to_words && !category.whole_sentence ? el("span", { className: "kind" }, "words") : null,
            category.shortcut ? el("kbd", {}, category.shortcut) : null,
          );
          button.addEventListener("click", () => onChoose(category.key));
          button.addEventListener("focus", () => describe(category));
          button.addEventListener("mouseenter", () => describe(category));
          buttons.set(category.key, button);
          return button;
        }),
      ),
    ),
  );
  return buttons;
}

function stepPrompt(state) {
  const category = state.pendingCategory;
  if (!state.pending.span) {
    const forCategory = category ? ` for “${category.label}”` : "";
    return `Step 1: select the words of an error${forCategory} in the current segment.`;
  }
  if (!category) return "Step 2: choose the error category (or press its key).";
  if (state.awaitingPaired) return "Now select the earlier span (in the context or the current segment).";
  return "Optionally add a comment, then press Add (Ctrl+Enter in the comment).";
}

export function renderPending(state, els, categoryButtons) {
  els.pendingPanel.hidden = state.readOnly;
  for (const [key, button] of categoryButtons) {
    button.setAttribute("aria-pressed", String(state.pending.category === key));
    button.disabled = state.readOnly;
  }
  els.comment.disabled = els.add.disabled = els.cancel.disabled = state.readOnly;
  if (state.readOnly) return;
  els.prompt.textContent = stepPrompt(state);
  const { span, paired } = state.pending;
  els.pendingSpan.hidden = !span;
  fill(els.pendingSpanText, span ? quoted(span.text) : null);
  const wantsPaired = state.pendingCategory?.kind === "paired";
  els.pendingPaired.hidden = !wantsPaired || !span;
  fill(els.pendingPairedText, paired ? quoted(paired.text) : el("em", {}, "not selected yet"));
  if (els.comment.value !== state.pending.comment) els.comment.value = state.pending.comment;
  // Awaiting the earlier span, Add takes the words held from a touch screen's selection (mouse.js).
  els.add.disabled = !state.pendingReady && !(state.awaitingPaired && state.selectionHeld);
  els.cancel.disabled = !state.pendingStarted;
}

function annotationRow(state, annotation, onRemove) {
  const category = state.category(annotation.category);
  const where = (segment) => `segment ${segment + 1}`;
  const row = el(
    "li",
    { className: "annotation-row", dataset: { clientId: annotation.client_id, saved: String(annotation.saved) } },
    el(
      "div",
      { className: "row-head" },
      el("span", { className: "swatch", style: { background: safeColor(category?.color) } }),
      el("strong", { className: "row-category" }, category?.label ?? annotation.category),
      el("span", { className: "row-where" }, where(annotation.segment)),
      annotation.saved ? null : el("span", { className: "row-saving" }, "saving…"),
    ),
    quoted(annotation.text),
    annotation.paired
      ? el("div", { className: "row-paired" }, "earlier span (", where(annotation.paired.segment), "): ", quoted(annotation.paired.text))
      : null,
    annotation.comment ? el("div", { className: "row-comment" }, "Comment: ", annotation.comment) : null,
  );
  if (!state.readOnly) {
    const remove = el("button", { type: "button", className: "remove", "aria-label": `Remove ${category?.label ?? ""}: ${annotation.text}` }, "Remove");
    remove.addEventListener("click", () => onRemove(annotation.client_id));
    row.append(remove);
  }
  return row;
}

export function renderList(state, els, onRemove) {
  const annotations = state.sortedAnnotations();
  els.count.textContent = `(${annotations.length})`;
  els.listEmpty.hidden = annotations.length > 0;
  // The key is the whole annotation (saved or not included), so a save's answer re-draws only its row.
  fillRows(els.list, annotations, (a) => JSON.stringify([a, state.readOnly]), (a) => annotationRow(state, a, onRemove));
}

export function renderNav(state, els) {
  const total = state.segments.length;
  els.counter.textContent = `Segment ${state.current + 1} of ${total}`;
  els.currentHeading.textContent = `Current segment (${state.current + 1} of ${total})`;
  const last = state.current >= state.lastIndex;
  els.nav.hidden = els.keys.hidden = state.readOnly;
  els.previous.disabled = state.current <= (state.segments[0]?.index ?? 0) || state.submitting;
  els.next.hidden = last;
  els.submit.hidden = !last;
  els.submit.disabled = Boolean(state.submitting);
}
