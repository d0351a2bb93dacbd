/**
 * Controls both rating pages use: a scale of native radio buttons (the
 * Likert score, the BWS value) and a titled text panel; the strip of numbered
 * buttons is the shared one (../worker/units.js).
 */

import { el } from "../worker/dom.js";

/**
 * A radiogroup of one native radio per point, each labelled with its number
 * and, where the study gives one, its label ({"1": "very poor", ...}).
 * Arrow keys move and choose inside the group, as browsers do natively.
 */
export function scaleGroup({ name, points, labels = {}, labelledBy, onChoose }) {
  const inputs = new Map();
  const group = el(
    "div",
    { className: "scale", role: "radiogroup", "aria-labelledby": labelledBy },
    points.map((point) => {
      const label = typeof labels[String(point)] === "string" ? labels[String(point)] : "";
      const input = el("input", { type: "radio", name, value: String(point), className: "scale-input" });
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
  group.style.setProperty("--points", String(points.length)); // equal columns in rate.css
  return {
    node: group,
    /** Show `value` as chosen (null: none). Keeps keyboard focus inside the group on the chosen point. */
    show(value) {
      const focusInside = group.contains(document.activeElement);
      for (const [point, input] of inputs) input.checked = point === value;
      if (focusInside && inputs.has(value)) inputs.get(value).focus();
    },
    disable(disabled) {
      for (const input of inputs.values()) input.disabled = disabled;
      group.setAttribute("aria-disabled", String(disabled));
    },
  };
}

/** A titled box of study text, shown exactly as stored (rate.css: pre-wrap). */
export function textPanel(title, text, className) {
  return el(
    "section",
    { className: `text-panel ${className}` },
    el("h3", { className: "panel-title" }, title),
    // Focusable, so that a long text scrolls with the keyboard too.
    el("div", { className: "panel-text", tabIndex: 0, "aria-label": title }, text),
  );
}
