/**
 * The document: one row per segment, the source beside its translation (and
 * the reference under it, when the study shows one), every error drawn over
 * the words it covers, and the segment's errors listed under it. Segments
 * already reached can be read and changed; the current one holds the tools
 * (tools.js); later ones are shown dimmed, to read ahead, and take no work.
 *
 * A text cell (.seg-text) holds exactly its text as text nodes, each piece
 * wrapped in a <span> where something covers it, so that a selection's
 * offsets can be counted over them (../worker/ranges.js). The rows are built
 * once; render() only changes what changed, so a save finishing never
 * rebuilds the text under the mouse or takes the focus away.
 */

import { el, fill } from "../worker/dom.js";
import { unitTable } from "../worker/offsets.js";
import { MISSING, SOURCE, TARGET } from "./state.js";

// Languages written right to left (their primary subtag); any other language gets dir="auto".
const RTL = new Set(["ar", "arc", "ckb", "dv", "fa", "he", "iw", "ks", "ku", "ps", "sd", "syr", "ug", "ur", "yi"]);
const LANGUAGE_TAG = /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i;
const KNOWN_SEVERITIES = new Set(["neutral", "minor", "major", "critical"]);

/** lang and dir of a text cell from the document's language code ("ar", "zh-Hant", ...). */
export function languageAttributes(code) {
  const tag = typeof code === "string" && LANGUAGE_TAG.test(code) ? code : "";
  const primary = tag.split("-")[0].toLowerCase();
  const rtl = RTL.has(primary) || /-(arab|hebr|thaa|syrc)\b/i.test(tag);
  return { lang: tag || null, dir: rtl ? "rtl" : "auto" };
}

function languageName(code) {
  const { lang } = languageAttributes(code);
  if (!lang) return "";
  try {
    return new Intl.DisplayNames(["en"], { type: "language" }).of(lang) ?? lang;
  } catch {
    return lang;
  }
}

/** The highlight class of a severity: the known names, else by rank (the most severe looks Major). */
export function severityClass(state, name) {
  const lower = String(name ?? "").toLowerCase();
  if (KNOWN_SEVERITIES.has(lower)) return `sev-${lower}`;
  return state.severityRank(name) >= state.severities.length - 1 ? "sev-major" : "sev-minor";
}

export function errorLabel(state, error) {
  const category = error.category ? (state.category(error.category)?.label ?? error.category) : "";
  const label = category ? `${error.severity} · ${category}` : error.severity;
  // A badge the server puts on an error (e.g. one it pre-filled) leads its label.
  return error.badge ? `${error.badge}: ${label}` : label;
}

function whereLabel(state, error) {
  if (error.side === MISSING) return "[missing]";
  if (error.side === SOURCE) return "in the source";
  if (error.category && state.category(error.category)?.whole_segment) return "whole segment";
  return "in the translation";
}

/** Everything drawn over one side of one segment: its errors and the span being marked. */
function marksFor(state, index, side) {
  const marks = state.errors
    .filter((e) => e.segment === index && e.side === side)
    .map((e) => ({ start: e.start, end: e.end, id: e.client_id, rank: state.severityRank(e.severity), cls: severityClass(state, e.severity), label: errorLabel(state, e), badged: Boolean(e.badge) }));
  const place = state.pending.place;
  if (place && place.segment === index && place.side === side) marks.push({ start: place.start, end: place.end, pending: true });
  return marks;
}

function pieces(text, marks) {
  const units = unitTable(text);
  const spans = marks.filter((m) => m.start < m.end && m.end < units.length).map((m) => ({ ...m, from: units[m.start], to: units[m.end] }));
  const cuts = new Set([0, text.length]);
  for (const span of spans) cuts.add(span.from).add(span.to);
  const bounds = [...cuts].sort((a, b) => a - b);
  const out = [];
  for (let i = 0; i + 1 < bounds.length; i += 1) {
    const [from, to] = [bounds[i], bounds[i + 1]];
    const covering = spans.filter((s) => s.from <= from && s.to >= to);
    const chunk = text.slice(from, to);
    if (!covering.length) {
      out.push(document.createTextNode(chunk));
      continue;
    }
    const piece = el("span", { className: "piece" }, chunk);
    const errors = covering.filter((m) => !m.pending);
    if (covering.some((m) => m.pending)) piece.classList.add("hl-pending");
    if (errors.length) {
      // Several errors over one piece: the most severe one's look, every one in the tooltip.
      const worst = errors.reduce((a, b) => (b.rank > a.rank ? b : a));
      piece.classList.add("hl", worst.cls);
      if (errors.length > 1) piece.classList.add("hl-overlap");
      if (errors.some((m) => m.badged)) piece.classList.add("hl-badged");
      piece.dataset.ids = errors.map((m) => m.id).join(" ");
      piece.title = errors.map((m) => m.label).join("; ");
    }
    out.push(piece);
  }
  return out;
}

