/**
 * The Best-Worst Scaling view: one tuple at a time, its outputs stacked and
 * numbered, each with a "Best" and a "Worst" toggle button; the source input
 * beside them when the tuple's outputs share one (else inside each output);
 * and, when the study asks for it, a rating of the gap between best and worst,
 * which is then required: the tuple is not judged (nor saved) without it.
 */

import { el, fill } from "../worker/dom.js";
import { scaleGroup, textPanel } from "./controls.js";

const ROLES = [
  { role: "best", label: "Best", mark: "▲" },
  { role: "worst", label: "Worst", mark: "▼" },
];

function defaultValueLabels(max) {
  return { 1: "small difference", [max]: "large difference" };
}

export function bwsView(state, els, { onChoose, onValue }) {
  let shown = -1;
  let cards = [];
  let value = null;

  function outputCard(item, index, number, sharedSource) {
    const buttons = ROLES.map(({ role, label, mark }) => {
      const button = el(
        "button",
        { type: "button", className: `choice choice-${role}`, "aria-pressed": "false", "aria-label": `${label}: output ${number}`, dataset: { role } },
        el("span", { className: "choice-mark", "aria-hidden": "true" }, mark),
        ` ${label}`,
      );
      button.addEventListener("click", () => onChoose(index, role, item.document));
      return button;
    });
    const node = el(
      "li",
      { className: "output-card", dataset: { document: item.document } },
      el("div", { className: "output-head" },
        el("h3", { className: "output-number" }, `Output ${number}`),
        el("div", { className: "choices" }, buttons)),
      el("div", { className: "panel-text", tabIndex: 0, "aria-label": `Output ${number}` }, item.text),
      !sharedSource && item.source
        ? el("details", { className: "output-source" }, el("summary", {}, "Source"), el("div", { className: "panel-text" }, item.source))
        : null,
    ); // prettier-ignore
    return { node, document: item.document, buttons };
  }

  function build(index) {
    const tuple = state.units[index];
    const sources = new Set(tuple.items.map((item) => item.source));
    const sharedSource = sources.size === 1 && tuple.items[0].source ? tuple.items[0].source : null;
    cards = tuple.items.map((item, offset) => outputCard(item, index, offset + 1, sharedSource));
    const valueMax = state.study.value_scale;
    value = valueMax
      ? scaleGroup({
          name: `value-${index}`,
          points: Array.from({ length: valueMax }, (_, offset) => offset + 1),
          labels: Object.keys(state.study.value_labels ?? {}).length ? state.study.value_labels : defaultValueLabels(valueMax),
          labelledBy: "value-question",
          onChoose: (chosen) => onValue(index, chosen),
        })
      : null;
    fill(
      els.body,
      el(
        "div",
        { className: sharedSource ? "texts with-source" : "texts" },
        sharedSource ? textPanel("Source", sharedSource, "source") : null,
        el("ol", { className: "outputs", "aria-label": "Outputs" }, cards.map((card) => card.node)),
      ),
      value
        ? el(
            "div",
            { className: "answer value" },
            el("h3", { className: "answer-title", id: "value-question" },
              "How large is the difference between the best and the worst output? ", el("span", { className: "required" }, "(required)")),
            value.node,
          ) // prettier-ignore
        : null,
    );
    shown = index;
  }

  return {
    unitName: "Tuple",
    render() {
      if (state.current !== shown) build(state.current);
      const answer = state.answer(state.current) ?? {};
      for (const card of cards) {
        const role = answer.best === card.document ? "best" : answer.worst === card.document ? "worst" : "";
        card.node.dataset.chosen = role;
        for (const button of card.buttons) {
          button.setAttribute("aria-pressed", String(button.dataset.role === role));
          button.disabled = state.readOnly;
        }
      }
      if (value) {
        value.show(answer.value ?? null);
        value.disable(state.readOnly);
      }
    },
    /** Number `number` (1-based) of the current tuple's outputs, or undefined. */
    document(number) {
      return state.units[state.current].items[number - 1]?.document;
    },
    status(index, saving) {
      const answer = state.answer(index) ?? {};
      if (!answer.best && !answer.worst) return { text: "Choose the best and the worst output", kind: "todo" };
      if (!answer.best) return { text: "Now choose the best output", kind: "todo" };
      if (!answer.worst) return { text: "Now choose the worst output", kind: "todo" };
      if (state.valueMissing(index)) return { text: "Now choose how large the difference is", kind: "todo" };
      if (saving) return { text: "Saving…", kind: "saving" };
      return { text: "Saved", kind: "saved" };
    },
    describe: (index, complete) => `Tuple ${index + 1}${complete ? ", judged" : ", not judged yet"}`,
    progress: (done, total) => `${done} of ${total} tuples judged`,
  };
}
