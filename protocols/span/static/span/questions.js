/**
 * "About the whole text": the study's questions about the document, below its
 * last segment, as native controls (likert and single -> a radio group, multi
 * -> checkboxes, text -> a textarea), so Tab, the arrow keys in a radio group
 * and Space work as in any form. Built once; `update` then shows the state in
 * the controls without rebuilding them, so the focus and a half-typed text
 * stay where they are.
 */

import { el, fill } from "../worker/dom.js";

const TEXT_SAVE_DELAY_MS = 800;

function questionLabel(question) {
  return [question.label, el("span", { className: "question-need" }, question.required ? " (required)" : " (optional)")];
}

function helpNode(question, id) {
  return question.help ? el("p", { className: "question-help", id }, question.help) : null;
}

/** The points of a likert question: {value, text} with the scale's labels. */
function likertPoints(question) {
  const { min, max, labels } = question.scale;
  const points = [];
  for (let point = min; point <= max; point += 1) points.push({ value: point, text: String(point), note: labels?.[String(point)] ?? "" });
  return points;
}

function choiceControls(question, base, onChange) {
  const multi = question.kind === "multi";
  const choices = question.kind === "likert" ? likertPoints(question) : question.options.map((option) => ({ value: option, text: option, note: "" }));
  const legendId = `${base}-legend`;
  const helpId = `${base}-help`;
  const inputs = choices.map((choice, index) => {
    const input = el("input", {
      type: multi ? "checkbox" : "radio",
      name: base,
      id: `${base}-${index}`,
      value: String(choice.value),
      dataset: { question: question.key },
    });
    input.addEventListener("change", () => {
      if (multi) onChange(question.key, inputs.filter((i) => i.checked).map((i) => i.value));
      else if (input.checked) onChange(question.key, question.kind === "likert" ? Number(input.value) : input.value);
    });
    return input;
  });
  const node = el(
    "fieldset",
    {
      className: `document-question question-${question.kind}`,
      dataset: { question: question.key },
      "aria-describedby": question.help ? helpId : null,
    },
    el("legend", { id: legendId, className: "question-label" }, ...questionLabel(question), multi ? el("span", { className: "question-need" }, " – any that apply") : null),
    helpNode(question, helpId),
    el(
      "div",
      { className: `options${question.kind === "likert" ? " likert-points" : ""}`, role: multi ? "group" : "radiogroup", "aria-labelledby": legendId },
      inputs.map((input, index) =>
        el(
          "label",
          { className: "option", htmlFor: input.id },
          input,
          el("span", { className: "option-text" }, choices[index].text),
          // The leading space keeps "1" and its label apart in the option's accessible name.
          choices[index].note ? el("span", { className: "point-label" }, ` ${choices[index].note}`) : null,
        ),
      ),
    ),
  );
  return {
    node,
    show(value) {
      const chosen = new Set((multi ? (Array.isArray(value) ? value : []) : value === undefined || value === null ? [] : [value]).map(String));
      for (const input of inputs) input.checked = chosen.has(input.value);
    },
    disable(flag) {
      for (const input of inputs) input.disabled = flag;
    },
    focus: () => (inputs.find((i) => i.checked) ?? inputs[0])?.focus(),
  };
}

function textControls(question, base, onText) {
  const id = `${base}-text`;
  const helpId = `${base}-help`;
  const area = el("textarea", {
    id,
    className: "answer-text",
    rows: 3,
    maxLength: 2000,
    dataset: { question: question.key },
    "aria-describedby": question.help ? helpId : null,
  });
  area.addEventListener("input", () => onText(question.key, area.value, { final: false }));
  area.addEventListener("change", () => onText(question.key, area.value, { final: true }));
  // Focusable from the script only: pointing the worker at the question never puts the caret in
  // its box, so their next key stays a key (a field takes keys once they click or Tab into it).
  const node = el(
    "div",
    { className: "document-question question-text", tabIndex: -1, dataset: { question: question.key } },
    el("label", { htmlFor: id, className: "question-label" }, ...questionLabel(question)),
    helpNode(question, helpId),
    area,
  );
  return {
    node,
    show(value) {
      // Never overwrite what the worker is typing.
      if (document.activeElement !== area) area.value = typeof value === "string" ? value : "";
    },
    disable(flag) {
      area.readOnly = flag;
    },
    focus: () => node.focus(),
  };
}

/**
 * Build the questions into `els.questionList`. `onAnswer(key, value)` stores a
 * choice at once; typed text is stored after a pause and when the field is
 * left (`flush` sends what is still waiting, e.g. before the page unloads).
 */
export function buildQuestions(state, els, onAnswer) {
  const timers = new Map();
  const waitingText = new Map();
  const send = (key) => {
    clearTimeout(timers.get(key));
    timers.delete(key);
    if (!waitingText.has(key)) return;
    const value = waitingText.get(key);
    waitingText.delete(key);
    onAnswer(key, value);
  };
  const onText = (key, value, { final }) => {
    state.setAnswer(key, value);
    waitingText.set(key, value);
    clearTimeout(timers.get(key));
    if (final) send(key);
    else timers.set(key, setTimeout(() => send(key), TEXT_SAVE_DELAY_MS));
  };
  const controls = new Map(
    state.questions.map((question) => {
      const base = `document-${question.key}`;
      const built = question.kind === "text" ? textControls(question, base, onText) : choiceControls(question, base, onAnswer);
      return [question.key, built];
    }),
  );
  fill(els.questionList, [...controls.values()].map((control) => control.node));

  return {
    flush() {
      for (const key of [...waitingText.keys()]) send(key);
    },
    focus(key) {
      controls.get(key)?.focus();
    },
    update(saving) {
      els.questions.hidden = !state.questionsShown;
      const status = state.answersError
        ? `Not saved: ${state.answersError}`
        : saving
          ? "Saving your answers…"
          : Object.keys(state.savedAnswers).length
            ? "Your answers are saved."
            : "";
      if (els.answersStatus.textContent !== status) els.answersStatus.textContent = status;
      els.answersStatus.classList.toggle("error", Boolean(state.answersError));
      if (!state.questionsShown) return;
      els.questionsIntro.hidden = state.readOnly;
      const closed = state.readOnly || state.submitting;
      for (const [key, control] of controls) {
        control.show(state.answers[key]);
        control.disable(closed);
      }
    },
  };
}
