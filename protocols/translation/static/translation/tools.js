/**
 * The tools under the current segment (task.html's #tools, moved into the
 * current row by render.js): the error being marked with its severity
 * buttons (1, 2, ... mildest first), the MQM categories (their letters), the
 * [missing] marker, a note and Cancel; on a contrastive page, which
 * translation the error is for; the segment's score (score.js: one control
 * here, or on a contrastive page one per translation, shown under its text);
 * Previous, Next and Submit. Built once; render() draws them from the state.
 */

import { el, fill } from "../worker/dom.js";
import { outputScoreNodes, scaleLabels, scoreControl } from "./score.js";
import { MISSING, SOURCE } from "./state.js";

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

  // --- which translation (a contrastive page) ------------------------------------------
  const outputButtons = new Map();
  if (els.outputs) {
    fill(
      els.outputs,
      state.outputs.map((_, output) => {
        const button = el("button", { type: "button", className: "output-choice", "aria-pressed": "false", dataset: { output } }, state.outputLabel(output));
        button.addEventListener("click", () => actions.output(output));
        outputButtons.set(output, button);
        return button;
      }),
    );
  }

  // --- the score -----------------------------------------------------------------------
  const scale = state.scale;
  const scoreControls = new Map(); // output -> render()
  const scoreNodes = []; // a contrastive page's controls, one per translation, placed by render.js
  const ranges = [els.range]; // each translation's slider
  if (state.scoring) {
    const labels = scaleLabels(scale);
    fill(
      els.scaleLabels,
      Object.entries(labels)
        .map(([point, text]) => [Number(point), text])
        .sort((a, b) => a[0] - b[0])
        .map(([point, text]) => el("li", {}, el("span", { className: "scale-point" }, String(point)), " ", text)),
    );
    els.scaleLabels.hidden = !Object.keys(labels).length;
    if (state.contrastive) {
      state.outputs.forEach((_, output) => {
        const nodes = outputScoreNodes(state, output);
        scoreNodes[output] = nodes.box;
        ranges[output] = nodes.range;
        scoreControls.set(output, scoreControl(state, nodes, { score: (value) => actions.score(output, value), say: actions.say }));
      });
    } else if (els.range) {
      const nodes = { range: els.range, number: els.number, status: els.scoreStatus, warning: els.scoreWarning };
      scoreControls.set(0, scoreControl(state, nodes, { score: (value) => actions.score(0, value), say: actions.say }));
    }
  }

  /** The slider of translation `output`'s score. */
  const scoreRange = (output) => ranges[output] ?? null;

  function prompt() {
    const { place, category, severity } = state.pending;
    const chosen = category ? state.category(category) : null;
    if (state.atCap(state.current)) {
      const which = state.contrastive ? `${state.outputLabel(state.active)} of this segment` : "This segment";
      return `${which} has ${state.cap} errors, the most this study allows: remove one to mark another.`;
    }
    if (!place) {
      const translation = state.contrastive ? state.outputLabel(state.active) : "the translation";
      const where = state.study.source_spans ? `${translation} (or, for an omission, in the source)` : translation;
      const missing = state.study.missing_marker ? ", or press [missing] for an omission" : "";
      const what = chosen ? `the “${chosen.label}” error` : "an error";
      return `Select the words of ${what} in ${where}: drag with the mouse, or Tab to the text and use the arrow keys${missing}.`;
    }
    const needs = [];
    if (!severity) needs.push(`its severity (${state.severities.map((s, i) => `${i + 1} ${s}`).join(", ")})`);
    if (state.scheme === "mqm" && !category) needs.push("its category (its letter)");
    return needs.length ? `Now choose ${needs.join(" and ")}.` : "";
  }

  function pendingDescription(place) {
    if (state.contrastive) {
      const name = state.outputLabel(place.output);
      if (place.side === MISSING) return [el("strong", {}, "[missing]"), ` an omission in ${name}: nothing to select`];
      return [el("q", { className: "span-text" }, place.text), place.side === SOURCE ? ` in the source, for ${name}` : ` in ${name}`];
    }
    if (place.side === MISSING) return [el("strong", {}, "[missing]"), " an omission: nothing to select in the translation"];
    return [el("q", { className: "span-text" }, place.text), place.side === SOURCE ? " in the source" : " in the translation"];
  }

  return {
    severityButtons,
    categoryButtons,
    scoreNodes,
    scoreRange,
    /** scoreSaving(output): whether that translation's score of the current segment is still on its way. */
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
      for (const [output, button] of outputButtons) {
        button.setAttribute("aria-pressed", String(state.active === output));
        button.disabled = locked;
      }
      for (const [output, renderScore] of scoreControls) {
        renderScore({ index: state.current, output, saving: scoreSaving(output), locked });
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
