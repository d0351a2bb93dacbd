/**
 * The document: one row per segment, the source beside its translation (and
 * the reference under it, when the study shows one), every error drawn over
 * the words it covers (highlights.js), and the segment's errors listed under
 * it. Segments already reached can be read and changed; the current one holds
 * the tools (tools.js); later ones are shown dimmed, to read ahead, and take
 * no work. A contrastive page's row shows the source once and then each
 * translation in a cell of its own, with its own errors and score.
 *
 * The rows are built once; render() only changes what changed, so a save
 * finishing never rebuilds the text under the mouse or takes the focus away.
 */

import { el, fill, fillRows } from "../worker/dom.js";
import { errorLabel, languageAttributes, languageName, marksFor, pieces, quoted, severityClass, whereLabel } from "./highlights.js";
import { MISSING, SOURCE, TARGET } from "./state.js";

/**
 * Builds the rows once; returns render(), which brings them up to date with the state. On a
 * contrastive page each translation's cell holds its errors and, in the current segment, its
 * score control; task.css lays the cells out in columns where they fit.
 */
export function documentView(state, els, { onRemove, onOpen }) {
  const source = languageAttributes(state.document.source_lang);
  const target = languageAttributes(state.document.target_lang);
  const sourceName = languageName(state.document.source_lang);
  const targetName = languageName(state.document.target_lang);
  const hasSources = state.segments.some((s) => s.source);
  const outputs = state.outputs.map((_, output) => output);
  const total = state.segments.length;
  const rows = new Map();
  const drawn = new Map(); // what each text cell and list shows now (a signature), to skip unchanged ones
  const textKey = (side, output) => (side === TARGET ? `${TARGET}:${output}` : side);

  function textNode(side, segment, output) {
    const attributes = side === SOURCE ? source : target;
    const text = el("div", {
      className: side === "reference" ? "ref-text" : "seg-text",
      lang: attributes.lang,
      dir: attributes.dir,
      dataset: { side, segment: segment.index, ...(state.contrastive && side === TARGET ? { output } : {}) },
    });
    if (side === "reference") text.textContent = segment.reference ?? "";
    return text;
  }

  function cell(side, segment) {
    const name = side === SOURCE ? sourceName : targetName;
    const title = side === SOURCE ? "Source" : side === TARGET ? "Translation" : "Reference";
    const text = textNode(side, segment, 0);
    return {
      box: el(
        "div",
        { className: `seg-cell cell-${side}` },
        el("div", { className: "cell-label", "aria-hidden": "true" }, name ? `${title} · ${name}` : title),
        text,
      ),
      text,
    };
  }

  /** One translation of a contrastive page's segment: its name, text, [missing] marks, errors and score. */
  function outputCell(segment, output) {
    const name = state.outputLabel(output);
    const titleId = `segment-${segment.index}-output-${output}`;
    const text = textNode(TARGET, segment, output);
    const status = el("span", { className: "output-status" });
    const missing = el("div", { className: "missing-marks" });
    const list = el("ul", { className: "error-list", "aria-label": `Errors marked in ${name} of segment ${segment.index + 1}` });
    const scoreSlot = el("div", { className: "output-score-slot" });
    const box = el(
      "div",
      { className: "seg-cell cell-target output-cell", role: "group", "aria-labelledby": titleId, dataset: { output } },
      el("div", { className: "output-head" }, el("h3", { className: "output-title", id: titleId }, targetName ? `${name} · ${targetName}` : name), status),
      text,
      missing,
      list,
      scoreSlot,
    );
    return { box, text, status, missing, list, scoreSlot };
  }

  function contrastiveRow(segment) {
    const sourceCell = hasSources ? cell(SOURCE, segment) : null;
    const referenceCell = state.study.show_reference ? cell("reference", segment) : null;
    const cells = outputs.map((output) => outputCell(segment, output));
    const texts = Object.fromEntries(cells.map((c, output) => [textKey(TARGET, output), c.text]));
    return {
      parts: [
        sourceCell || referenceCell
          ? el("div", { className: sourceCell && referenceCell ? "seg-texts two" : "seg-texts" }, sourceCell?.box, referenceCell?.box)
          : null,
        el("div", { className: "seg-outputs" }, el("div", { className: `output-grid outputs-${outputs.length}` }, cells.map((c) => c.box))),
      ],
      texts: { [SOURCE]: sourceCell?.text, ...texts },
      outputs: cells,
    };
  }

  function singleRow(segment) {
    const sourceCell = hasSources ? cell(SOURCE, segment) : null;
    const targetCell = cell(TARGET, segment);
    const missing = el("div", { className: "missing-marks" });
    targetCell.box.append(missing);
    const referenceCell = state.study.show_reference ? cell("reference", segment) : null;
    const list = el("ul", { className: "error-list", "aria-label": `Errors marked in segment ${segment.index + 1}` });
    return {
      parts: [
        el("div", { className: hasSources ? "seg-texts two" : "seg-texts" }, sourceCell?.box, targetCell.box, referenceCell?.box),
        list,
      ],
      texts: { [SOURCE]: sourceCell?.text, [textKey(TARGET, 0)]: targetCell.text },
      outputs: [{ box: targetCell.box, missing, list, status: null, scoreSlot: null }],
    };
  }

  for (const segment of state.segments) {
    const index = segment.index;
    const open = el("button", { type: "button", className: "open-segment", "aria-label": `Open segment ${index + 1}` }, "Open");
    open.addEventListener("click", () => onOpen(index));
    const status = el("span", { className: "seg-status" });
    const slot = el("div", { className: "seg-tools" });
    const { parts, texts, outputs: cells } = state.contrastive ? contrastiveRow(segment) : singleRow(segment);
    const row = el(
      "section",
      { className: state.contrastive ? "seg-row contrastive" : "seg-row", dataset: { index }, tabIndex: -1 },
      el("div", { className: "seg-head" }, el("h2", { className: "seg-title", id: `segment-${index}-title` }, `Segment ${index + 1}`), status, open),
      ...parts,
      slot,
    );
    rows.set(index, { row, status, open, slot, texts, outputs: cells });
  }
  fill(els.segments, [...rows.values()].map((r) => r.row));

  function textCell(index, side, parts, cellLabel, output = 0) {
    const node = rows.get(index).texts[textKey(side, output)];
    if (!node) return;
    const text = state.text(index, side, output);
    const marks = marksFor(state, index, side, output);
    const key = `${index}:${textKey(side, output)}`;
    const signature = JSON.stringify([marks, parts.selectable]);
    if (drawn.get(key) !== signature) {
      drawn.set(key, signature);
      fill(node, pieces(text, marks));
    }
    // The current segment's texts take the keyboard (the arrows choose words in them).
    if (parts.focusable) {
      node.tabIndex = 0;
      node.setAttribute("aria-label", `${cellLabel} of segment ${index + 1}`);
      node.setAttribute("aria-describedby", "text-keys-hint");
    } else {
      node.removeAttribute("tabindex");
      node.removeAttribute("aria-label");
      node.removeAttribute("aria-describedby");
    }
    node.classList.toggle("selectable", parts.selectable);
  }

  function errorRow(error, removable) {
    const row = el(
      "li",
      { className: "error-row", dataset: { clientId: error.client_id, saved: String(error.saved) } },
      error.badge ? el("span", { className: "error-badge" }, error.badge) : null,
      el("span", { className: `sev-badge ${severityClass(state, error.severity)}` }, error.severity),
      error.category ? el("strong", { className: "error-category" }, state.category(error.category)?.label ?? error.category) : null,
      el("span", { className: "error-where" }, whereLabel(state, error)),
      error.side === MISSING ? null : quoted(error.text),
      error.saved ? null : el("span", { className: "error-saving" }, "saving…"),
      error.comment ? el("span", { className: "error-comment" }, `Note: ${error.comment}`) : null,
    );
    if (removable) {
      const what = error.side === MISSING ? "[missing]" : error.text;
      const whose = state.contrastive ? ` in ${state.outputLabel(error.output)}` : "";
      const remove = el("button", { type: "button", className: "remove", "aria-label": `Remove ${errorLabel(state, error)}${whose}: ${what}` }, "Remove");
      remove.addEventListener("click", () => onRemove(error.client_id));
      row.append(remove);
    }
    return row;
  }

  const errorCount = (count) => (count === 1 ? "1 error" : `${count} errors`);

  function statusText(index) {
    if (!state.isReached(index)) return "Not reached yet";
    const parts = [];
    if (index === state.current) parts.push("Current");
    if (state.marksErrors) parts.push(errorCount(state.errorsOf(index).length));
    if (state.scoring && state.contrastive) {
      const scored = outputs.filter((output) => typeof state.score(index, output) === "number").length;
      parts.push(`${scored} of ${outputs.length} scored`);
    } else if (state.scoring) {
      parts.push(typeof state.score(index) === "number" ? `score ${state.score(index)}` : "not scored");
    }
    return parts.join(" · ");
  }

  /** A translation's own line on a contrastive page: its errors and its score. */
  function outputStatus(index, output) {
    if (!state.isReached(index)) return "";
    const parts = [];
    if (state.marksErrors) parts.push(errorCount(state.errorsOf(index, output).length));
    if (state.scoring) parts.push(typeof state.score(index, output) === "number" ? `score ${state.score(index, output)}` : "not scored");
    return parts.join(" · ");
  }

  return {
    /** `tools` goes under the current segment; on a contrastive page, `scoreNodes[output]` under each translation. */
    render(tools, scoreNodes = []) {
      for (const [index, parts] of rows) {
        const reached = state.isReached(index);
        const current = index === state.current;
        parts.row.classList.toggle("current", current);
        parts.row.classList.toggle("reached", reached && !current);
        parts.row.classList.toggle("unreached", !reached);
        if (current) parts.row.setAttribute("aria-current", "step");
        else parts.row.removeAttribute("aria-current");
        parts.status.textContent = statusText(index);
        parts.open.hidden = current || !reached || state.readOnly;
        const open = reached && !state.readOnly && state.marksErrors;
        for (const output of outputs) {
          const label = state.contrastive ? state.outputLabel(output) : "Translation";
          textCell(index, TARGET, { selectable: open, focusable: open && current }, label, output);
        }
        if (state.study.source_spans) textCell(index, SOURCE, { selectable: open, focusable: open && current }, "Source");
        else textCell(index, SOURCE, { selectable: false, focusable: false }, "Source");

        const removable = reached && !state.readOnly;
        for (const output of outputs) {
          const cell = parts.outputs[output];
          const errors = state.errorsOf(index, state.contrastive ? output : null);
          const listSignature = JSON.stringify([errors, removable]);
          if (drawn.get(`list:${index}:${output}`) !== listSignature) {
            drawn.set(`list:${index}:${output}`, listSignature);
            const missing = errors.filter((e) => e.side === MISSING);
            fill(cell.missing, missing.map((e) => el("span", { className: `missing-chip ${severityClass(state, e.severity)}`, title: errorLabel(state, e) }, "[missing]")));
            // Rows whose error is unchanged keep their nodes: a Remove being pressed survives.
            fillRows(cell.list, errors, (e) => JSON.stringify([e, removable]), (e) => errorRow(e, removable));
            cell.list.hidden = errors.length === 0;
          }
          if (!state.contrastive) continue;
          cell.status.textContent = outputStatus(index, output);
          cell.box.classList.toggle("active", current && !state.readOnly && state.active === output);
          cell.scoreSlot.hidden = state.readOnly;
          const control = scoreNodes[output];
          if (current && control && control.parentNode !== cell.scoreSlot) cell.scoreSlot.append(control);
        }
        if (current && tools && tools.parentNode !== parts.slot) parts.slot.append(tools);
      }
    },
    row: (index) => rows.get(index)?.row ?? null,
    textElement: (index, side, output = 0) => rows.get(index)?.texts[textKey(side, output)] ?? null,
    cells: () => [...els.segments.querySelectorAll(".seg-text")],
    total,
  };
}
