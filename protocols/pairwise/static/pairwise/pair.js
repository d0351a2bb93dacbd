/**
 * The pair view: the source input (when there is one) above two outputs side
 * by side, A on the left and B on the right; the buttons "A is better",
 * "About the same" (when the study allows ties) and "B is better"; and, with
 * a strength scale, how much better the chosen output is.
 */

import { el, fill } from "../worker/dom.js";
import { defaultStrengthLabels, strengthScale } from "./controls.js";
import { LEFT, RIGHT, TIE } from "./state.js";

export const NAMES = { [LEFT]: "A is better", [RIGHT]: "B is better", [TIE]: "About the same" };
const SIDE = { [LEFT]: "A", [RIGHT]: "B" };

export function pairView(state, els, { onChoose, onStrength }) {
  let shown = -1;
  const buttons = [...els.unit.querySelectorAll("button.choice")];
  for (const button of buttons) button.addEventListener("click", () => onChoose(state.current, button.dataset.choice));
  const max = state.strengthMax;
  const labels = max && Object.keys(state.study.strength.labels ?? {}).length ? state.study.strength.labels : defaultStrengthLabels(max);
  const scale = max ? strengthScale(els.strengthScale, { max, labels, onChoose: (value) => onStrength(state.current, value) }) : null;

  function sources(pair) {
    const left = pair.left.source;
    const right = pair.right.source;
    if (!left && !right) return [];
    if (left === right) return [["Source", left]];
    return [["Source of A", left], ["Source of B", right]].filter(([, text]) => text);
  }

  function build(index) {
    const pair = state.units[index];
    const panels = sources(pair);
    els.source.hidden = panels.length === 0;
    fill(
      els.source,
      panels.map(([title, text]) =>
        el("section", { className: "source-panel" }, el("h3", { className: "output-title" }, title),
          el("div", { className: "source-text", tabIndex: 0, "aria-label": title }, text)),
      ), // prettier-ignore
    );
    fill(els.outputA, pair.left.text);
    fill(els.outputB, pair.right.text);
    els.outputA.scrollTop = 0;
    els.outputB.scrollTop = 0;
    shown = index;
  }

  function strengthQuestion(answer) {
    if (answer?.choice === LEFT || answer?.choice === RIGHT) return `How much better is ${SIDE[answer.choice]}?`;
    if (answer?.choice === TIE) return "A tie has no strength.";
    return "How much better is the output you chose? (choose A or B first)";
  }

  return {
    render() {
      if (state.current !== shown) build(state.current);
      const answer = state.answer(state.current);
      for (const button of buttons) {
        button.setAttribute("aria-pressed", String(answer?.choice === button.dataset.choice));
        button.disabled = state.readOnly;
      }
      els.unit.dataset.chosen = answer?.choice ?? "";
      if (scale) {
        els.strengthQuestion.textContent = strengthQuestion(answer);
        scale.show(state.needsStrength(answer) ? (answer.strength ?? null) : null);
        scale.disable(state.readOnly || !state.needsStrength(answer));
      }
    },
    /** The pair's status for the heading: what is still to do, or whether it is saved. */
    status(index, saving) {
      const answer = state.answer(index);
      if (!answer?.choice) return { text: "Not chosen yet", kind: "todo" };
      if (state.strengthMissing(index)) return { text: `Now choose how much better ${SIDE[answer.choice]} is`, kind: "todo" };
      if (saving) return { text: "Saving…", kind: "saving" };
      const strength = state.needsStrength(answer) ? ` (${labels[String(answer.strength)] ?? answer.strength})` : "";
      return { text: `Saved: ${NAMES[answer.choice]}${strength}`, kind: "saved" };
    },
    describe: (index, complete) => `Pair ${index + 1}${complete ? `, ${NAMES[state.answer(index).choice]}` : ", not chosen yet"}`,
    progress: (done, total) => `${done} of ${total} pairs chosen`,
  };
}
