/**
 * The evaluator items, grouped by evaluator label, each in a card with its
 * span, its explanation and the study's questions as native controls:
 * single -> a radio group, multi -> checkboxes, text -> a textarea. Cards are
 * built once; `update` then shows the state in them without rebuilding, so
 * the focus and a half-typed comment stay where they are.
 */

import { el, fill, safeColor } from "../worker/dom.js";
import { shortLabel } from "./output.js";
import { optionReason } from "./rules.js";

const SPAN_BADGES = { no_span: "no span given", not_found: "not found in the output" };

function spanLine(item) {
  const badge = SPAN_BADGES[item.span_status];
  const places = item.span_status === "found" && Array.isArray(item.locations) ? item.locations.length : 0;
  return el(
    "div",
    { className: "item-span" },
    el("span", { className: "field-label" }, "Span"),
    item.span_text
      ? el(
          "q",
          { className: "span-text", style: item.span_status === "found" ? { background: safeColor(item.color) } : null },
          item.span_text,
        )
      : null,
    badge ? el("span", { className: `badge badge-${item.span_status.replace("_", "-")}` }, badge) : null,
    places > 1 ? el("span", { className: "span-places" }, `${places} places in the output`) : null,
  );
}

function explanationLine(item) {
  return el(
    "div",
    { className: "item-explanation" },
    el("span", { className: "field-label" }, "Explanation"),
    item.explanation ? el("div", { className: "explanation-text" }, item.explanation) : el("em", { className: "empty" }, "none given"),
  );
}

/**
 * One question's controls; returns {node, show(value, answers), disable(flag), focus()}.
 * An option the study's rules do not allow for this item (rules.js) is disabled,
 * with the reason beside it; arrow keys and Tab skip it like any disabled control.
 */
function questionControls(item, question, questions, { onChange, onText }) {
  const base = `item-${item.id}-${question.key}`;
  if (question.kind === "text") {
    const id = `${base}-text`;
    const area = el("textarea", { id, className: "answer-text", rows: 2, maxLength: 5000, dataset: { question: question.key } });
    area.addEventListener("input", () => onText(question.key, area.value, { final: false }));
    area.addEventListener("blur", () => onText(question.key, area.value, { final: true }));
    // Focusable from the script only ("Next to answer"): the caret goes into the box when the
    // reviewer clicks or tabs into it, never by itself.
    const node = el("div", { className: "question question-text", tabIndex: -1 }, el("label", { htmlFor: id, className: "question-label" }, question.label), area);
    return {
      node,
      show(value) {
        // Never overwrite what the reviewer is typing.
        if (document.activeElement !== area) area.value = typeof value === "string" ? value : "";
      },
      disable(flag) {
        area.readOnly = flag;
      },
      focus: () => node.focus(),
    };
  }
  const multi = question.kind === "multi";
  const options = Array.isArray(question.options) ? question.options : [];
  // Why an option is disabled: shown beside it, and its description for screen readers.
  const reasons = options.map((_, index) => el("span", { className: "option-reason", id: `${base}-${index}-reason`, hidden: true }));
  const inputs = options.map((option, index) => {
    const input = el("input", { type: multi ? "checkbox" : "radio", name: base, id: `${base}-${index}`, value: option, "aria-describedby": `${base}-${index}-reason` });
    input.addEventListener("change", () => {
      if (multi) onChange(question.key, inputs.filter((i) => i.checked).map((i) => i.value));
      else if (input.checked) onChange(question.key, option);
    });
    return input;
  });
  const legendId = `${base}-legend`;
  const node = el(
    "fieldset",
    { className: `question question-${multi ? "multi" : "single"}`, dataset: { question: question.key } },
    el("legend", { id: legendId, className: "question-label" }, question.label, multi ? el("span", { className: "optional" }, " (any that apply)") : null),
    el(
      "div",
      { className: "options", role: multi ? "group" : "radiogroup", "aria-labelledby": legendId },
      // The reason stays outside the label: the option's name is its text alone.
      inputs.map((input, index) =>
        el("span", { className: "option-slot" }, el("label", { className: "option", htmlFor: input.id }, input, el("span", {}, input.value)), reasons[index]),
      ),
    ),
  );
  let blocked = options.map(() => null);
  let closed = false;
  const applyDisabled = () => inputs.forEach((input, index) => (input.disabled = closed || blocked[index] !== null));
  return {
    node,
    show(value, answers) {
      const chosen = multi ? new Set(Array.isArray(value) ? value : []) : new Set(typeof value === "string" ? [value] : []);
      for (const input of inputs) input.checked = chosen.has(input.value);
      blocked = options.map((option) => optionReason(questions, question, option, item, answers));
      blocked.forEach((reason, index) => {
        const text = reason ?? "";
        if (reasons[index].textContent !== text) reasons[index].textContent = text;
        reasons[index].hidden = !reason;
        const chip = inputs[index].parentElement;
        chip?.classList.toggle("option-blocked", Boolean(reason));
        if (chip) chip.title = reason ? `Not for this item: ${reason}` : "";
      });
      applyDisabled();
    },
    disable(flag) {
      closed = flag;
      applyDisabled();
    },
    focus: () => (inputs.find((i) => i.checked) ?? inputs.find((i) => !i.disabled) ?? inputs[0])?.focus(),
  };
}

