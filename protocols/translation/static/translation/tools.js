/**
 * The tools under the current segment (task.html's #tools, moved into the
 * current row by render.js): the error being marked with its severity
 * buttons (1, 2, ... mildest first), the MQM categories (their letters), the
 * [missing] marker, a note and Cancel; the segment's score (a slider and a
 * number field, with the scale's labels, and the server's ESA warning);
 * Previous, Next and Submit. Built once; render() draws them from the state.
 */

import { el, fill } from "../worker/dom.js";
import { MISSING, SOURCE } from "./state.js";

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

/** Digits set the score directly on a scale of at most ten points inside 0-9 (SQM's 0-6). */
export function digitScale(scale) {
  return Boolean(scale) && scale.min >= 0 && scale.max <= 9;
}

/** A category's label on its button: under its group's heading, "Accuracy/Omission" reads "Omission". */
function shortLabel(category) {
  const prefix = `${category.group ?? ""}/`;
  const label = category.label;
  return prefix.length > 1 && label.toLowerCase().startsWith(prefix.toLowerCase()) && label.length > prefix.length ? label.slice(prefix.length) : label;
}

export function buildTools(state, els, actions) {
  const severityButtons = new Map();
  const categoryButtons = new Map();

  if (els.severities) {
    fill(
      els.severities,
      state.severities.map((name, rank) => {
        const button = el(
          "button",
          { type: "button", className: `severity sev-button-${rank}`, "aria-pressed": "false", dataset: { severity: name } },
          el("kbd", {}, String(rank + 1)),
          " ",
          name,
        );
        button.addEventListener("click", () => actions.severity(name));
        severityButtons.set(name, button);
        return button;
      }),
    );
  }

  if (els.categories) {
    const describe = (category) =>
      fill(els.description, el("strong", {}, category.label), " ", category.whole_segment ? "(the whole segment) " : "", category.description || "");
    const groups = new Map();
    for (const category of state.categories) {
      if (!groups.has(category.group)) groups.set(category.group, []);
      groups.get(category.group).push(category);
    }
    fill(
      els.categories,
      [...groups].map(([group, categories]) =>
        el(
          "div",
          { className: "category-group" },
          group ? el("h4", { className: "group-name" }, group) : null,
          el(
            "div",
            { className: "category-chips" },
            categories.map((category) => {
              const button = el(
                "button",
                { type: "button", className: "category", "aria-pressed": "false", "aria-describedby": "category-description", dataset: { key: category.key } },
                category.shortcut ? el("kbd", {}, category.shortcut) : null,
                category.shortcut ? " " : null,
                el("span", { className: "category-label" }, shortLabel(category)),
                category.whole_segment ? el("span", { className: "kind" }, " (whole segment)") : null,
              );
              button.addEventListener("click", () => actions.category(category.key));
              button.addEventListener("focus", () => describe(category));
              button.addEventListener("mouseenter", () => describe(category));
              categoryButtons.set(category.key, button);
              return button;
            }),
          ),
        ),
      ),
    );
  }

  els.missing?.addEventListener("click", () => actions.missing());
  els.cancel?.addEventListener("click", () => actions.cancel());
  els.comment?.addEventListener("input", () => actions.comment(els.comment.value));

  // --- the score ---------------------------------------------------------------------
  const scale = state.scale;
  const labels = scaleLabels(scale);
  const valueText = (value) => (labels[String(value)] ? `${value}: ${labels[String(value)]}` : String(value));
  if (els.range && scale) {
    for (const input of [els.range, els.number]) {
      input.min = String(scale.min);
      input.max = String(scale.max);
      input.step = "1";
    }
    fill(
      els.scaleLabels,
      Object.entries(labels)
        .map(([point, text]) => [Number(point), text])
        .sort((a, b) => a[0] - b[0])
        .map(([point, text]) => el("li", {}, el("span", { className: "scale-point" }, String(point)), " ", text)),
    );
    els.scaleLabels.hidden = !Object.keys(labels).length;
    els.range.addEventListener("input", () => {
      els.range.classList.remove("unset");
      els.number.value = els.range.value;
      els.range.setAttribute("aria-valuetext", valueText(els.range.value));
    });
    els.range.addEventListener("change", () => actions.score(Number(els.range.value)));
    const commitNumber = () => {
      const raw = els.number.value.trim();
      if (raw === "") return;
      const value = Number(raw);
      if (!Number.isInteger(value) || value < scale.min || value > scale.max) {
        actions.say(`A score is a whole number from ${scale.min} to ${scale.max}.`, { error: true });
        return;
      }
      actions.score(value);
    };
    els.number.addEventListener("change", commitNumber);
    els.number.addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault();
      commitNumber();
    });
  }

  function prompt() {
    const { place, category, severity } = state.pending;
    const chosen = category ? state.category(category) : null;
    if (state.atCap(state.current)) {
      return `This segment has ${state.cap} errors, the most this study allows: remove one to mark another.`;
    }
    if (!place) {
      const where = state.study.source_spans ? "the translation (or, for an omission, in the source)" : "the translation";
      const missing = state.study.missing_marker ? ", or press [missing] for an omission" : "";
      const what = chosen ? `the “${chosen.label}” error` : "an error";
      return `Select the words of ${what} in ${where}: drag with the mouse, or Tab to the text and use the arrow keys${missing}.`;
    }
    const needs = [];
    if (!severity) needs.push(`its severity (${state.severities.map((s, i) => `${i + 1} ${s}`).join(", ")})`);
    if (state.protocol === "mqm" && !category) needs.push("its category (its letter)");
    return needs.length ? `Now choose ${needs.join(" and ")}.` : "";
  }

  function pendingDescription(place) {
    if (place.side === MISSING) return [el("strong", {}, "[missing]"), " an omission: nothing to select in the translation"];
    return [el("q", { className: "span-text" }, place.text), place.side === SOURCE ? " in the source" : " in the translation"];
  }

  return {
    severityButtons,
    categoryButtons,
    render({ scoreSaving }) {
      const locked = state.readOnly || state.submitting;
      els.tools.hidden = state.readOnly;
      if (els.errorPanel) {
        const capped = state.atCap(state.current);
        els.prompt.textContent = prompt();
        const place = state.pending.place;
        els.pending.hidden = !place;
        fill(els.pendingText, place ? pendingDescription(place) : null);
        for (const [name, button] of severityButtons) {
          button.setAttribute("aria-pressed", String(state.pending.severity === name));
          button.disabled = locked || capped;
        }
        for (const [key, button] of categoryButtons) {
          button.setAttribute("aria-pressed", String(state.pending.category === key));
          button.disabled = locked || capped;
        }
        if (els.missing) {
          els.missing.disabled = locked || capped;
          els.missing.setAttribute("aria-pressed", String(place?.side === MISSING));
        }
        if (els.comment.value !== state.pending.comment) els.comment.value = state.pending.comment;
        els.comment.disabled = locked;
        els.cancel.disabled = locked || !state.pendingStarted;
      }
      if (els.scorePanel && scale) {
        const index = state.current;
        const value = state.scores[index];
        const scored = typeof value === "number";
        const typing = document.activeElement === els.number;
        els.range.disabled = els.number.disabled = locked;
        // Set the controls only when the segment or its score changed: a render in the middle of
        // a slider's drag must not move the thumb back before its change is sent.
        const shown = `${index}:${scored ? value : ""}`;
        if (els.range.dataset.shown !== shown) {
          els.range.dataset.shown = shown;
          els.range.classList.toggle("unset", !scored);
          els.range.value = String(scored ? value : Math.round((scale.min + scale.max) / 2));
          if (!typing) els.number.value = scored ? String(value) : "";
          els.range.setAttribute("aria-valuetext", scored ? valueText(value) : "not scored yet");
        }
        els.scoreStatus.textContent = !scored ? "Not scored yet." : scoreSaving ? `Saving ${value}…` : `Saved: ${value}.`;
        els.scoreStatus.dataset.kind = !scored ? "todo" : scoreSaving ? "saving" : "saved";
        const warning = scored && !scoreSaving ? (state.warnings[index] ?? "") : "";
        els.scoreWarning.hidden = !warning;
        els.scoreWarning.textContent = warning;
      }
      const last = state.current >= state.lastIndex;
      els.previous.disabled = state.current <= 0 || locked;
      els.next.hidden = last;
      els.next.disabled = locked;
      els.submit.hidden = !last;
      els.submit.disabled = locked;
      els.submit.textContent = state.submitting ? "Submitting…" : "Submit";
    },
  };
}
