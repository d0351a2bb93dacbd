/**
 * The Likert view: one output at a time, its source input beside it (left),
 * and the study's scale as a radiogroup under them.
 */

import { el, fill } from "../worker/dom.js";
import { scaleGroup, textPanel } from "./controls.js";

export function likertView(state, els, { onScore }) {
  let shown = -1;
  let scale = null;

  function build(index) {
    const item = state.units[index];
    scale = scaleGroup({
      name: `score-${index}`,
      points: state.scalePoints,
      labels: state.study.scale.labels ?? {},
      labelledBy: "question",
      onChoose: (score) => onScore(index, score),
    });
    fill(
      els.body,
      el(
        "div",
        { className: item.source ? "texts with-source" : "texts" },
        item.source ? textPanel("Source", item.source, "source") : null,
        textPanel("Output", item.text, "output"),
      ),
      el("div", { className: "answer" }, el("h3", { className: "answer-title" }, "Your rating"), scale.node),
    );
    shown = index;
  }

  return {
    unitName: "Output",
    render() {
      if (state.current !== shown) build(state.current);
      const score = state.answer(state.current);
      scale.show(score ?? null);
      scale.disable(state.readOnly);
    },
    /** The unit's status for the heading: what is still to do, or whether it is saved. */
    status(index, saving) {
      if (!state.isComplete(index)) return { text: "Not rated yet", kind: "todo" };
      if (saving) return { text: "Saving…", kind: "saving" };
      return { text: `Saved: ${state.answer(index)}`, kind: "saved" };
    },
    describe: (index, complete) => `Output ${index + 1}${complete ? `, rated ${state.answer(index)}` : ", not rated"}`,
    progress: (done, total) => `${done} of ${total} rated`,
  };
}