function quoted(text) {
  return el("q", { className: "span-text" }, text);
}

/** Builds the rows once; returns render(), which brings them up to date with the state. */
export function documentView(state, els, { onRemove, onOpen }) {
  const source = languageAttributes(state.document.source_lang);
  const target = languageAttributes(state.document.target_lang);
  const sourceName = languageName(state.document.source_lang);
  const targetName = languageName(state.document.target_lang);
  const hasSources = state.segments.some((s) => s.source);
  const total = state.segments.length;
  const rows = new Map();
  const drawn = new Map(); // what each text cell and list shows now (a signature), to skip unchanged ones

  function cell(side, segment) {
    const attributes = side === SOURCE ? source : target;
    const name = side === SOURCE ? sourceName : targetName;
    const title = side === SOURCE ? "Source" : side === TARGET ? "Translation" : "Reference";
    const text = el("div", {
      className: side === "reference" ? "ref-text" : "seg-text",
      lang: attributes.lang,
      dir: attributes.dir,
      dataset: { side, segment: segment.index },
    });
    if (side === "reference") text.textContent = segment.reference ?? "";
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

  for (const segment of state.segments) {
    const index = segment.index;
    const titleId = `segment-${index}-title`;
    const sourceCell = hasSources ? cell(SOURCE, segment) : null;
    const targetCell = cell(TARGET, segment);
    const missing = el("div", { className: "missing-marks" });
    targetCell.box.append(missing);
    const referenceCell = state.study.show_reference ? cell("reference", segment) : null;
    const open = el("button", { type: "button", className: "open-segment", "aria-label": `Open segment ${index + 1}` }, "Open");
    open.addEventListener("click", () => onOpen(index));
    const status = el("span", { className: "seg-status" });
    const list = el("ul", { className: "error-list", "aria-label": `Errors marked in segment ${index + 1}` });
    const slot = el("div", { className: "seg-tools" });
    const row = el(
      "section",
      { className: "seg-row", dataset: { index }, tabIndex: -1 },
      el("div", { className: "seg-head" }, el("h2", { className: "seg-title", id: titleId }, `Segment ${index + 1}`), status, open),
      el(
        "div",
        { className: hasSources ? "seg-texts two" : "seg-texts" },
        sourceCell?.box,
        targetCell.box,
        referenceCell?.box,
      ),
      list,
      slot,
    );
    rows.set(index, { row, status, open, list, slot, missing, texts: { [SOURCE]: sourceCell?.text, [TARGET]: targetCell.text } });
  }
  fill(els.segments, [...rows.values()].map((r) => r.row));

  function textCell(index, side, parts, cellLabel) {
    const node = rows.get(index).texts[side];
    if (!node) return;
    const text = state.text(index, side);
    const marks = marksFor(state, index, side);
    const key = `${index}:${side}`;
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
      const remove = el("button", { type: "button", className: "remove", "aria-label": `Remove ${errorLabel(state, error)}: ${what}` }, "Remove");
      remove.addEventListener("click", () => onRemove(error.client_id));
      row.append(remove);
    }
    return row;
  }

  function statusText(index) {
    if (!state.isReached(index)) return "Not reached yet";
    const parts = [];
    if (index === state.current) parts.push("Current");
    if (state.marksErrors) {
      const count = state.errorsOf(index).length;
      parts.push(count === 1 ? "1 error" : `${count} errors`);
    }
    if (state.scoring) parts.push(typeof state.scores[index] === "number" ? `score ${state.scores[index]}` : "not scored");
    return parts.join(" · ");
  }

  return {
    render(tools) {
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
        textCell(index, TARGET, { selectable: open, focusable: open && current }, "Translation");
        if (state.study.source_spans) textCell(index, SOURCE, { selectable: open, focusable: open && current }, "Source");
        else textCell(index, SOURCE, { selectable: false, focusable: false }, "Source");

        const errors = state.errorsOf(index);
        const removable = reached && !state.readOnly;
        const listSignature = JSON.stringify([errors, removable]);
        if (drawn.get(`list:${index}`) !== listSignature) {
          drawn.set(`list:${index}`, listSignature);
          const missing = errors.filter((e) => e.side === MISSING);
          fill(parts.missing, missing.map((e) => el("span", { className: `missing-chip ${severityClass(state, e.severity)}`, title: errorLabel(state, e) }, "[missing]")));
          fill(parts.list, errors.map((e) => errorRow(e, removable)));
          parts.list.hidden = errors.length === 0;
        }
        if (current && tools && tools.parentNode !== parts.slot) parts.slot.append(tools);
      }
    },
    row: (index) => rows.get(index)?.row ?? null,
    textElement: (index, side) => rows.get(index)?.texts[side] ?? null,
    cells: () => [...els.segments.querySelectorAll(".seg-text")],
    total,
  };
}
