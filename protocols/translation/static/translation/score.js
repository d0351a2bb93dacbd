/**
 * A translation's score control: a slider and a number field on the study's
 * scale, the score's status (not scored, saving, saved) and the server's ESA
 * warning. The one-translation page has one, in the tools (task.html); a
 * contrastive page has one per translation, built here and shown under the
 * translation's text in the current segment (render.js puts it there).
 */

import { el } from "../worker/dom.js";

// The words of the ESA / DA+SQM scale (Kocmi et al. 2024), shown when the study gives none.
const DEFAULT_LABELS = {
  "0-100": { 0: "No meaning preserved", 33: "Some meaning preserved", 66: "Most meaning preserved, few grammar mistakes", 100: "Perfect meaning and grammar" },
  "0-6": { 0: "No meaning preserved", 2: "Some meaning preserved", 4: "Most meaning preserved, few grammar mistakes", 6: "Perfect meaning and grammar" },
};

export function scaleLabels(scale) {
  if (!scale) return {};
  if (scale.labels && Object.keys(scale.labels).length) return scale.labels;
  return DEFAULT_LABELS[`${scale.min}-${scale.max}`] ?? {};
}

/** The nodes of translation `output`'s own control on a contrastive page, labelled with its name. */
export function outputScoreNodes(state, output) {
  const { min, max } = state.scale;
  const name = state.outputLabel(output);
  const range = el("input", { type: "range", id: `score-range-${output}`, className: "score-range unset", dataset: { output } });
  const number = el("input", {
    type: "number", id: `score-number-${output}`, className: "score-number", inputMode: "numeric",
    "aria-label": `Score of ${name} as a number from ${min} to ${max}`, dataset: { output },
  }); // prettier-ignore
  const status = el("p", { className: "score-status" });
  const warning = el("p", { className: "notice score-warning", role: "status", hidden: true });
  const box = el(
    "div",
    { className: "output-score", dataset: { output } },
    el(
      "div",
      { className: "score-controls" },
      el("label", { htmlFor: range.id, className: "score-label" }, "Score", el("span", { className: "visually-hidden" }, ` of ${name}`)),
      range,
      number,
    ),
    status,
    warning,
  );
  return { box, range, number, status, warning };
}

/**
 * Wires one control's nodes ({range, number, status, warning}) to the scale;
 * `score(value)` saves a value. Returns render({index, output, saving, locked}),
 * which shows translation `output`'s score of segment `index`.
 */
export function scoreControl(state, nodes, { score, say }) {
  const { range, number, status, warning } = nodes;
  const scale = state.scale;
  const labels = scaleLabels(scale);
  const valueText = (value) => (labels[String(value)] ? `${value}: ${labels[String(value)]}` : String(value));
  for (const input of [range, number]) {
    input.min = String(scale.min);
    input.max = String(scale.max);
    input.step = "1";
  }
  range.addEventListener("input", () => {
    range.classList.remove("unset");
    number.value = range.value;
    range.setAttribute("aria-valuetext", valueText(range.value));
  });
  range.addEventListener("change", () => score(Number(range.value)));
  const commitNumber = () => {
    const raw = number.value.trim();
    if (raw === "") return;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < scale.min || value > scale.max) {
      say(`A score is a whole number from ${scale.min} to ${scale.max}.`, { error: true });
      return;
    }
    score(value);
  };
  number.addEventListener("change", commitNumber);
  number.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    commitNumber();
  });

  return function render({ index, output, saving, locked }) {
    const value = state.score(index, output);
    const scored = typeof value === "number";
    const typing = document.activeElement === number;
    range.disabled = number.disabled = locked;
    // Set the controls only when the segment or its score changed: a render in the middle of
    // a slider's drag must not move the thumb back before its change is sent.
    const shown = `${index}:${scored ? value : ""}`;
    if (range.dataset.shown !== shown) {
      range.dataset.shown = shown;
      range.classList.toggle("unset", !scored);
      range.value = String(scored ? value : Math.round((scale.min + scale.max) / 2));
      if (!typing) number.value = scored ? String(value) : "";
      range.setAttribute("aria-valuetext", scored ? valueText(value) : "not scored yet");
    }
    status.textContent = !scored ? "Not scored yet." : saving ? `Saving ${value}…` : `Saved: ${value}.`;
    status.dataset.kind = !scored ? "todo" : saving ? "saving" : "saved";
    const text = scored && !saving ? state.warning(index, output) : "";
    warning.hidden = !text;
    warning.textContent = text;
  };
}