function itemCard(item, { tag, number }, questions, handlers) {
  const headingId = `item-${item.id}-heading`;
  const status = el("span", { className: "item-status" });
  const controls = new Map(
    questions.map((question) => [
      question.key,
      questionControls(item, question, questions, {
        onChange: (key, value) => handlers.onChange(item.id, key, value),
        onText: (key, value, options) => handlers.onText(item.id, key, value, options),
      }),
    ]),
  );
  const card = el(
    "article",
    { className: "item-card", id: `item-${item.id}`, tabIndex: -1, "aria-labelledby": headingId, dataset: { item: item.id } },
    el(
      "div",
      { className: "item-head" },
      el("span", { className: "item-tag", style: { background: safeColor(item.color) } }, tag),
      // "Item 1" under its evaluator's heading; screen readers hear whose item it is.
      el("h3", { className: "item-heading", id: headingId }, el("span", { className: "visually-hidden" }, `${item.label}, `), `Item ${number}`),
      status,
    ),
    spanLine(item),
    explanationLine(item),
    el("div", { className: "questions" }, [...controls.values()].map((c) => c.node)),
  );
  return { card, status, controls };
}

/** Build the grouped cards into `container`; returns {cards, update(state, isSaving)}. */
export function buildItems(container, state, tags, handlers) {
  const groups = new Map();
  for (const item of state.items) {
    if (!groups.has(item.label)) groups.set(item.label, []);
    groups.get(item.label).push(item);
  }
  const built = new Map();
  fill(
    container,
    [...groups].map(([label, items]) => {
      const headingId = `evaluator-${shortLabel(label).replace(/[^A-Za-z0-9_-]/g, "_")}-heading`;
      return el(
        "section",
        { className: "evaluator", "aria-labelledby": headingId },
        el(
          "h2",
          { className: "evaluator-heading", id: headingId },
          el("span", { className: "swatch", style: { background: safeColor(items[0].color) } }),
          label,
          el("span", { className: "evaluator-count" }, items.length === 1 ? "1 item" : `${items.length} items`),
        ),
        items.map((item, index) => {
          const parts = itemCard(item, { tag: tags.get(item.id), number: index + 1 }, state.questions, handlers);
          built.set(String(item.id), parts);
          return parts.card;
        }),
      );
    }),
  );
  if (!state.items.length) fill(container, el("p", { className: "card empty" }, "There is nothing to review in this output."));

  return {
    cards: built,
    update(isSaving) {
      for (const item of state.items) {
        const { card, status, controls } = built.get(String(item.id));
        const answers = state.answersOf(item.id);
        for (const [key, control] of controls) {
          control.show(answers[key], answers);
          control.disable(state.readOnly || state.submitting);
        }
        const answered = state.isAnswered(item.id);
        const kind = isSaving(item.id) ? "saving" : answered ? "answered" : "todo";
        const text = { saving: "saving…", answered: "answered", todo: "to answer" }[kind];
        if (status.textContent !== text) status.textContent = text;
        status.dataset.kind = kind;
        card.classList.toggle("answered", answered);
      }
    },
  };
}
