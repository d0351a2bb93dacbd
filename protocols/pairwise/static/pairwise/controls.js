/**
 * The page's controls: the strength scale (native radio buttons); the strip of
 * numbered buttons is the shared one (../worker/units.js).
 */

import { el, fill } from "../worker/dom.js";

/** Labels when the study gives none: the ends of the scale. */
export function defaultStrengthLabels(max) {
  return max === 2 ? { 1: "slightly better", 2: "clearly better" } : { 1: "slightly better", [max]: "much better" };
}

/**
 * A radiogroup of one native radio per grade 1..max, each labelled with its
 * number and its label where there is one. Arrow keys move and choose inside
 * the group, as browsers do natively.
 */
export function strengthScale(container, { max, labels, onChoose }) {
  const inputs = new Map();
  const points = Array.from({ length: max }, (_, offset) => offset + 1);
  fill(
    container,
    points.map((point) => {
      const label = typeof labels[String(point)] === "string" ? labels[String(point)] : "";
      const input = el("input", { type: "radio", name: "strength", value: String(point), className: "scale-input" });
      input.addEventListener("change", () => {
        if (input.checked) onChoose(point);
      });
      inputs.set(point, input);
      return el(
        "label",
        { className: label ? "scale-point labelled" : "scale-point" },
        input,
        el("span", { className: "scale-number" }, String(point)),
        label ? el("span", { className: "scale-label" }, label) : null,
      );
    }),
  );
  container.style.setProperty("--points", String(max)); // equal columns in pairwise.css
  return {
    /** Show `value` as chosen (null: none); keeps the focus on the chosen point when it is inside. */
    show(value) {
      const focusInside = container.contains(document.activeElement);
      for (const [point, input] of inputs) input.checked = point === value;
      if (focusInside && inputs.has(value)) inputs.get(value).focus();
    },
    disable(disabled) {
      for (const input of inputs.values()) input.disabled = disabled;
      container.setAttribute("aria-disabled", String(disabled));
    },
  };
}
